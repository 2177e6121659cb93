// The choice of the block kernels, made once, and the key-by-key work around them.
#include <algorithm>
#include <cstdlib>

#include "detail/kernels.hpp"
#include "detail/load.hpp"
#include "inputanim/format.hpp"

namespace inputanim::detail {

// Defined by the kernel translation units (kernels_baseline.cpp, kernels_avx2.cpp).
extern const block_kernels baseline_kernels;
#if defined(INPUTANIM_AVX2_KERNELS)
extern const block_kernels avx2_kernels;
#endif

namespace {

struct kernel_list {
    const block_kernels* runnable[2] = {&baseline_kernels, nullptr};
    std::size_t count = 1;
};

kernel_list find_runnable() noexcept {
    kernel_list list;
#if defined(INPUTANIM_AVX2_KERNELS)
    if (__builtin_cpu_supports("avx2")) list.runnable[list.count++] = &avx2_kernels;
#endif
    return list;
}

const block_kernels& choose() noexcept {
    const std::span<const block_kernels* const> runnable = runnable_kernels();
    // The variable lets the tests (and anyone measuring) run the baseline on any processor.
    if (const char* forced = std::getenv("INPUTANIM_FORCE_IMPLEMENTATION")) {
        for (const block_kernels* k : runnable) {
            if (k->name == forced) return *k;
        }
    }
    return *runnable.back();
}

}  // namespace

std::span<const block_kernels* const> runnable_kernels() noexcept {
    static const kernel_list list = find_runnable();
    return {list.runnable, list.count};
}

const block_kernels& kernels() noexcept {
    static const block_kernels& chosen = choose();
    return chosen;
}

key_fault scan_keys(const std::byte* keys, std::size_t stride, bool is_bool, std::size_t from,
                    std::size_t to) noexcept {
    const bool full = stride == full_keyframe_size;
    const std::byte* p = keys + from * stride;
    float previous = from == 0 ? 0.0f : load_f32_le(p - stride);
    for (std::size_t i = from; i < to; ++i, p += stride) {
        const keyframe_fault f = check_keyframe(p, full, is_bool, i == 0, previous);
        if (f.code != errc::ok) return {i, f};
        previous = load_f32_le(p);
    }
    return {to, {}};
}

key_fault first_fault(const block_kernels& k, const std::byte* keys, std::size_t stride,
                      std::size_t from, std::size_t to) noexcept {
    const bool full = stride == full_keyframe_size;
    std::size_t i = from;
    // The first key has no key before it for the kernels to compare its time with.
    if (i == 0 && i < to) {
        const key_fault f = scan_keys(keys, stride, false, 0, 1);
        if (f.index == 0) return f;
        i = 1;
    }
    for (;;) {
        i = k.clean_keys[full](keys, i, to);
        if (to - i < block_keys) return scan_keys(keys, stride, false, i, to);
        const std::size_t stop = i + std::min(block_run, to - i);
        const key_fault f = scan_keys(keys, stride, false, i, stop);
        if (f.index < stop) return f;
        i = stop;
    }
}

std::size_t lockstep_prefix(const block_kernels& k, const std::byte* const* q, std::size_t stride,
                            std::size_t n, float low, float high) noexcept {
    if (n == 0) return 0;
    // Key 0 by key, as the kernels start from keys already in lockstep.
    for (std::size_t c = 0; c < 4; ++c) {
        if (scan_keys(q[c], stride, false, 0, 1).index == 0) return 0;
    }
    const float t = load_f32_le(q[3]);
    float squared = 0;
    for (std::size_t c = 0; c < 4; ++c) {
        if (load_f32_le(q[c]) != t) return 0;
        const float v = load_f32_le(q[c] + 4);
        squared += v * v;
    }
    if (!(squared >= low && squared <= high)) return 0;
    return k.lockstep[stride == full_keyframe_size](q, 1, n, low, high);
}

}  // namespace inputanim::detail
