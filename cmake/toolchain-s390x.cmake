# Cross build for s390x (IBM Z, big-endian) with Debian's cross compiler, run under qemu-user:
#   apt-get install g++-s390x-linux-gnu qemu-user
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-s390x.cmake ...
# Packages built for the target elsewhere are named directly (GTest_DIR, Boost_INCLUDE_DIR); see
# .ci/s390x.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)

set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++)

# Libraries, headers and CMake packages come only from the target's root, never from the host's
# /usr; programs (cmake, qemu) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest (and gtest_discover_tests) run the target's programs through qemu.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x -L /usr/s390x-linux-gnu)
