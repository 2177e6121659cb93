#!/usr/bin/env bash
# The libFuzzer campaign: builds every harness with clang (-fsanitize=fuzzer,address,undefined),
# runs each for FUZZ_SECONDS over a copy of its seed corpus and past findings (the repository's
# corpus is never written), FUZZ_JOBS harnesses at a time. Any crash, leak, timeout or
# out-of-memory fails the script and prints the reproducer. Ends with a table of executions per
# second and covered edges per harness, from libFuzzer's final stats.
# The tools are configured on, for the harnesses of the command's HTTP framing and option values
# (http, options), but only the harnesses run are built: they link the parts of the tools they
# test, never the command itself or the server (the viewer's page, which needs npm, is left out).
#
#   FUZZ_SECONDS=60 FUZZ_JOBS=2 bash .ci/fuzz.sh            all harnesses
#   FUZZ_HARNESSES="parse mutate" bash .ci/fuzz.sh          some of them
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if [ -z "${FUZZ_CXX:-}" ] && ! command -v clang++ >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang >/dev/null
fi

seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-2}
build=${FUZZ_BUILD_DIR:-$root/build-fuzz-ci}
runs=$build/fuzz-runs

if [ -n "${FUZZ_HARNESSES:-}" ]; then
  read -r -a harnesses <<<"$FUZZ_HARNESSES"
else
  harnesses=()
  for source in fuzz/fuzz_*.cpp; do
    name=$(basename "$source" .cpp)
    harnesses+=("${name#fuzz_}")
  done
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++}" \
  -DINPUTANIM_BUILD_FUZZERS=ON -DINPUTANIM_BUILD_TESTS=OFF -DINPUTANIM_BUILD_TOOLS=ON \
  -DINPUTANIM_VIEWER=OFF -DINPUTANIM_BUILD_EXAMPLES=OFF -DINPUTANIM_INSTALL=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target "${harnesses[@]/#/fuzz_}"

# libFuzzer flags from fuzz/<harness>.options ([libfuzzer] key = value; the dict is relative
# to fuzz/).
options_of() {
  local file=fuzz/$1.options
  [ -f "$file" ] || return 0
  sed -n '/^\[libfuzzer\]/,/^\[/{/^[[:space:]]*[a-z_]\+[[:space:]]*=/p}' "$file" |
    while IFS='=' read -r key value; do
      key=$(echo "$key" | tr -d '[:space:]')
      value=$(echo "$value" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
      [ "$key" = dict ] && value=$root/fuzz/$value
      printf -- '-%s=%s\n' "$key" "$value"
    done
}

run_one() {
  local name=$1
  local dir=$runs/$name
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  for seeds in "fuzz/corpus/$name" "fuzz/regressions/$name"; do
    [ -d "$seeds" ] && find "$seeds" -maxdepth 1 -type f ! -name '.*' -exec cp {} "$dir/corpus/" \;
  done
  local options
  mapfile -t options < <(options_of "$name")
  local status=0
  (cd "$dir" && "$build/fuzz/fuzz_$name" "${options[@]}" -max_total_time="$seconds" \
    -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
    corpus >"$dir/log" 2>&1) || status=$?
  echo "$status" >"$dir/status"
}
export -f run_one options_of
export root build runs seconds

echo "== fuzzing ${harnesses[*]} for ${seconds}s each, $jobs at a time"
printf '%s\n' "${harnesses[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'

failed=0
for name in "${harnesses[@]}"; do
  dir=$runs/$name
  status=$(cat "$dir/status")
  artifacts=$(find "$dir/artifacts" -type f | sort)
  if [ "$status" != 0 ] || [ -n "$artifacts" ]; then
    failed=1
    echo "!! fuzz_$name failed (exit $status); last lines of its log ($dir/log):"
    tail -n 60 "$dir/log"
    for file in $artifacts; do
      echo "!! reproducer: $file ($(stat -c %s "$file") bytes)"
      echo "   replay: $build/fuzz/fuzz_$name $file"
      od -A x -t x1z -v "$file" | head -n 64
    done
  fi
done

# Final stats: executions, executions per second, covered edges (cov) and features (ft) from
# the last status line, and the corpus size it ended with.
printf '\n%-12s %12s %10s %8s %8s %8s %8s\n' harness execs exec/s edges features corpus rss_mb
for name in "${harnesses[@]}"; do
  log=$runs/$name/log
  stat_of() { sed -n "s/^stat::$1:[[:space:]]*//p" "$log" | tail -n 1; }
  last=$(grep -E '^#[0-9]+' "$log" | grep -E 'cov: ' | tail -n 1 || true)
  edges=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  features=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corpus=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
  printf '%-12s %12s %10s %8s %8s %8s %8s\n' "$name" "$(stat_of number_of_executed_units)" \
    "$(stat_of average_exec_per_sec)" "${edges:-?}" "${features:-?}" "${corpus:-?}" \
    "$(stat_of peak_rss_mb)"
done

if [ "$failed" != 0 ]; then
  echo "fuzzing found a problem: add the reproducer to fuzz/regressions/<harness>/ with the fix"
  exit 1
fi
echo "fuzzing: no finding in ${seconds}s per harness"
