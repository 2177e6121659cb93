#include "bandwidth_floor.hpp"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace inputanim::bench {

std::uint64_t sum_words(std::span<const std::byte> bytes) noexcept {
    const std::byte* p = bytes.data();
    const std::size_t words = bytes.size() / 8;
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < words; ++i) {
        std::uint64_t w;
        std::memcpy(&w, p + 8 * i, 8);
        sum += w;
    }
    return sum;
}

std::uint64_t sum_words(std::span<const std::byte> bytes, unsigned threads) {
    if (threads <= 1) return sum_words(bytes);
    // Parts of whole words taken in turn by whichever thread is free, four per thread, as
    // validate() on threads takes its parts: on a shared machine one core may be slower than the
    // other.
    const std::size_t parts = 4 * std::size_t{threads};
    const std::size_t part = bytes.size() / 8 / parts * 8;
    std::atomic<std::size_t> next{0};
    std::vector<std::uint64_t> sums(threads);
    const auto sum_parts = [&](unsigned t) {
        for (std::size_t p = next++; p < parts; p = next++) {
            const std::size_t size = p + 1 == parts ? bytes.size() - p * part : part;
            sums[t] += sum_words(bytes.subspan(p * part, size));
        }
    };
    {
        std::vector<std::jthread> workers;
        for (unsigned t = 1; t < threads; ++t) workers.emplace_back(sum_parts, t);
        sum_parts(0);
    }
    std::uint64_t sum = 0;
    for (std::uint64_t s : sums) sum += s;
    return sum;
}

}  // namespace inputanim::bench
