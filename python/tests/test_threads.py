"""Validation and sampling release the GIL: another Python thread runs while they work."""

import threading
import time

import pytest

import inputanim
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


def test_validation_releases_the_gil(long_recording):
    data = long_recording.read_bytes()
    assert python_runs_during(lambda: inputanim.validate(data)) > 0
    assert python_runs_during(lambda: inputanim.validate(long_recording)) > 0
