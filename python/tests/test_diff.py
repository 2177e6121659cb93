"""inputanim.diff: the library's compare of two recordings, reported as `inputanim diff --json`
reports it, with a frame of poses per group."""

import json
import math
import os

import numpy as np
import pytest

import inputanim
from conftest import run

STEP = 1.0 / 60.0


def motion_list(frames):
    """The frames back as `diff --json`'s motion list: the groups in order, NaN as null."""
    entries = []
    for frame in frames.values():
        for name, row in frame.iterrows():
            entry = {"name": name}
            for column, value in row.items():
                if isinstance(value, float) and math.isnan(value):
                    value = None
                elif isinstance(value, np.generic):
                    value = value.item()
                entry[column] = value
            entries.append(entry)
    return entries


def as_json(report):
    return {**report, "motion": motion_list(report["motion"])}


def cli_diff(cli, a, b, *options):
    out = run(cli, "diff", "--json", *options, a, b, check=False)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def exceeded(report):
    """The names of the poses past their tolerance."""
    return [name for frame in report["motion"].values()
            for name in frame.index[frame["first_exceeded"].notna()]]


@pytest.mark.parametrize("pair", ["joint", "head", "pinch", "marker", "two", "layout"])
@pytest.mark.parametrize("options,flags", [
    ({}, []),
    ({"keys": True, "angle": 0.02}, ["--keys", "--angle", "0.02"]),
    ({"rate": 30, "start": 1.0, "stop": 5.0}, ["--rate", "30", "--from", "1", "--until", "5"]),
])
def test_the_report_is_the_commands_json(cli, diff_pairs, pair, options, flags):
    a, b = map(str, diff_pairs[pair])
    assert as_json(inputanim.diff(a, b, **options)) == cli_diff(cli, a, b, *flags)


def test_the_aligned_report_is_the_commands_json(cli, diff_pairs):
    a, b = map(str, diff_pairs["offset"])
    assert as_json(inputanim.diff(a, b, align=True)) == cli_diff(cli, a, b, "--align")
    assert as_json(inputanim.diff(a, b, offset=-0.4)) == cli_diff(cli, a, b, "--offset", "-0.4")


def test_align_finds_the_offset_of_a_cut_take(diff_pairs):
    report = inputanim.diff(*diff_pairs["offset"], align=True)
    assert report["alignment"]["offset"] == pytest.approx(-0.4, abs=STEP / 2)
    assert report["alignment"]["confidence"] >= 0.5
    assert report["grid"]["offset"] == report["alignment"]["offset"]
    assert report["same"]


def test_without_align_there_is_no_alignment(diff_pairs):
    report = inputanim.diff(*diff_pairs["offset"], offset=-0.4)
    assert report["alignment"] is None
    assert report["grid"]["offset"] == -0.4


def test_a_layout_conversion_is_the_same_even_key_by_key(diff_pairs):
    report = inputanim.diff(*diff_pairs["layout"], keys=True)
    assert report["same"]
    assert report["a"]["layout"] == "compact" and report["b"]["layout"] == "full"
    assert report["keys"] == {"curves": 0, "differences": []}
    assert exceeded(report) == []


def test_a_joint_moved_2_mm_from_3_s(diff_pairs):
    report = inputanim.diff(*diff_pairs["joint"])
    assert not report["same"]
    assert exceeded(report) == ["hand.left.joint.IndexTip.position"]
    pose = report["motion"]["hand.left"].loc["hand.left.joint.IndexTip.position"]
    assert pose["kind"] == "position"
    assert 3.0 - STEP < pose["first_exceeded"] <= 3.0 + 1e-6
    assert pose["first_exceeded_error"] == pytest.approx(0.002, abs=1e-6)
    assert pose["max"] == pytest.approx(0.002, abs=1e-6)
    assert pose["samples"] == report["grid"]["rows"]
    # Every row from 3 s to the end (6 s) at 60 Hz.
    assert pose["exceeded_samples"] == 181


def test_the_head_turned_1_degree(diff_pairs):
    report = inputanim.diff(*diff_pairs["head"])
    assert exceeded(report) == ["camera.rotation"]
    head = report["motion"]["camera"]
    assert list(head.index) == ["camera.position", "camera.rotation"]
    assert head.loc["camera.rotation", "kind"] == "rotation"
    assert head.loc["camera.rotation", "max"] == pytest.approx(1.0, abs=1e-3)
    assert head.loc["camera.rotation", "first_exceeded"] == report["grid"]["from"]
    assert head.loc["camera.position", "max"] == 0.0
    assert inputanim.diff(*diff_pairs["head"], angle=1.01)["same"]


def test_a_pinch_50_ms_longer(diff_pairs):
    report = inputanim.diff(*diff_pairs["pinch"])
    assert exceeded(report) == []
    assert report["state"]["count"] == 1
    [state] = report["state"]["differences"]
    assert state["curve"] == "hand.left.pinching"
    assert state["change"] == "moved"
    assert state["a"]["start"] == state["b"]["start"]
    assert state["b"]["end"] - state["a"]["end"] == pytest.approx(0.05, abs=STEP)
    assert inputanim.diff(*diff_pairs["pinch"], time=0.1)["same"]


def test_a_marker_renamed(diff_pairs):
    report = inputanim.diff(*diff_pairs["marker"])
    assert not report["same"]
    assert report["markers"] == {"count": 1, "differences": [
        {"change": "renamed", "a": {"time": 4.0, "name": "end"},
         "b": {"time": 4.0, "name": "finish"}}]}


def test_the_motion_frames(diff_pairs):
    a, b = diff_pairs["joint"]
    report = inputanim.diff(a, b)
    assert list(report["motion"]) == ["camera", "hand.left", "hand.right", "gaze"]
    for group, frame in report["motion"].items():
        assert frame.index.name == "name"
        assert all(name.startswith(group + ".") for name in frame.index)
        assert list(frame.columns) == ["kind", "samples", "max", "max_time", "rms",
                                       "first_exceeded", "first_exceeded_error",
                                       "exceeded_samples"]
        assert frame["samples"].dtype == np.int64
        assert frame["first_exceeded"].dtype == np.float64
    # 27 joints, a position and a rotation each.
    assert len(report["motion"]["hand.right"]) == 54
    assert list(report["motion"]["gaze"].index) == ["gaze.origin", "gaze.direction"]
    # A pose within its tolerance has no first exceedance: NaN, where the JSON has null.
    assert report["motion"]["hand.right"]["first_exceeded"].isna().all()
    assert report["a"]["path"] == str(a) and report["b"]["path"] == str(b)


def test_a_group_neither_side_holds_has_no_frame(generated):
    report = inputanim.diff(generated["v11_hands_only"], generated["v11_hands_only"])
    assert list(report["motion"]) == ["hand.left", "hand.right"]
    assert report["same"]


def test_open_recordings_and_bytes_are_sides(diff_pairs):
    a, b = diff_pairs["joint"]
    by_name = inputanim.diff(a, b)
    opened = inputanim.diff(inputanim.open(a, copy=True), b.read_bytes())
    assert opened["b"]["path"] is None
    for report in (by_name, opened):
        report["a"]["path"] = report["b"]["path"] = None
    assert as_json(opened) == as_json(by_name)


@pytest.mark.parametrize("option,value,words", [
    ("position", -0.001, "position=-0.001: the position tolerance"),
    ("position", float("nan"), "position=nan"),
    ("angle", 181, "angle=181: the rotation tolerance must be between 0 and 180"),
    ("time", -1, "time=-1: the time tolerance"),
    ("rate", 0, "rate=0: rate must be"),
    ("offset", float("inf"), "offset=inf: the offset must be a finite number"),
    ("position", "1", "position must be a number, not '1'"),
    ("max_rows", -1, "max_rows must be an integer"),
])
def test_a_bad_option_is_a_value_error(diff_pairs, option, value, words):
    a, b = diff_pairs["joint"]
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        inputanim.diff(a, b, **{option: value})


def test_a_reversed_window_is_a_value_error(diff_pairs):
    with pytest.raises(ValueError, match="start"):
        inputanim.diff(*diff_pairs["joint"], start=4.0, stop=2.0)


def test_too_many_rows_is_a_value_error(diff_pairs):
    with pytest.raises(ValueError, match=r"more than 100 rows \(max_rows=100\)"):
        inputanim.diff(*diff_pairs["joint"], max_rows=100)


def test_align_with_an_offset_is_a_value_error(diff_pairs):
    with pytest.raises(ValueError, match="align or offset, not both"):
        inputanim.diff(*diff_pairs["offset"], align=True, offset=0.4)


def test_takes_without_a_head_cannot_be_aligned(generated):
    hands = generated["v11_hands_only"]
    with pytest.raises(ValueError, match="cannot align: a recording has no head"):
        inputanim.diff(hands, hands, align=True)


def test_a_still_head_cannot_be_aligned(diff_pairs, tmp_path):
    a, _ = diff_pairs["joint"]
    still = inputanim.open(a).to_model()
    for channel in ("position.x", "position.y", "position.z", "rotation.x", "rotation.y",
                    "rotation.z", "rotation.w"):
        still.curves[f"camera.{channel}"] = ([0.0], [1.0 if channel == "rotation.w" else 0.0])
    still.write(tmp_path / "still.bin")
    with pytest.raises(ValueError, match="too flat to align by; give offset="):
        inputanim.diff(a, tmp_path / "still.bin", align=True)


def test_a_missing_side_is_an_os_error(diff_pairs, tmp_path):
    a, _ = diff_pairs["joint"]
    with pytest.raises(FileNotFoundError):
        inputanim.diff(a, tmp_path / "missing.bin")
    with pytest.raises(FileNotFoundError):
        inputanim.diff(tmp_path / "missing.bin", a)


def test_an_invalid_side_is_invalid_recording(diff_pairs, tmp_path):
    a, _ = diff_pairs["joint"]
    cut = tmp_path / "cut.bin"
    cut.write_bytes(a.read_bytes()[:1000])
    with pytest.raises(inputanim.InvalidRecording) as opening:
        inputanim.open(cut)
    with pytest.raises(inputanim.InvalidRecording) as caught:
        inputanim.diff(a, cut)
    assert caught.value.error == opening.value.error
    assert caught.value.path == str(cut)


def test_threads_comparing_at_once_get_the_report_of_one_alone(diff_pairs):
    from concurrent.futures import ThreadPoolExecutor

    a, b = diff_pairs["two"]
    alone = as_json(inputanim.diff(a, b))
    with ThreadPoolExecutor(4) as pool:
        reports = list(pool.map(lambda _: as_json(inputanim.diff(a, b)), range(4)))
    assert all(r == alone for r in reports)


@pytest.mark.parametrize("shrinking_side", [0, 1])
def test_a_side_truncated_under_its_mapping_is_an_os_error(diff_pairs, tmp_path, shrinking_side):
    # compare() reads both mappings under their guards: a file cut under its mapping is an
    # OSError naming it, not a SIGBUS.
    a, b = diff_pairs["joint"]
    path = tmp_path / "shrinking.bin"
    path.write_bytes(b.read_bytes())
    sides = [inputanim.open(a), inputanim.open(path)]
    if shrinking_side == 0:
        sides.reverse()
    os.truncate(path, 0)
    with pytest.raises(OSError) as caught:
        inputanim.diff(*sides)
    assert caught.value.filename == str(path)
