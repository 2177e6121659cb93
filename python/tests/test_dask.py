"""inputanim.dask.index() on a Dask cluster of separate processes, started as docs/SCALING.md
("Running it on a cluster") starts one: `dask-scheduler`, two `dask-worker --nthreads 1` over
TCP on 127.0.0.1, a Client connected to the scheduler's address. Its frame equals
`inputanim index --jsonl` row for row, however the files are cut into parts, and its database
`inputanim index --sqlite`'s, also when a worker is killed in the middle of a run."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

import inputanim
from conftest import assert_same_rows, cli_rows, run

distributed = pytest.importorskip("distributed")
import inputanim.dask  # noqa: E402  (after the skip: it needs distributed's pandas only)

# The commands of python3-distributed, beside the interpreter that runs the tests.
BIN = os.path.dirname(sys.executable)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def workers_tmp(tmp_path_factory):
    """The workers' temporary folder, where their parts' databases are written."""
    return tmp_path_factory.mktemp("workers")


@pytest.fixture(scope="module")
def client(tmp_path_factory, workers_tmp):
    if not shutil.which("dask-worker", path=BIN):
        pytest.skip(f"no dask-worker beside {sys.executable} (python3-distributed)")
    folder = tmp_path_factory.mktemp("dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    env = dict(os.environ, TMPDIR=str(workers_tmp))
    commands = [[f"{BIN}/dask-scheduler", "--host", "127.0.0.1", "--port", address.split(":")[-1]]]
    commands += [[f"{BIN}/dask-worker", address, "--nthreads", "1"]] * 2
    processes = []
    try:
        for i, command in enumerate(commands):
            log = open(folder / f"{i}.log", "wb")
            processes.append(subprocess.Popen(command, cwd=folder, env=env, stdout=log,
                                              stderr=subprocess.STDOUT))
            log.close()
        client = distributed.Client(address, timeout=60)
        client.wait_for_workers(2, timeout=60)
        yield client
        client.close()
    finally:
        # Workers first, then the scheduler; each by its PID, SIGKILL after 10 s.
        for p in reversed(processes):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_the_workers_are_two_processes(client):
    pids = client.run(os.getpid)
    assert len(pids) == 2 and os.getpid() not in pids.values()
    assert len(set(pids.values())) == 2
    assert all(address.startswith("tcp://127.0.0.1:") for address in pids)
    assert set(client.nthreads().values()) == {1}


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


def test_dask_index_writes_the_commands_database(cli, tree, client, tmp_path, workers_tmp):
    from test_index_database import assert_same_database

    run(cli, "index", "--sqlite", tmp_path / "cli.db", tree, check=False)
    frame = inputanim.dask.index(tree, client, partitions=3, sqlite=tmp_path / "dask.db")
    assert_same_rows(frame, cli_rows(cli, tree))
    assert_same_database(tmp_path / "dask.db", tmp_path / "cli.db")
    # No part's database is left behind, next to the output or on the workers.
    left = [p.name for p in tmp_path.iterdir()] + [p.name for p in workers_tmp.iterdir()]
    assert not [name for name in left if "inputanim-part-" in name]


def test_dask_index_updates_an_existing_database(cli, tree, client, tmp_path):
    from test_index_database import assert_same_database

    database = tmp_path / "index.db"
    inputanim.index(tree / "a", sqlite=database)
    inputanim.dask.index(tree, client, partitions=2, sqlite=database)
    run(cli, "index", "--sqlite", tmp_path / "cli.db", tree, check=False)
    assert_same_database(database, tmp_path / "cli.db")


@pytest.fixture(scope="module")
def many(tree, tmp_path_factory):
    """Some hundred files: the tree's, every file of it also copied into folders."""
    root = tmp_path_factory.mktemp("many")
    shutil.copytree(tree, root / "tree", symlinks=True)
    files = [p for p in (root / "tree").rglob("*") if p.is_file() and not p.is_symlink()]
    for folder in range(12):
        (root / f"{folder:02}").mkdir()
        for i, f in enumerate(files):
            shutil.copyfile(f, root / f"{folder:02}" / f"{i:02}-{f.name}")
    return root


# Last: the killed worker's nanny starts a new one, but its first call imports the package again.
def test_a_worker_killed_in_the_middle_of_a_run_changes_nothing(cli, many, client, tmp_path):
    from test_index_database import assert_same_database

    run(cli, "index", "--sqlite", tmp_path / "cli.db", many, check=False)
    before = client.run(os.getpid)
    result = {}

    def index():
        try:
            result["frame"] = inputanim.dask.index(many, client, partitions=40,
                                                   sqlite=tmp_path / "dask.db")
        except BaseException as e:  # noqa: B902  (reported by the test's thread below)
            result["error"] = e

    running = threading.Thread(target=index)
    running.start()
    # The moment a part is on a worker, that worker's process dies, as a crashed machine's would.
    victim = None
    deadline = time.monotonic() + 60
    while victim is None and time.monotonic() < deadline and running.is_alive():
        for worker, keys in client.processing().items():
            if any("_index_part" in str(k) for k in keys):
                victim = worker
                break
        else:
            time.sleep(0.005)
    assert victim is not None and running.is_alive(), "the run ended before a worker was killed"
    os.kill(before[victim], signal.SIGKILL)
    running.join(timeout=120)
    assert not running.is_alive()
    assert "error" not in result, result.get("error")
    # The worker is gone: its tasks ran again elsewhere.
    assert victim not in client.run(os.getpid)
    assert_same_rows(result["frame"], cli_rows(cli, many))
    pd.testing.assert_frame_equal(result["frame"], inputanim.index(many))
    assert_same_database(tmp_path / "dask.db", tmp_path / "cli.db")
