#!/usr/bin/env bash
# Big-endian proof: cross-compiles the library (parser, validator, writer, evaluation, ...), its
# unit tests and the fuzz replay tests for s390x (IBM Z, big-endian) and runs them all under
# qemu-s390x. GoogleTest is built from /usr/src/googletest with the cross compiler; header-only
# libraries (Boost, nlohmann-json) come from the host's headers through a folder that holds only
# symlinks to them, so the host's /usr/include never reaches the cross include path.
# The mapping layer (Boost.Iostreams, which would need s390x libraries) is left out, and with it
# the tests that map files and the command-line tool.
#
#   bash .ci/s390x.sh        S390X_BUILD_DIR (default build-s390x), S390X_JOBS (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${S390X_BUILD_DIR:-$root/build-s390x}
jobs=${S390X_JOBS:-2}
start=$SECONDS

# The cross compiler, qemu-user and GoogleTest's sources (installed only when missing).
missing=()
command -v s390x-linux-gnu-g++ >/dev/null || missing+=(g++-s390x-linux-gnu)
command -v qemu-s390x >/dev/null || missing+=(qemu-user)
[ -f /usr/src/googletest/CMakeLists.txt ] || missing+=(googletest)
[ -f /usr/include/boost/version.hpp ] || missing+=(libboost-dev)
[ -f /usr/include/nlohmann/json.hpp ] || missing+=(nlohmann-json3-dev)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

toolchain=$root/cmake/toolchain-s390x.cmake
mkdir -p "$build"

# Host header-only libraries, and nothing else from /usr/include.
headers=$build/host-headers
mkdir -p "$headers"
ln -sfn /usr/include/boost "$headers/boost"
ln -sfn /usr/include/nlohmann "$headers/nlohmann"
# nlohmann-json's own package file would add /usr/include; this one adds only the symlinks.
shim=$build/nlohmann_json
mkdir -p "$shim"
cp /usr/share/cmake/nlohmann_json/nlohmann_jsonConfigVersion.cmake "$shim/"
cat >"$shim/nlohmann_jsonConfig.cmake" <<EOF
if(NOT TARGET nlohmann_json::nlohmann_json)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "$headers")
endif()
EOF

# GoogleTest for s390x, installed into the build folder.
gtest_prefix=$build/googletest-install
if [ ! -f "$gtest_prefix/lib/cmake/GTest/GTestConfig.cmake" ]; then
  echo "== GoogleTest for s390x"
  cmake -S /usr/src/googletest -B "$build/googletest" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$gtest_prefix" >/dev/null
  cmake --build "$build/googletest" -j "$jobs" >/dev/null
  cmake --install "$build/googletest" >/dev/null
fi

echo "== inputanim for s390x ($((SECONDS - start)) s)"
cmake -S "$root" -B "$build/inputanim" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
  -DCMAKE_BUILD_TYPE=Release \
  -DINPUTANIM_WITH_MAPPING=OFF -DINPUTANIM_BUILD_TOOLS=OFF -DINPUTANIM_BUILD_EXAMPLES=OFF \
  -DINPUTANIM_BUILD_TESTS=ON -DINPUTANIM_INSTALL=OFF \
  -DGTest_DIR="$gtest_prefix/lib/cmake/GTest" \
  -DBoost_NO_BOOST_CMAKE=ON -DBoost_INCLUDE_DIR="$headers" \
  -Dnlohmann_json_DIR="$shim" >/dev/null
cmake --build "$build/inputanim" -j "$jobs"

# The proof is only a proof if the binaries really are big-endian s390x.
library=$build/inputanim/libinputanim.a
header=$(s390x-linux-gnu-readelf -h "$(find "$build/inputanim/tests" -maxdepth 1 -type f -name 'inputanim_*tests' -perm -u+x | head -n 1)")
echo "$header" | grep -q 'big endian' || { echo "!! the test programs are not big-endian"; exit 1; }
echo "$header" | grep -q 'IBM S/390' || { echo "!! the test programs are not s390x"; exit 1; }
[ -f "$library" ]
echo "== running the tests under qemu-s390x, big-endian ($((SECONDS - start)) s)"
# A ctest test is a whole GoogleTest suite, under qemu several minutes for the longest.
ctest --test-dir "$build/inputanim" -j "$jobs" --output-on-failure --timeout 1200
echo "s390x: every test passed under qemu in $((SECONDS - start)) s"
