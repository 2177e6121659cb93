"""open() and validate() take a name through the library's front door (a path, "-" for standard
input) or bytes; gzip is recognised by content. A plain file is mapped (views over the file);
standard input that is not a file, gzip and bytes are copied into memory, which the views then
view."""

import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import inputanim
from conftest import cli_report


def assert_same_curves(rec, expected):
    assert list(rec.curves) == list(expected.curves)
    for name, curve in rec.curves.items():
        other = expected.curves[name]
        assert np.array_equal(curve.times.view(np.uint32), other.times.view(np.uint32))
        assert np.array_equal(curve.values.view(np.uint32), other.values.view(np.uint32))
        if other.has_tangents:
            assert np.array_equal(curve.weighted_modes, other.weighted_modes)
    assert rec.summary == expected.summary


@pytest.fixture(scope="module")
def plain(generated):
    return generated["v11_full"]


@pytest.fixture(scope="module")
def gzipped(plain, tmp_path_factory):
    # A name that says nothing of gzip: the content decides.
    path = tmp_path_factory.mktemp("gzip") / "recording.bin"
    path.write_bytes(gzip.compress(plain.read_bytes()))
    return path


def test_a_plain_file_is_mapped_without_a_copy(plain):
    rec = inputanim.open(plain)
    assert rec.mapped and rec.path == str(plain)
    assert np.shares_memory(rec.camera["position.x"].values, rec.buffer)
    assert inputanim.open(plain, copy=True).mapped is False


def test_bytes_are_copied_and_equal_the_file(plain):
    data = bytearray(plain.read_bytes())
    rec = inputanim.open(data)
    assert not rec.mapped and rec.path is None
    assert_same_curves(rec, inputanim.open(plain))
    # A copy: changing the caller's bytes afterwards changes nothing.
    before = rec.camera["position.x"].values.copy()
    offset = rec.curves["camera.position.x"].offset + 12 + 4
    data[offset:offset + 4] = b"\xff\xff\xff\x7f"
    assert np.array_equal(rec.camera["position.x"].values, before)
    assert_same_curves(inputanim.open(memoryview(plain.read_bytes())), rec)
    assert_same_curves(inputanim.open(np.frombuffer(plain.read_bytes(), np.uint8)), rec)


def test_gzip_is_recognised_by_content_and_inflated_into_memory(plain, gzipped):
    for copy in (False, True):
        rec = inputanim.open(gzipped, copy=copy)
        assert not rec.mapped
        assert_same_curves(rec, inputanim.open(plain))
    assert_same_curves(inputanim.open(gzipped.read_bytes()), inputanim.open(plain))


def test_a_damaged_gzip_is_bad_compression(gzipped, tmp_path):
    data = gzipped.read_bytes()
    cut = tmp_path / "cut.gz"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(inputanim.InvalidRecording) as caught:
        inputanim.open(cut)
    assert caught.value.code == "bad_compression" and caught.value.path == str(cut)
    with pytest.raises(inputanim.InvalidRecording) as caught:
        inputanim.open(data[:len(data) // 2])
    assert caught.value.code == "bad_compression" and caught.value.path is None


def test_invalid_bytes_raise_what_validate_reports(plain):
    data = plain.read_bytes()[:100]
    report = inputanim.validate(data)
    with pytest.raises(inputanim.InvalidRecording) as caught:
        inputanim.open(data)
    assert caught.value.error == report["error"]
    assert caught.value.code == "truncated"


def test_validate_of_gzip_is_the_commands(cli, gzipped):
    assert inputanim.validate(gzipped) == cli_report(cli, gzipped)
    report = inputanim.validate(gzipped.read_bytes())
    assert report == {**cli_report(cli, gzipped), "path": "-"}
    assert report["compressed_bytes"] == gzipped.stat().st_size


def run_python(code, stdin):
    """Runs `code` in a new interpreter with the package, `stdin` as its standard input."""
    out = subprocess.run([sys.executable, "-c", code], stdin=stdin, capture_output=True,
                         check=True, env=os.environ)
    return json.loads(out.stdout)


READ_STDIN = """
import json, inputanim
rec = inputanim.open("-")
c = rec.curves["camera.position.x"]
print(json.dumps({"mapped": rec.mapped, "path": rec.path, "summary": rec.summary,
                  "values": c.values.tolist(), "times": c.times.tolist()}))
"""


def expected_stdin(path, mapped):
    rec = inputanim.open(path)
    c = rec.curves["camera.position.x"]
    return {"mapped": mapped, "path": "-", "summary": rec.summary, "values": c.values.tolist(),
            "times": c.times.tolist()}


def test_standard_input_from_a_pipe_is_read_into_memory(plain, gzipped):
    for source in (plain, gzipped):
        feeder = subprocess.Popen(["cat", str(source)], stdout=subprocess.PIPE)
        try:
            got = run_python(READ_STDIN, feeder.stdout)
        finally:
            feeder.stdout.close()
            feeder.wait()
        assert got == expected_stdin(plain, False)


def test_standard_input_that_is_a_file_is_mapped(plain):
    with open(plain, "rb") as f:
        assert run_python(READ_STDIN, f) == expected_stdin(plain, True)


def test_validate_reads_standard_input(cli, gzipped):
    with open(gzipped, "rb") as f:
        got = run_python("import json, inputanim; print(json.dumps(inputanim.validate('-')))", f)
    assert got == {**cli_report(cli, gzipped), "path": "-"}
