"""Read, validate and resample MRTK input animation recordings.

    import inputanim
    rec = inputanim.open("InputAnimation.bin", copy=True)
    tip = rec.hand("left").joint("IndexTip")["position.x"]
    tip.times, tip.values            # read-only numpy views over the file's bytes
    frame = rec.to_pandas(60, curves=["camera.position.*"])

The numbers of a Recording are numpy views over the file's bytes, without a copy. A view over a
mapped file cannot be guarded: if another process truncates the file while a view is read, the
process dies with SIGBUS. open(path, copy=True) reads the file into memory first, the choice for
files that may change while they are open (the library's own reads, in validation and sampling,
are guarded either way).
"""

from collections.abc import Mapping
import errno
import glob
import operator
import os
import types
import warnings

import numpy as np

from . import _core
from ._core import Curve, DatabaseError
from .model import (BLOCKS, DEFAULT_MAX_IMPORT_BYTES, ImportRemark, InvalidImport, Model,
                    ModelCurve, ModelCurves, _write_all)

__all__ = ["open", "members", "validate", "index", "merge_index", "Recording", "Curve", "InvalidRecording",
           "IndexWarning", "DatabaseError", "upload_limits", "MAX_THREADS", "DEFAULT_MAX_ROWS",
           "Model", "ModelCurve", "ModelCurves", "InvalidImport", "ImportRemark", "BLOCKS",
           "DEFAULT_MAX_IMPORT_BYTES", "diff", "DIFF_GROUPS"]

# The most threads any count asks for (index's jobs, validate's threads, the Dask helpers' jobs):
# the ceiling of `inputanim index --jobs` and `validate --jobs`; more is a ValueError.
MAX_THREADS = _core.MAX_THREADS
# The row ceiling sample() (and to_pandas(), tidy(), poses()) keeps by default: that of
# `inputanim sample --max-rows`.
DEFAULT_MAX_ROWS = _core.DEFAULT_MAX_ROWS
# The size ceiling export() keeps by default: that of `inputanim export --max-output-bytes`.
DEFAULT_MAX_EXPORT_BYTES = 1 << 30


class InvalidRecording(ValueError):
    """A file that is not a structurally valid recording.

    Attributes: code (the stable error name, such as "truncated"), offset (the byte of the
    offending field), place, curve (its path, or None), keyframe and marker (indexes, or None),
    limit (for limit_exceeded), message (a sentence), and error (all of them as a dict, as
    `inputanim validate --json` reports them)."""

    def __init__(self, error, path=None):
        self.error = dict(error)
        self.path = path
        for key in ("code", "offset", "place", "curve", "keyframe", "marker", "limit", "message"):
            setattr(self, key, self.error.get(key))
        prefix = f"{path}: " if path is not None else ""
        super().__init__(f"{prefix}invalid: {self.message}")


def upload_limits():
    """The limits docs/SECURITY.md recommends for uploads from strangers, as a dict."""
    return _core.upload_limits()


def _limits(limits):
    """The limits as a dict of the keys of a report's checked_with.limits, each None (no limit) or
    an integer from 0 up; anything else is a ValueError naming the key."""
    if limits is None:
        return {}
    if isinstance(limits, str):
        if limits != "upload":
            raise ValueError(f"limits must be a dict or 'upload', not {limits!r}")
        return _core.upload_limits()
    limits = dict(limits)
    _core.check_limits(limits)
    return limits


def _path(name):
    """A path as the OS takes it: the bytes os.fsencode gives for a str (surrogate escapes, as
    os.listdir gives a name that is not UTF-8, included), bytes or an os.PathLike. Every path
    reaches the core through here. A NUL byte is a ValueError: the OS would read the path only up
    to it, another file."""
    path = os.fsencode(name)
    if b"\0" in path:
        raise ValueError(f"a path cannot hold a NUL byte: {name!r}")
    return path


def _integer(name, value, low, high):
    """An int (or numpy integer) from low to high; bool, float, str or out of range is a
    ValueError naming the parameter."""
    if not isinstance(value, bool):
        try:
            n = operator.index(value)
        except TypeError:
            n = None
        if n is not None and low <= n <= high:
            return n
    raise ValueError(f"{name} must be an integer from {low} to {high}, not {value!r}")


def _threads(name, value):
    """A thread count: None for one per core (at most MAX_THREADS), or 1 to MAX_THREADS."""
    if value is None:
        return min(os.cpu_count() or 1, MAX_THREADS)
    return _integer(name, value, 1, MAX_THREADS)


def _is_name(name):
    return isinstance(name, (str, os.PathLike))


def _bytes(data):
    return memoryview(data).cast("B")


def validate(name_or_bytes, level="full", layout="auto", limits=None, threads=1):
    """Checks a recording against the format: a path, "-" for standard input, or bytes (any
    buffer); gzip-compressed ones are recognised by their content and checked as they are
    inflated.

    Returns a dict with the fields of `inputanim validate --json`: path ("-" for bytes), valid,
    bytes, version, layout, has_camera, has_hands, has_gaze, curves, keyframes, markers, start,
    duration, warnings, warnings_found, error when the file is invalid, and compressed_bytes for
    gzip. level is "structure" or "full"; layout "auto", "compact" or "full"; limits a dict of
    max_bytes, max_keyframes_per_curve, max_total_keyframes, max_markers, max_marker_name_bytes,
    or "upload" for upload_limits(); each limit an integer or None for none, as the report's
    checked_with.limits gives them. threads: those that check a large input at level full, 1 to
    MAX_THREADS, or None for one per core. Runs without the GIL. Raises OSError when the input
    cannot be read, ValueError for a path with a NUL byte or a parameter out of range."""
    threads = _threads("threads", threads)
    if _is_name(name_or_bytes):
        return _core.validate_name(_path(name_or_bytes), level, layout, _limits(limits), threads)
    return _core.validate_buffer(_bytes(name_or_bytes), level, layout, _limits(limits), threads)


def open(name_or_bytes, copy=False, layout="auto", member=None, offset=None, size=None):
    """Opens a recording through the library's front door: a path, "-" for standard input, or
    bytes (any buffer). A plain file is mapped and its arrays are views over the mapping, or over
    a copy in memory with copy=True (recommended for files that may change while open: see the
    module's doc). Standard input that is not a file, gzip content (recognised by its first
    bytes, whatever the name) and bytes are always read into memory, which the arrays then view.

    A member of a tar or zip archive (docs/ARCHIVES.md) opens as a file does: by a path through
    the archive ("take.zip/session1/a.bin"), or open("take.zip", member="session1/a.bin"), after
    one walk of the archive's headers (the last member of that name); or, with the offset and
    size an index row gives (member_offset, member_size), where they say with no walk at all, the
    header before them checked to be that member's (InvalidRecording "header_mismatch" when the
    archive changed since). An index row itself (a dict, or a row of index()'s frame) opens what
    it describes. A member the archive holds as it is is mapped where it lies in the archive (its
    arrays are views over the archive's mapping); one compressed is inflated into memory.

    A path is a str (as os.listdir gives it, surrogate escapes included) or an os.PathLike; bytes
    are the content, not a name. A member name is a str (surrogate escapes included) or bytes.

    Raises InvalidRecording when the recording's structure is not valid (content errors, such as
    a NaN value, do not stop it: see Recording.check()), OSError when it cannot be read, and
    ValueError for a path with a NUL byte."""
    if _is_row(name_or_bytes):
        if member is not None or offset is not None or size is not None:
            raise ValueError("an index row says its member, offset and size itself")
        name_or_bytes, member, offset, size = _row_place(name_or_bytes)
    if member is not None:
        if not _is_name(name_or_bytes):
            raise ValueError("member= needs the archive's path")
        if (offset is None) != (size is None):
            raise ValueError("offset and size go together (an index row's member_offset and "
                             "member_size)")
        if offset is not None:
            offset = _integer("offset", offset, 0, (1 << 64) - 1)
            size = _integer("size", size, 0, (1 << 64) - 1)
        archive = os.fspath(name_or_bytes)
        rec, error = _core.open_member(_path(archive), _member_name(member), offset, size,
                                       bool(copy), layout)
        name = os.path.join(os.fsdecode(archive), os.fsdecode(_member_name(member)))
        if error is not None:
            raise InvalidRecording(error, name)
        return Recording(rec, name, archive=_path(archive))
    if offset is not None or size is not None:
        raise ValueError("offset and size are a member's: give member= too")
    if _is_name(name_or_bytes):
        name = os.fspath(name_or_bytes)
        rec, error = _core.open(_path(name), bool(copy), layout)
    else:
        name = None
        rec, error = _core.open_buffer(_bytes(name_or_bytes), layout)
    if error is not None:
        raise InvalidRecording(error, name)
    return Recording(rec, name)


def _is_row(value):
    """An index row: a dict, or a row of index()'s frame (a pandas Series), with a path."""
    return not isinstance(value, (str, bytes, bytearray, memoryview, os.PathLike)) and \
        hasattr(value, "keys") and "path" in value.keys()


def _missing(value):
    """A row's null: None, NaN, or pandas' NA (a frame's nulls)."""
    return value is None or (isinstance(value, float) and value != value) or \
        type(value).__name__ == "NAType"


def _field(row, name):
    """A row's text field as bytes: the exact bytes of `name`_bytes when the name was not UTF-8,
    else the text; None when absent or null."""
    raw = row.get(name + "_bytes")
    if not _missing(raw):
        return bytes.fromhex(raw)
    value = row.get(name)
    return None if _missing(value) else os.fsencode(value)


def _row_place(row):
    """(path, member, offset, size) of what an index row describes: a file, or a member of an
    archive (by its offset and size when the archive holds its bytes as they are)."""
    archive = _field(row, "archive")
    member = _field(row, "member")
    if archive is None or member is None:
        if archive is not None:
            raise ValueError("the row is an archive whose walk stopped, not a recording")
        return os.fsdecode(_field(row, "path")), None, None, None
    offset = row.get("member_offset")
    size = row.get("member_size")
    if _missing(offset):
        return os.fsdecode(archive), member, None, None
    return os.fsdecode(archive), member, int(offset), int(size)


def _member_name(member):
    name = os.fsencode(member)
    if b"\0" in name:
        raise ValueError(f"a member name cannot hold a NUL byte: {member!r}")
    return name


def members(path):
    """The entries of the tar or zip archive at `path`, in order: a list of dicts with name (a
    str, surrogate escapes for bytes that are not UTF-8), ordinal (from 0; members of one name
    are told apart by it), kind ("file", "directory", "symlink", ...), size, offset (where its
    bytes lie in the archive when it holds them as they are, else None), method ("stored",
    "deflate", or the filter of a compressed tar) and encrypted. Raises OSError when it cannot be
    read (NotADirectoryError when it is no archive), and InvalidRecording with the archive's
    error (such as "archive_truncated") when its walk stopped; the error's members attribute then
    holds the entries before it."""
    entries, fault = _core.members(_path(path))
    for entry in entries:
        entry["name"] = os.fsdecode(entry["name"])
    if fault is not None:
        error = InvalidRecording(fault, os.fspath(path))
        error.members = entries
        raise error
    return entries


class IndexWarning(UserWarning):
    """A folder index() could not list (its files are missing from the index, and prune leaves
    the rows under it alone)."""


# The pandas type of each type of index column: the ones that keep their nulls (a row of an
# unreadable file has only path, valid, error and checked_with); object columns keep strings,
# lists and dicts as they are.
_COLUMN_DTYPES = {"text": object, "object": object, "flag": bool, "optional_flag": "boolean",
                  "count": "Int64", "number": "float64"}

# The fields of `inputanim index --jsonl` (docs/CLI.md), the columns of index()'s frame in its
# order, with their pandas types: the core's one table of index columns.
INDEX_COLUMNS = {name: _COLUMN_DTYPES[kind] for name, kind in _core.INDEX_COLUMNS}

# The columns index(metrics=True) adds: the metrics (a dict as `inputanim metrics --json` gives
# it, with measured_with; None for an invalid file) and, for a valid file that could not be
# measured, why.
METRICS_COLUMNS = {name: _COLUMN_DTYPES[kind] for name, kind in _core.METRICS_COLUMNS}


def _index_frame(values, metrics=False):
    """The frame of the core's columns (name -> one value per row)."""
    import pandas as pd

    columns = {}
    for name, dtype in (INDEX_COLUMNS | METRICS_COLUMNS if metrics else INDEX_COLUMNS).items():
        columns[name] = pd.Series(values[name], dtype=dtype) if dtype is object else pd.array(
            values[name], dtype=dtype)
    return pd.DataFrame(columns)


def _operands(paths):
    """The operands `inputanim index` would get from a shell: each glob replaced by the sorted
    paths it matches (unless a file has that very name)."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    operands = []
    for path in map(_path, paths):
        if path == b"-" or not glob.has_magic(path) or os.path.lexists(path):
            operands.append(path)
            continue
        matches = sorted(glob.glob(path, recursive=True))
        if not matches:
            raise FileNotFoundError(errno.ENOENT, "no file matches", os.fsdecode(path))
        operands.extend(matches)
    return operands


def list_files(paths):
    """The files index() reads for these paths, in its order, as (paths, named): folders walked as
    `inputanim index` walks them, globs expanded. Raises FileNotFoundError (or the OSError of the
    lstat) for a path that does not exist; warns (IndexWarning) of folders it cannot list."""
    files, named, missing, unlisted = _core.list_files(_operands(paths))
    if missing:
        path, code = missing[0]
        raise OSError(code, os.strerror(code), path)
    for path, code in unlisted:
        warnings.warn(f"{path}: {os.strerror(code)}", IndexWarning, stacklevel=3)
    return files, named


def _index_result(result, metrics):
    columns, totals, notes = result
    for note in notes:
        warnings.warn(note, IndexWarning, stacklevel=3)
    frame = _index_frame(columns, metrics)
    # The counts of the command's last line: files, recordings, invalid, unreadable, other,
    # unchanged, pruned.
    frame.attrs["totals"] = totals
    return frame


def index_files(files, named=None, jobs=1, level="structure", layout="auto", limits=None,
                sqlite=None, force=False, metrics=False, archives=True):
    """index() of files that list_files() found (named: which were given by name, indexed
    whatever their content; by default all are found by a walk), without walking again. With
    sqlite, their rows also go into that database as `inputanim index --sqlite` writes them."""
    files = [_path(f) for f in files]
    if named is None:
        named = [False] * len(files)
    return _index_result(
        _core.index_files(files, list(named), _threads("jobs", jobs), level, layout,
                          _limits(limits), _database(sqlite), bool(force), bool(metrics),
                          bool(archives)), metrics)


def index(paths, jobs=None, level="structure", layout="auto", limits=None, sqlite=None,
          force=False, prune=False, shard=None, metrics=False, archives=True):
    """Summarises every recording under `paths` (files, folders, globs) as `inputanim index
    --jsonl` does: a pandas DataFrame with one row per recording, its columns the JSON Lines
    fields (INDEX_COLUMNS; warnings a list of dicts, error a dict, null where the CLI has null or
    no field), in the CLI's order. Files found in folders are recordings when their content
    (inflated, for gzip) starts with the magic; files named directly are indexed whatever they
    hold. `jobs` threads (1 to MAX_THREADS; None, the default: one per core) validate with the C++
    core without the GIL. Paths are str (surrogate escapes included), bytes or os.PathLike; one
    with a NUL byte is a ValueError.

    sqlite: also keep the rows in that SQLite database, as `inputanim index --sqlite` does (the
    same schema; files it holds unchanged under the same options are not read again unless
    force); prune: delete the database's rows of files that are gone under the paths walked
    whole; shard=(K, N): only the files of shard K of N (`index --shard K/N`); metrics: also
    measure every valid recording (`index --metrics`): columns metrics and metrics_error
    (METRICS_COLUMNS), and the summary columns in the database. A tar or zip archive among the
    paths or found in a folder is indexed member by member (a row per recording in it, with the
    archive and member columns, docs/ARCHIVES.md); archives=False (`--no-archives`) takes it for
    some other file.

    frame.attrs["totals"] holds the counts the command ends with (files, recordings, invalid,
    unreadable, other, unchanged, pruned). Raises OSError for a path that does not exist,
    DatabaseError for a database that is not an inputanim index; warns (IndexWarning) of folders
    it cannot list."""
    jobs = _threads("jobs", jobs)
    operands = _operands(paths)
    for operand in operands:
        if operand != b"-":
            # By its str (os.fsdecode): an OSError names the path as every other one does.
            os.lstat(os.fsdecode(operand))
    if (prune or force) and sqlite is None:
        raise ValueError("prune and force need sqlite")
    k, n = (0, 1) if shard is None else shard
    return _index_result(
        _core.index_paths(operands, jobs, level, layout, _limits(limits), _database(sqlite),
                          bool(force), bool(prune), int(k), int(n), bool(metrics),
                          bool(archives)), metrics)


def merge_index(output, inputs):
    """`inputanim index merge OUTPUT INPUTS...`: copies the rows of index databases (such as the
    shards of index(..., shard=)) into `output`, created when it does not exist; later inputs win
    for the same path. Raises DatabaseError for an input that is not an inputanim index, and
    leaves `output` as it was for that input."""
    output = _database(output)
    single = isinstance(inputs, (str, bytes, os.PathLike))
    names = [_database(name) for name in ([inputs] if single else inputs)]
    problem = _core.output_is_input(output, names)
    if problem is not None:
        raise ValueError(problem)
    _core.merge_index(output, names)


def _database(name):
    if name is None:
        return None
    name = _path(name)
    if not name:
        raise ValueError("an empty database name")
    return name


# The strings of events()'s code columns.
_HANDS = np.array(["left", "right"], dtype=object)
_TRACKING_EVENTS = np.array(["tracked", "gap"], dtype=object)


def _metrics_params(arguments):
    params = {k: v for k, v in arguments.items() if k not in ("self", "kind", "pd")}
    if params["max_samples"] is None:
        del params["max_samples"]
    return params


# The source and joint of a curve path, and the channel: the columns of tidy().
def _split_path(path):
    parts = path.split(".")
    if parts[0] == "camera" or parts[0] == "gaze":
        return parts[0], None, ".".join(parts[1:])
    source = ".".join(parts[:2])
    if parts[2] == "joint":
        return source, parts[3], ".".join(parts[4:])
    return source, None, ".".join(parts[2:])


class Group(Mapping):
    """The curves of one pose (camera, a joint) or ray (gaze): channel ("position.x",
    "rotation.w", "origin.x", ...) -> Curve."""

    def __init__(self, prefix, curves):
        self.prefix = prefix
        self._curves = curves

    def __getitem__(self, channel):
        return self._curves[channel]

    def __iter__(self):
        return iter(self._curves)

    def __len__(self):
        return len(self._curves)

    def __repr__(self):
        return f"<inputanim.Group {self.prefix}: {', '.join(self._curves)}>"


class Hand:
    """The curves of one hand: tracked, pinching (bool curves) and joint(name) -> Group."""

    def __init__(self, recording, side):
        self._recording = recording
        self.side = side
        self.tracked = recording.curves[f"hand.{side}.tracked"]
        self.pinching = recording.curves[f"hand.{side}.pinching"]

    def joint(self, name):
        return self._recording._group(f"hand.{self.side}.joint.{name}")


class Recording:
    """A structurally valid recording, from inputanim.open(). Immutable: safe to share between
    threads."""

    def __init__(self, core, path, archive=None):
        self._core = core
        # The name it was opened by ("-" for standard input), None for bytes.
        self.path = path
        # The files it was read from, which a model of it is never written over: the file, or a
        # member's archive.
        self._inputs = [archive] if archive is not None else \
            [core.input_name] if core.input_name is not None else []
        self.summary = core.summary
        self.version = self.summary["version"]
        self.layout = self.summary["layout"]
        self.curves = types.MappingProxyType({c.path: c for c in core.curves()})

    @property
    def buffer(self):
        """All the bytes of the file as a read-only uint8 array (the base of every view)."""
        return self._core.buffer

    @property
    def mapped(self):
        """True when the bytes are a mapping of the named file, False for a copy in memory."""
        return self._core.mapped

    def metrics(self, rate=60.0, joint="Palm", fixation_velocity=30.0, merge_gap=0.075,
                merge_angle=0.5, min_fixation=0.1, max_samples=None):
        """The metrics of docs/METRICS.md (hand tracking and pinches, hand and head motion, gaze
        fixations and saccades, measured on the grid t0 + i / rate) as a one-row pandas
        DataFrame with the columns of `inputanim metrics --csv` (left_*, right_*, head_*, gaze_*;
        NaN/None for a group the recording lacks). Runs without the GIL. Raises ValueError for
        parameters or a grid measure() refuses (more than max_samples samples, say)."""
        import pandas as pd

        rows = self._core.metrics(_metrics_params(locals()))
        return pd.DataFrame(rows)

    def events(self, kind, rate=60.0, joint="Palm", fixation_velocity=30.0, merge_gap=0.075,
               merge_angle=0.5, min_fixation=0.1, max_samples=None):
        """The events of one kind as a pandas DataFrame, `inputanim metrics --events KIND --csv`:
        "tracking" (hand, event tracked or gap, start, end, duration, start_sample, end_sample),
        "pinch" (hand, start, ...), "fixations" (start, ..., direction_x/y/z, origin_x/y/z) or
        "saccades" (start, ..., amplitude). Times are seconds, angles degrees; hand and event are
        str (object columns), the times, durations and vectors float64, the sample indices
        int64, also when there is no event."""
        import pandas as pd

        # One array per column, filled by the library (no Python object per event); the codes
        # of hand and event become references to two strings.
        columns = self._core.events(_metrics_params(locals()), kind)
        if "hand" in columns:
            columns["hand"] = _HANDS[columns["hand"]]
        if "event" in columns:
            columns["event"] = _TRACKING_EVENTS[columns["event"]]
        return pd.DataFrame(columns, copy=False)

    def check(self):
        """Validates the content at level full (reading every keyframe): (warnings, error), the
        error a dict as validate() reports it, None when the content is valid."""
        return self._core.check()

    @property
    def warnings(self):
        """The warnings of a validation at level full, as dicts (code, curve, keyframe, count,
        message). Reads every keyframe."""
        return self._core.check()[0]

    @property
    def markers(self):
        """The markers as a pandas DataFrame (time, name), None when the file has no marker
        list."""
        markers = self._core.markers()
        if markers is None:
            return None
        import pandas as pd

        times, names = markers
        return pd.DataFrame({"time": times, "name": pd.Series(names, dtype=object)})

    def _group(self, prefix):
        start = prefix + "."
        curves = {p[len(start):]: c for p, c in self.curves.items() if p.startswith(start)}
        if not curves:
            raise KeyError(f"the recording has no curves {prefix}.*")
        return Group(prefix, curves)

    @property
    def camera(self):
        """The camera pose's curves (a Group); KeyError when the file has no camera block."""
        return self._group("camera")

    @property
    def gaze(self):
        """The eye gaze ray's curves (a Group); KeyError when the file has no gaze block."""
        return self._group("gaze")

    def hand(self, side):
        """The curves of hand "left" or "right" (a Hand)."""
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right', not {side!r}")
        if f"hand.{side}.tracked" not in self.curves:
            raise KeyError("the recording has no hand curves")
        return Hand(self, side)

    def export(self, path_or_file, format=None, rate=60.0, start=None, stop=None,
               max_bytes=DEFAULT_MAX_EXPORT_BYTES):
        """Writes the recording as `inputanim export` does (docs/EXPORT.md): "glb" or "gltf"
        (glTF 2.0 sampled at `rate` from start to stop, by default the first and last key
        times) or "anim" (a Unity AnimationClip with the recording's own keys; no start or
        stop). path_or_file: a path, written through a temporary file renamed once complete
        (format None takes its extension), or a binary file object, whose write() gets the
        bytes (format required). Returns the number of bytes written. Raises ValueError for an
        export refused (more than max_bytes, an empty window, ...), OSError for a failed write."""
        is_file = hasattr(path_or_file, "write")
        path = None if is_file else _path(path_or_file)
        if format is None:
            if is_file:
                raise ValueError("format is required to write to a file object")
            format = os.fsdecode(os.path.splitext(path)[1])[1:]
        if format not in ("glb", "gltf", "anim"):
            raise ValueError(f"format must be 'glb', 'gltf' or 'anim', not {format!r}")
        max_bytes = _integer("max_bytes", max_bytes, 1, 2**64 - 1)
        args = (format, float(rate), None if start is None else float(start),
                None if stop is None else float(stop), max_bytes)
        if not is_file:
            return self._core.export(*args, path)
        return _write_all(path_or_file, self._core.export(*args, None))

    def to_model(self):
        """The recording as a Model (the library's read_model), to edit and write: an unchanged
        model writes back the file's bytes (a v1 file in the encoder's canonical form, which is
        every file MRTK writes: marker name lengths in their shortest form). A 2019 file's model
        is that of the v1.0 file with its curves, with an empty marker list when it has none: it
        writes what `inputanim convert --version 1.0` writes. Writing it over the file it was
        read from is refused."""
        return Model._from_core(self._core.to_model(), self._inputs)

    def sample(self, rate, curves=None, start=None, stop=None, max_rows=DEFAULT_MAX_ROWS):
        """Resamples curves onto the time grid start + i / rate up to stop (by default the
        recording's first and last key times), with the library's resampler (exactly MRTK's
        evaluation). curves: a glob or a list of globs on curve paths (all curves when None).

        Returns (times, values): float32 arrays of shape (rows,) and (rows, curves), the columns
        in file order; columns(curves) gives their paths. Runs without the GIL. Raises ValueError
        as `inputanim sample` refuses: a grid of more than max_rows rows (before anything is
        allocated), start after stop (or after the recording's last key time when stop is not
        given; stop before its first when start is not), a bound that is not a finite float32."""
        times, values, _ = self._core.sample(float(rate), _globs(curves), start, stop,
                                             max_rows=_max_rows(max_rows))
        return times, values

    def columns(self, curves=None):
        """The paths of the columns sample() returns for these globs."""
        # A grid of one row at time 0: the columns without sampling the recording.
        return self._core.sample(1.0, _globs(curves), 0.0, 0.0)[2]

    def to_pandas(self, rate, curves=None, start=None, stop=None, max_rows=DEFAULT_MAX_ROWS):
        """sample() as a wide DataFrame: one column per curve path, indexed by time."""
        import pandas as pd

        times, values, paths = self._core.sample(float(rate), _globs(curves), start, stop,
                                                 max_rows=_max_rows(max_rows))
        return pd.DataFrame(values, index=pd.Index(times, name="time"), columns=paths)

    def tidy(self, rate, curves=None, start=None, stop=None, max_rows=DEFAULT_MAX_ROWS):
        """sample() as a long DataFrame: one row per time and curve, with columns time, source
        (camera, hand.left, hand.right, gaze), joint (None outside hands' joints), channel
        (position.x, rotation.w, origin.x, tracked, ...) and value; the curves one after the
        other, each in time order."""
        import pandas as pd

        times, values, paths = self._core.sample(float(rate), _globs(curves), start, stop,
                                                 curve_major=True, max_rows=_max_rows(max_rows))
        rows, cols = values.shape
        split = [_split_path(p) for p in paths]

        def column(i):
            labels = [s[i] for s in split]
            categories = sorted({label for label in labels if label is not None})
            code = {label: n for n, label in enumerate(categories)}
            # The narrowest codes pandas keeps as they are (it would convert wider ones).
            dtype = np.int8 if len(categories) < 128 else np.int16
            codes = np.array([code.get(label, -1) for label in labels], dtype=dtype)
            return pd.Categorical.from_codes(_each_repeated(codes, rows), categories=categories)

        # time and value in one float32 block from the start: pandas would otherwise merge the
        # two columns into one block itself, with two more copies.
        time_value = np.empty((2, rows * cols), dtype=np.float32)
        np.copyto(time_value[0].reshape(cols, rows), times)
        # Curve-major values: their transpose is contiguous, so this is one plain copy.
        np.copyto(time_value[1], values.T.reshape(-1))
        del values
        frame = pd.DataFrame(time_value.T, columns=["time", "value"], copy=False)
        for i, name in enumerate(("source", "joint", "channel")):
            frame.insert(1 + i, name, column(i))
        return frame

    def poses(self, source, rate, start=None, stop=None, max_rows=DEFAULT_MAX_ROWS):
        """The pose of `source` ("camera" or a joint such as "hand.left.IndexTip" or
        "hand.left.joint.IndexTip") on the time grid: (times, N x 7 array of position x, y, z and
        rotation x, y, z, w as MRTK plays them), or for "gaze" N x 6 (origin, direction)."""
        parts = source.split(".")
        if len(parts) == 3 and parts[0] == "hand":
            source = f"{parts[0]}.{parts[1]}.joint.{parts[2]}"
        if source == "gaze":
            channels = ["origin.x", "origin.y", "origin.z",
                        "direction.x", "direction.y", "direction.z"]
        else:
            channels = ["position.x", "position.y", "position.z",
                        "rotation.x", "rotation.y", "rotation.z", "rotation.w"]
        paths = [f"{source}.{c}" for c in channels]
        missing = [p for p in paths if p not in self.curves]
        if missing:
            raise KeyError(f"the recording has no curve {missing[0]}")
        times, values, got = self._core.sample(float(rate), paths, start, stop,
                                               max_rows=_max_rows(max_rows))
        # The resampler returns file order, which is channel order.
        assert got == paths
        return times, values

    def __repr__(self):
        return (f"<inputanim.Recording {self.path!r}: v{self.version} {self.layout}, "
                f"{len(self.curves)} curves>")


def _each_repeated(a, n):
    """[a0]*n + [a1]*n + ...: one contiguous copy of a broadcast view, cheaper than np.repeat."""
    return np.ascontiguousarray(np.broadcast_to(a[:, None], (len(a), n))).reshape(-1)


def _max_rows(value):
    # `sample --max-rows` takes any count up to 2^64 - 1.
    return _integer("max_rows", value, 0, 2**64 - 1)


def _globs(curves):
    if curves is None:
        return []
    if isinstance(curves, str):
        return [curves]
    return list(curves)


# The groups of diff()'s motion frames, in the report's order, by the prefix of their poses' names.
DIFF_GROUPS = ("camera", "hand.left", "hand.right", "gaze")

# The columns of a motion frame (the fields of `inputanim diff --json`'s motion entries after
# name, the frame's index) and their dtypes: a JSON null is NaN in a float column.
_MOTION_COLUMNS = {"kind": object, "samples": np.int64, "max": np.float64,
                   "max_time": np.float64, "rms": np.float64, "first_exceeded": np.float64,
                   "first_exceeded_error": np.float64, "exceeded_samples": np.int64}


def _number(name, value):
    """A real number as a float; bool, str or anything else is a ValueError naming the
    parameter (the core judges the value)."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            pass
    raise ValueError(f"{name} must be a number, not {value!r}")


def _optional_number(name, value):
    return None if value is None else _number(name, value)


def _opened(side):
    """A Recording as it is; anything else through open()."""
    return side if isinstance(side, Recording) else open(side)


def _motion_frames(entries):
    """`diff --json`'s motion list as {group: DataFrame}, one row per pose indexed by its name,
    the groups in DIFF_GROUPS order (only those with a pose both sides hold)."""
    import pandas as pd

    grouped = {}
    for entry in entries:
        group = next(g for g in DIFF_GROUPS if entry["name"].startswith(g + "."))
        grouped.setdefault(group, []).append(entry)
    frames = {}
    for group in DIFF_GROUPS:
        rows = grouped.get(group)
        if rows is None:
            continue
        columns = {}
        for column, dtype in _MOTION_COLUMNS.items():
            values = [r[column] for r in rows]
            if dtype is np.float64:
                values = [np.nan if v is None else v for v in values]
            columns[column] = np.array(values, dtype=dtype)
        frames[group] = pd.DataFrame(columns, index=pd.Index([r["name"] for r in rows],
                                                             dtype=object, name="name"))
    return frames


def diff(a, b, *, rate=60.0, start=None, stop=None, position=0.001, angle=0.5, time=0.02,
         align=False, offset=0.0, keys=False, max_rows=DEFAULT_MAX_ROWS):
    """Compares two recordings as `inputanim diff` does (docs/DIFF.md): their structure, their
    motion as MRTK plays it on the grid start + i / rate up to stop (by default from the earlier
    first key time to the later duration), their tracked and pinch intervals, their markers and,
    with keys=True, their keys bit for bit. a and b: each a Recording or anything open() takes (a
    path, bytes, an archive's member path, an index row), which only has to be sound at level
    structure.

    position (metres), angle (degrees) and time (seconds) are the tolerances; offset is B's time
    of a moment less A's (B compared at each time of A plus it), align=True estimates it from the
    heads' motion instead. A grid of more than max_rows rows is refused before a row is compared.

    Returns a dict with the keys and values of `inputanim diff --json` (a["path"] and
    b["path"] the Recordings' path, None for bytes), except "motion": {group: DataFrame} for the
    groups "camera", "hand.left", "hand.right" and "gaze" that both sides hold (DIFF_GROUPS), one
    row per pose indexed by its name ("hand.left.joint.IndexTip.position") with the columns kind,
    samples, max, max_time, rms, first_exceeded, first_exceeded_error and exceeded_samples (NaN
    for the report's nulls). report["same"] is the verdict. Runs without the GIL.

    Raises what open() raises for a side (InvalidRecording, OSError), and ValueError for an
    option out of range (a tolerance negative or not a number, angle above 180, rate not above 0,
    start after stop, more than max_rows rows, align with an offset) and for takes that align
    cannot align."""
    options = dict(rate=_number("rate", rate), start=_optional_number("start", start),
                   stop=_optional_number("stop", stop), position=_number("position", position),
                   angle=_number("angle", angle), time=_number("time", time),
                   offset=_number("offset", offset), align=bool(align), keys=bool(keys),
                   max_rows=_max_rows(max_rows))
    if options["align"] and options["offset"] != 0.0:
        raise ValueError("align=True estimates the offset: give align or offset, not both")
    a = _opened(a)
    b = _opened(b)
    report = _core.compare(a._core, b._core, **options)
    report["a"]["path"] = a.path
    report["b"]["path"] = b.path
    report["motion"] = _motion_frames(report["motion"])
    return report


# inputanim.testing after what it uses: `import inputanim` is enough to reach its assertions.
from . import testing  # noqa: E402
