#!/usr/bin/env bash
# Load test of `inputanim serve` on loopback; not part of ctest (docs/SERVER.md, "Load test").
# wrk keeps CONNECTIONS uploads in flight for DURATION seconds, each POSTing a generated
# ten-second recording (about 400 KB) to /validate; every response must be 200 with
# "valid":true and no socket error may occur. The server's resident memory is sampled every
# second and must stay flat: the peak of the second half of the run at most 25% (plus 4 MiB)
# above the peak of the first half.
#
#   tests/load/run.sh [BUILD_DIR]    a Release build (default: build-release)
#   CONNECTIONS=100 DURATION=30 SERVER_THREADS=0 (0: one per CPU) ENCODING=identity|gzip
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build-release}" && pwd)
cli=$build/tools/inputanim
connections=${CONNECTIONS:-100}
duration=${DURATION:-30}
server_threads=${SERVER_THREADS:-0}
encoding=${ENCODING:-identity}
command -v wrk >/dev/null || { echo "load test: wrk is needed (apt-get install -y wrk)" >&2; exit 2; }
[ -x "$cli" ] || { echo "load test: no $cli (build the tools first)" >&2; exit 2; }
grep -q 'CMAKE_BUILD_TYPE:STRING=Release' "$build/CMakeCache.txt" ||
  echo "load test: warning: $build is not a Release build" >&2

work=$(mktemp -d)
server=""
sampler=""
cleanup() {
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null || true
  [ -n "$server" ] && kill -KILL "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$cli" gen -o "$work/upload.bin" --seconds 10 --markers 3
upload=$work/upload.bin
if [ "$encoding" = gzip ]; then
  gzip -c "$upload" >"$work/upload.bin.gz"
  upload=$work/upload.bin.gz
fi

# Room for every client: a refused connection (503) would count as a failure.
"$cli" serve --listen 127.0.0.1:0 --threads "$server_threads" \
  --max-connections $((connections * 2)) >"$work/serve.out" 2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do
  grep -q '^listening on ' "$work/serve.out" && break
  sleep 0.1
done
address=$(sed -n 's/^listening on //p' "$work/serve.out")
[ -n "$address" ] || { echo "load test: the server did not start" >&2; cat "$work/serve.log" >&2; exit 1; }

# Resident memory (KiB) once a second while the server lives.
(while [ -r "/proc/$server/status" ]; do
  awk '/^VmRSS/ {print $2}' "/proc/$server/status"
  sleep 1
done) >"$work/rss.txt" 2>/dev/null &
sampler=$!

echo "== $connections uploads in flight for ${duration}s: $(stat -c %s "$upload") bytes each ($encoding), server at $address"
UPLOAD=$upload ENCODING=$encoding wrk --threads 2 --connections "$connections" \
  --duration "${duration}s" --timeout 10s --latency --script "$root/tests/load/post.lua" \
  "http://$address/validate?name=load.bin" | tee "$work/wrk.txt"

kill -TERM "$server"
status=0
wait "$server" || status=$?
server=""
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
sampler=""

failed=$(sed -n 's/^checked: [0-9]* valid, \([0-9]*\) failed$/\1/p' "$work/wrk.txt")
errors=$(sed -n 's/^socket errors: \([0-9]*\)$/\1/p' "$work/wrk.txt")
rate=$(sed -n 's/^uploads\/s: //p' "$work/wrk.txt")
logged=$(wc -l <"$work/serve.log")
read -r first_peak second_peak peak samples < <(awk '
  { v[NR] = $1 }
  END {
    h = int(NR / 2); a = 0; b = 0; p = 0
    for (i = 1; i <= NR; i++) { if (i <= h && v[i] > a) a = v[i]; if (i > h && v[i] > b) b = v[i]; if (v[i] > p) p = v[i] }
    print a, b, p, NR
  }' "$work/rss.txt")
echo "== server RSS (KiB, every second): $(tr '\n' ' ' <"$work/rss.txt")"
echo "== uploads/s $rate, failed responses $failed, socket errors $errors, log lines $logged," \
  "peak RSS $((peak / 1024)) MiB (first half $((first_peak / 1024)) MiB, second half" \
  "$((second_peak / 1024)) MiB, $samples samples), server exit status $status"

ok=1
[ "$failed" = 0 ] || { echo "FAIL: $failed failed responses" >&2; ok=0; }
[ "$errors" = 0 ] || { echo "FAIL: $errors socket errors" >&2; ok=0; }
[ "$status" = 0 ] || { echo "FAIL: the server exited with $status after SIGTERM" >&2; ok=0; }
[ "$second_peak" -le $((first_peak + first_peak / 4 + 4096)) ] ||
  { echo "FAIL: memory grew: $first_peak KiB then $second_peak KiB" >&2; ok=0; }
[ "$ok" = 1 ] && echo "load test passed"
[ "$ok" = 1 ]
