"""Benchmark of indexing from Python (docs/PERFORMANCE.md, "Python"; docs/SCALING.md), against
`inputanim index --jobs N --jsonl` on the same tree in the same run (the baseline):

- inputanim.index(tree, jobs=N) (threads in this process);
- inputanim.dask.index(tree, client) on a LocalCluster of N worker processes of one thread each,
  or on the cluster whose scheduler --scheduler names (dask-scheduler, dask-worker).

Files per second, best and median of --repeat runs (each a full walk and validation of the tree,
its files in the page cache after the first run; the Dask figures with the workers already
started and the package imported, as a long-lived cluster has them).

    PYTHONPATH=build/python/python INPUTANIM_CLI=build/python/tools/inputanim \\
    /usr/bin/python3 bench/bench_python_index.py [--files 10000] [--workers 2] [--scheduler ADDR]
"""

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import time

from distributed import Client, LocalCluster

import inputanim
import inputanim.dask


def make_tree(cli, root, files, seconds):
    """`files` recordings in folders of 100: copies of a few generated ones (every layout)."""
    if root.exists() and len(list(root.rglob("*.bin"))) == files:
        return root
    shutil.rmtree(root, ignore_errors=True)
    seeds = root / "seeds"
    seeds.mkdir(parents=True)
    kinds = [[], ["--layout", "full"], ["--version", "1.0"], ["--no-camera", "--no-gaze"]]
    sources = []
    for i, options in enumerate(kinds):
        path = seeds / f"seed-{i}.rec"
        subprocess.run([cli, "gen", "-o", path, "--seconds", str(seconds), *options], check=True)
        sources.append(path)
    for i in range(files):
        folder = root / "tree" / f"{i // 100:04}"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sources[i % len(sources)], folder / f"{i:06}.bin")
    return root


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def rates(files, best_median):
    best, median = best_median
    return {"best_files_per_s": files / best, "median_files_per_s": files / median}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", default="/tmp/inputanim-bench-index")
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--seconds", type=int, default=2, help="length of each recording")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scheduler", help="address of a running dask-scheduler")
    args = parser.parse_args()
    cli = os.environ["INPUTANIM_CLI"]
    root = make_tree(cli, pathlib.Path(args.dir), args.files, args.seconds)
    tree = str(root / "tree")
    n = args.files

    def run_cli():
        subprocess.run([cli, "index", "--jobs", str(args.workers), "--jsonl", "/dev/null", tree],
                       check=True, capture_output=True)

    run_cli()  # the tree into the page cache
    result = {"files": n, "load_before": os.getloadavg()}
    result["cli"] = rates(n, timed(run_cli, args.repeat))
    result["python_index"] = rates(n, timed(lambda: inputanim.index(tree, jobs=args.workers),
                                            args.repeat))

    if args.scheduler:
        cluster = None
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    try:
        result["dask_workers"] = len(client.nthreads())
        first = time.perf_counter()
        frame = inputanim.dask.index(tree, client)
        result["dask_first_call_s"] = time.perf_counter() - first
        assert len(frame) == n
        result["dask_index"] = rates(n, timed(lambda: inputanim.dask.index(tree, client),
                                              args.repeat))
        # What a call costs besides the files: an empty folder (a listing task and one part).
        empty = root / "empty"
        empty.mkdir(exist_ok=True)
        best, median = timed(lambda: inputanim.dask.index(str(empty), client), 20)
        result["dask_empty_folder_ms"] = {"best": best * 1e3, "median": median * 1e3}
        # The CLI's run again after the Dask one: the load of the machine moves.
        result["cli_after"] = rates(n, timed(run_cli, args.repeat))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    result["load_after"] = os.getloadavg()
    baseline = max(result["cli"]["best_files_per_s"], result["cli_after"]["best_files_per_s"])
    result["dask_over_cli_best"] = result["dask_index"]["best_files_per_s"] / baseline
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
