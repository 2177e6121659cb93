"""inputanim.Model: a recording read into the writer's model writes back its own bytes; edits,
models built from frames and arrays write what they hold; what cannot be written is a ValueError
naming the curve and key before a byte is written; paths go through the command's output
primitive."""

import io
import os
import struct
import threading

import numpy as np
import pytest

import inputanim
from conftest import run

PX = "camera.position.x"


def bits(a):
    return np.asarray(a, dtype="<f4").view("<u4")


def write_path(model, path):
    n = model.write(path)
    assert n == path.stat().st_size
    return path.read_bytes()


# -- An unchanged model writes back the file it came from ------------------------------------------


def test_every_generated_layout_writes_back_byte_for_byte(generated_file, tmp_path):
    model = inputanim.open(generated_file).to_model()
    data = generated_file.read_bytes()
    assert model.to_bytes() == data
    assert write_path(model, tmp_path / "out.bin") == data
    buffer = io.BytesIO()
    assert model.write(buffer) == len(data)
    assert buffer.getvalue() == data


def test_the_model_holds_the_files_version_layout_blocks_and_markers(generated):
    v10 = inputanim.open(generated["v10"]).to_model()
    assert (v10.version, v10.layout, v10.blocks) == ("1.0", "full", {"camera", "hands"})
    full = inputanim.open(generated["v11_full_no_hands"]).to_model()
    assert (full.version, full.layout, full.blocks) == ("1.1", "full", {"camera", "gaze"})
    rec = inputanim.open(generated["v11_compact"])
    compact = rec.to_model()
    assert (compact.version, compact.layout, compact.blocks) == ("1.1", "compact",
                                                                 {"camera", "hands", "gaze"})
    assert [name for _, name in compact.markers] == list(rec.markers["name"])
    assert np.array_equal(bits([t for t, _ in compact.markers]), bits(rec.markers["time"]))
    for path, curve in rec.curves.items():
        keys = compact.curves[path]
        assert np.array_equal(bits(keys.times), bits(curve.times))
        assert np.array_equal(bits(keys.values), bits(curve.values))
        assert (keys.pre_wrap, keys.post_wrap) == (curve.pre_wrap, curve.post_wrap)
        # Compact keys are MRTK's linear ones.
        assert not keys.in_tangents.any() and not keys.out_weights.any()
        assert (keys.weighted_modes == 3).all()


def test_full_keys_keep_their_tangents_weights_and_modes(generated):
    rec = inputanim.open(generated["v11_full"])
    model = rec.to_model()
    for path, curve in rec.curves.items():
        if curve.kind == "bool":
            continue
        keys = model.curves[path]
        for name in ("in_tangents", "out_tangents", "in_weights", "out_weights", "weighted_modes"):
            assert np.array_equal(getattr(keys, name), getattr(curve, name)), (path, name)


def test_a_file_without_a_marker_list_writes_back_without_one(generated, tmp_path):
    data = generated["v11_hands_only"].read_bytes()
    # gen writes an empty marker list: its count, the file's last 4 bytes.
    assert data[-4:] == b"\0\0\0\0"
    path = tmp_path / "no-list.bin"
    path.write_bytes(data[:-4])
    model = inputanim.open(path).to_model()
    assert model.markers is None
    assert model.to_bytes() == data[:-4]
    model.markers = []
    assert model.to_bytes() == data


def test_the_june_2019_recordings_as_v10_files_write_back_byte_for_byte(june_file):
    model = inputanim.open(june_file).to_model()
    assert model.version == "1.0"
    assert model.to_bytes() == june_file.read_bytes()


def test_a_2019_recording_writes_what_convert_makes_of_it(cli, real_2019_file, tmp_path):
    path, layout = real_2019_file
    model = inputanim.open(path).to_model()
    assert (model.version, model.layout, model.blocks) == ("1.0", "full", {"camera", "hands"})
    run(cli, "convert", path, tmp_path / "v10.bin", "--version", "1.0")
    assert model.to_bytes() == (tmp_path / "v10.bin").read_bytes()
    # As convert's default target, v1.1 compact.
    model.version, model.layout = "1.1", "compact"
    run(cli, "convert", path, tmp_path / "v11.bin")
    assert model.to_bytes() == (tmp_path / "v11.bin").read_bytes()


def test_a_gzip_or_in_memory_recording_gives_the_same_model(generated, tmp_path):
    import gzip

    data = generated["v11_full"].read_bytes()
    (tmp_path / "take.bin.gz").write_bytes(gzip.compress(data))
    for source in (tmp_path / "take.bin.gz", data):
        assert inputanim.open(source).to_model().to_bytes() == data
    assert inputanim.open(generated["v11_full"], copy=True).to_model().to_bytes() == data


# -- Edits -----------------------------------------------------------------------------------------


def test_edits_are_written(generated, tmp_path):
    model = inputanim.open(generated["v11_compact"]).to_model()
    model.curves[PX].values += 0.5
    tracked = model.curves["hand.left.tracked"]
    model.curves["hand.left.tracked"] = (tracked.times[:1], [0.0])
    model.markers.append((2.5, "jump \u00e9"))
    model.curves["gaze.origin.y"].post_wrap = 2
    out = tmp_path / "edited.bin"
    model.write(out)
    before = inputanim.open(generated["v11_compact"])
    after = inputanim.open(out)
    assert np.array_equal(after.curves[PX].values,
                          (before.curves[PX].values + np.float32(0.5)).astype("<f4"))
    assert list(after.curves["hand.left.tracked"].values) == [0.0]
    assert after.markers["name"].iloc[-1] == "jump \u00e9"
    assert after.markers["time"].iloc[-1] == 2.5
    assert after.curves["gaze.origin.y"].post_wrap == 2
    assert after.check()[1] is None


def test_version_layout_and_blocks_change_what_is_written(cli, generated, tmp_path):
    source = generated["v11_compact"]
    model = inputanim.open(source).to_model()
    model.layout = "full"
    run(cli, "convert", source, tmp_path / "full.bin", "--layout", "full")
    assert model.to_bytes() == (tmp_path / "full.bin").read_bytes()
    model.blocks.discard("gaze")
    for path in model.curves:
        if path.startswith("gaze."):
            model.curves[path] = ((), ())
    model.version = "1.0"
    run(cli, "convert", source, tmp_path / "v10.bin", "--version", "1.0")
    assert model.to_bytes() == (tmp_path / "v10.bin").read_bytes()


def test_model_attributes_refuse_what_they_cannot_hold():
    model = inputanim.Model()
    with pytest.raises(ValueError, match="version must be"):
        model.version = "1.2"
    with pytest.raises(ValueError, match="layout must be"):
        model.layout = "wide"
    with pytest.raises(ValueError, match="blocks are"):
        model.blocks = {"camera", "feet"}
    with pytest.raises(KeyError, match="no curve is named"):
        model.curves["camera.position.q"] = ([0.0], [1.0])
    curve = model.curves[PX]
    with pytest.raises(ValueError, match="one-dimensional"):
        curve.times = [[0.0, 1.0]]
    with pytest.raises(ValueError, match="integers"):
        curve.weighted_modes = [3.5]
    with pytest.raises(ValueError, match="WrapMode"):
        curve.pre_wrap = 8.0
    with pytest.raises(AttributeError):
        curve.time = [0.0]


def test_a_new_model_is_empty_v11_compact_with_every_block_and_an_empty_marker_list():
    model = inputanim.Model()
    data = model.to_bytes()
    rec = inputanim.open(data)
    assert (rec.version, rec.layout) == ("1.1", "compact")
    assert len(rec.curves) == 395
    assert all(len(c) == 0 for c in rec.curves.values())
    assert len(rec.markers) == 0


# -- Models built from frames and arrays -----------------------------------------------------------


def test_from_frame_writes_the_frames_samples_as_linear_keys(generated):
    rec = inputanim.open(generated["v11_compact"])
    frame = rec.to_pandas(30)
    model = inputanim.Model.from_frame(frame)
    assert (model.version, model.layout, model.blocks) == ("1.1", "compact",
                                                           {"camera", "hands", "gaze"})
    assert model.markers == []
    rebuilt = inputanim.open(model.to_bytes())
    for path in frame.columns:
        curve = rebuilt.curves[path]
        assert np.array_equal(bits(curve.times), bits(frame.index))
        assert np.array_equal(bits(curve.values), bits(frame[path]))
    # Sampled at the keys' own times, the rebuilt recording plays the frame back exactly.
    times, values = rebuilt.sample(30)
    assert np.array_equal(bits(values), bits(frame.to_numpy()))


def test_from_frame_of_some_curves_holds_their_blocks_only():
    rec_frame = __import__("pandas").DataFrame(
        {"hand.left.joint.IndexTip.position.x": [0.0, 0.1, 0.2], "hand.left.tracked": [1, 1, 0]},
        index=[0.0, 0.5, 1.0])
    model = inputanim.Model.from_frame(rec_frame)
    assert model.blocks == {"hands"}
    rec = inputanim.open(model.to_bytes())
    assert len(rec.curves) == 389 - 7
    assert list(rec.curves["hand.left.tracked"].values) == [1.0, 1.0, 0.0]


def test_from_frame_thinned_is_what_convert_thin_makes_of_it(cli, generated, tmp_path):
    frame = inputanim.open(generated["v11_compact"]).to_pandas(60)
    whole = inputanim.Model.from_frame(frame)
    whole.write(tmp_path / "whole.bin")
    run(cli, "convert", tmp_path / "whole.bin", tmp_path / "thin.bin", "--thin")
    thinned = inputanim.Model.from_frame(frame, thin=True)
    assert thinned.to_bytes() == (tmp_path / "thin.bin").read_bytes()
    assert len(thinned.to_bytes()) < len(whole.to_bytes())
    assert whole.thinned().to_bytes() == thinned.to_bytes()


def test_a_column_that_names_no_curve_is_a_key_error():
    import pandas as pd

    with pytest.raises(KeyError, match="names no curve"):
        inputanim.Model.from_frame(pd.DataFrame({"camera.x": [0.0]}, index=[0.0]))


def test_from_arrays_takes_pairs_model_curves_and_dicts_of_fields():
    t = np.array([0.0, 0.5, 1.0])
    model = inputanim.Model.from_arrays({
        PX: (t, [1.0, 2.0, 3.0]),
        "camera.position.y": inputanim.ModelCurve(t, [0.0, 0.0, 1.0], pre_wrap=1),
        "gaze.origin.z": {"times": t, "values": [4.0, 5.0, 6.0], "post_wrap": 2},
    }, markers=[(0.25, "start")])
    assert (model.layout, model.blocks) == ("compact", {"camera", "gaze"})
    rec = inputanim.open(model.to_bytes())
    assert list(rec.curves[PX].values) == [1.0, 2.0, 3.0]
    assert rec.curves["camera.position.y"].pre_wrap == 1
    assert rec.curves["gaze.origin.z"].post_wrap == 2
    assert list(rec.markers["name"]) == ["start"]
    assert "hand.left.tracked" not in rec.curves


def test_from_arrays_with_tangents_is_full_and_keeps_them():
    t = [0.0, 1.0]
    model = inputanim.Model.from_arrays({
        PX: {"times": t, "values": [0.0, 1.0], "in_tangents": [0.0, 2.0],
             "out_tangents": [2.0, 0.0], "weighted_modes": [0, 0]}})
    assert model.layout == "full"
    curve = inputanim.open(model.to_bytes()).curves[PX]
    assert list(curve.out_tangents) == [2.0, 0.0]
    assert list(curve.weighted_modes) == [0, 0]
    model.layout = "compact"
    with pytest.raises(ValueError, match=f"{PX} key 0: .*compact layout cannot hold"):
        model.to_bytes()


def test_a_new_curves_arrays_are_its_own():
    t = np.array([0.0, 1.0], dtype="<f4")
    model = inputanim.Model.from_arrays({PX: (t, t), "camera.position.y": (t, t)})
    model.curves[PX].times[1] = 2.0
    assert model.curves["camera.position.y"].times[1] == 1.0
    assert t[1] == 1.0


# -- What cannot be written: a ValueError naming the curve and key, nothing written ----------------


def one_curve(path=PX, times=(0.0, 1.0, 2.0), values=(0.0, 1.0, 2.0), **model_args):
    return inputanim.Model.from_arrays({path: (times, values)}, **model_args)


def bad_models():
    """{case: (model, what the ValueError says)}."""
    unsorted = one_curve(times=(0.0, 2.0, 1.0))
    nan = one_curve(values=(0.0, np.nan, 2.0))
    infinite = one_curve(times=(0.0, 1.0, np.inf))
    repeated = one_curve(times=(0.0, 1.0, 1.0))
    wrong_block = one_curve()
    wrong_block.blocks = {"hands"}
    v10_gaze = inputanim.Model(version="1.0", layout="full")
    v10_camera_only = inputanim.Model(version="1.0", layout="full", blocks={"camera"})
    bad_bool = one_curve("hand.right.pinching", values=(0.0, 0.5, 1.0))
    bad_mode = one_curve(layout="full")
    bad_mode.curves[PX].weighted_modes = [3, 3, 7]
    bad_wrap = one_curve()
    bad_wrap.curves[PX].pre_wrap = 3
    uneven = one_curve()
    uneven.curves[PX].values = [0.0, 1.0]
    not_utf8 = one_curve(markers=[(0.0, "ok"), (1.0, "x\udcff")])
    not_a_pair = one_curve(markers=[(0.0, "ok", "more")])
    not_a_name = one_curve(markers=[(0.0, b"bytes")])
    nan_marker = one_curve(markers=[(0.0, "a"), (np.nan, "b")])
    return {
        "unsorted": (unsorted, rf"^{PX} key 2: .*\(unsorted_keys\)"),
        "repeated_time": (repeated, rf"^{PX} key 2: .*\(unsorted_keys\)"),
        "nan_value": (nan, rf"^{PX} key 1: .*\(non_finite\)"),
        "infinite_time": (infinite, rf"^{PX} key 2: .*\(non_finite\)"),
        "wrong_block": (wrong_block,
                        rf"^{PX} key 0: a curve of the camera block, which the model does not"),
        "v10_gaze": (v10_gaze, "a v1.0 model cannot hold eye gaze"),
        "v10_camera_only": (v10_camera_only, "a v1.0 model holds camera and hands"),
        "bool_value": (bad_bool, r"^hand.right.pinching key 1: .*\(bad_bool_value\)"),
        "weighted_mode": (bad_mode, rf"^{PX} key 2: .*\(bad_weighted_mode\)"),
        "wrap_mode": (bad_wrap, rf"^{PX}: .*\(bad_wrap_mode\)"),
        "uneven_arrays": (uneven, rf"^{PX}: values has 2 keys, times has 3"),
        "marker_not_utf8": (not_utf8, r"^marker 1: .*\(bad_utf8\)"),
        "marker_not_a_pair": (not_a_pair, "marker 0: a marker is a pair"),
        "marker_name_bytes": (not_a_name, "marker 0: a name is a str"),
        "marker_time_nan": (nan_marker, r"^marker 1: .*\(non_finite\)"),
    }


@pytest.mark.parametrize("case", list(bad_models()))
def test_what_cannot_be_written_is_refused_before_a_byte_is_written(case, tmp_path):
    model, message = bad_models()[case]
    with pytest.raises(ValueError, match=message):
        model.to_bytes()
    out = tmp_path / "out.bin"
    with pytest.raises(ValueError, match=message):
        model.write(out)
    assert not out.exists()
    assert os.listdir(tmp_path) == []
    existing = tmp_path / "existing.bin"
    existing.write_bytes(b"before")
    with pytest.raises(ValueError, match=message):
        model.write(existing)
    assert existing.read_bytes() == b"before"
    buffer = io.BytesIO()
    with pytest.raises(ValueError, match=message):
        model.write(buffer)
    assert buffer.getvalue() == b""
    with pytest.raises(ValueError, match=message):
        model.thinned()


def test_a_model_read_from_an_invalid_file_is_refused_where_the_file_is(generated, tmp_path):
    data = bytearray(generated["v11_full"].read_bytes())
    rec = inputanim.open(bytes(data))
    curve = rec.curves[PX]
    # The value of key 1, as a NaN.
    data[curve.offset + 12 + 28 + 4:curve.offset + 12 + 28 + 8] = struct.pack("<f", np.nan)
    model = inputanim.open(bytes(data)).to_model()
    with pytest.raises(ValueError, match=rf"^{PX} key 1: .*\(non_finite\)"):
        model.to_bytes()


# -- Where a model is written ----------------------------------------------------------------------


def test_a_path_is_replaced_whole_and_keeps_its_permissions(generated, tmp_path):
    model = inputanim.open(generated["v11_compact"]).to_model()
    out = tmp_path / "out.bin"
    out.write_bytes(b"old")
    out.chmod(0o600)
    model.write(out)
    assert out.read_bytes() == generated["v11_compact"].read_bytes()
    assert out.stat().st_mode & 0o777 == 0o600
    assert sorted(os.listdir(tmp_path)) == ["out.bin"]


def test_a_link_stays_a_link_and_its_file_is_written(generated, tmp_path):
    model = inputanim.open(generated["v11_compact"]).to_model()
    target = tmp_path / "target.bin"
    target.write_bytes(b"old")
    link = tmp_path / "link.bin"
    link.symlink_to(target)
    model.write(link)
    assert link.is_symlink()
    assert target.read_bytes() == generated["v11_compact"].read_bytes()


def test_a_fifo_is_written_through_not_replaced(generated, tmp_path):
    model = inputanim.open(generated["v11_compact"]).to_model()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    try:
        model.write(fifo)
    finally:
        if reader.is_alive() and not received:
            # A write that failed before opening the FIFO would leave the reader waiting.
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join()
    assert received == [generated["v11_compact"].read_bytes()]
    assert fifo.is_fifo()


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(ValueError, match=str(tmp_path)):
        inputanim.Model().write(tmp_path)


def test_the_file_a_model_was_read_from_is_never_written_over(generated, tmp_path):
    source = tmp_path / "take.bin"
    source.write_bytes(generated["v11_compact"].read_bytes())
    (tmp_path / "link.bin").symlink_to(source)
    os.link(source, tmp_path / "hard.bin")
    model = inputanim.open(source).to_model()
    model.curves[PX].values += 1
    for out in (source, tmp_path / "link.bin", tmp_path / "hard.bin"):
        with pytest.raises(ValueError, match="it is the input file itself"):
            model.write(out)
    assert source.read_bytes() == generated["v11_compact"].read_bytes()
    # Any other path is written.
    model.write(tmp_path / "other.bin")
    assert inputanim.open(tmp_path / "other.bin").curves[PX].values[0] == \
        inputanim.open(source).curves[PX].values[0] + 1


def test_a_members_archive_is_never_written_over(archives, tmp_path):
    archive = tmp_path / "take.zip"
    archive.write_bytes((archives / "take.zip").read_bytes())
    before = archive.read_bytes()
    model = inputanim.open(archive, member="a/compact.bin").to_model()
    with pytest.raises(ValueError, match="it is the input file itself"):
        model.write(archive)
    assert archive.read_bytes() == before


def test_a_failed_write_is_an_os_error(generated, tmp_path):
    model = inputanim.open(generated["v11_compact"]).to_model()
    with pytest.raises(OSError):
        model.write(tmp_path / "missing" / "out.bin")


class Trickle(io.RawIOBase):
    """A raw file object that takes at most `most` bytes a call (or returns `answer`)."""

    def __init__(self, most=1000, answer=None):
        self.data, self.most, self.answer = bytearray(), most, answer

    def writable(self):
        return True

    def write(self, b):
        if self.answer is not None:
            return self.answer
        taken = bytes(b[:self.most])
        self.data += taken
        return len(taken)


def test_a_file_object_gets_every_byte_even_a_little_at_a_time(generated):
    model = inputanim.open(generated["v11_full"]).to_model()
    trickle = Trickle()
    assert model.write(trickle) == generated["v11_full"].stat().st_size
    assert bytes(trickle.data) == generated["v11_full"].read_bytes()
    with pytest.raises(OSError, match="returned 0"):
        model.write(Trickle(answer=0))


def test_a_path_is_any_path_the_os_takes(tmp_path):
    model = inputanim.Model()
    data = model.to_bytes()
    for name in (os.fsencode(tmp_path) + b"/take-\xff.bin",
                 os.fsdecode(os.fsencode(tmp_path) + b"/take-\xfe.bin"), tmp_path / "p.bin"):
        assert model.write(name) == len(data)
        assert open(os.fsencode(name) if isinstance(name, str) else name, "rb").read() == data
    with pytest.raises(ValueError, match="NUL"):
        model.write(f"{tmp_path}/take.bin\0.txt")
