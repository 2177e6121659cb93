#!/usr/bin/env bash
# Benchmark of docs/SCALING.md's Slurm job array on this machine (docs/SCALING.md, "Measured
# scaling"): files per second of the document's job script as an array of 1, 2 and 4 tasks of one
# CPU each, with its merge job, from submission to the merge's end, against `inputanim index
# --jobs 2 --sqlite` over the same tree in the same run (before and after). A single-node cluster
# declared with 4 CPUs (so that 4 tasks run at once, whatever the cores) is started as the test
# starts one (tests/scripts/slurm_cluster.sh); needs
# root and Debian's slurmctld, slurmd, slurm-client and munge.
#
#   bench/slurm_array.sh INPUTANIM TREE [REPEAT]
#
# TREE: a folder of recordings, e.g. the one bench/bench_python_index.py makes
# (/tmp/inputanim-bench-index/tree). Prints best and median files/s of REPEAT runs (default 3):
# from submission to the merge job's end, and over the longest task's own time (its totals line).
set -euo pipefail
cli=$(readlink -f "$1") tree=$(readlink -f "$2") repeat=${3:-3}
repository=$(cd "$(dirname "$0")/.." && pwd)
source "$repository/tests/scripts/slurm_cluster.sh"
work=$(mktemp -d /tmp/inputanim-bench-slurm.XXXXXX)
# The munge user reaches its folder inside.
chmod 755 "$work"
trap 'slurm_stop; rm -rf "$work"' EXIT
mkdir "$work/bin"
ln -s "$cli" "$work/bin/inputanim"
export PATH="$work/bin:$PATH"
files=$(find "$tree" -type f | wc -l)
scaling_block "$repository/docs/SCALING.md" index-shard.sh >"$work/index-shard.sh"
slurm_start "$work/slurm" 4

now() { date +%s.%N; }

# "best median" of the times (seconds) on stdin, as files/s.
rates() {
  sort -g | awk -v n="$files" '{ t[NR] = $1 } END {
    m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
    printf "%.0f files/s best, %.0f median", n / t[1], n / m }'
}

baseline() {
  local i start
  for i in $(seq "$repeat"); do
    rm -f "$work/one.db"*
    start=$(now)
    inputanim index --jobs 2 --sqlite "$work/one.db" "$tree" 2>/dev/null || true
    echo "$(now) - $start" | bc
  done | rates
}

# The array of $1 tasks and its merge, as the document submits them, one CPU per task.
array() {
  local tasks=$1 i start job merge
  rm -f "$work/wall" "$work/tasks"
  for i in $(seq "$repeat"); do
    rm -rf "$work/run"
    mkdir -p "$work/run/parts"
    cp "$work/index-shard.sh" "$work/run/"
    start=$(now)
    job=$(cd "$work/run" && sbatch --parsable --array=0-$((tasks - 1)) --cpus-per-task=1 \
      index-shard.sh "$tree")
    merge=$(cd "$work/run" && sbatch --parsable --dependency=afterok:"$job" --output=merge.log \
      --wrap='inputanim index merge index.db "parts/part-*.db"')
    while [ -n "$(squeue -h -j "$job,$merge" -o %i)" ]; do sleep 0.02; done
    echo "$(now) - $start" | bc >>"$work/wall"
    [ -s "$work/run/index.db" ] || { echo "no index.db: $(cat "$work/run/merge.log")" >&2; exit 1; }
    # The tasks' own time: the longest of the seconds their totals lines give.
    sed -n 's/.*, \([0-9.]*\) s (.*/\1/p' "$work/run/parts"/index-*.log | sort -g | tail -n 1 \
      >>"$work/tasks"
  done
  echo "submission to merged $(rates <"$work/wall"); in the tasks $(rates <"$work/tasks")"
}

echo "$files files, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
inputanim index --jobs 2 --jsonl /dev/null "$tree" 2>/dev/null || true  # into the page cache
echo "index --jobs 2 --sqlite: $(baseline)"
for tasks in 1 2 4; do echo "array of $tasks + merge: $(array "$tasks")"; done
echo "index --jobs 2 --sqlite, after: $(baseline)"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
