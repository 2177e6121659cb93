"""inputanim.index() on a Dask distributed cluster (docs/SCALING.md).

    from distributed import Client
    import inputanim.dask
    client = Client("tcp://scheduler:8786")
    frame = inputanim.dask.index(["/archive/2019", "/archive/2020/*.bin"], client,
                                 sqlite="archive.db")

One worker lists the files (the paths must mean the same files on every worker: a shared file
system, absolute paths); the list is cut into contiguous parts, each worker validates the files
of its parts with the C++ core (without the GIL, `jobs` threads per part), and the parts' frames
are put together in the order of the list: the frame inputanim.index() returns for the same
paths. With sqlite, each part's rows are also written by its worker into a database of the
command's schema, sent back as bytes, and merged into that one file on this machine (as `inputanim
index merge` does), so the workers need no shared writable folder. Every worker needs the
inputanim package importable.
"""

import os
import tempfile

import pandas as pd

import inputanim

__all__ = ["index"]


def _list(paths):
    return inputanim.list_files(paths)


def _index_part(files, named, jobs, level, layout, limits, database, metrics, archives):
    """The part's frame, and with `database` the bytes of an index database of its rows."""
    if not database:
        return inputanim.index_files(files, named, jobs, level, layout, limits,
                                     metrics=metrics, archives=archives), None
    handle, name = tempfile.mkstemp(suffix=".db", prefix="inputanim-part-")
    os.close(handle)
    try:
        frame = inputanim.index_files(files, named, jobs, level, layout, limits, sqlite=name,
                                      metrics=metrics, archives=archives)
        with open(name, "rb") as f:
            return frame, f.read()
    finally:
        os.unlink(name)


def _merge(output, parts):
    """Merges the parts' databases (bytes) into `output`, through files next to it."""
    folder = os.path.dirname(os.path.abspath(output))
    names = []
    try:
        for part in parts:
            handle, name = tempfile.mkstemp(suffix=b".db", prefix=b".inputanim-part-", dir=folder)
            names.append(name)
            with os.fdopen(handle, "wb") as f:
                f.write(part)
        inputanim.merge_index(output, names)
    finally:
        for name in names:
            os.unlink(name)


def _parts(count, workers, partitions):
    """[start, end) bounds of contiguous parts of `count` files."""
    if partitions is None:
        # A few parts per worker thread: a slow worker does not hold the others up for long,
        # and a part is large enough that the cost of a task (about a millisecond) is small.
        partitions = max(1, min(4 * workers, -(-count // 256)))
    partitions = max(1, min(partitions, count))
    bounds = [count * i // partitions for i in range(partitions + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def index(paths_or_globs, client, partitions=None, jobs=1, level="structure", layout="auto",
          limits=None, sqlite=None, metrics=False, archives=True):
    """inputanim.index() of files, folders and globs, the work spread over the workers of a Dask
    distributed `client`. partitions: how many parts the list of files is cut into (default: up to
    four per worker thread, at least 256 files each); jobs: validating threads per part; sqlite:
    also write the rows into this SQLite database (created, or updated: rows of the same paths are
    replaced) with the schema of `inputanim index --sqlite`; metrics: also measure every valid
    recording (`index --metrics`); archives: index the recordings inside the tar and zip archives
    found (an archive is walked whole by the part that lists it). Returns one pandas DataFrame, row for row what
    inputanim.index() (and `inputanim index --jsonl`) gives. Paths, jobs (1 to
    inputanim.MAX_THREADS) and limits are checked here, before any work is sent, as index()
    checks them: a ValueError for a path with a NUL byte or a value out of range."""
    if isinstance(paths_or_globs, (str, bytes, os.PathLike)):
        paths_or_globs = [paths_or_globs]
    paths_or_globs = [inputanim._path(path) for path in paths_or_globs]
    if sqlite is not None:
        sqlite = inputanim._database(sqlite)
    jobs = inputanim._threads("jobs", jobs)
    limits = inputanim._limits(limits)
    files, named = client.submit(_list, paths_or_globs, pure=False).result()
    workers = sum(client.nthreads().values()) or 1
    futures = [
        client.submit(_index_part, files[start:end], named[start:end], jobs, level, layout,
                      limits, sqlite is not None, bool(metrics), bool(archives), pure=False)
        for start, end in _parts(len(files), workers, partitions)
    ]
    # _parts gives at least one part, so that an empty list still makes the frame's columns.
    results = client.gather(futures)
    if sqlite is not None:
        _merge(sqlite, [database for _, database in results])
    return pd.concat([frame for frame, _ in results], ignore_index=True)
