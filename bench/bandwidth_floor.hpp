// The bandwidth floor of bench_validate: what the cores can stream, against which validation is
// measured. Built in its own translation unit with -O3 -march=native (bench/CMakeLists.txt), so
// that the compiler vectorizes the loop with the widest loads this processor has.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace inputanim::bench {

// Every 8-byte word of the bytes, summed: the compiler cannot drop a load whose value is used.
std::uint64_t sum_words(std::span<const std::byte> bytes) noexcept;

// The same sum on `threads` threads (the calling thread one of them), which take parts of the
// bytes in turn.
std::uint64_t sum_words(std::span<const std::byte> bytes, unsigned threads);

}  // namespace inputanim::bench
