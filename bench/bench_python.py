"""Benchmarks of the Python package (docs/PERFORMANCE.md, "Python"), each against a baseline
measured in the same run:

- open a large recording and get every curve's times and values arrays, against the numpy way
  (np.memmap and a walk of the curve headers in Python making the same strided views), with the
  RSS growth before any value is read, and against the same walk reading the headers with
  os.pread instead of through the mapping (what a walk that faults in no page would cost);
- sample every curve of a 10-minute 60 Hz recording into numpy, per value, against the C++
  resampler (bench_evaluate's BM_RecordingResample/hz:60, when INPUTANIM_BENCH_EVALUATE names it);
- tidy() of the same recording.

    PYTHONPATH=build/python/python INPUTANIM_CLI=build/python/tools/inputanim \\
    INPUTANIM_BENCH_EVALUATE=build/python/bench/bench_evaluate \\
    /usr/bin/python3 bench/bench_python.py [--dir /tmp/inputanim-bench]

The recordings are written by `inputanim gen --raw` into --dir (kept for the next run).
"""

import argparse
import gc
import json
import os
import pathlib
import statistics
import struct
import subprocess
import time

import numpy as np

import inputanim


def status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def generate(cli, path, *options):
    if not path.exists():
        subprocess.run([cli, "gen", "--raw", "-o", path, *options], check=True)
    return path


def best_of(fn, repeat, clock=time.perf_counter):
    """(best, median) time of fn() in seconds: wall time, or with clock=time.thread_time the CPU
    time of this thread (what a loaded machine does not inflate as much; sampling runs on the
    calling thread)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times), statistics.median(times)


def open_all_arrays(path):
    rec = inputanim.open(path)
    return [(c.times, c.values) for c in rec.curves.values()]


def numpy_all_arrays(path):
    """The baseline: what one writes with numpy alone for a v1.1 compact file with all blocks."""
    mm = np.memmap(path, dtype=np.uint8, mode="r")
    arrays = []
    pos = 19
    for index in range(395):
        count = struct.unpack_from("<i", mm, pos + 8)[0]
        stride = 8  # compact float keys and bool keys alike
        first = pos + 12
        times = np.ndarray((count,), dtype="<f4", buffer=mm, offset=first, strides=(stride,))
        values = np.ndarray((count,), dtype="<f4", buffer=mm, offset=first + 4,
                            strides=(stride,))
        arrays.append((times, values))
        pos = first + count * stride
    return arrays


def pread_all_arrays(path):
    """What a structure walk that reads the curve headers with pread (no page of the mapping
    touched) would cost: the same walk as numpy_all_arrays, each header read by os.pread, and the
    same strided views over a mapping that nothing reads."""
    fd = os.open(path, os.O_RDONLY)
    try:
        mm = np.memmap(path, dtype=np.uint8, mode="r")
        arrays = []
        pos = 19
        for index in range(395):
            count = struct.unpack("<i", os.pread(fd, 4, pos + 8))[0]
            first = pos + 12
            times = np.ndarray((count,), dtype="<f4", buffer=mm, offset=first, strides=(8,))
            values = np.ndarray((count,), dtype="<f4", buffer=mm, offset=first + 4,
                                strides=(8,))
            arrays.append((times, values))
            pos = first + count * 8
        return arrays
    finally:
        os.close(fd)


def bench_open(path, repeat):
    # RSS first, in a process that has not touched the file's pages yet: anonymous memory (what
    # a copy would take) and file pages mapped (the pages of the curve headers and end keys the
    # walk reads, as the kernel maps them).
    gc.collect()
    fields = ("VmRSS", "RssAnon", "RssFile")
    before = [status_kib(f) for f in fields]
    rec = inputanim.open(path)
    arrays = [(c.times, c.values) for c in rec.curves.values()]
    growth = {f"{f}_growth_kib": status_kib(f) - b for f, b in zip(fields, before)}
    assert len(arrays) == 395
    # The arrays of an open Recording (no page is touched: the walk did it).
    arrays_only = best_of(lambda: [(c.times, c.values) for c in rec.curves.values()], repeat)
    del arrays, rec
    # A new mapping each time (the file in the page cache), closed in the timed region too.
    ours = best_of(lambda: open_all_arrays(path), repeat)
    baseline = best_of(lambda: numpy_all_arrays(path), repeat)
    by_pread = best_of(lambda: pread_all_arrays(path), repeat)
    # The pread walk's memory, in this process (the mapping's pages untouched).
    before = [status_kib(f) for f in fields]
    kept = pread_all_arrays(path)
    pread_growth = {f"pread_{f}_growth_kib": status_kib(f) - b for f, b in zip(fields, before)}
    del kept
    return {**growth, **pread_growth, "arrays_of_open_recording_best_ms": arrays_only[0] * 1e3,
            "open_best_ms": ours[0] * 1e3, "open_median_ms": ours[1] * 1e3,
            "numpy_best_ms": baseline[0] * 1e3, "numpy_median_ms": baseline[1] * 1e3,
            "pread_walk_best_ms": by_pread[0] * 1e3, "pread_walk_median_ms": by_pread[1] * 1e3}


def bench_sample(path, repeat):
    rec = inputanim.open(path)
    times, values = rec.sample(60)
    n = values.size
    del times, values
    best, median = best_of(lambda: rec.sample(60), repeat)
    cpu_best, cpu_median = best_of(lambda: rec.sample(60), repeat, time.thread_time)
    tidy_best, tidy_median = best_of(lambda: rec.tidy(60), max(1, repeat // 2))
    return {"rows": n // len(rec.curves), "values": n, "sample_best_ns_per_value": best / n * 1e9,
            "sample_median_ns_per_value": median / n * 1e9,
            "sample_cpu_best_ns_per_value": cpu_best / n * 1e9,
            "sample_cpu_median_ns_per_value": cpu_median / n * 1e9, "tidy_best_s": tidy_best,
            "tidy_median_s": tidy_median}


def bench_cpp_resampler(bench_evaluate):
    if not bench_evaluate or not os.path.exists(bench_evaluate):
        return None
    out = subprocess.run(
        [bench_evaluate, "--benchmark_filter=BM_RecordingResample/hz:60$",
         "--benchmark_format=json", "--benchmark_repetitions=5"],
        check=True, capture_output=True, text=True).stdout
    runs = [b for b in json.loads(out)["benchmarks"] if b.get("run_type") == "iteration"]
    # items_per_second of Google Benchmark counts CPU time, as thread_time does above.
    return min(1e9 / b["items_per_second"] for b in runs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", default="/tmp/inputanim-bench")
    parser.add_argument("--large-seconds", type=int, default=6666,
                        help="length of the large recording (6666 s: 1.00 GiB compact)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    cli = os.environ["INPUTANIM_CLI"]
    folder = pathlib.Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    large = generate(cli, folder / f"compact-{args.large_seconds}s.bin", "--seconds",
                     str(args.large_seconds))
    ten = generate(cli, folder / "compact-600s.bin", "--seconds", "600")

    result = {"large_bytes": large.stat().st_size, "load_before": os.getloadavg()}
    result.update(bench_open(large, args.repeat))
    result.update(bench_sample(ten, max(3, args.repeat // 4)))
    result["cpp_resampler_ns_per_value"] = bench_cpp_resampler(
        os.environ.get("INPUTANIM_BENCH_EVALUATE"))
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
