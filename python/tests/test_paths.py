"""Paths are what the OS says they are: a str (with the surrogate escapes os.listdir gives a name
that is not UTF-8), bytes or an os.PathLike, as os.fsencode turns them into bytes, in every
function that takes one; a NUL byte, which would cut the name short in the OS, is a ValueError."""

import os
import pathlib
import shutil

import pytest

import inputanim
import inputanim.dask


@pytest.fixture
def latin1(generated, tmp_path):
    """(folder, the str os.listdir gives for a recording named with the byte 0xff)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    shutil.copyfile(generated["v11_compact"], os.fsencode(folder) + b"/rec-\xff.bin")
    (name,) = os.listdir(folder)
    assert name == "rec-\udcff.bin"
    return folder, os.path.join(folder, name)


def test_a_name_that_is_not_utf8_opens_as_str_bytes_and_pathlike(latin1):
    folder, name = latin1
    for path in (name, pathlib.Path(name)):
        rec = inputanim.open(path)
        assert rec.path == os.fspath(path) and rec.summary["curves"] == 395
        report = inputanim.validate(path)
        assert report["valid"] and report["path"] == name
    # The rows are the command's: the exact bytes in path_bytes (docs/CLI.md, "File names").
    exact = [os.fsencode(name).hex()]
    frame = inputanim.index(os.fsencode(folder))
    assert list(frame["path_bytes"]) == exact and frame["valid"].all()
    assert list(inputanim.index(name)["path_bytes"]) == exact
    files, named = inputanim.list_files(folder)
    assert files == [name] and named == [False]
    assert list(inputanim.index_files([os.fsencode(name)])["path_bytes"]) == exact


def test_an_os_error_names_the_path_as_the_os_module_does(tmp_path):
    missing = os.fsdecode(os.fsencode(tmp_path) + b"/absent-\xff.bin")
    # Bytes are a recording's content for open and validate, a name for the others.
    for call, names in ((inputanim.open, [missing]), (inputanim.validate, [missing]),
                        (inputanim.index, [missing, os.fsencode(missing)]),
                        (inputanim.list_files, [missing, os.fsencode(missing)])):
        for name in names:
            with pytest.raises(FileNotFoundError) as caught:
                call(name)
            assert caught.value.filename == missing, call


def test_a_database_name_that_is_not_utf8_is_that_file(latin1, tmp_path):
    folder, _ = latin1
    database = os.fsencode(tmp_path) + b"/index-\xff.db"
    inputanim.index(folder, sqlite=database)
    merged = os.fsdecode(os.fsencode(tmp_path) + b"/merged-\xff.db")
    inputanim.merge_index(merged, os.fsdecode(database))
    assert os.path.getsize(database) > 0 and os.path.getsize(merged) > 0


def test_a_nul_byte_in_a_path_is_a_value_error_everywhere(generated, tmp_path):
    # "x.bin" exists: a path read up to its NUL would name it.
    shutil.copyfile(generated["v11_compact"], tmp_path / "x.bin")
    for nul in (f"{tmp_path}/x.bin\0.txt", os.fsencode(tmp_path) + b"/x.bin\0.txt",
                pathlib.PurePosixPath(f"{tmp_path}/x.bin\0.txt")):
        calls = {
            "index": lambda: inputanim.index(nul),
            "index_files": lambda: inputanim.index_files([nul]),
            "list_files": lambda: inputanim.list_files(nul),
            "index sqlite": lambda: inputanim.index(tmp_path, sqlite=nul),
            "merge_index output": lambda: inputanim.merge_index(nul, []),
            "merge_index input": lambda: inputanim.merge_index(tmp_path / "out.db", [nul]),
            # Checked before any work is sent to the cluster (so no client is needed here).
            "dask.index": lambda: inputanim.dask.index([nul], None),
            "dask.index sqlite": lambda: inputanim.dask.index([tmp_path], None, sqlite=nul),
        }
        rec = inputanim.open(generated["v11_compact"])
        calls["export"] = lambda: rec.export(nul, "glb")
        if not isinstance(nul, bytes):
            # Bytes are a recording's content there, not a name.
            calls["open"] = lambda: inputanim.open(nul)
            calls["validate"] = lambda: inputanim.validate(nul)
        for what, call in calls.items():
            with pytest.raises(ValueError, match="NUL"):
                call()
                pytest.fail(f"{what} {nul!r}")
    assert not (tmp_path / "out.db").exists()
