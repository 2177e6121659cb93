#!/usr/bin/env bash
# Installs, builds everything with gcc under AddressSanitizer and UndefinedBehaviorSanitizer, and
# runs every test (unit, CLI, install, fuzz-corpus replay).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The default generator (Unix Makefiles), as every CMake user builds; a folder configured before
# keeps its generator. -O1 with line tables: sanitizer reports keep file and line, and the build
# stays quick.
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DCMAKE_CXX_COMPILER=g++ -DINPUTANIM_SANITIZE=address,undefined
cmake --build build/asan -j "$(nproc)"
ctest --test-dir build/asan --output-on-failure -j2
# The Python package: a sanitized extension does not load into a plain interpreter, so the
# sanitized build leaves it out and a plain Release build of only the module and the command
# runs its pytest suite, with Debian's interpreter (the one with numpy; python/README.md).
cmake -S . -B build/python -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
  -DPython_EXECUTABLE=/usr/bin/python3 -DINPUTANIM_BUILD_PYTHON=ON -DINPUTANIM_BUILD_EXAMPLES=OFF
cmake --build build/python -j "$(nproc)" --target inputanim_python inputanim_cli
ctest --test-dir build/python -R '^python[.]' --output-on-failure
