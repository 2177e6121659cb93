"""The writer's model (include/inputanim/writer.hpp) in numpy: a recording to edit or build, written
by the library's encoder.

    m = inputanim.open("take.bin").to_model()
    m.curves["camera.position.y"].values += 0.1
    m.markers.append((1.5, "jump"))
    m.write("edited.bin")
"""

from collections.abc import Mapping
import errno
import os

import numpy as np

from . import _core

__all__ = ["Model", "ModelCurve", "InvalidImport", "ImportRemark", "BLOCKS",
           "DEFAULT_MAX_IMPORT_BYTES"]

# The blocks a model may hold, in file order.
BLOCKS = ("camera", "hands", "gaze")
# The largest input Model.read reads unless limits say otherwise: `inputanim convert --max-bytes`'s
# default.
DEFAULT_MAX_IMPORT_BYTES = 1 << 30

# The curve paths in curve id order, which is file order; and each path's block.
_PATHS = tuple(_core.curve_paths())
_INDEX = {path: i for i, path in enumerate(_PATHS)}


def _block_of(path):
    first = path.split(".", 1)[0]
    return "hands" if first == "hand" else first


_BOOL_CURVES = frozenset(p for p in _PATHS if p.endswith((".tracked", ".pinching")))

# The fields of a key after time and value, with MRTK's values for a linear key (which the compact
# layout implies).
_FLOAT_FIELDS = ("times", "values", "in_tangents", "out_tangents", "in_weights", "out_weights")
_DEFAULTS = {"in_tangents": 0.0, "out_tangents": 0.0, "in_weights": 0.0, "out_weights": 0.0,
             "weighted_modes": 3}


def _float32(name, a):
    array = np.array(a, dtype="<f4", copy=True, ndmin=1)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {array.shape}")
    return array


def _int32(name, a):
    array = np.asarray(a)
    if array.size and array.dtype.kind not in "iub":
        raise ValueError(f"{name} must hold integers, not {array.dtype}")
    if array.size and (array.min() < -2**31 or array.max() >= 2**31):
        raise ValueError(f"{name} must hold Int32 values")
    array = np.array(array, dtype="<i4", copy=True, ndmin=1)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {array.shape}")
    return array


def _wrap(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or \
            not -2**31 <= value < 2**31:
        raise ValueError(f"{name} must be an Int32 (Unity's WrapMode: 0, 1, 2, 4 or 8), "
                         f"not {value!r}")
    return int(value)


class ModelCurve:
    """The keys of one curve of a Model: times, values, in_tangents, out_tangents, in_weights,
    out_weights (float32 arrays) and weighted_modes (int32), one entry per key, as Curve names
    them; pre_wrap and post_wrap (Unity's WrapMode, 8 as MRTK writes). Every array is the
    curve's own (writable); assigning one converts it to its dtype. Tangents, weights and modes
    default to MRTK's linear key (0, 0, 0, 0, 3), the key the compact layout implies; a bool
    curve (tracked, pinching) keeps only times and values in a file."""

    def __init__(self, times=(), values=(), in_tangents=None, out_tangents=None, in_weights=None,
                 out_weights=None, weighted_modes=None, pre_wrap=8, post_wrap=8):
        self.times = times
        self.values = values
        n = len(self.times)
        given = {"in_tangents": in_tangents, "out_tangents": out_tangents,
                 "in_weights": in_weights, "out_weights": out_weights,
                 "weighted_modes": weighted_modes}
        for name, value in given.items():
            setattr(self, name, np.full(n, _DEFAULTS[name]) if value is None else value)
        self.pre_wrap = pre_wrap
        self.post_wrap = post_wrap

    def __setattr__(self, name, value):
        if name in _FLOAT_FIELDS:
            value = _float32(name, value)
        elif name == "weighted_modes":
            value = _int32(name, value)
        elif name in ("pre_wrap", "post_wrap"):
            value = _wrap(name, value)
        else:
            raise AttributeError(f"a ModelCurve has no field {name!r}")
        object.__setattr__(self, name, value)

    def __len__(self):
        return len(self.times)

    def copy(self):
        return ModelCurve(self.times, self.values, self.in_tangents, self.out_tangents,
                          self.in_weights, self.out_weights, self.weighted_modes, self.pre_wrap,
                          self.post_wrap)

    def _core_tuple(self):
        return (self.pre_wrap, self.post_wrap, self.times, self.values, self.in_tangents,
                self.out_tangents, self.in_weights, self.out_weights, self.weighted_modes)

    def __repr__(self):
        return f"<inputanim.ModelCurve: {len(self)} keys, wrap {self.pre_wrap}/{self.post_wrap}>"


def _as_curve(path, value):
    if isinstance(value, ModelCurve):
        return value
    if isinstance(value, Mapping):
        return ModelCurve(**value)
    try:
        times, values = value
    except (TypeError, ValueError):
        raise ValueError(f"{path}: a curve is a ModelCurve, a dict of its fields or a pair "
                         f"(times, values), not {type(value).__name__}") from None
    return ModelCurve(times, values)


class ModelCurves(Mapping):
    """Every curve of the format, by path ("camera.position.x", in file order, as curve_paths()
    names them) -> ModelCurve, also those of blocks the model does not hold (which must stay
    empty to be written). Assigning a ModelCurve, a dict of its fields or a pair (times, values)
    replaces a curve; a path that names no curve is a KeyError."""

    def __init__(self):
        self._curves = {path: ModelCurve() for path in _PATHS}

    def __getitem__(self, path):
        return self._curves[path]

    def __setitem__(self, path, value):
        if path not in self._curves:
            raise KeyError(f"no curve is named {path!r}")
        self._curves[path] = _as_curve(path, value)

    def __iter__(self):
        return iter(self._curves)

    def __len__(self):
        return len(self._curves)

    def __repr__(self):
        held = sum(1 for c in self._curves.values() if len(c))
        return f"<inputanim.ModelCurves: {held} of {len(self)} curves with keys>"


class InvalidImport(ValueError):
    """An input the importer refused (docs/IMPORT.md). Attributes: code (the stable name of the
    import error, such as "bad_number" or "unsorted_keys"), detail (where and what, or ""),
    message (the code's sentence), format ("anim", "gltf", "glb" or "csv") and path (None for a
    file object)."""

    def __init__(self, error, format, path=None):
        self.code = error["code"]
        self.detail = error["detail"]
        self.message = error["message"]
        self.format = format
        self.path = path
        prefix = f"{path}: " if path is not None else ""
        what = f"{self.message}: {self.detail}" if self.detail else self.message
        super().__init__(f"{prefix}cannot import ({self.code}): {what}")


class ImportRemark(UserWarning):
    """What an import left out or changed, with a remark (curves Unity would not play, bindings
    that name no curve of the format): one warning each."""


def _write_all(file, data):
    """Gives all of `data` to a binary file object's write(): again with the rest for as long as it
    takes fewer bytes (as a raw file object may)."""
    left = memoryview(data)
    while left:
        taken = file.write(left)
        if taken is None:
            raise BlockingIOError(errno.EAGAIN, "the file object took no bytes (it would block)")
        if isinstance(taken, bool) or not isinstance(taken, int) or not 0 < taken <= len(left):
            raise OSError(errno.EIO, f"the file object's write() returned {taken!r} for "
                                     f"{len(left)} bytes")
        left = left[taken:]
    return len(data)


class Model:
    """A recording as the library's writer holds it, to edit or build and then write: version
    ("1.0" or "1.1"), layout ("compact" or "full"; a v1.0 file is always full), blocks (a set of
    "camera", "hands", "gaze"), curves (ModelCurves: path -> ModelCurve) and markers (a list of
    (time, name), or None for a file without a marker list, as the published page describes).

    Setting version, layout or blocks to what they cannot be is a ValueError at once; the keys and
    markers are checked when the model is written (write, to_bytes, thinned): before a byte is
    written, ValueError names the curve and key of what cannot be written (keys out of order or
    not finite, a bool value other than 0 or 1, a wrap or weighted mode Unity does not have, keys
    in a curve of a block the model does not hold, tangents a compact file cannot hold, arrays
    of one curve of different lengths), the marker (a name that is not UTF-8, a time that is not
    finite), or says that a v1.0 model holds eye gaze, or lacks camera or hands."""

    def __init__(self, version="1.1", layout="compact", blocks=BLOCKS, markers=()):
        self.version = version
        self.layout = layout
        self.blocks = blocks
        self.curves = ModelCurves()
        self.markers = None if markers is None else list(markers)
        # The files the model was read from: writing over one of them is refused.
        self._inputs = []

    @property
    def version(self):
        return self._version

    @version.setter
    def version(self, value):
        if value not in ("1.0", "1.1"):
            raise ValueError(f"version must be '1.0' or '1.1', not {value!r}")
        self._version = value

    @property
    def layout(self):
        return self._layout

    @layout.setter
    def layout(self, value):
        if value not in ("compact", "full"):
            raise ValueError(f"layout must be 'compact' or 'full', not {value!r}")
        self._layout = value

    @property
    def blocks(self):
        return self._blocks

    @blocks.setter
    def blocks(self, value):
        if isinstance(value, str):
            value = [value]
        blocks = set(value)
        unknown = blocks - set(BLOCKS)
        if unknown:
            raise ValueError(f"blocks are 'camera', 'hands' and 'gaze', not "
                             f"{sorted(unknown, key=repr)!r}")
        self._blocks = blocks

    @classmethod
    def _from_core(cls, values, inputs=()):
        version, layout, blocks, curves, markers = values
        m = cls(version, layout, [b for b, held in zip(BLOCKS, blocks) if held], markers)
        for path, (pre, post, *arrays) in zip(_PATHS, curves):
            c = ModelCurve.__new__(ModelCurve)
            # The core's arrays are new and of the right dtype: kept as they are.
            for name, array in zip(_FLOAT_FIELDS + ("weighted_modes",), arrays):
                object.__setattr__(c, name, array)
            object.__setattr__(c, "pre_wrap", pre)
            object.__setattr__(c, "post_wrap", post)
            m.curves._curves[path] = c
        m._inputs = list(inputs)
        return m

    def _core_tuple(self):
        blocks = self.blocks
        unknown = set(blocks) - set(BLOCKS)
        if unknown:
            raise ValueError(f"blocks are 'camera', 'hands' and 'gaze', not "
                             f"{sorted(unknown, key=repr)!r}")
        markers = None
        if self.markers is not None:
            markers = []
            for i, marker in enumerate(self.markers):
                try:
                    time, name = marker
                except (TypeError, ValueError):
                    raise ValueError(f"marker {i}: a marker is a pair (time, name), not "
                                     f"{marker!r}") from None
                if not isinstance(name, str):
                    raise ValueError(f"marker {i}: a name is a str, not {type(name).__name__}")
                try:
                    time = float(time)
                except (TypeError, ValueError):
                    raise ValueError(f"marker {i}: a time is a number, not {time!r}") from None
                markers.append((time, name.encode("utf-8", "surrogateescape")))
        curves = [self.curves[path]._core_tuple() for path in _PATHS]
        return (self.version, self.layout, tuple(b in blocks for b in BLOCKS), curves, markers)

    def to_bytes(self):
        """The file's bytes, checked as write() checks them."""
        return _core.write_model(self._core_tuple(), None, [])

    def write(self, path_or_file):
        """Writes the recording through the library's encoder, after the checks of the class's
        doc, and returns the number of bytes written. To a path: through the command's output
        primitive (a temporary file beside it, renamed over it once complete; a link to a file
        keeps being a link, a FIFO or a character device is written through), never over a file
        the model was read from (ValueError "it is the input file itself"; so is a directory or
        another thing that is not a file); OSError for a failed write. To a binary file object:
        its write() gets the bytes."""
        if hasattr(path_or_file, "write"):
            return _write_all(path_or_file, self.to_bytes())
        from . import _path

        return _core.write_model(self._core_tuple(), _path(path_or_file), self._inputs)

    def thinned(self):
        """A new model with the keys MRTK's thinning keeps (`inputanim convert --thin`: 1 mm for
        positions and the gaze origin, 0.02 degree for rotations and the gaze direction,
        partitions of 32 keys; a bool curve keeps its first key and each change; a full model's
        curves with tangents stay whole), the same version, layout, blocks and markers. Checked
        first as write() checks."""
        m = Model._from_core(_core.thin_model(self._core_tuple()), self._inputs)
        m.markers = None if self.markers is None else list(self.markers)
        return m

    @classmethod
    def from_arrays(cls, curves, version="1.1", layout=None, blocks=None, markers=(), thin=False):
        """A model of the curves given: {path: (times, values)} (MRTK's linear keys) or
        {path: ModelCurve or dict of its fields}. blocks: those of the paths given unless named;
        layout: None for compact when every float key is MRTK's linear key (0, 0, 0, 0, 3), else
        full, as an import decides. thin=True: thinned(). The curves are checked when the model
        is written (or thinned)."""
        given = {}
        for path, value in dict(curves).items():
            if path not in _INDEX:
                raise KeyError(f"no curve is named {path!r}")
            given[path] = _as_curve(path, value)
        if blocks is None:
            blocks = {_block_of(p) for p in given}
        if layout is None:
            layout = "compact"
            for path, c in given.items():
                if path in _BOOL_CURVES:
                    continue
                if np.any(c.in_tangents != 0) or np.any(c.out_tangents != 0) or \
                        np.any(c.in_weights != 0) or np.any(c.out_weights != 0) or \
                        np.any(c.weighted_modes != 3):
                    layout = "full"
                    break
        m = cls(version, layout, blocks, markers)
        for path, c in given.items():
            m.curves[path] = c
        return m.thinned() if thin else m

    @classmethod
    def from_frame(cls, frame, thin=False, version="1.1", markers=()):
        """A model of the frame Recording.to_pandas(rate) gives: its index the key times, each
        column a curve (by path) whose keys are MRTK's linear ones, the compact layout, the
        blocks of its columns. thin=True thins the keys as `inputanim convert --thin` does."""
        times = np.asarray(frame.index, dtype="<f4")
        columns = {}
        for path in frame.columns:
            if path not in _INDEX:
                raise KeyError(f"column {path!r} names no curve")
            columns[path] = (times, frame[path].to_numpy(dtype="<f4"))
        return cls.from_arrays(columns, version=version, layout="compact", markers=markers,
                               thin=thin)

    @classmethod
    def read(cls, path_or_file, format=None, limits=None):
        """Imports a Unity AnimationClip (.anim), glTF 2.0 (.gltf, .glb) or the CSV of `inputanim
        sample` (.csv) with the library's importers (docs/IMPORT.md), as `inputanim import` reads
        IN: a path ("-" for standard input; the format from its extension unless given; a
        .gltf's external buffers read from its folder, below it) or a binary file object (format
        required; a .gltf's buffers then data URIs), gzip-compressed or not. The model is version 1.1,
        of the blocks the input has curves of, compact when every float key is MRTK's linear key,
        else full. limits: a dict of validate()'s limits, or "upload"; max_bytes (by default
        DEFAULT_MAX_IMPORT_BYTES, 1 GiB, as `inputanim import --max-bytes`) bounds what is read
        and inflated. Raises InvalidImport for an input the importer refuses, OSError when it
        cannot be read; each remark of the import is an ImportRemark warning."""
        import warnings

        from . import _limits, _path

        limits = dict(_limits(limits))
        if limits.get("max_bytes") is None:
            limits["max_bytes"] = DEFAULT_MAX_IMPORT_BYTES
        is_file = hasattr(path_or_file, "read")
        name = None
        if format is None:
            if is_file:
                raise ValueError("format is required to read a file object")
            extension = os.path.splitext(os.fsdecode(_path(path_or_file)))[1][1:].lower()
            if extension not in ("anim", "gltf", "glb", "csv"):
                raise ValueError(f"no import format has the extension {extension!r}: give "
                                 f"format='anim', 'gltf', 'glb' or 'csv'")
            format = extension
        if format not in ("anim", "gltf", "glb", "csv"):
            raise ValueError(f"format must be 'anim', 'gltf', 'glb' or 'csv', not {format!r}")
        inputs = []
        if is_file:
            # One byte past the ceiling tells the input is too large, without reading it all.
            data = path_or_file.read(limits["max_bytes"] + 1)
            values, outcome = _core.import_buffer(data, format, limits)
        else:
            path = _path(path_or_file)
            name = os.fsdecode(path)
            # A .gltf's external buffers lie in its folder; the model is written over none of
            # them, nor over the file.
            folder = os.path.dirname(path) or b"."
            values, outcome, buffers = _core.import_file(path, format, limits, folder)
            inputs = [path, *buffers]
        if values is None:
            raise InvalidImport(outcome, format, name)
        for remark in outcome:
            warnings.warn(remark, ImportRemark, stacklevel=2)
        return cls._from_core(values, inputs)

    def __repr__(self):
        blocks = ", ".join(b for b in BLOCKS if b in self.blocks)
        markers = "no marker list" if self.markers is None else f"{len(self.markers)} markers"
        return f"<inputanim.Model v{self.version} {self.layout} ({blocks}), {markers}>"
