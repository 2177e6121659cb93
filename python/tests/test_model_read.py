"""Model.read: the library's importers (import.hpp) from Python. The CSV `inputanim sample` prints,
a Unity clip and glTF that `export` writes come back as models; what an importer refuses is an
InvalidImport with the importer's code and detail."""

import io
import os

import numpy as np
import pytest

import inputanim
from conftest import run

PX = "camera.position.x"


def bits(a):
    return np.asarray(a, dtype="<f4").view("<u4")


@pytest.fixture(scope="module")
def sampled(cli, generated, tmp_path_factory):
    """(recording, the CSV `inputanim sample --rate 30` prints of it)."""
    path = tmp_path_factory.mktemp("csv") / "take.csv"
    path.write_text(run(cli, "sample", "--rate", 30, generated["v11_compact"]).stdout)
    return inputanim.open(generated["v11_compact"]), path


def read_refused(code, data, format="csv", **options):
    with pytest.raises(inputanim.InvalidImport) as refused:
        inputanim.Model.read(io.BytesIO(data), format=format, **options)
    assert refused.value.code == code
    assert refused.value.format == format
    return refused.value


# -- CSV -------------------------------------------------------------------------------------------


def test_the_csv_sample_prints_reads_back_as_linear_keys_at_its_rows(sampled):
    rec, path = sampled
    model = inputanim.Model.read(path)
    assert (model.version, model.layout, model.blocks) == ("1.1", "compact",
                                                           {"camera", "hands", "gaze"})
    assert model.markers == []
    times, values = rec.sample(30)
    for i, curve_path in enumerate(rec.columns()):
        keys = model.curves[curve_path]
        assert np.array_equal(bits(keys.times), bits(times)), curve_path
        assert np.array_equal(bits(keys.values), bits(values[:, i])), curve_path
    # The same keys as a model of the frame of the same samples.
    assert model.to_bytes() == inputanim.Model.from_frame(rec.to_pandas(30)).to_bytes()


def test_the_format_comes_from_the_extension_or_is_given(sampled, tmp_path):
    _, path = sampled
    expected = inputanim.Model.read(path).to_bytes()
    upper = tmp_path / "TAKE.CSV"
    upper.write_bytes(path.read_bytes())
    other = tmp_path / "take.txt"
    other.write_bytes(path.read_bytes())
    with open(path, "rb") as f:
        from_file = inputanim.Model.read(f, format="csv")
    for model in (inputanim.Model.read(upper), inputanim.Model.read(other, format="csv"),
                  inputanim.Model.read(os.fsencode(path)), from_file):
        assert model.to_bytes() == expected
    with pytest.raises(ValueError, match="no import format has the extension 'txt'"):
        inputanim.Model.read(other)
    with pytest.raises(ValueError, match="format is required"):
        inputanim.Model.read(io.BytesIO(path.read_bytes()))
    with pytest.raises(ValueError, match="format must be"):
        inputanim.Model.read(path, format="bin")
    with pytest.raises(FileNotFoundError):
        inputanim.Model.read(tmp_path / "missing.csv")


def test_standard_input_is_read_by_the_name_dash(sampled):
    import subprocess
    import sys

    _, path = sampled
    script = ("import sys, inputanim; "
              "sys.stdout.buffer.write(inputanim.Model.read('-', format='csv').to_bytes())")
    with open(path, "rb") as stdin:
        out = subprocess.run([sys.executable, "-c", script], stdin=stdin, capture_output=True,
                             check=True).stdout
    assert out == inputanim.Model.read(path).to_bytes()


def test_gzip_is_inflated_as_the_front_door_inflates_it(sampled, tmp_path):
    import gzip

    _, path = sampled
    expected = inputanim.Model.read(path).to_bytes()
    data = path.read_bytes()
    packed = gzip.compress(data)
    (tmp_path / "take.csv.gz").write_bytes(packed)
    assert inputanim.Model.read(tmp_path / "take.csv.gz", format="csv").to_bytes() == expected
    assert inputanim.Model.read(io.BytesIO(packed), format="csv").to_bytes() == expected
    # max_bytes bounds the inflated bytes.
    refused = read_refused("too_large", packed, limits={"max_bytes": len(data) - 1})
    assert refused.detail == f"more than max_bytes {len(data) - 1} bytes"
    read_refused("bad_compression", packed[:len(packed) // 2])


def test_a_model_read_from_a_file_is_never_written_over_it(sampled, tmp_path):
    _, path = sampled
    copy = tmp_path / "take.csv"
    copy.write_bytes(path.read_bytes())
    model = inputanim.Model.read(copy)
    with pytest.raises(ValueError, match="it is the input file itself"):
        model.write(copy)
    assert copy.read_bytes() == path.read_bytes()
    model.write(tmp_path / "take.bin")
    assert inputanim.validate(tmp_path / "take.bin")["valid"]


def test_a_csv_header_without_the_time_or_with_a_column_that_is_no_curve_is_refused():
    refused = read_refused("missing_column", b"time,camera.position.x\n0,1\n")
    assert "the first column must be t" in refused.detail
    refused = read_refused("missing_column", b"t,camera.position.q\n0,1\n")
    assert "camera.position.q" in refused.detail
    assert str(refused).startswith("cannot import (missing_column): ")


def test_a_csv_field_that_is_not_a_number_or_a_short_row_is_refused():
    refused = read_refused("bad_number", b"t,camera.position.x\n0,1\n0.5,abc\n")
    assert refused.detail == "line 3: 'abc' in column camera.position.x is not a number"
    read_refused("bad_number", b"t,camera.position.x,camera.position.y\n0,1\n")


def test_keys_the_format_cannot_hold_are_refused_with_their_curve_and_key():
    refused = read_refused("unsorted_keys", b"t,camera.position.x\n0,1\n1,2\n0.5,3\n")
    assert refused.detail.startswith("camera.position.x key 2")
    read_refused("bad_field", b"t,hand.left.tracked\n0,1\n1,0.5\n")


def test_the_limits_are_checked_before_the_work_they_bound(sampled):
    _, path = sampled
    data = path.read_bytes()
    read_refused("too_large", data, limits={"max_bytes": 100})
    refused = read_refused("limit_exceeded", data, limits={"max_keyframes_per_curve": 10})
    assert "max-keyframes-per-curve 10" in refused.detail
    refused = read_refused("limit_exceeded", data, limits={"max_total_keyframes": 1000})
    assert "max-total-keyframes 1000" in refused.detail


# -- Unity clips and glTF, as export writes them ---------------------------------------------------


def curved(generated, tmp_path):
    """A v1.1 full recording whose camera.position.x keys are Hermite and weighted, not linear."""
    model = inputanim.open(generated["v11_full"]).to_model()
    keys = model.curves[PX]
    n = len(keys)
    keys.in_tangents = np.linspace(-1.0, 1.0, n)
    keys.out_tangents = np.linspace(1.0, -1.0, n)
    keys.in_weights = np.full(n, 0.25)
    keys.out_weights = np.full(n, 0.5)
    keys.weighted_modes = np.arange(n) % 4
    model.write(tmp_path / "curved.bin")
    return tmp_path / "curved.bin"


def test_each_remark_of_an_import_is_an_import_remark(generated, tmp_path):
    rec = inputanim.open(generated["v11_compact"])
    rec.export(tmp_path / "take.anim")
    text = (tmp_path / "take.anim").read_text()
    other = tmp_path / "other.anim"
    other.write_text(text.replace("functionName: OnInputAnimationMarker",
                                  "functionName: SomethingElse", 1))
    with pytest.warns(inputanim.ImportRemark, match="'SomethingElse', not OnInputAnimationMarker"):
        model = inputanim.Model.read(other)
    assert [name for _, name in model.markers] == list(rec.markers["name"])[1:]


@pytest.mark.parametrize("source", ["v11_compact", "v11_full", "curved"])
def test_a_unity_clip_reads_back_as_the_recordings_keys(generated, source, tmp_path):
    source_file = curved(generated, tmp_path) if source == "curved" else generated[source]
    rec = inputanim.open(source_file)
    rec.export(tmp_path / "take.anim")
    model = inputanim.Model.read(tmp_path / "take.anim")
    assert model.version == "1.1"
    # Compact unless a float key is not MRTK's linear one (gen's full keys all are).
    assert model.layout == ("full" if source == "curved" else "compact")
    for path, curve in rec.curves.items():
        keys = model.curves[path]
        assert np.array_equal(bits(keys.times), bits(curve.times)), path
        assert np.array_equal(bits(keys.values), bits(curve.values)), path
        if curve.has_tangents:
            for name in ("in_tangents", "out_tangents", "in_weights", "out_weights"):
                assert np.array_equal(bits(getattr(keys, name)), bits(getattr(curve, name)))
            assert np.array_equal(keys.weighted_modes, curve.weighted_modes)
    assert [name for _, name in model.markers] == list(rec.markers["name"])
    assert np.array_equal(bits([t for t, _ in model.markers]), bits(rec.markers["time"]))
    # The clip holds everything a v1.1 file of its layout does.
    if source != "v11_full":
        assert model.to_bytes() == source_file.read_bytes()


def test_gltf_plays_back_as_the_recording_on_the_exports_grid(generated, tmp_path):
    rec = inputanim.open(generated["v11_compact"])
    models = {}
    for format in ("glb", "gltf"):
        rec.export(tmp_path / f"take.{format}", rate=30)
        models[format] = inputanim.Model.read(tmp_path / f"take.{format}")
        with open(tmp_path / f"take.{format}", "rb") as f:
            assert inputanim.Model.read(f, format=format).to_bytes() == \
                models[format].to_bytes()
    # One document in two containers.
    assert models["glb"].to_bytes() == models["gltf"].to_bytes()
    model = models["glb"]
    assert (model.version, model.blocks) == ("1.1", {"camera", "hands", "gaze"})
    # The None joint is not exported.
    paths = [p for p in rec.columns() if ".None." not in p]
    times, values = rec.sample(30, paths)
    rebuilt = inputanim.open(model.to_bytes())
    back_times, back_values = rebuilt.sample(30, paths, start=times[0], stop=times[-1])
    assert np.array_equal(bits(back_times), bits(times))
    # The export normalises rotations (docs/EXPORT.md), which the recording's sampled
    # quaternions are only nearly.
    rotation = np.array([".rotation." in p for p in paths])
    error = np.abs(back_values - values)
    assert error[:, ~rotation].max() <= 1e-5
    assert error[:, rotation].max() <= 1e-4
    assert [name for _, name in model.markers] == list(rec.markers["name"])


def with_external_buffer(gltf, uri, buffer_file=None):
    """The .gltf `gltf` (its buffer a data URI, as export writes it) with its buffer at `uri`,
    written to `buffer_file`."""
    import base64
    import json

    doc = json.loads(gltf.read_text())
    data = base64.b64decode(doc["buffers"][0]["uri"].split(",", 1)[1])
    if buffer_file is not None:
        buffer_file.parent.mkdir(parents=True, exist_ok=True)
        buffer_file.write_bytes(data)
    doc["buffers"][0]["uri"] = uri
    return json.dumps(doc).encode()


def data_bytes(folder):
    import base64
    import json

    doc = json.loads((folder.parent / "embedded.gltf").read_text())
    return base64.b64decode(doc["buffers"][0]["uri"].split(",", 1)[1])


def test_a_gltf_read_from_a_path_reads_its_external_buffers_from_its_folder(generated,
                                                                           tmp_path):
    rec = inputanim.open(generated["v11_compact"])
    rec.export(tmp_path / "embedded.gltf", rate=30)
    expected = inputanim.Model.read(tmp_path / "embedded.gltf").to_bytes()
    folder = tmp_path / "take"
    data = with_external_buffer(tmp_path / "embedded.gltf", "data%20files/take.bin",
                                folder / "data files" / "take.bin")
    (folder / "take.gltf").write_bytes(data)
    model = inputanim.Model.read(folder / "take.gltf")
    assert model.to_bytes() == expected
    # The buffer is an input as the .gltf is: never written over, also through a link.
    (tmp_path / "link.bin").symlink_to(folder / "data files" / "take.bin")
    for out in (folder / "data files" / "take.bin", tmp_path / "link.bin", folder / "take.gltf"):
        with pytest.raises(ValueError, match="it is the input file itself"):
            model.write(out)
    assert (folder / "data files" / "take.bin").read_bytes() == data_bytes(folder)
    # From the current folder, by a relative path.
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        assert inputanim.Model.read("take.gltf").to_bytes() == expected
    finally:
        os.chdir(cwd)
    # A file object has no folder.
    with open(folder / "take.gltf", "rb") as f:
        with pytest.raises(inputanim.InvalidImport) as refused:
            inputanim.Model.read(f, format="gltf")
    assert refused.value.code == "bad_uri"
    # Nor may a buffer leave the .gltf's folder.
    (folder / "escape.gltf").write_bytes(
        with_external_buffer(tmp_path / "embedded.gltf", "../take.bin", tmp_path / "take.bin"))
    with pytest.raises(inputanim.InvalidImport) as refused:
        inputanim.Model.read(folder / "escape.gltf")
    assert refused.value.code == "bad_uri"
    (folder / "missing.gltf").write_bytes(
        with_external_buffer(tmp_path / "embedded.gltf", "missing.bin"))
    with pytest.raises(FileNotFoundError):
        inputanim.Model.read(folder / "missing.gltf")


def test_what_is_neither_yaml_nor_gltf_is_refused_with_the_formats_code():
    read_refused("bad_yaml", b"a: [\n", format="anim")
    read_refused("bad_gltf", b"not json", format="gltf")
    read_refused("bad_gltf", b"not a glb container", format="glb")
