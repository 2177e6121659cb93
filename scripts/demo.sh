#!/usr/bin/env bash
# Installs, builds, generates a small set of recordings, runs `inputanim info`, `validate` and
# `index` (to SQLite) on them and on a tar and a zip of them (read in place, never extracted),
# shows queries on the database, and says how to replay a recording in the browser
# (`inputanim view` prints the page's URL).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DINPUTANIM_BUILD_TESTS=OFF
cmake --build build/release
tool=build/release/tools/inputanim
rm -rf out/recordings out/archives out/index.db*
mkdir -p out/recordings out/archives
$tool gen --count 4 --dir out/recordings --seconds 20 --markers 2
$tool gen -o out/recordings/InputAnimation-20200101-010000.bin --version 1.0 --seconds 10
# One damaged upload: the last 100 bytes are missing.
head -c -100 out/recordings/InputAnimation-20200101-000000.bin > out/recordings/damaged.bin
first=$(ls out/recordings/InputAnimation-*.bin | head -n 1)
$tool info "$first"
$tool validate out/recordings/* || echo "(exit $?: some file is invalid)"
# The same recordings as a tar and as a zip (stored): indexed member by member, in place.
(cd out/recordings && bsdtar -cf ../archives/session.tar InputAnimation-*.bin damaged.bin)
(cd out/recordings && bsdtar --format zip --options zip:compression=store \
  -cf ../archives/session.zip InputAnimation-*.bin)
$tool validate out/archives/session.zip
$tool info "out/archives/session.tar/$(basename "$first")"
$tool index --sqlite out/index.db out/recordings out/archives ||
  echo "(exit $?: some recording is invalid)"
sqlite3 -header -column out/index.db \
  "SELECT substr(path, 16) AS file, valid, version, layout, keyframes, markers,
          round(duration, 1) AS seconds, error_code, error_offset
   FROM recordings WHERE archive IS NULL ORDER BY path"
sqlite3 -header -column out/index.db \
  "SELECT substr(archive, 14) AS archive, member, member_ordinal AS ordinal,
          member_offset AS offset, valid, error_code
   FROM recordings WHERE archive IS NOT NULL ORDER BY archive, member_ordinal"
# The browser viewer: serves until Ctrl-C, so the demo only starts it when asked (DEMO_VIEW=1).
echo
echo "Replay a recording in the browser (hands, head, gaze, timeline, plots, validation):"
echo "  $tool view $first --listen 127.0.0.1:8081    # then open http://127.0.0.1:8081/"
if [ "${DEMO_VIEW:-0}" = 1 ]; then
  exec $tool view "$first" out/recordings/damaged.bin --listen 127.0.0.1:8081
fi
