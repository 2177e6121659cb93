"""Every error code reaches Python with its offset, curve and keyframe: validate() reports what
`inputanim validate --format json` reports, and open() raises InvalidRecording for structural
errors."""

import os
import struct

import numpy as np
import pytest

import inputanim
from conftest import cli_report


@pytest.fixture(scope="module")
def full_file(generated):
    """A v1.1 full-layout recording with markers, and where its parts are."""
    path = generated["v11_full"]
    rec = inputanim.open(path)
    last = list(rec.curves.values())[-1]
    stride = 28
    marker_list = last.offset + 12 + len(last) * stride
    return path, path.read_bytes(), rec, marker_list


def patched(data, offset, new):
    data = bytearray(data)
    data[offset:offset + len(new)] = new
    return bytes(data)


def key_offset(rec, path, index, field=0):
    curve = rec.curves[path]
    stride = 28 if curve.has_tangents else 8
    return curve.offset + 12 + index * stride + field


def cases(data, rec, marker_list):
    """(code, bytes, expected curve path or None, expected keyframe or None)."""
    px = "camera.position.x"
    tracked = "hand.left.tracked"
    # The first marker: time at marker_list + 4, name length at + 8, name at + 9.
    return [
        ("truncated", data[:100], "camera.position.x", 0),
        ("bad_magic", patched(data, 0, b"\0"), None, None),
        ("unsupported_version", patched(data, 8, struct.pack("<i", 2)), None, None),
        ("bad_flag", patched(data, 17, b"\x02"), None, None),
        ("bad_wrap_mode", patched(data, rec.curves[px].offset + 4, struct.pack("<i", 3)), px,
         None),
        ("negative_count", patched(data, rec.curves[px].offset + 8, struct.pack("<i", -1)), px,
         None),
        ("bad_marker", patched(data, marker_list + 8, b"\xff\xff\xff\xff\x7f"), "markers",
         None),
        ("trailing_bytes", data + b"\0", None, None),
        ("non_finite", patched(data, key_offset(rec, px, 1, 4), struct.pack("<f", np.nan)), px,
         1),
        ("bad_bool_value", patched(data, key_offset(rec, tracked, 0, 4), struct.pack("<f", 0.5)),
         tracked, 0),
        ("bad_weighted_mode", patched(data, key_offset(rec, px, 2, 24), struct.pack("<i", 7)),
         px, 2),
        ("unsorted_keys", patched(data, key_offset(rec, px, 1), struct.pack("<f", -1.0)), px, 1),
        ("bad_utf8", patched(data, marker_list + 9, b"\xff"), "markers", None),
    ]


def all_cases(full_file):
    path, data, rec, marker_list = full_file
    return cases(data, rec, marker_list)


CODES = ["truncated", "bad_magic", "unsupported_version", "bad_flag", "bad_wrap_mode",
         "negative_count", "bad_marker", "trailing_bytes", "non_finite", "bad_bool_value",
         "bad_weighted_mode", "unsorted_keys", "bad_utf8"]
STRUCTURAL = CODES[:8]


@pytest.mark.parametrize("code", CODES)
def test_validate_reports_every_error_as_the_command_does(cli, full_file, tmp_path, code):
    (_, data, curve, keyframe), = [c for c in all_cases(full_file) if c[0] == code]
    path = tmp_path / f"{code}.bin"
    path.write_bytes(data)
    report = inputanim.validate(path)
    assert report == cli_report(cli, path)
    assert report["valid"] is False
    assert report["error"]["code"] == code
    assert report["error"]["curve"] == curve
    assert report["error"]["keyframe"] == keyframe
    assert isinstance(report["error"]["offset"], int)
    # Bytes give the same report but for the path.
    from_bytes = inputanim.validate(data)
    assert from_bytes["path"] == "-"
    assert from_bytes["error"] == report["error"]


@pytest.mark.parametrize("code", STRUCTURAL)
def test_open_raises_invalid_recording_for_structural_errors(cli, full_file, tmp_path, code):
    (_, data, curve, keyframe), = [c for c in all_cases(full_file) if c[0] == code]
    path = tmp_path / f"{code}.bin"
    path.write_bytes(data)
    expected = cli_report(cli, path)["error"]
    with pytest.raises(inputanim.InvalidRecording) as caught:
        inputanim.open(path)
    e = caught.value
    assert (e.code, e.offset, e.curve, e.keyframe, e.message) == (
        expected["code"], expected["offset"], expected["curve"], expected["keyframe"],
        expected["message"])
    assert e.error == expected
    assert isinstance(e, ValueError)


@pytest.mark.parametrize("code", sorted(set(CODES) - set(STRUCTURAL)))
def test_open_accepts_content_errors_and_check_reports_them(cli, full_file, tmp_path, code):
    (_, data, _, _), = [c for c in all_cases(full_file) if c[0] == code]
    path = tmp_path / f"{code}.bin"
    path.write_bytes(data)
    warnings, error = inputanim.open(path).check()
    assert error == cli_report(cli, path)["error"]


def test_limit_exceeded_names_the_limit(cli, full_file):
    path = full_file[0]
    report = inputanim.validate(path, limits={"max_markers": 1})
    assert report == cli_report(cli, path, "--max-markers", "1")
    assert report["error"]["code"] == "limit_exceeded"
    assert report["error"]["limit"] == "max_markers"
    assert inputanim.validate(path, limits="upload")["valid"]


def test_level_and_layout_are_those_of_the_command(cli, full_file, tmp_path):
    (_, data, _, _), = [c for c in all_cases(full_file) if c[0] == "non_finite"]
    path = tmp_path / "nan.bin"
    path.write_bytes(data)
    assert inputanim.validate(path, level="structure") == cli_report(cli, path, "--level",
                                                                      "structure")
    assert inputanim.validate(path, layout="compact") == cli_report(cli, path, "--layout",
                                                                     "compact")
    with pytest.raises(ValueError):
        inputanim.validate(path, level="deep")


def test_a_valid_file_reports_as_the_command_does(cli, generated_file):
    assert inputanim.validate(generated_file) == cli_report(cli, generated_file)


def test_an_unreadable_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        inputanim.open(tmp_path / "absent.bin")
    with pytest.raises(FileNotFoundError):
        inputanim.validate(tmp_path / "absent.bin")
    with pytest.raises(IsADirectoryError):
        inputanim.open(tmp_path)


def test_a_truncated_mapping_is_an_io_error_in_guarded_reads(generated, tmp_path):
    # The library's reads of a mapping (sampling, checking) are guarded: the truncation of the
    # file under the mapping is an OSError, not a SIGBUS. (numpy's reads of the views are not:
    # hence copy=True.)
    path = tmp_path / "shrinking.bin"
    path.write_bytes(generated["v11_full"].read_bytes())
    rec = inputanim.open(path)
    os.truncate(path, 0)
    with pytest.raises(OSError) as caught:
        rec.sample(60)
    assert caught.value.filename == str(path)
    with pytest.raises(OSError):
        rec.check()
    with pytest.raises(OSError):
        rec.markers


def test_a_copy_is_immune_to_truncation(generated, tmp_path):
    path = tmp_path / "shrinking.bin"
    path.write_bytes(generated["v11_full"].read_bytes())
    rec = inputanim.open(path, copy=True)
    os.truncate(path, 0)
    assert rec.camera["position.x"].values.sum() == rec.camera["position.x"].values.sum()
    assert rec.sample(60)[1].shape[1] == 395


def test_limits_take_what_a_report_says_it_was_checked_with(full_file):
    path = full_file[0]
    for limits in (None, "upload", {"max_markers": 1, "max_bytes": None}):
        checked_with = inputanim.validate(path, limits=limits)["checked_with"]["limits"]
        again = inputanim.validate(path, limits=checked_with)
        assert again["checked_with"]["limits"] == checked_with
    # None is no limit: every key of an unlimited report holds it.
    assert set(inputanim.validate(path)["checked_with"]["limits"].values()) == {None}


@pytest.mark.parametrize("key, value", [
    ("max_bytes", -1),
    ("max_bytes", 2**64),
    ("max_markers", 2**32),
    ("max_markers", 1.5),
    ("max_markers", 2.0),
    ("max_total_keyframes", "10"),
    ("max_keyframes_per_curve", True),
    ("max_marker_name_bytes", False),
])
def test_a_limit_that_is_not_a_count_is_a_value_error_naming_it(full_file, tree, key, value):
    path = full_file[0]
    for call in (lambda: inputanim.validate(path, limits={key: value}),
                 lambda: inputanim.index(tree, limits={key: value}),
                 lambda: inputanim.index_files([path], limits={key: value})):
        with pytest.raises(ValueError, match=f"limits\\['{key}'\\]"):
            call()


def test_an_unknown_limit_is_a_value_error(full_file, tree):
    for call in (lambda: inputanim.validate(full_file[0], limits={"max_curves": 1}),
                 lambda: inputanim.index(tree, limits={"max_curves": 1})):
        with pytest.raises(ValueError, match="unknown limit 'max_curves'"):
            call()
