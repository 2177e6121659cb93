"""inputanim.dask.index() on a LocalCluster of two worker processes over loopback equals
`inputanim index --jsonl` row for row, however the files are cut into parts."""

import os
import tempfile

import pandas as pd
import pytest

import inputanim
from conftest import assert_same_rows, cli_rows, run

distributed = pytest.importorskip("distributed")
import inputanim.dask  # noqa: E402  (after the skip: it needs distributed's pandas only)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, local_directory=str(tmp_path_factory.mktemp("dask")))
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_the_workers_are_two_processes(client):
    pids = client.run(os.getpid)
    assert len(pids) == 2 and os.getpid() not in pids.values()


@pytest.mark.parametrize("partitions", [None, 1, 2, 7, 1000])
def test_dask_index_equals_the_command_row_for_row(cli, tree, client, partitions):
    expected = cli_rows(cli, tree)
    frame = inputanim.dask.index([tree], client, partitions=partitions)
    assert_same_rows(frame, expected)
    pd.testing.assert_frame_equal(frame, inputanim.index(tree))


def test_dask_index_takes_globs_and_options(cli, tree, client):
    operands = sorted(str(p) for p in (tree / "c").iterdir())
    expected = cli_rows(cli, "--level", "full", tree / "a", *operands)
    frame = inputanim.dask.index([str(tree / "a"), str(tree / "c" / "*")], client, partitions=3,
                                 level="full")
    assert_same_rows(frame, expected)


def test_every_part_is_a_task_of_the_workers(tree, client):
    with distributed.get_task_stream(client) as tasks:
        inputanim.dask.index(tree, client, partitions=8)
    workers = {t["worker"] for t in tasks.data if "_index_part" in str(t["key"])}
    assert len([t for t in tasks.data if "_index_part" in str(t["key"])]) == 8
    assert workers <= set(client.nthreads())


def test_an_empty_folder_gives_an_empty_frame(client, tmp_path):
    frame = inputanim.dask.index(tmp_path, client)
    assert len(frame) == 0 and list(frame.columns) == list(inputanim.INDEX_COLUMNS)


def test_a_missing_path_is_an_error(client, tmp_path):
    with pytest.raises(FileNotFoundError):
        inputanim.dask.index(tmp_path / "absent", client)


def test_dask_index_writes_the_commands_database(cli, tree, client, tmp_path):
    from test_index_database import assert_same_database

    run(cli, "index", "--sqlite", tmp_path / "cli.db", tree, check=False)
    frame = inputanim.dask.index(tree, client, partitions=3, sqlite=tmp_path / "dask.db")
    assert_same_rows(frame, cli_rows(cli, tree))
    assert_same_database(tmp_path / "dask.db", tmp_path / "cli.db")
    # No part's database is left behind, next to the output or on the workers (this machine).
    left = [p.name for p in tmp_path.iterdir()] + os.listdir(tempfile.gettempdir())
    assert not [name for name in left if "inputanim-part-" in name]


def test_dask_index_updates_an_existing_database(cli, tree, client, tmp_path):
    from test_index_database import assert_same_database

    database = tmp_path / "index.db"
    inputanim.index(tree / "a", sqlite=database)
    inputanim.dask.index(tree, client, partitions=2, sqlite=database)
    run(cli, "index", "--sqlite", tmp_path / "cli.db", tree, check=False)
    assert_same_database(database, tmp_path / "cli.db")
