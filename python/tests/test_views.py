"""Curves are read-only numpy views over the file's bytes, equal bit for bit to what
`inputanim dump` prints, and they keep the bytes alive."""

import gc
import os

import numpy as np
import pytest

import inputanim
from conftest import dump_keys, dump_markers

FIELDS = {
    "time": "times",
    "value": "values",
    "in_tangent": "in_tangents",
    "out_tangent": "out_tangents",
    "in_weight": "in_weights",
    "out_weight": "out_weights",
    "weighted_mode": "weighted_modes",
}


def assert_same_bits(view, expected):
    assert view.dtype == expected.dtype
    assert view.shape == expected.shape
    assert np.array_equal(view.view(np.uint32), expected.view(np.uint32))


def assert_views_equal_dump(cli, path, copy=False):
    rec = inputanim.open(path, copy=copy)
    dumped = dump_keys(cli, path)
    assert list(rec.curves) == list(dumped) or all(len(c) == 0 for p, c in rec.curves.items()
                                                   if p not in dumped)
    for name, curve in rec.curves.items():
        fields = dumped.get(name, {})
        if not fields:
            assert len(curve) == 0
            continue
        for field, expected in fields.items():
            assert_same_bits(getattr(curve, FIELDS[field]), expected)
        if "in_tangent" not in fields:
            assert curve.in_tangents is None and curve.weighted_modes is None


def test_views_equal_dump_bit_for_bit_on_every_layout(cli, generated_file):
    assert_views_equal_dump(cli, generated_file)


def test_views_of_a_copy_equal_dump_too(cli, generated):
    assert_views_equal_dump(cli, generated["v11_full"], copy=True)


def test_views_equal_dump_on_the_june_2019_recordings(cli, june_file):
    rec = inputanim.open(june_file)
    assert rec.version == "1.0" and len(rec.curves) == 389
    assert_views_equal_dump(cli, june_file)


def test_the_real_2019_recordings_read_as_their_layouts_and_equal_dump(cli, real_2019_file):
    path, version = real_2019_file
    rec = inputanim.open(path)
    assert rec.version == version and rec.layout == "full" and len(rec.curves) == 389
    # May's trailer holds its markers in a form only .NET reads: unknown.
    assert rec.summary["markers"] is None if version == "2019-05" else rec.summary["markers"] == 0
    assert_views_equal_dump(cli, path)
    forced = inputanim.open(path, layout=version)
    assert forced.version == version and forced.summary == rec.summary


def test_views_are_little_endian_float32_read_only_and_strided(generated):
    rec = inputanim.open(generated["v11_full"])
    curve = rec.camera["position.x"]
    assert curve.times.dtype == np.dtype("<f4") and curve.weighted_modes.dtype == np.dtype("<i4")
    assert curve.values.strides == (28,)
    assert not curve.values.flags.writeable
    with pytest.raises(ValueError):
        curve.values[0] = 1.0
    compact = inputanim.open(generated["v11_compact"]).camera["position.x"]
    assert compact.times.strides == (8,) and compact.in_tangents is None


@pytest.mark.parametrize("copy", [False, True])
def test_views_share_memory_with_the_buffer_and_do_not_copy(generated, copy):
    rec = inputanim.open(generated["v11_full"], copy=copy)
    assert rec.mapped is not copy
    for curve in rec.curves.values():
        if len(curve) == 0:
            continue
        assert np.shares_memory(curve.values, rec.buffer)
        assert np.shares_memory(curve.times, rec.buffer)
    offset = rec.camera["position.x"].offset
    first_time = rec.buffer[offset + 12:offset + 16].view("<f4")[0]
    assert first_time == rec.camera["position.x"].times[0]


def test_views_stay_valid_after_the_recording_is_gone(cli, generated):
    path = generated["v11_compact"]
    rec = inputanim.open(path)
    views = {name: (c.times, c.values) for name, c in rec.curves.items()}
    del rec
    gc.collect()
    dumped = dump_keys(cli, path)
    for name, (times, values) in views.items():
        if name in dumped:
            assert_same_bits(times, dumped[name]["time"])
            assert_same_bits(values, dumped[name]["value"])


def test_typed_access_gives_the_curves_of_a_pose_or_ray(generated):
    rec = inputanim.open(generated["v11_compact"])
    assert list(rec.camera) == ["position.x", "position.y", "position.z",
                                "rotation.x", "rotation.y", "rotation.z", "rotation.w"]
    tip = rec.hand("left").joint("IndexTip")
    assert tip["rotation.w"] is not None
    assert tip["position.x"].path == "hand.left.joint.IndexTip.position.x"
    assert rec.hand("right").pinching.path == "hand.right.pinching"
    assert rec.hand("right").tracked.kind == "bool"
    assert list(rec.gaze) == ["origin.x", "origin.y", "origin.z",
                              "direction.x", "direction.y", "direction.z"]


def test_typed_access_to_an_absent_block_is_a_key_error(generated):
    rec = inputanim.open(generated["v11_hands_only"])
    with pytest.raises(KeyError):
        rec.camera
    with pytest.raises(KeyError):
        rec.gaze
    with pytest.raises(KeyError):
        rec.hand("left").joint("NoSuchJoint")


def test_summary_version_and_layout(generated):
    rec = inputanim.open(generated["v11_full"])
    assert rec.version == "1.1" and rec.layout == "full"
    assert rec.summary["curves"] == 395 and rec.summary["markers"] == 2
    assert inputanim.open(generated["v10"]).layout == "full"


def test_markers_equal_dump(cli, generated):
    path = generated["v11_compact"]
    times, names = dump_markers(cli, path)
    markers = inputanim.open(path).markers
    assert list(markers.columns) == ["time", "name"]
    assert_same_bits(markers["time"].to_numpy(), times)
    assert list(markers["name"]) == names


def test_markers_are_none_without_a_marker_list(june_file):
    # The June 2019 files end with an empty marker list; cut it off.
    cut = june_file.with_suffix(".nolist")
    cut.write_bytes(june_file.read_bytes()[:-4])
    assert inputanim.open(cut).markers is None
    assert len(inputanim.open(june_file).markers) == 0


def test_warnings_are_those_of_validate(cli, generated):
    path = generated["v11_compact"]
    rec = inputanim.open(path)
    assert rec.warnings == inputanim.validate(path)["warnings"]


def test_warnings_of_the_june_2019_recordings_are_those_of_the_command(cli, june_file):
    from conftest import cli_report

    rec = inputanim.open(june_file)
    assert rec.warnings == cli_report(cli, june_file)["warnings"]
    assert rec.check() == (rec.warnings, None)


def assert_same_recording(a, b):
    assert a.summary == b.summary
    ca, cb = a.curves(), b.curves()
    assert [(c.path, c.offset, len(c), c.pre_wrap, c.post_wrap) for c in ca] == [
        (c.path, c.offset, len(c), c.pre_wrap, c.post_wrap) for c in cb]
    for x, y in zip(ca, cb):
        assert_same_bits(x.times, y.times)
        assert_same_bits(x.values, y.values)
    assert a.markers() is None and b.markers() is None or (
        list(a.markers()[1]) == list(b.markers()[1]))


@pytest.mark.parametrize("layout", ["auto", "compact", "full"])
def test_opening_by_reads_gives_what_the_walk_of_the_mapping_gives(generated_file, layout):
    # open() reads a mapped file's structure with pread (no page of the mapping touched) and
    # falls back on the walk of the mapping; both must give the same recording.
    by_reads, e1 = inputanim._core.open(os.fsencode(generated_file), False, layout, by_reads=True)
    walked, e2 = inputanim._core.open(os.fsencode(generated_file), False, layout, by_reads=False)
    assert e1 == e2
    if walked is not None:
        assert_same_recording(by_reads, walked)


def test_opening_by_reads_the_june_2019_recordings(june_file):
    by_reads, _ = inputanim._core.open(os.fsencode(june_file), False, "auto", by_reads=True)
    walked, _ = inputanim._core.open(os.fsencode(june_file), False, "auto", by_reads=False)
    assert_same_recording(by_reads, walked)
