// Ceilings on the work the input decides, shared by the commands, the index, the server and the
// Python package: in tools/os, below all of them.
#pragma once

#include <cstdint>

namespace inputanim::tools {

// The ceilings of the commands that evaluate a recording held whole (sample, metrics, and
// index --metrics): a gzip file or standard input is read into memory up to the bytes, and a
// grid with more rows (a mistyped rate) is refused before anything is evaluated or written.
inline constexpr std::uint64_t default_max_whole_bytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t default_max_rows = 10'000'000;

// The most threads any count asks for: index --jobs, validate --jobs, serve --threads and
// Python's jobs= and threads=. More is a usage error (exit 2, ValueError), not a request the
// machine answers by failing to start them: far beyond any machine's cores, and each thread
// holds a stack and, in the index, a read window.
inline constexpr unsigned max_threads = 256;

}  // namespace inputanim::tools
