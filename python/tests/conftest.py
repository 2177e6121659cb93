"""Fixtures of the inputanim package's tests: the built command (INPUTANIM_CLI, which the CMake
test passes), recordings it generates, and the June 2019 recordings (INPUTANIM_RECORDINGS_DIR)."""

import csv
import gzip
import io
import json
import math
import os
import pathlib
import shutil
import struct
import subprocess

import numpy as np
import pandas as pd
import pytest

# The 16 bytes that make a June 2019 body a v1.0 file (recordings/README.md).
V10_HEADER = bytes.fromhex("c6429e0f6eaf8f6a0100000000000000")
JUNE_FILES = [
    "InputAnimation-20190606-161538.bin",
    "InputAnimation-20190607-120309.bin",
    "InputAnimation-20190607-121439.bin",
]

# Every layout `inputanim gen` writes: (name, options).
GENERATED = [
    ("v11_compact", ["--markers", "3"]),
    ("v11_full", ["--layout", "full", "--markers", "2"]),
    ("v10", ["--version", "1.0"]),
    ("v11_hands_only", ["--no-camera", "--no-gaze"]),
    ("v11_full_no_hands", ["--layout", "full", "--no-hands", "--markers", "1"]),
]


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("INPUTANIM_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("INPUTANIM_CLI does not name the built inputanim command")
    return path


def run(cli, *args, check=True):
    return subprocess.run([cli, *map(str, args)], check=check, capture_output=True, text=True)


def cli_report(cli, path, *options):
    """What `inputanim validate --format json` says about a file."""
    out = run(cli, "validate", "--format", "json", *options, path, check=False)
    return json.loads(out.stdout)


def dump_keys(cli, path):
    """`inputanim dump --format csv` as {path: {field: float32/int32 array}}."""
    text = run(cli, "dump", "--format", "csv", path).stdout
    rows = {}
    for row in csv.DictReader(io.StringIO(text)):
        rows.setdefault(row["curve"], []).append(row)
    curves = {}
    for name, keys in rows.items():
        fields = {
            f: np.array([float(k[f]) for k in keys], dtype="<f4")
            for f in ("time", "value")
        }
        if keys[0]["in_tangent"] != "":
            for f in ("in_tangent", "out_tangent", "in_weight", "out_weight"):
                fields[f] = np.array([float(k[f]) for k in keys], dtype="<f4")
            fields["weighted_mode"] = np.array([int(k["weighted_mode"]) for k in keys],
                                               dtype="<i4")
        curves[name] = fields
    return curves


def dump_markers(cli, path):
    text = run(cli, "dump", "--format", "csv", "--markers", path).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    return np.array([float(r["time"]) for r in rows], dtype="<f4"), [r["name"] for r in rows]


def sample_csv(cli, path, rate, *globs):
    """`inputanim sample` as (times, values, columns)."""
    args = ["sample", "--rate", rate]
    for g in globs:
        args += ["--curve", g]
    text = run(cli, *args, path).stdout
    lines = list(csv.reader(io.StringIO(text)))
    columns = lines[0][1:]
    table = np.array([[float(x) for x in line] for line in lines[1:]], dtype="<f4")
    return table[:, 0], table[:, 1:], columns


@pytest.fixture(scope="session")
def generated(cli, tmp_path_factory):
    """{name: path} of a short recording of every layout."""
    folder = tmp_path_factory.mktemp("generated")
    files = {}
    for name, options in GENERATED:
        path = folder / f"{name}.bin"
        run(cli, "gen", "-o", path, "--seconds", "3", *options)
        files[name] = path
    return files


@pytest.fixture(params=[name for name, _ in GENERATED])
def generated_file(request, generated):
    return generated[request.param]


@pytest.fixture(scope="session")
def recordings_dir():
    return pathlib.Path(os.environ.get("INPUTANIM_RECORDINGS_DIR",
                                       pathlib.Path(__file__).parents[3] / "shared/recordings"))


# The six real recordings as they are: MRTK's headerless 2019 layouts (FORMAT.md section 9).
REAL_2019_FILES = {
    "InputAnimation-20190515-104548.bin": "2019-05",
    "InputAnimation-20190515-150550.bin": "2019-05",
    "InputAnimation-20190516-130120.bin": "2019-05",
    **{name: "2019-06" for name in JUNE_FILES},
}


@pytest.fixture(params=sorted(REAL_2019_FILES))
def real_2019_file(request, recordings_dir):
    path = recordings_dir / request.param
    if not path.exists():
        pytest.skip(f"{request.param} not found in {recordings_dir}")
    return path, REAL_2019_FILES[request.param]


@pytest.fixture(params=JUNE_FILES)
def june_file(request, recordings_dir, tmp_path):
    body = recordings_dir / request.param
    if not body.exists():
        pytest.skip(f"{request.param} not found in {recordings_dir}")
    path = tmp_path / request.param
    path.write_bytes(V10_HEADER + body.read_bytes())
    return path


def make_tree(cli, root):
    """A tree of recordings of every layout, with an invalid one, an empty one, gzip ones, files
    that are no recording, a link to a file and a link to a folder (not followed)."""
    (root / "a" / "b").mkdir(parents=True)
    (root / "c").mkdir()
    run(cli, "gen", "-o", root / "a" / "compact.bin", "--seconds", "2", "--markers", "2")
    run(cli, "gen", "-o", root / "a" / "full.bin", "--seconds", "2", "--layout", "full")
    run(cli, "gen", "-o", root / "a" / "b" / "v10.bin", "--seconds", "1", "--version", "1.0")
    run(cli, "gen", "-o", root / "c" / "hands.bin", "--seconds", "1", "--no-camera",
        "--no-gaze")
    data = (root / "a" / "compact.bin").read_bytes()
    (root / "invalid.bin").write_bytes(data[:len(data) // 3])
    (root / "a" / "b" / "empty.bin").write_bytes(b"")
    (root / "packed.bin.gz").write_bytes(gzip.compress(data))
    (root / "c" / "packed-no-suffix").write_bytes(gzip.compress((root / "c" / "hands.bin")
                                                                .read_bytes()))
    (root / "c" / "notes.txt").write_text("not a recording\n")
    (root / "c" / "notes.gz").write_bytes(gzip.compress(b"not a recording either\n"))
    os.symlink(root / "a" / "full.bin", root / "c" / "link-to-full.bin")
    os.symlink(root / "a", root / "c" / "link-to-a")
    for i in range(11):
        shutil.copyfile(root / "a" / "full.bin", root / "c" / f"copy-{i:02}.bin")
    # A Latin-1 name, not UTF-8: "path_bytes" in the rows.
    shutil.copyfile(root / "a" / "full.bin", os.fsencode(root / "c") + b"/copy-\xe9.bin")
    return root


@pytest.fixture(scope="session")
def tree(cli, tmp_path_factory):
    return make_tree(cli, tmp_path_factory.mktemp("index") / "tree")


def make_archives(tree, root):
    """Archives of the tree's recordings, made by Python's tarfile and zipfile: a tar (with a
    gzip member, a file that is no recording and a folder), a tar.gz, a zip stored and one
    deflated, and a tar whose own name and member's name are not UTF-8."""
    import tarfile
    import zipfile

    root.mkdir(parents=True)
    members = {"a/compact.bin": tree / "a" / "compact.bin",
               "a/b/v10.bin": tree / "a" / "b" / "v10.bin",
               "packed.bin.gz": tree / "packed.bin.gz",
               "invalid.bin": tree / "invalid.bin",
               "c/notes.txt": tree / "c" / "notes.txt"}
    for name, mode in (("take.tar", "w"), ("take.tar.gz", "w:gz")):
        with tarfile.open(root / name, mode, format=tarfile.PAX_FORMAT) as t:
            t.add(tree / "c", arcname="c", recursive=False)
            for arcname, path in members.items():
                t.add(path, arcname=arcname)
    for name, method in (("take.zip", zipfile.ZIP_STORED), ("deflated.zip", zipfile.ZIP_DEFLATED)):
        with zipfile.ZipFile(root / name, "w", method) as z:
            for arcname, path in members.items():
                z.write(path, arcname)
    with tarfile.open(os.fsencode(root) + b"/\xff.tar", "w", format=tarfile.GNU_FORMAT,
                      encoding="utf-8", errors="surrogateescape") as t:
        t.add(tree / "a" / "full.bin", arcname=os.fsdecode(b"\xfe.bin"))
    return root


@pytest.fixture(scope="session")
def archives(tree, tmp_path_factory):
    return make_archives(tree, tmp_path_factory.mktemp("index") / "archives")


def cli_rows(cli, *args):
    out = run(cli, "index", "--jsonl", "-", *map(str, args), check=False)
    return [json.loads(line) for line in out.stdout.splitlines()]


def frame_rows(frame):
    """The frame's rows as the JSON objects of `index --jsonl`: nulls (NaN, NA) as None, and the
    fields the command leaves out (None in the frame) dropped."""
    rows = []
    for record in frame.to_dict("records"):
        row = {}
        for key, value in record.items():
            if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
                continue
            if isinstance(value, (np.integer, np.bool_)):
                value = value.item()
            row[key] = value
        rows.append(row)
    return rows


def without_nulls(rows):
    return [{k: v for k, v in row.items() if v is not None} for row in rows]


def assert_same_rows(frame, expected):
    got = frame_rows(frame)
    assert [r["path"] for r in got] == [r["path"] for r in expected]
    for g, e in zip(got, without_nulls(expected)):
        assert g == e


def flipping_pinches(path, template, pinches):
    """Writes to `path` a v1.1 compact recording (the header of `template`, a generated one) whose
    left hand is tracked throughout and pinching over every other 60 Hz sample: `pinches` pinch
    events of one sample each, the rest of its 395 curves empty."""
    import inputanim

    flips = np.arange(2 * pinches)
    pinching = np.empty((2 * pinches, 2), dtype="<f4")
    pinching[:, 0] = (flips / 60.0).astype("<f4")
    pinching[:, 1] = flips % 2 == 0
    keys = {"hand.left.tracked": np.array([[0.0, 1.0]], dtype="<f4"),
            "hand.left.pinching": pinching}
    with open(path, "wb") as f:
        f.write(pathlib.Path(template).read_bytes()[:19])
        for name in inputanim._core.curve_paths():
            k = keys.get(name, np.empty((0, 2), dtype="<f4"))
            f.write(struct.pack("<iii", 8, 8, len(k)))
            f.write(k.tobytes())
        f.write(struct.pack("<i", 0))
    return path


# The 60 Hz key times of the recordings diff_pairs builds: 6 seconds.
DIFF_TIMES = (np.arange(361) / 60.0).astype("<f4")


def _turned(degrees):
    """Quaternions (x, y, z, w) of turns about the vertical by `degrees` (an array)."""
    half = np.radians(degrees) / 2
    zero = np.zeros_like(half)
    return zero, np.sin(half), zero, np.cos(half)


@pytest.fixture(scope="session")
def diff_pairs(cli, tmp_path_factory):
    """{name: (A, B)} of recordings that differ by one known change, as issue 37 lists them:
    "joint" (hand.left.joint.IndexTip.position.x 2 mm further from t = 3 s), "head" (the head
    turned 1 degree more about the vertical throughout), "pinch" (the left hand's pinch from 2 s
    to 3 s ends 50 ms later), "marker" (the marker "end" at 4 s renamed "finish"), "two" (the
    joint and the marker together), "layout" (B is A converted to the full layout: the same),
    "offset" (B is A cut at 0.4 s and shifted to start at 0: B's motion 0.4 s earlier).

    A is a generated recording (every block) whose camera rotation, IndexTip x, tracked and
    pinching curves are replaced by ones the changes are exact on: keys every 1/60 s (so a change
    from a key on shows on the grid from that key's row), both hands tracked throughout."""
    import inputanim

    folder = tmp_path_factory.mktemp("diff")
    generated = folder / "generated.bin"
    run(cli, "gen", "-o", generated, "--seconds", "6", "--seed", "7")
    t = DIFF_TIMES

    def model(joint_from_3s=0.0, turn=0.0, pinch_end=3.0, last_marker="end"):
        m = inputanim.open(generated).to_model()
        for path, values in zip(("x", "y", "z", "w"), _turned(20.0 * np.sin(t) + turn)):
            m.curves[f"camera.rotation.{path}"] = (t, values)
        tip = 0.1 * np.sin(t) + np.where(t >= 3.0, joint_from_3s, 0.0)
        m.curves["hand.left.joint.IndexTip.position.x"] = (t, tip)
        for side in ("left", "right"):
            m.curves[f"hand.{side}.tracked"] = ([0.0], [1.0])
        m.curves["hand.left.pinching"] = ([0.0, 2.0, pinch_end], [0.0, 1.0, 0.0])
        m.markers = [(1.0, "start"), (4.0, last_marker)]
        return m

    def write(name, m):
        path = folder / f"{name}.bin"
        m.write(path)
        return path

    a = write("a", model())
    pairs = {"joint": write("joint", model(joint_from_3s=0.002)),
             "head": write("head", model(turn=1.0)),
             "pinch": write("pinch", model(pinch_end=3.05)),
             "marker": write("marker", model(last_marker="finish")),
             "two": write("two", model(joint_from_3s=0.002, last_marker="finish"))}
    pairs = {name: (a, b) for name, b in pairs.items()}
    run(cli, "convert", "--layout", "full", a, folder / "full.bin")
    pairs["layout"] = (a, folder / "full.bin")
    run(cli, "convert", "--from", "0.4", "--shift-to-zero", a, folder / "cut.bin")
    pairs["offset"] = (a, folder / "cut.bin")
    return pairs
