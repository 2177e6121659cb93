"""Fixtures of the inputanim package's tests: the built command (INPUTANIM_CLI, which the CMake
test passes), recordings it generates, and the June 2019 recordings (INPUTANIM_RECORDINGS_DIR)."""

import csv
import io
import json
import os
import pathlib
import subprocess

import numpy as np
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
    """What `inputanim validate --json` says about a file."""
    out = run(cli, "validate", "--json", *options, path, check=False)
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


@pytest.fixture(params=JUNE_FILES)
def june_file(request, recordings_dir, tmp_path):
    body = recordings_dir / request.param
    if not body.exists():
        pytest.skip(f"{request.param} not found in {recordings_dir}")
    path = tmp_path / request.param
    path.write_bytes(V10_HEADER + body.read_bytes())
    return path
