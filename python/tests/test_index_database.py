"""inputanim.index(..., sqlite=) and inputanim.dask.index(..., sqlite=) write the database that
`inputanim index --sqlite` writes: the same schema, the same rows (but for when they were
indexed), the same skipping of unchanged files and the same pruning, because both run the
command's own index code. Shards of one tree merged with inputanim.merge_index are one run."""

from contextlib import closing
import os
import shutil
import sqlite3

import pytest

import inputanim
from conftest import assert_same_rows, cli_rows, run


def table(database, name):
    """Every row of a table of the database, sorted, without the time of indexing."""
    with closing(sqlite3.connect(database)) as db:
        db.row_factory = sqlite3.Row
        rows = [dict(r) for r in db.execute(f"SELECT * FROM {name}")]
    for r in rows:
        r.pop("indexed_at", None)
    return sorted(rows, key=lambda r: sorted((k, str(v)) for k, v in r.items()))


def schema(database):
    with closing(sqlite3.connect(database)) as db:
        objects = sorted(db.execute("SELECT type, name, sql FROM sqlite_master"))
        identity = (db.execute("PRAGMA application_id").fetchone()[0],
                    db.execute("PRAGMA user_version").fetchone()[0])
    return objects, identity


def assert_same_database(got, expected):
    assert schema(got) == schema(expected)
    assert table(got, "recordings") == table(expected, "recordings")
    assert table(got, "warnings") == table(expected, "warnings")


def indexed_at(database):
    with closing(sqlite3.connect(database)) as db:
        return dict(db.execute("SELECT path, indexed_at FROM recordings"))


def test_index_writes_the_commands_database(cli, tree, tmp_path):
    run(cli, "index", "--sqlite", tmp_path / "cli.db", tree, check=False)
    frame = inputanim.index(tree, sqlite=tmp_path / "py.db")
    assert_same_rows(frame, cli_rows(cli, tree))
    assert_same_database(tmp_path / "py.db", tmp_path / "cli.db")
    assert len(table(tmp_path / "py.db", "recordings")) == len(frame)


def test_the_command_and_python_share_one_database(cli, tree, tmp_path):
    database = tmp_path / "shared.db"
    inputanim.index(tree, sqlite=database)
    before = indexed_at(database)
    out = run(cli, "index", "--sqlite", database, tree, check=False)
    # Nothing changed and the options are the same: the command reads no file again.
    assert f"{len(before)} unchanged" in out.stderr
    assert indexed_at(database) == before


def test_an_unchanged_file_is_not_read_again_unless_forced(tree, tmp_path):
    database = tmp_path / "index.db"
    first = inputanim.index(tree, sqlite=database)
    before = indexed_at(database)
    again = inputanim.index(tree, sqlite=database)
    assert again.equals(first)
    assert indexed_at(database) == before
    assert first.attrs["totals"]["unchanged"] == 0
    assert again.attrs["totals"]["unchanged"] == len(before) == again.attrs["totals"]["recordings"]
    inputanim.index(tree, sqlite=database, force=True)
    assert all(indexed_at(database)[p] > t for p, t in before.items())


def test_other_options_check_every_file_again(tree, tmp_path):
    database = tmp_path / "index.db"
    inputanim.index(tree, sqlite=database)
    before = indexed_at(database)
    full = inputanim.index(tree, sqlite=database, level="full")
    assert all(indexed_at(database)[p] > t for p, t in before.items())
    assert set(full.checked_with.map(lambda c: c["level"])) == {"full"}


def test_prune_removes_the_rows_of_files_that_are_gone(cli, tree, tmp_path):
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy, symlinks=True)
    database = tmp_path / "index.db"
    inputanim.index(copy, sqlite=database)
    gone = next(p for p in indexed_at(database) if p.endswith(".bin"))
    os.unlink(gone)
    inputanim.index(copy, sqlite=database)
    assert gone in indexed_at(database)
    pruned = inputanim.index(copy, sqlite=database, prune=True)
    assert gone not in indexed_at(database)
    assert pruned.attrs["totals"]["pruned"] == 1
    run(cli, "index", "--sqlite", tmp_path / "cli.db", copy, check=False)
    assert_same_database(database, tmp_path / "cli.db")


def test_prune_and_force_need_a_database(tree):
    with pytest.raises(ValueError):
        inputanim.index(tree, prune=True)
    with pytest.raises(ValueError):
        inputanim.index(tree, force=True)


def test_shards_merged_are_one_run(cli, tree, tmp_path):
    one = inputanim.index(tree, sqlite=tmp_path / "one.db")
    shards = [tmp_path / f"shard{k}.db" for k in range(3)]
    frames = [inputanim.index(tree, sqlite=s, shard=(k, 3)) for k, s in enumerate(shards)]
    assert sorted(sum((list(f.path) for f in frames), [])) == sorted(one.path)
    inputanim.merge_index(tmp_path / "merged.db", shards)
    assert_same_database(tmp_path / "merged.db", tmp_path / "one.db")
    # The command's shards are the same files.
    for k in range(3):
        rows = cli_rows(cli, "--shard", f"{k}/3", tree)
        assert [r["path"] for r in rows] == list(frames[k].path)


def test_a_database_of_another_application_is_refused_unchanged(tree, tmp_path):
    foreign = tmp_path / "app.db"
    with closing(sqlite3.connect(foreign)) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
        db.commit()
    before = foreign.read_bytes()
    with pytest.raises(inputanim.DatabaseError, match="not an inputanim index"):
        inputanim.index(tree, sqlite=foreign)
    with pytest.raises(inputanim.DatabaseError):
        inputanim.merge_index(tmp_path / "out.db", [foreign])
    assert foreign.read_bytes() == before


def test_a_shard_must_be_one_of_n(tree):
    with pytest.raises(ValueError):
        inputanim.index(tree, shard=(3, 3))


def test_merging_into_an_input_is_refused(tree, tmp_path):
    database = tmp_path / "index.db"
    inputanim.index(tree, sqlite=database)
    with pytest.raises(ValueError, match="it is the input file itself"):
        inputanim.merge_index(database, [database])


def test_a_database_that_is_a_file_to_index_is_refused_and_the_file_kept(generated, tmp_path):
    recording = tmp_path / "take.bin"
    shutil.copyfile(generated["v11_compact"], recording)
    before = recording.read_bytes()
    for database in (recording, os.fsencode(recording)):
        with pytest.raises(inputanim.DatabaseError, match="it is the input file itself"):
            inputanim.index(recording, sqlite=database)
        with pytest.raises(inputanim.DatabaseError, match="it is the input file itself"):
            inputanim.index_files([recording], sqlite=database)
    assert recording.read_bytes() == before
    assert not os.path.exists(f"{recording}-journal")
