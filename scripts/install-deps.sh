#!/usr/bin/env bash
# Installs what building and testing inputanim needs on Debian 12, from Debian's packages only.
set -euo pipefail
packages=(
  build-essential cmake ninja-build g++
  # fuzzer/FuzzedDataProvider.h, with which gcc builds the fuzz harnesses that ctest replays
  # (.ci/fuzz.sh installs clang itself for the libFuzzer campaign).
  libclang-rt-14-dev
  libboost-dev libboost-iostreams-dev zlib1g-dev
  # Tar archives of recordings (lib/archive_tar.cpp), and bsdtar for the tests that make them.
  libarchive-dev libarchive-tools
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libsqlite3-dev sqlite3
  curl
  python3-dev python3-pybind11 pybind11-dev python3-numpy python3-pandas python3-pytest
  python3-distributed
  # A single-node Slurm cluster for docs/SCALING.md's job array (tests/scripts/slurm_array.sh).
  slurmctld slurmd slurm-client munge
  # The viewer's tests in a real browser (tests/browser/viewer_test.py).
  chromium chromium-driver python3-selenium
  # Reading the exported Unity clips back (python/tests/test_export.py).
  python3-yaml
  # The importers (import/): Unity's text YAML and glTF, each read with a library of its own; and
  # Blender, whose glTF exporter writes files the glTF importer's tests read.
  libyaml-cpp-dev libtinygltf-dev blender
)
# The viewer's page is bundled with npm (web/); a machine that has Node.js already keeps its own.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
