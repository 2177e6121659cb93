#!/usr/bin/env bash
# ctest slurm_job_array: docs/SCALING.md's Slurm job array, run as the document writes it, on a
# single-node Slurm cluster started here (slurm_cluster.sh). The job script and the submission are
# the document's two blocks marked "<!-- slurm: ... -->", the submission with this test's shards=
# and archive= lines. Two runs over one tree of valid, invalid, gzip and 2019 files:
# - every shard holds invalid recordings, and the tree's name starts with a dash (the job script
#   passes its arguments after --): the merge job runs, and its index.db equals the database of one
#   `inputanim index --sqlite` over the tree, row for row;
# - one shard cannot write its database: that task fails and the merge job never runs.
# Usage: slurm_array.sh INPUTANIM SCALING.md WORK_DIR. Exits 77 (skipped) without Slurm or root.
set -euo pipefail
SECONDS=0
cli=$(readlink -f "$1") document=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" != 0 ]; then
  echo "SKIP: starting munged as the munge user and slurmd needs root"
  exit 77
fi
source "$here/slurm_cluster.sh"
rm -rf "$work"
mkdir -p "$work/bin"
trap slurm_stop EXIT
# The jobs run the command by name, as the document does.
ln -s "$cli" "$work/bin/inputanim"
export PATH="$work/bin:$PATH"

fail() {
  echo "FAIL: $*"
  exit 1
}

# The tree: five kinds of recording (a June 2019 file is a v1.0 file without its 16-byte
# header), an invalid one (cut short), a gzip one and a file that is no recording, copied into
# folders: 369 files. It is the folder -tree of the first submission's folder, named from there
# as a relative path that starts with a dash.
tree=$work/merges/-tree
mkdir -p "$tree/base"
inputanim gen -o "$tree/base/compact.bin" --seconds 1 --markers 2
inputanim gen -o "$tree/base/full.bin" --seconds 1 --layout full
inputanim gen -o "$tree/base/v10.bin" --seconds 1 --version 1.0
inputanim gen -o "$tree/base/hands.bin" --seconds 1 --no-camera --no-gaze
tail -c +17 "$tree/base/v10.bin" >"$tree/base/june-2019.bin"
head -c 5000 "$tree/base/compact.bin" >"$tree/base/invalid.bin"
gzip -c "$tree/base/full.bin" >"$tree/base/packed.bin.gz"
gzip -c "$tree/base/invalid.bin" >"$tree/base/invalid.bin.gz"
echo "not a recording" >"$tree/base/notes.txt"
for folder in $(seq -w 0 9); do
  for copy in 0 1 2 3; do
    mkdir -p "$tree/$folder/$copy"
    cp "$tree"/base/* "$tree/$folder/$copy/"
  done
done
echo "${SECONDS} s: the tree is made"

# The reference: one run over the whole tree (exit 1: it holds invalid recordings), from where the
# jobs run, so that the paths are the same.
status=0
(cd "$work/merges" && inputanim index --sqlite "$work/single.db" -- -tree) 2>"$work/single.log" ||
  status=$?
[ "$status" = 1 ] || fail "inputanim index over the tree exited $status, not 1: $(cat "$work/single.log")"
echo "${SECONDS} s: indexed in one run"

slurm_start "$work/slurm" 16 || exit $?
echo "${SECONDS} s: the cluster is up"
scaling_block "$document" index-shard.sh >"$work/index-shard.sh"
scaling_block "$document" submit >"$work/submit.sh"
grep -qx 'shards=64' "$work/submit.sh" && grep -qx 'archive=/archive' "$work/submit.sh" ||
  fail "docs/SCALING.md's submission block no longer sets shards=64 and archive=/archive"
[ -s "$work/index-shard.sh" ] || fail "no job script in $document"

# Submits the document's blocks from folder $1 with 4 shards over the archive $2; sets array= and
# merge=.
submit() {
  mkdir -p "$1"
  cp "$work/index-shard.sh" "$1/"
  sed -e 's|^shards=64$|shards=4|' -e "s|^archive=/archive$|archive=$2|" "$work/submit.sh" \
    >"$1/submit.sh"
  # The block prints the merge job's id; its variable `array` holds the array's.
  local ids
  ids=$(cd "$1" && source ./submit.sh && echo "$array")
  merge=$(sed -n 1p <<<"$ids")
  array=$(sed -n 2p <<<"$ids")
  [ -n "$merge" ] && [ -n "$array" ] || fail "the submission gave no job ids"
}

# Waits (up to 60 s) until no job of the array is pending or running.
wait_for_array() {
  local i
  for i in $(seq 600); do
    [ -z "$(squeue -h -r -j "$array" -t PD,R,CG -o %i)" ] && return 0
    sleep 0.1
  done
  squeue
  fail "the array's tasks did not end within 60 s"
}

state_of() {
  scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | paste -sd, -
}

# Every row of the database's table, in one order, without the time of indexing.
rows() {
  local columns
  columns=$(sqlite3 "$1" "SELECT group_concat(name, ', ') FROM pragma_table_info('$2')
                          WHERE name <> 'indexed_at'")
  sqlite3 "$1" "SELECT $columns FROM $2 ORDER BY $columns"
}

# 1. Shards with invalid recordings: the merge runs and equals the single run.
submit "$work/merges" -tree
wait_for_array
for i in $(seq 600); do
  [ -z "$(squeue -h -j "$merge" -o %i)" ] && break
  sleep 0.1
done
[ "$(state_of "$array")" = COMPLETED ] || fail "array tasks ended $(state_of "$array")"
[ "$(state_of "$merge")" = COMPLETED ] ||
  fail "the merge job ended $(state_of "$merge"): $(cat "$work/merges/merge.log" 2>/dev/null)"
for k in 0 1 2 3; do
  grep -q "invalid" "$work/merges/parts/index-$k.log" || fail "shard $k's log has no totals"
done
grep -q ' [1-9][0-9]* invalid' "$work/merges/parts"/index-*.log || fail "no shard held invalid files"
for table in recordings warnings; do
  rows "$work/single.db" $table >"$work/single.$table"
  rows "$work/merges/index.db" $table >"$work/merged.$table"
  cmp -s "$work/single.$table" "$work/merged.$table" ||
    fail "table $table of the merged index differs from one run's: $(diff "$work/single.$table" "$work/merged.$table" | head -5)"
done
[ "$(sqlite3 "$work/single.db" 'SELECT count(*) FROM recordings')" -ge 300 ] ||
  fail "the index holds fewer rows than the tree has recordings"
echo "${SECONDS} s: merged: $(sqlite3 "$work/merges/index.db" 'SELECT count(*) FROM recordings') rows, as one run"

# 2. A shard that really fails (its database is a folder, refused): the merge never runs.
mkdir -p "$work/fails/parts/part-2.db"
submit "$work/fails" "$tree"
wait_for_array
for i in $(seq 600); do
  reason=$(squeue -h -j "$merge" -o %r)
  [ "$reason" = DependencyNeverSatisfied ] && break
  [ -z "$reason" ] && fail "the merge job ran after a failed shard"
  sleep 0.1
done
[ "$reason" = DependencyNeverSatisfied ] || fail "the merge job is pending for $reason"
[[ "$(state_of "$array")" == *FAILED* ]] || fail "no array task failed: $(scontrol show job "$array")"
[ ! -e "$work/fails/index.db" ] || fail "index.db exists without a merge"
scancel "$merge"
echo "${SECONDS} s: a failed shard: the merge job stayed pending (DependencyNeverSatisfied) and was cancelled"
