#!/usr/bin/env bash
# Installs, builds everything with gcc under AddressSanitizer and UndefinedBehaviorSanitizer, and
# runs every test (unit, CLI, install, fuzz-corpus replay).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# -O1 with line tables: sanitizer reports keep file and line, and the build stays quick.
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DCMAKE_CXX_COMPILER=g++ -DINPUTANIM_SANITIZE=address,undefined
cmake --build build/asan
ctest --test-dir build/asan --output-on-failure -j2
