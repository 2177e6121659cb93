"""inputanim.index() on a Dask distributed cluster (docs/SCALING.md).

    from distributed import Client
    import inputanim.dask
    client = Client("tcp://scheduler:8786")
    frame = inputanim.dask.index(["/archive/2019", "/archive/2020/*.bin"], client)

One worker lists the files (the paths must mean the same files on every worker: a shared file
system, absolute paths); the list is cut into contiguous parts, each worker validates the files
of its parts with the C++ core (without the GIL, `jobs` threads per part), and the parts' frames
are put together in the order of the list: the frame inputanim.index() returns for the same
paths. Every worker needs the inputanim package importable.
"""

import pandas as pd

import inputanim

__all__ = ["index"]


def _list(paths):
    return inputanim.list_files(paths)


def _index_part(files, named, jobs, level, layout, limits):
    return inputanim.index_files(files, named, jobs, level, layout, limits)


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
          limits=None):
    """inputanim.index() of files, folders and globs, the work spread over the workers of a Dask
    distributed `client`. partitions: how many parts the list of files is cut into (default: up to
    four per worker thread, at least 256 files each); jobs: validating threads per part. Returns
    one pandas DataFrame, row for row what inputanim.index() (and `inputanim index --jsonl`)
    gives."""
    files, named = client.submit(_list, paths_or_globs, pure=False).result()
    workers = sum(client.nthreads().values()) or 1
    limits = inputanim._limits(limits)
    futures = [
        client.submit(_index_part, files[start:end], named[start:end], jobs, level, layout,
                      limits, pure=False)
        for start, end in _parts(len(files), workers, partitions)
    ]
    # _parts gives at least one part, so that an empty list still makes the frame's columns.
    return pd.concat(client.gather(futures), ignore_index=True)
