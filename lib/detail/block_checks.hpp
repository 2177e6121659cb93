// Level full's keyframe checks over blocks of keyframes at a time, for validate's whole-buffer
// walk: every per-field rule of check_keyframe becomes a branch-free lane-wise test whose results
// are OR-ed into one mask, and only a run of blocks whose mask is set is walked again key by key
// with check_keyframe, which finds the first fault with its exact code and offset. The verdict is
// therefore always check_keyframe's (the one the streaming validator gives); the blocks only make
// the common case, no fault, run at memory speed.
//
// Lanes are GCC/Clang vector extensions of `Lanes` 32-bit values, loaded with one memcpy per
// vector: the fields' little-endian layout. Big-endian hosts, and bool curves (MRTK keys them only
// at each change), take the key-by-key path. Everything here is always inlined, so that a caller
// compiled for AVX2 (see avx2_at_run_time) gets AVX2 code for all of it, and no vector crosses a
// call between code built for different targets, which would disagree on how a 32-byte vector
// is passed (even at -O0: hence __builtin_bit_cast, where the std::bit_cast function would be a
// call).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>

#include "detail/rules.hpp"
#include "detail/load.hpp"
#include "inputanim/format.hpp"

// 32-byte vectors in code built for the x86-64 baseline draw the compiler's note that their ABI
// would change; they never cross a call that is not inlined. (Off for the rest of the including
// file too: the templates are instantiated at its end.)
#pragma GCC diagnostic ignored "-Wpsabi"

// Also for the callers that instantiate these loops for AVX2.
#define INPUTANIM_INLINE [[gnu::always_inline]] inline

namespace inputanim::detail {

inline constexpr bool lane_loads = std::endian::native == std::endian::little;

// The lanes of the target the library is built for: 8 with AVX2, else 4 (SSE2, the x86-64
// baseline, or another target's 16-byte vectors). Vectors wider than the target's registers are
// split by the compiler badly enough to lose to the scalar loop.
#if defined(__AVX2__)
inline constexpr std::size_t built_lanes = 8;
#else
inline constexpr std::size_t built_lanes = 4;
#endif

// x86-64 builds for the baseline also carry 8-lane versions of the loops compiled for AVX2, taken
// when the processor has it.
#if !defined(__AVX2__) && defined(__x86_64__) && defined(__GNUC__)
#define INPUTANIM_AVX2_AT_RUN_TIME 1
inline bool avx2_at_run_time() noexcept {
    return __builtin_cpu_supports("avx2");
}
#endif

// The vector types of one size. (GCC drops vector_size on an alias whose size depends on a
// template parameter, so each size is spelled out.)
template <std::size_t Bytes>
struct vector_types;
template <>
struct vector_types<16> {
    using u32 = std::uint32_t __attribute__((vector_size(16)));
    using i32 = std::int32_t __attribute__((vector_size(16)));
    using f32 = float __attribute__((vector_size(16)));
    using u64 = std::uint64_t __attribute__((vector_size(16)));
};
template <>
struct vector_types<32> {
    using u32 = std::uint32_t __attribute__((vector_size(32)));
    using i32 = std::int32_t __attribute__((vector_size(32)));
    using f32 = float __attribute__((vector_size(32)));
    using u64 = std::uint64_t __attribute__((vector_size(32)));
};

template <std::size_t Lanes>
struct lanes {
    using u32 = typename vector_types<4 * Lanes>::u32;
    using i32 = typename vector_types<4 * Lanes>::i32;
    using f32 = typename vector_types<4 * Lanes>::f32;
    using u64 = typename vector_types<4 * Lanes>::u64;
    using constants = std::array<std::uint32_t, Lanes>;

    // Reduced in registers: a round trip through memory would put a store-to-load dependency
    // into every iteration of the loops that accumulate masks.
    INPUTANIM_INLINE static bool any(const i32& m) noexcept {
        const u64 w = __builtin_bit_cast(u64, m);
        std::uint64_t any = 0;
        for (std::size_t i = 0; i < Lanes / 2; ++i) any |= w[i];
        return any != 0;
    }
    INPUTANIM_INLINE static f32 splat(float x) noexcept {
        f32 v;
        for (std::size_t i = 0; i < Lanes; ++i) v[i] = x;
        return v;
    }
};

// One field's rule as a single signed comparison: the field is bad when
// ((bits & mask) ^ flip) > bound, so that every lane costs the same three operations.
struct field_rule {
    std::uint32_t mask;
    std::uint32_t flip;
    std::int32_t bound;
};
// Exponent all ones: infinite or NaN.
inline constexpr field_rule not_finite{0x7f800000u, 0, 0x7f7fffff};
// Above +infinity's bits once the sign is dropped: NaN (infinite tangents are legal).
inline constexpr field_rule is_nan{0x7fffffffu, 0, 0x7f800000};
// Weighted mode outside 0-3, as an unsigned comparison.
inline constexpr field_rule mode_out_of_range{0xffffffffu, 0x80000000u, INT_MIN + 3};

// Keys per block: a whole number of vectors for both strides and both lane counts.
inline constexpr std::size_t block_keys = 8;

// The rules of every lane of a block of keys of `Stride` bytes.
template <std::size_t Stride, std::size_t Lanes>
struct block_rules {
    using constants = typename lanes<Lanes>::constants;
    static constexpr std::size_t vectors = block_keys * Stride / (4 * Lanes);
    // Aligned as the vectors they become: the compiler loads them with aligned moves. (It may
    // align an object of this size so on its own in one translation unit and not in another,
    // and the linker keeps either copy of an inline variable.)
    alignas(4 * Lanes) std::array<constants, vectors> mask{};
    alignas(4 * Lanes) std::array<constants, vectors> flip{};
    alignas(4 * Lanes) std::array<constants, vectors> bound{};
    // All ones in the lanes holding a key's time, which must exceed the previous key's.
    alignas(4 * Lanes) std::array<constants, vectors> time{};
};

template <std::size_t Stride, std::size_t Lanes>
constexpr block_rules<Stride, Lanes> make_block_rules() noexcept {
    // check_keyframe's fields, in key order: time, value (compact keys end here), in and out
    // tangents, in and out weights, weighted mode.
    constexpr std::array<field_rule, 7> fields = {not_finite, not_finite, is_nan,           is_nan,
                                                  not_finite, not_finite, mode_out_of_range};
    block_rules<Stride, Lanes> r;
    for (std::size_t word = 0; word < block_keys * Stride / 4; ++word) {
        const std::size_t field = word % (Stride / 4);
        const std::size_t v = word / Lanes;
        const std::size_t lane = word % Lanes;
        r.mask[v][lane] = fields[field].mask;
        r.flip[v][lane] = fields[field].flip;
        r.bound[v][lane] = static_cast<std::uint32_t>(fields[field].bound);
        r.time[v][lane] = field == 0 ? ~0u : 0u;
    }
    return r;
}

template <std::size_t Stride, std::size_t Lanes>
inline constexpr block_rules<Stride, Lanes> rules = make_block_rules<Stride, Lanes>();

// Sets the lanes of `bad` where one of the block_keys float keys at p fails a check. Each key
// has a previous key at p - Stride (the caller starts blocks at key 1).
template <std::size_t Stride, std::size_t Lanes>
INPUTANIM_INLINE void add_block_faults(const std::byte* p,
                                       typename lanes<Lanes>::i32& bad) noexcept {
    using v = lanes<Lanes>;
    constexpr const block_rules<Stride, Lanes>& r = rules<Stride, Lanes>;
    for (std::size_t i = 0; i < r.vectors; ++i) {
        typename v::u32 now;
        typename v::u32 before;
        load_lanes_le(p + sizeof now * i, now);
        load_lanes_le(p + sizeof now * i - Stride, before);
        const auto field = (now & __builtin_bit_cast(typename v::u32, r.mask[i])) ^
                           __builtin_bit_cast(typename v::u32, r.flip[i]);
        bad |= __builtin_bit_cast(typename v::i32, field) >
               __builtin_bit_cast(typename v::i32, r.bound[i]);
        // Not `now > before`, which would also flag NaN: the finiteness lanes do that already.
        bad |= (__builtin_bit_cast(typename v::f32, before) >=
                __builtin_bit_cast(typename v::f32, now)) &
               __builtin_bit_cast(typename v::i32, r.time[i]);
    }
}

// The first fault among keys [from, to) of one curve, key `from - 1` having passed: its index,
// or `to` when there is none.
struct key_fault {
    std::size_t index = 0;
    keyframe_fault fault{};
};

inline key_fault scan_keys(const std::byte* keys, std::size_t stride, bool is_bool,
                           std::size_t from, std::size_t to) noexcept {
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

template <std::size_t Stride, std::size_t Lanes>
INPUTANIM_INLINE key_fault check_float_keys(const std::byte* keys, std::size_t from,
                                            std::size_t to) noexcept {
    if constexpr (lane_loads) {
        // Keys per mask test: long enough to amortize the reduction, short enough that a fault
        // costs little to find again.
        constexpr std::size_t run = 256;
        std::size_t i = from;
        // The first key has no previous key to be compared with.
        if (i == 0 && i < to) {
            const key_fault f = scan_keys(keys, Stride, false, 0, 1);
            if (f.index == 0) return f;
            i = 1;
        }
        while (to - i >= block_keys) {
            const std::size_t n = std::min(run, (to - i) / block_keys * block_keys);
            const std::byte* p = keys + i * Stride;
            typename lanes<Lanes>::i32 bad{};
            for (std::size_t b = 0; b < n; b += block_keys) {
                add_block_faults<Stride, Lanes>(p + b * Stride, bad);
            }
            if (lanes<Lanes>::any(bad)) {
                const key_fault f = scan_keys(keys, Stride, false, i, i + n);
                if (f.index < i + n) return f;
            }
            i += n;
        }
        return scan_keys(keys, Stride, false, i, to);
    } else {
        return scan_keys(keys, Stride, false, from, to);
    }
}

// The times and values of the Lanes keys at p, as lanes: times in one key order, values in
// another, the same for every curve (which is all that comparing times and summing squares
// across curves needs).
template <std::size_t Stride, std::size_t Lanes>
INPUTANIM_INLINE void load_times_values(const std::byte* p, typename lanes<Lanes>::f32& times,
                                        typename lanes<Lanes>::f32& values) noexcept {
    using v = lanes<Lanes>;
    // Lanes keys of 8 bytes are 2 vectors, of 28 bytes 7 (some unused with 4 lanes).
    // Vector i of the keys, loaded where it is used: an array of them would live in memory.
    // Always inlined, like everything here: a call returning a 32-byte vector from code built
    // for the x86-64 baseline into AVX2 code would disagree on where the vector is returned.
    const auto in = [p](std::size_t i) __attribute__((always_inline)) {
        typename v::u32 lanes;
        load_lanes_le(p + sizeof lanes * i, lanes);
        return lanes;
    };
    typename v::u32 t;
    typename v::u32 x;
    if constexpr (Stride == compact_keyframe_size && Lanes == 8) {
        t = __builtin_shufflevector(in(0), in(1), 0, 2, 4, 6, 8, 10, 12, 14);
        x = __builtin_shufflevector(in(0), in(1), 1, 3, 5, 7, 9, 11, 13, 15);
    } else if constexpr (Stride == compact_keyframe_size) {
        static_assert(Lanes == 4);
        t = __builtin_shufflevector(in(0), in(1), 0, 2, 4, 6);
        x = __builtin_shufflevector(in(0), in(1), 1, 3, 5, 7);
    } else if constexpr (Lanes == 8) {
        // Key j's time is word 7j, its value word 7j + 1: as 7 is prime to the lane count, each
        // lane holds one time (and one value) of one vector, and blends gather them.
        t = in(0);
        t = __builtin_shufflevector(t, in(1), 0, 1, 2, 3, 4, 5, 14, 7);
        t = __builtin_shufflevector(t, in(2), 0, 1, 2, 3, 4, 13, 6, 7);
        t = __builtin_shufflevector(t, in(3), 0, 1, 2, 3, 12, 5, 6, 7);
        t = __builtin_shufflevector(t, in(4), 0, 1, 2, 11, 4, 5, 6, 7);
        t = __builtin_shufflevector(t, in(5), 0, 1, 10, 3, 4, 5, 6, 7);
        t = __builtin_shufflevector(t, in(6), 0, 9, 2, 3, 4, 5, 6, 7);
        x = in(1);
        x = __builtin_shufflevector(x, in(0), 0, 9, 2, 3, 4, 5, 6, 7);
        x = __builtin_shufflevector(x, in(2), 0, 1, 2, 3, 4, 5, 14, 7);
        x = __builtin_shufflevector(x, in(3), 0, 1, 2, 3, 4, 13, 6, 7);
        x = __builtin_shufflevector(x, in(4), 0, 1, 2, 3, 12, 5, 6, 7);
        x = __builtin_shufflevector(x, in(5), 0, 1, 2, 11, 4, 5, 6, 7);
        x = __builtin_shufflevector(x, in(6), 0, 1, 10, 3, 4, 5, 6, 7);
    } else {
        static_assert(Lanes == 4);
        t = in(0);
        t = __builtin_shufflevector(t, in(1), 0, 1, 2, 7);
        t = __builtin_shufflevector(t, in(3), 0, 1, 6, 3);
        t = __builtin_shufflevector(t, in(5), 0, 5, 2, 3);
        x = in(0);
        x = __builtin_shufflevector(x, in(2), 4, 1, 2, 3);
        x = __builtin_shufflevector(x, in(3), 0, 1, 2, 7);
        x = __builtin_shufflevector(x, in(5), 0, 1, 6, 3);
    }
    times = __builtin_bit_cast(typename v::f32, t);
    values = __builtin_bit_cast(typename v::f32, x);
}

// Sets the lanes of `bad` where the Lanes keys at x, y, z and w (a rotation's curves) do not have
// the same times, lane by lane, or a quaternion's squared length lies outside [low, high].
template <std::size_t Stride, std::size_t Lanes>
INPUTANIM_INLINE void add_misaligned(const std::byte* x, const std::byte* y, const std::byte* z,
                                     const std::byte* w, float low, float high,
                                     typename lanes<Lanes>::i32& bad) noexcept {
    using v = lanes<Lanes>;
    typename v::f32 tx, ty, tz, tw, vx, vy, vz, vw;
    load_times_values<Stride, Lanes>(x, tx, vx);
    load_times_values<Stride, Lanes>(y, ty, vy);
    load_times_values<Stride, Lanes>(z, tz, vz);
    load_times_values<Stride, Lanes>(w, tw, vw);
    const typename v::f32 squared = vx * vx + vy * vy + vz * vz + vw * vw;
    bad |= ~((tx == tw) & (ty == tw) & (tz == tw) & (squared >= v::splat(low)) &
             (squared <= v::splat(high)));
}

// True when the Lanes keys at x, y, z and w have the same times, lane by lane, and every
// quaternion's squared length lies in [low, high].
template <std::size_t Stride, std::size_t Lanes>
INPUTANIM_INLINE bool aligned_within(const std::byte* x, const std::byte* y, const std::byte* z,
                                     const std::byte* w, float low, float high) noexcept {
    typename lanes<Lanes>::i32 bad{};
    add_misaligned<Stride, Lanes>(x, y, z, w, low, high, bad);
    return !lanes<Lanes>::any(bad);
}

// How many keys [0, K) the four curves of a rotation (x, y, z, w: keys of Stride bytes, at
// least n each) hold in lockstep: every key passes check_keyframe, and key i of x, y and z has
// the time of key i of w with a squared quaternion length in [low, high]. The four curves are
// read side by side, a block of each at a time, so that their streams and the checks overlap;
// the first run of blocks holding anything else ends the prefix (and is left to the key-by-key
// checks).
template <std::size_t Stride, std::size_t Lanes>
INPUTANIM_INLINE std::size_t lockstep_prefix(const std::byte* x, const std::byte* y,
                                             const std::byte* z, const std::byte* w, std::size_t n,
                                             float low, float high) noexcept {
    if constexpr (lane_loads) {
        if (n == 0) return 0;
        // The first keys have no previous key to be compared with.
        for (const std::byte* keys : {x, y, z, w}) {
            if (scan_keys(keys, Stride, false, 0, 1).index == 0) return 0;
        }
        const float t = load_f32_le(w);
        const float vx = load_f32_le(x + 4);
        const float vy = load_f32_le(y + 4);
        const float vz = load_f32_le(z + 4);
        const float vw = load_f32_le(w + 4);
        const float squared = vx * vx + vy * vy + vz * vz + vw * vw;
        if (!(load_f32_le(x) == t && load_f32_le(y) == t && load_f32_le(z) == t && squared >= low &&
              squared <= high)) {
            return 0;
        }
        constexpr std::size_t run = 256;
        std::size_t k = 1;
        while (n - k >= block_keys) {
            const std::size_t m = std::min(run, (n - k) / block_keys * block_keys);
            typename lanes<Lanes>::i32 bad{};
            for (std::size_t b = k; b < k + m; b += block_keys) {
                const std::size_t at = b * Stride;
                add_block_faults<Stride, Lanes>(x + at, bad);
                add_block_faults<Stride, Lanes>(y + at, bad);
                add_block_faults<Stride, Lanes>(z + at, bad);
                add_block_faults<Stride, Lanes>(w + at, bad);
                for (std::size_t j = at; j < at + block_keys * Stride; j += Lanes * Stride) {
                    add_misaligned<Stride, Lanes>(x + j, y + j, z + j, w + j, low, high, bad);
                }
            }
            if (lanes<Lanes>::any(bad)) return k;
            k += m;
        }
        return k;
    } else {
        return 0;
    }
}

}  // namespace inputanim::detail
