"""sample(), to_pandas(), tidy() and poses() are the library's resampler: the same numbers, bit
for bit, as `inputanim sample`."""

import threading

import numpy as np
import pytest

import inputanim
from conftest import sample_csv


def assert_same_bits(a, b):
    assert a.shape == b.shape
    assert np.array_equal(a.astype("<f4").view(np.uint32), b.astype("<f4").view(np.uint32))


def test_sample_equals_the_command(cli, generated_file):
    rec = inputanim.open(generated_file)
    times, values = rec.sample(30)
    expected_times, expected_values, columns = sample_csv(cli, generated_file, 30)
    assert times.dtype == np.float32 and values.dtype == np.float32
    assert values.shape == (len(expected_times), len(rec.curves))
    assert rec.columns() == columns == list(rec.curves)
    assert_same_bits(times, expected_times)
    assert_same_bits(values, expected_values)


def test_sample_equals_the_command_on_the_june_2019_recordings(cli, june_file):
    rec = inputanim.open(june_file)
    times, values = rec.sample(60, curves="hand.*.joint.IndexTip.**")
    expected_times, expected_values, columns = sample_csv(cli, june_file, 60,
                                                          "hand.*.joint.IndexTip.**")
    assert rec.columns("hand.*.joint.IndexTip.**") == columns
    assert_same_bits(times, expected_times)
    assert_same_bits(values, expected_values)


def test_sample_selects_by_globs_and_bounds(generated):
    rec = inputanim.open(generated["v11_compact"])
    times, values = rec.sample(10, curves=["gaze.**", "camera.position.*"], start=0.5, stop=1.0)
    assert rec.columns(["gaze.**", "camera.position.*"]) == (
        ["camera.position.x", "camera.position.y", "camera.position.z"] +
        [f"gaze.{c}" for c in ("origin.x", "origin.y", "origin.z",
                               "direction.x", "direction.y", "direction.z")])
    assert values.shape == (6, 9)
    assert_same_bits(times, np.array([0.5, 0.6, 0.7, 0.8, 0.9, 1.0], dtype="<f4"))


def test_sample_refuses_what_it_cannot_do(generated):
    rec = inputanim.open(generated["v11_compact"])
    with pytest.raises(ValueError, match="matches no curve"):
        rec.sample(10, curves="camera.nothing")
    with pytest.raises(ValueError, match="bad_rate"):
        rec.sample(0)


def test_more_rows_than_max_rows_are_refused_before_sampling(generated):
    rec = inputanim.open(generated["v11_compact"])
    assert inputanim.DEFAULT_MAX_ROWS == 10_000_000
    # 3 s at 4 MHz: 12,000,001 rows, over the default ceiling of `inputanim sample --max-rows`.
    with pytest.raises(ValueError, match=r"more than 10000000 rows \(max_rows=10000000\)"):
        rec.sample(4e6, curves="camera.position.x")
    assert len(rec.sample(4e6, curves="camera.position.x", max_rows=12_000_001)[0]) == 12_000_001
    with pytest.raises(ValueError, match=r"more than 30 rows \(max_rows=30\): from 0 to 3 at 10"):
        rec.sample(10, max_rows=30)
    assert len(rec.sample(10, max_rows=31)[0]) == 31
    for call in (rec.to_pandas, rec.tidy):
        with pytest.raises(ValueError, match="max_rows=30"):
            call(10, max_rows=30)
    with pytest.raises(ValueError, match="max_rows=30"):
        rec.poses("camera", 10, max_rows=30)
    for bad in (-1, 1.5, True, "31", 2**64):
        with pytest.raises(ValueError, match="max_rows must be an integer"):
            rec.sample(10, max_rows=bad)


def test_bounds_are_refused_as_the_command_refuses_them(generated):
    rec = inputanim.open(generated["v11_compact"])
    with pytest.raises(ValueError, match="start 2 is after stop 1"):
        rec.sample(10, start=2, stop=1)
    with pytest.raises(ValueError, match="start 5 is after the recording's last key time 3"):
        rec.sample(10, start=5)
    with pytest.raises(ValueError, match="stop -1 is before the recording's first key time 0"):
        rec.sample(10, stop=-1)
    for name in ("start", "stop"):
        for value in (float("inf"), float("nan"), 1e39):
            with pytest.raises(ValueError, match=f"{name} .* is not a time a recording can hold"):
                rec.sample(10, **{name: value})
    # One row where start is stop.
    assert len(rec.sample(10, start=1, stop=1)[0]) == 1


def test_to_pandas_is_a_wide_frame_indexed_by_time(generated):
    rec = inputanim.open(generated["v11_compact"])
    frame = rec.to_pandas(20, curves="camera.**")
    times, values = rec.sample(20, curves="camera.**")
    assert list(frame.columns) == [f"camera.{c}" for c in rec.camera]
    assert frame.index.name == "time"
    assert_same_bits(frame.index.to_numpy(), times)
    assert_same_bits(frame.to_numpy(), values)


def test_tidy_is_a_long_frame_of_source_joint_channel_value(generated):
    rec = inputanim.open(generated["v11_compact"])
    tidy = rec.tidy(10)
    times, values = rec.sample(10)
    rows, cols = values.shape
    assert list(tidy.columns) == ["time", "source", "joint", "channel", "value"]
    assert len(tidy) == rows * cols
    assert set(tidy["source"].cat.categories) == {"camera", "hand.left", "hand.right", "gaze"}
    tip = tidy[(tidy.source == "hand.right") & (tidy.joint == "IndexTip") &
               (tidy.channel == "rotation.w")]
    column = rec.columns().index("hand.right.joint.IndexTip.rotation.w")
    assert_same_bits(tip["time"].to_numpy(), times)
    assert_same_bits(tip["value"].to_numpy(), values[:, column])
    # Every value, curve after curve.
    assert_same_bits(tidy["value"].to_numpy(), values.T.reshape(-1))
    assert_same_bits(tidy["time"].to_numpy(), np.tile(times, cols))
    tracked = tidy[(tidy.source == "hand.left") & (tidy.channel == "tracked")]
    assert len(tracked) == rows and tracked["joint"].isna().all()
    camera = tidy[tidy.source == "camera"]
    assert set(camera["channel"]) == {"position.x", "position.y", "position.z", "rotation.x",
                                      "rotation.y", "rotation.z", "rotation.w"}


def test_curve_major_sampling_is_the_same_values_laid_out_by_curve(generated_file):
    # What tidy() samples with: a Fortran-ordered array of the same values.
    rec = inputanim.open(generated_file)
    times, values = rec.sample(30)
    t, by_curve, paths = rec._core.sample(30.0, [], None, None, curve_major=True)
    assert by_curve.flags.f_contiguous and paths == rec.columns()
    assert_same_bits(t, times)
    assert_same_bits(np.ascontiguousarray(by_curve), values)


def test_poses_are_n_by_7_and_rays_n_by_6(generated):
    rec = inputanim.open(generated["v11_compact"])
    times, camera = rec.poses("camera", 30)
    assert camera.shape == (len(times), 7)
    assert_same_bits(camera, rec.sample(30, curves="camera.**")[1])
    _, tip = rec.poses("hand.left.IndexTip", 30)
    _, same = rec.poses("hand.left.joint.IndexTip", 30)
    assert_same_bits(tip, rec.sample(30, curves="hand.left.joint.IndexTip.**")[1])
    assert_same_bits(tip, same)
    assert rec.poses("gaze", 30)[1].shape == (len(times), 6)
    with pytest.raises(KeyError):
        inputanim.open(generated["v11_hands_only"]).poses("camera", 30)


def test_threads_share_one_recording(generated):
    rec = inputanim.open(generated["v11_full"])
    expected = rec.sample(60)[1]
    results = [None] * 4

    def work(i):
        results[i] = (rec.sample(60)[1], inputanim.validate(generated["v11_full"])["valid"])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for values, valid in results:
        assert valid
        assert_same_bits(values, expected)
