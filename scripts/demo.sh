#!/usr/bin/env bash
# Installs, builds, writes a sample recording and runs `inputanim info` and `validate` on it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DINPUTANIM_BUILD_TESTS=OFF
cmake --build build/release
mkdir -p out
build/release/examples/inputanim_example_tour out/sample.bin
build/release/tools/inputanim info out/sample.bin
build/release/tools/inputanim validate --json out/sample.bin
