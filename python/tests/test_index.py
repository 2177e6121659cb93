"""inputanim.index() is `inputanim index --jsonl`, row for row: the same files in the same order
(folders walked, globs expanded as a shell would), the same fields and values. The rows are made
by the module from the library's report, so this comparison is what keeps them from drifting
apart from the command's."""

import os

import numpy as np
import pandas as pd
import pytest

import inputanim
from conftest import assert_same_rows, cli_rows


def test_the_fields_are_those_of_the_command(cli, tree, archives):
    expected = cli_rows(cli, tree, archives)
    fields = set().union(*(row.keys() for row in expected))
    assert fields == set(inputanim.INDEX_COLUMNS)
    frame = inputanim.index([tree, archives])
    assert list(frame.columns) == list(inputanim.INDEX_COLUMNS)
    assert_same_rows(frame, expected)


def test_the_columns_and_their_types_are_the_documented_ones(tree):
    # The table comes from the core; these are the types the frame has always had (README.md).
    assert inputanim.INDEX_COLUMNS == {
        "path": object, "path_bytes": object, "valid": bool, "bytes": "Int64",
        "version": object, "layout": object, "has_camera": "boolean", "has_hands": "boolean",
        "has_gaze": "boolean", "curves": "Int64", "keyframes": "Int64", "markers": "Int64",
        "start": "float64", "duration": "float64", "warnings": object, "warnings_found": "Int64",
        "error": object, "checked_with": object, "archive": object, "archive_bytes": object,
        "member": object, "member_bytes": object, "member_ordinal": "Int64",
        "member_offset": "Int64", "member_size": "Int64"}
    assert inputanim.METRICS_COLUMNS == {"metrics": object, "metrics_error": object}
    frame = inputanim.index(tree)
    for name, dtype in inputanim.INDEX_COLUMNS.items():
        assert frame[name].dtype == pd.Series([], dtype=dtype).dtype, name


def test_index_equals_the_command_row_for_row(cli, tree):
    expected = cli_rows(cli, tree)
    # The walk's files that are recordings: 4 generated, 2 gzip, the invalid and empty ones, the
    # link to a file and the copies; not the notes nor anything through the link to a folder.
    assert len(expected) == 4 + 2 + 2 + 1 + 12
    assert sum(not r["valid"] for r in expected) == 2
    for jobs in (1, 2, 3):
        assert_same_rows(inputanim.index(tree, jobs=jobs), expected)
    assert_same_rows(inputanim.index(str(tree)), expected)


def test_index_at_level_full_equals_the_command(cli, tree):
    expected = cli_rows(cli, "--level", "full", tree)
    assert_same_rows(inputanim.index([tree], level="full"), expected)


def test_named_files_and_globs_are_operands_as_a_shell_gives_them(cli, tree):
    glob = str(tree / "c" / "*")
    operands = sorted(str(p) for p in (tree / "c").iterdir())
    expected = cli_rows(cli, tree / "a", tree / "c" / "notes.txt", *operands)
    frame = inputanim.index([tree / "a", tree / "c" / "notes.txt", glob])
    assert_same_rows(frame, expected)
    # A file named directly is indexed whatever it holds: notes.txt is an invalid recording.
    notes = frame[frame.path == str(tree / "c" / "notes.txt")]
    assert notes.iloc[0]["error"]["code"] == "bad_magic"


def test_the_frame_has_types_that_keep_nulls(tree):
    frame = inputanim.index(tree)
    assert frame["valid"].dtype == bool
    assert str(frame["keyframes"].dtype) == "Int64"
    assert str(frame["has_camera"].dtype) == "boolean"
    assert frame["start"].dtype == np.float64
    empty = frame[frame.path.str.endswith("empty.bin")].iloc[0]
    assert empty["version"] is None and empty["has_camera"] is pd.NA
    assert empty["error"]["code"] == "truncated"
    assert frame[frame.valid]["error"].isna().all()


def test_an_unreadable_file_has_the_commands_row(cli, tree, tmp_path):
    # A link that leads nowhere, named: opening it fails.
    dangling = tmp_path / "dangling.bin"
    os.symlink(tmp_path / "absent", dangling)
    expected = cli_rows(cli, dangling)
    assert expected[0]["error"]["code"] == "unreadable"
    assert_same_rows(inputanim.index(dangling), expected)


def test_a_missing_path_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        inputanim.index(tmp_path / "absent")
    with pytest.raises(FileNotFoundError):
        inputanim.index(str(tmp_path / "absent-*.bin"))


def test_an_empty_folder_gives_an_empty_frame(tmp_path):
    frame = inputanim.index(tmp_path)
    assert len(frame) == 0 and list(frame.columns) == list(inputanim.INDEX_COLUMNS)
