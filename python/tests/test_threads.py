"""Validation, sampling and diff release the GIL: another Python thread runs while they work.
Thread counts have a ceiling, MAX_THREADS."""

import os
import shutil
import subprocess
import sys
import threading
import time

import pytest

import inputanim
import inputanim.dask
from conftest import run


@pytest.fixture(scope="module")
def long_recording(cli, tmp_path_factory):
    # Every 60 Hz sample of 10 minutes kept: 91 MiB, a few hundred ms to sample.
    path = tmp_path_factory.mktemp("long") / "long.bin"
    run(cli, "gen", "--raw", "--seconds", "600", "-o", path)
    return path


def python_runs_during(work):
    """How many times this thread ran Python in the middle half of the time `work` took on
    another thread (the edges hold the Python code around the call)."""
    window = {}
    ticks = []

    def worker():
        window["start"] = time.perf_counter()
        work()
        window["stop"] = time.perf_counter()

    thread = threading.Thread(target=worker)
    thread.start()
    while thread.is_alive():
        ticks.append(time.perf_counter())
    thread.join()
    quarter = (window["stop"] - window["start"]) / 4
    return sum(window["start"] + quarter < t < window["stop"] - quarter for t in ticks)


def test_the_measure_sees_a_call_that_holds_the_gil():
    # sum() over a range is C code that keeps the GIL until it returns.
    assert python_runs_during(lambda: sum(range(20_000_000))) == 0


def test_sampling_releases_the_gil(long_recording):
    rec = inputanim.open(long_recording)
    assert python_runs_during(lambda: rec.sample(60)) > 0


def test_diff_releases_the_gil(long_recording):
    rec = inputanim.open(long_recording)
    assert python_runs_during(lambda: inputanim.diff(rec, rec)) > 0


def test_validation_releases_the_gil(long_recording):
    data = long_recording.read_bytes()
    assert python_runs_during(lambda: inputanim.validate(data)) > 0
    assert python_runs_during(lambda: inputanim.validate(long_recording)) > 0


def test_thread_counts_are_from_1_to_max_threads(generated, tree):
    path = generated["v11_compact"]
    assert inputanim.MAX_THREADS == 256
    calls = {
        "index": lambda n: inputanim.index(tree, jobs=n),
        "index_files": lambda n: inputanim.index_files([path], jobs=n),
        "validate": lambda n: inputanim.validate(path, threads=n),
        # Checked before any work is sent to the cluster (so no client is needed here).
        "dask.index": lambda n: inputanim.dask.index(tree, None, jobs=n),
    }
    refused = r"(jobs|threads) must be an integer from 1 to 256"
    for what, call in calls.items():
        for bad in (0, -1, inputanim.MAX_THREADS + 1, 2**64, 1.5, 2.0, "2", True):
            with pytest.raises(ValueError, match=refused):
                call(bad)
                pytest.fail(f"{what}({bad!r})")
    assert inputanim.validate(path, threads=inputanim.MAX_THREADS)["valid"]
    assert inputanim.validate(path, threads=None)["valid"]
    assert len(inputanim.index_files([path], jobs=inputanim.MAX_THREADS)) == 1


def test_threads_that_cannot_start_are_an_exception_not_an_abort(tree, tmp_path):
    # The system refuses every thread: index and validate either carry on with the threads they
    # have or raise; the interpreter lives on. As root, the interpreter runs as a user of its own
    # allowed one task (RLIMIT_NPROC, which does not bind root), which also holds under
    # AddressSanitizer; otherwise under an address-space limit, where no thread's stack can be
    # mapped (a sanitized build reserves more than any such limit and skips it).
    shared = tmp_path / "shared"
    shared.mkdir()
    big = shared / "big.bin"
    run(os.environ["INPUTANIM_CLI"], "gen", "--raw", "--seconds", "240", "-o", big)
    files = shared / "tree"
    shutil.copytree(tree, files)
    code = f"""
import resource, sys
import inputanim
if {os.geteuid() != 0!r}:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, hard))
for call in (lambda: inputanim.index({str(files)!r}, jobs=inputanim.MAX_THREADS),
             lambda: inputanim.validate({str(big)!r}, threads=inputanim.MAX_THREADS)):
    try:
        call()
    except (OSError, RuntimeError) as e:
        assert str(e), "an exception with a message"
print("alive")
"""
    # numpy's BLAS would start its threads at import.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    command = [sys.executable, "-c", code]
    if os.geteuid() == 0:
        if not os.path.exists("/usr/bin/setpriv"):
            pytest.skip("no setpriv (util-linux)")
        for folder in [tmp_path, *tmp_path.parents]:
            if folder == folder.parent:
                break
            os.chmod(folder, os.stat(folder).st_mode | 0o005)
        for path in shared.rglob("*"):
            os.chmod(path, os.stat(path).st_mode | 0o005)
        command = ["/usr/bin/setpriv", "--reuid=54323", "--regid=54323", "--clear-groups",
                   "prlimit", "--nproc=1", *command]
    elif "libasan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("AddressSanitizer reserves more address space than the limit allows")
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert (out.returncode, out.stdout) == (0, "alive\n"), out.stderr
