"""inputanim.testing.assert_recordings_close: diff()'s verdict as an assertion whose message
names the first difference."""

import os
import subprocess
import sys
import textwrap

import pytest

import inputanim
from inputanim.testing import assert_recordings_close


def test_the_same_within_tolerance_is_none(diff_pairs):
    assert assert_recordings_close(*diff_pairs["layout"], keys=True) is None
    assert assert_recordings_close(*diff_pairs["joint"], position=0.0021) is None
    assert assert_recordings_close(*diff_pairs["offset"], offset=-0.4) is None


def test_a_moved_joint_names_the_pose_the_time_and_the_size(diff_pairs):
    with pytest.raises(AssertionError, match=(
            r"differ: hand\.left\.joint\.IndexTip\.position differs from 3\.000 s by 2\.000 mm "
            r"\(tolerance 1\.000 mm; max 2\.000 mm at 3\.\d{3} s\)$")):
        assert_recordings_close(*diff_pairs["joint"])


def test_a_turned_head_is_in_degrees(diff_pairs):
    with pytest.raises(AssertionError, match=(
            r"camera\.rotation differs from 0\.000 s by 1\.000 deg \(tolerance 0\.500 deg;")):
        assert_recordings_close(*diff_pairs["head"])


def test_the_tolerance_given_is_the_one_named(diff_pairs):
    with pytest.raises(AssertionError, match=r"by 1\.000 deg \(tolerance 0\.200 deg;"):
        assert_recordings_close(*diff_pairs["head"], angle=0.2)


def test_a_longer_pinch_names_the_intervals(diff_pairs):
    with pytest.raises(AssertionError, match=(
            r"hand\.left\.pinching moved: A \[2\.000, 3\.000\) s, B \[2\.000, 3\.0\d\d\) s")):
        assert_recordings_close(*diff_pairs["pinch"])


def test_a_renamed_marker_names_both(diff_pairs):
    with pytest.raises(AssertionError,
                       match=r"marker renamed: A 4\.000 s 'end', B 4\.000 s 'finish'"):
        assert_recordings_close(*diff_pairs["marker"])


def test_the_sides_are_named(diff_pairs):
    a, b = diff_pairs["marker"]
    with pytest.raises(AssertionError) as caught:
        assert_recordings_close(a, b)
    assert str(caught.value).startswith(f"{str(a)!r} and {str(b)!r} differ: ")
    with pytest.raises(AssertionError, match="^recordings differ: marker renamed"):
        assert_recordings_close(a.read_bytes(), inputanim.open(b.read_bytes()))


def test_motion_comes_first_then_a_count_of_the_others(diff_pairs):
    with pytest.raises(AssertionError, match=(
            r"differs from 3\.000 s by 2\.000 mm .*\n\.\.\.and 1 more difference \(1 marker\)$")):
        assert_recordings_close(*diff_pairs["two"])


def test_keys_differ_only_when_asked(diff_pairs):
    a, b = diff_pairs["offset"]
    assert_recordings_close(a, b, offset=-0.4)
    with pytest.raises(AssertionError, match=(
            r"differ: keys of camera\.position\.x differ: value of key 0: A .*, B .*\n"
            r"\.\.\.and \d+ more differences \(\d+ curves' keys\)$")):
        assert_recordings_close(a, b, offset=-0.4, keys=True)


def test_diffs_errors_pass_as_they_are(diff_pairs, tmp_path):
    a, b = diff_pairs["joint"]
    with pytest.raises(ValueError, match="position=-1"):
        assert_recordings_close(a, b, position=-1)
    with pytest.raises(FileNotFoundError):
        assert_recordings_close(a, tmp_path / "missing.bin")
    with pytest.raises(TypeError):
        assert_recordings_close(a, b, tolerance=1)


def test_pytest_shows_the_message(diff_pairs, tmp_path):
    a, b = diff_pairs["two"]
    test = tmp_path / "test_recorded.py"
    test.write_text(textwrap.dedent(f"""
        from inputanim.testing import assert_recordings_close

        def test_recorded_take():
            assert_recordings_close({str(a)!r}, {str(b)!r})
    """))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(test)], capture_output=True, text=True, cwd=tmp_path,
                         env=os.environ)
    assert out.returncode == 1, out.stdout + out.stderr
    shown = [line.split(maxsplit=1)[1] for line in out.stdout.splitlines()
             if line.startswith("E ")]
    # The message as it is, on the lines pytest marks with E.
    assert len(shown) == 2
    assert shown[0].startswith(f"AssertionError: {str(a)!r} and {str(b)!r} differ: "
                               "hand.left.joint.IndexTip.position differs from 3.000 s by "
                               "2.000 mm (tolerance 1.000 mm; max 2.000 mm at 3.")
    assert shown[1] == "...and 1 more difference (1 marker)"
    # The failure is shown where the test called the assertion, not inside it.
    assert "inputanim/testing.py" not in out.stdout
