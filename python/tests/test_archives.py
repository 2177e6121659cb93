"""Recordings inside tar and zip archives from Python: members() lists an archive's entries;
open() opens a member by a path through the archive, by member=, or where an index row says with
no walk, its arrays views over the archive's own mapping when the archive holds its bytes as they
are; index() gives a row per member with the archive and member columns, row for row what
`inputanim index --jsonl` gives, and every row opens what it describes."""

import os
import shutil
import tarfile

import numpy as np
import pytest

import inputanim
from conftest import assert_same_rows, cli_rows


def same_recording(a, b):
    assert a.summary == b.summary
    for name in ("position.x", "rotation.w"):
        assert np.array_equal(a.camera[name].times, b.camera[name].times)
        assert np.array_equal(a.camera[name].values, b.camera[name].values)


def mapping_of(address):
    """The file mapped at `address` in this process (/proc/self/maps), or None."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            low, high = (int(x, 16) for x in fields[0].split("-"))
            if low <= address < high:
                return fields[5].strip() if len(fields) == 6 else None
    return None


def test_members_lists_every_entry_with_its_place(archives, tree):
    for name in ("take.tar", "take.zip"):
        entries = inputanim.members(archives / name)
        files = {e["name"]: e for e in entries if e["kind"] == "file"}
        assert set(files) == {"a/compact.bin", "a/b/v10.bin", "packed.bin.gz", "invalid.bin",
                              "c/notes.txt"}
        assert [e["ordinal"] for e in entries] == list(range(len(entries)))
        data = (archives / name).read_bytes()
        compact = (tree / "a" / "compact.bin").read_bytes()
        entry = files["a/compact.bin"]
        assert entry["size"] == len(compact) and entry["method"] == "stored"
        assert data[entry["offset"]:entry["offset"] + entry["size"]] == compact
    kinds = {e["name"].rstrip("/"): e["kind"] for e in inputanim.members(archives / "take.tar")}
    assert kinds["c"] == "directory"
    deflated = inputanim.members(archives / "deflated.zip")
    assert all(e["offset"] is None and e["method"] == "deflate" for e in deflated)
    # A name that is not UTF-8 comes back as os.listdir gives one.
    (entry,) = inputanim.members(os.fsencode(archives) + b"/\xff.tar")
    assert os.fsencode(entry["name"]) == b"\xfe.bin"


def test_members_of_what_is_no_archive_or_a_damaged_one(archives, tree, tmp_path):
    with pytest.raises(NotADirectoryError):
        inputanim.members(tree / "a" / "compact.bin")
    data = (archives / "take.tar").read_bytes()
    entries = inputanim.members(archives / "take.tar")
    last = max(e["offset"] or 0 for e in entries)
    cut = tmp_path / "cut.tar"
    cut.write_bytes(data[:last - 100])
    with pytest.raises(inputanim.InvalidRecording) as caught:
        inputanim.members(cut)
    assert caught.value.code == "archive_truncated"
    assert 0 < len(caught.value.members) < len(entries)


@pytest.mark.parametrize("name", ["take.tar", "take.tar.gz", "take.zip", "deflated.zip"])
def test_a_member_opens_as_the_same_bytes_do_loose(archives, tree, name):
    loose = inputanim.open(tree / "a" / "compact.bin")
    for rec in (inputanim.open(archives / name / "a" / "compact.bin"),
                inputanim.open(archives / name, member="a/compact.bin"),
                inputanim.open(archives / name, member=b"a/compact.bin", copy=True)):
        same_recording(rec, loose)
    gz = inputanim.open(archives / name, member="packed.bin.gz")
    same_recording(gz, loose)
    with pytest.raises(inputanim.InvalidRecording) as caught:
        inputanim.open(archives / name, member="invalid.bin")
    assert caught.value.code == "truncated"
    with pytest.raises(FileNotFoundError):
        inputanim.open(archives / name, member="absent.bin")


@pytest.mark.parametrize("name", ["take.tar", "take.zip"])
def test_a_stored_members_arrays_are_views_over_the_archives_mapping(archives, name):
    rec = inputanim.open(archives / name, member="a/compact.bin")
    assert rec.mapped
    values = rec.camera["position.x"].values
    assert np.shares_memory(values, rec.buffer)
    address = np.frombuffer(rec.buffer, dtype=np.uint8).ctypes.data
    assert mapping_of(address) == str(archives / name)
    copied = inputanim.open(archives / name, member="a/compact.bin", copy=True)
    assert not copied.mapped
    assert mapping_of(np.frombuffer(copied.buffer, dtype=np.uint8).ctypes.data) != str(
        archives / name)


def test_every_index_row_opens_what_it_describes(cli, archives, tree):
    expected = cli_rows(cli, archives)
    frame = inputanim.index(archives)
    assert_same_rows(frame, expected)
    members = frame[frame["member"].notna()]
    assert len(members) == 4 * 4 + 1
    for _, row in members.iterrows():
        if not row["valid"]:
            with pytest.raises(inputanim.InvalidRecording):
                inputanim.open(row)
            continue
        rec = inputanim.open(row)
        loose = {"a/compact.bin": "a/compact.bin", "a/b/v10.bin": "a/b/v10.bin",
                 "packed.bin.gz": "a/compact.bin"}.get(row["member"])
        if loose is not None:
            same_recording(rec, inputanim.open(tree / loose))
        # A stored member opens where the row says, with no walk: the archive mapped.
        assert rec.mapped == (row["member_offset"] is not None and
                              row["member_offset"] is not pd_na() and
                              not row["member"].endswith(".gz"))
    # The same from the rows of the command's JSON Lines (dicts).
    for row in expected:
        if row.get("member") == "a/compact.bin":
            same_recording(inputanim.open(row), inputanim.open(tree / "a" / "compact.bin"))


def pd_na():
    import pandas as pd
    return pd.NA


def test_a_row_of_an_archive_that_changed_since_is_refused(archives, tree, tmp_path):
    shutil.copyfile(archives / "take.tar", tmp_path / "take.tar")
    frame = inputanim.index(tmp_path)
    row = frame[frame["member"] == "a/compact.bin"].iloc[0]
    # The same name written again, with another member before it: the row's offset now falls
    # inside another member's bytes.
    with tarfile.open(tmp_path / "take.tar", "w") as t:
        t.add(tree / "a" / "full.bin", arcname="first.bin")
        t.add(tree / "a" / "compact.bin", arcname="a/compact.bin")
    with pytest.raises(inputanim.InvalidRecording) as caught:
        inputanim.open(row)
    assert caught.value.code in ("header_mismatch", "member_past_end")
    with pytest.raises(ValueError):
        inputanim.open(tmp_path / "take.tar", member="a/compact.bin", offset=512)


def test_index_without_archives_takes_them_for_other_files(cli, archives):
    frame = inputanim.index(archives, archives=False)
    assert len(frame) == 0
    assert_same_rows(frame, cli_rows(cli, "--no-archives", archives))
    named = inputanim.index(archives / "take.tar", archives=False)
    assert list(named["valid"]) == [False]
    assert named["error"][0]["code"] == "bad_magic"
