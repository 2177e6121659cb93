// The loops of one implementation of the block kernels (detail/kernels.hpp), written once for
// GCC/Clang vectors of INPUTANIM_KERNEL_LANES 32-bit lanes and compiled by each kernel
// translation unit for its own instruction set, which then defines its table with
// INPUTANIM_KERNEL_TABLE(table, name). Everything here has internal linkage, so that each
// translation unit keeps its own copy built for its own target, and the one template of another
// header it instantiates, load_lanes_le, it instantiates for its own vector width only: only the
// table's plain functions are shared. Included once per kernel translation unit, and nowhere else.
//
// Lanes are loaded with one memcpy per vector (load_lanes_le): the fields' little-endian layout.
// Big-endian hosts prove nothing here, and take the key-by-key path (the vector helpers are
// unused there).

#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "detail/kernels.hpp"
#include "detail/load.hpp"
#include "inputanim/format.hpp"

namespace inputanim::detail {
namespace {

constexpr bool lane_loads = std::endian::native == std::endian::little;
constexpr std::size_t lanes = INPUTANIM_KERNEL_LANES;
using u32 = std::uint32_t __attribute__((vector_size(4 * lanes)));
using i32 = std::int32_t __attribute__((vector_size(4 * lanes)));
using f32 = float __attribute__((vector_size(4 * lanes)));
using u64 = std::uint64_t __attribute__((vector_size(4 * lanes)));
using lane_constants = std::uint32_t[lanes];

constexpr std::size_t smaller(std::size_t a, std::size_t b) noexcept {
    return a < b ? a : b;
}

// A template, so that big-endian builds, which never call it, need not instantiate it.
template <class V = u32>
V load(const std::byte* p) noexcept {
    V v;
    load_lanes_le(p, v);
    return v;
}
[[maybe_unused]] i32 constant(const lane_constants& c) noexcept {
    i32 v;
    std::memcpy(&v, c, sizeof v);
    return v;
}

// Reduced in registers: a round trip through memory would put a store-to-load dependency into
// every loop that accumulates masks.
[[maybe_unused]] bool any(i32 m) noexcept {
    const u64 w = (u64)m;
    std::uint64_t any = 0;
    for (std::size_t i = 0; i < lanes / 2; ++i) any |= w[i];
    return any != 0;
}

// One field's rule as a single signed comparison: the field is bad when
// ((bits & mask) ^ flip) > bound, so that every lane costs the same three operations.
struct field_rule {
    std::uint32_t mask;
    std::uint32_t flip;
    std::int32_t bound;
};
// Exponent all ones: infinite or NaN.
constexpr field_rule not_finite{0x7f800000u, 0, 0x7f7fffff};
// Above +infinity's bits once the sign is dropped: NaN (infinite tangents are legal).
constexpr field_rule is_nan{0x7fffffffu, 0, 0x7f800000};
// Weighted mode outside 0-3, as an unsigned comparison.
constexpr field_rule mode_out_of_range{0xffffffffu, 0x80000000u, INT_MIN + 3};
// No rule: (0 ^ 0) > 0 never holds.
constexpr field_rule no_rule{0, 0, 0};

struct rule_lanes {
    lane_constants mask{};
    lane_constants flip{};
    lane_constants bound{};
};

// The lanes of a block of keys of `Stride` bytes, vector by vector.
template <std::size_t Stride>
struct block_lanes {
    static constexpr std::size_t vectors = block_keys * Stride / (4 * lanes);
    // check_keyframe's rules of every field.
    rule_lanes all[vectors];
    // The rules of the fields after time and value, which a rotation's x, y and z need on top of
    // lining up with w (keys of w's time and of a squared length near 1 have finite fields).
    rule_lanes other[vectors];
    // All ones in the lanes holding a key's time, and in those holding its value.
    lane_constants time[vectors]{};
    lane_constants value[vectors]{};
};

template <std::size_t Stride>
constexpr block_lanes<Stride> make_block_lanes() noexcept {
    // check_keyframe's fields, in key order: time, value (compact keys end here), in and out
    // tangents, in and out weights, weighted mode.
    constexpr field_rule fields[7] = {not_finite, not_finite, is_nan,           is_nan,
                                      not_finite, not_finite, mode_out_of_range};
    block_lanes<Stride> r{};
    for (std::size_t word = 0; word < block_keys * Stride / 4; ++word) {
        const std::size_t field = word % (Stride / 4);
        const std::size_t v = word / lanes;
        const std::size_t lane = word % lanes;
        const field_rule other = field < 2 ? no_rule : fields[field];
        r.all[v].mask[lane] = fields[field].mask;
        r.all[v].flip[lane] = fields[field].flip;
        r.all[v].bound[lane] = static_cast<std::uint32_t>(fields[field].bound);
        r.other[v].mask[lane] = other.mask;
        r.other[v].flip[lane] = other.flip;
        r.other[v].bound[lane] = static_cast<std::uint32_t>(other.bound);
        r.time[v][lane] = field == 0 ? ~0u : 0u;
        r.value[v][lane] = field == 1 ? ~0u : 0u;
    }
    return r;
}

template <std::size_t Stride>
constexpr block_lanes<Stride> block = make_block_lanes<Stride>();

// The lanes of `now` that break their field's rule.
[[maybe_unused]] i32 broken(u32 now, const rule_lanes& r) noexcept {
    const u32 field = (now & (u32)constant(r.mask)) ^ (u32)constant(r.flip);
    return (i32)field > constant(r.bound);
}

template <std::size_t Stride>
std::size_t clean_keys(const std::byte* keys, std::size_t from, std::size_t to) noexcept {
    if constexpr (lane_loads) {
        constexpr block_lanes<Stride> const& b = block<Stride>;
        std::size_t k = from;
        while (to - k >= block_keys) {
            const std::size_t n = smaller(block_run, (to - k) / block_keys * block_keys);
            const std::byte* p = keys + k * Stride;
            i32 bad{};
            for (const std::byte* end = p + n * Stride; p != end; p += block_keys * Stride) {
                for (std::size_t v = 0; v < b.vectors; ++v) {
                    const u32 now = load(p + sizeof(u32) * v);
                    // The same words of the keys before: each time must exceed the one before.
                    const u32 before = load(p + sizeof(u32) * v - Stride);
                    bad |= broken(now, b.all[v]);
                    // Not `now > before`, which would also flag NaN: the rules do that already.
                    bad |= ((f32)before >= (f32)now) & constant(b.time[v]);
                }
            }
            if (any(bad)) return k;
            k += n;
        }
        return k;
    } else {
        (void)keys;
        (void)to;
        return from;
    }
}

template <std::size_t Stride>
std::size_t lockstep(const std::byte* const* q, std::size_t from, std::size_t n, float low,
                     float high) noexcept {
    if constexpr (lane_loads) {
        constexpr block_lanes<Stride> const& b = block<Stride>;
        const f32 lo = f32{} + low;
        const f32 hi = f32{} + high;
        const std::byte* x = q[0];
        const std::byte* y = q[1];
        const std::byte* z = q[2];
        const std::byte* w = q[3];
        std::size_t k = from;
        while (n - k >= block_keys) {
            const std::size_t m = smaller(block_run, (n - k) / block_keys * block_keys);
            i32 bad{};
            for (std::size_t at = k * Stride, end = (k + m) * Stride; at != end;
                 at += block_keys * Stride) {
                for (std::size_t v = 0; v < b.vectors; ++v) {
                    const std::size_t i = at + sizeof(u32) * v;
                    const u32 nx = load(x + i);
                    const u32 ny = load(y + i);
                    const u32 nz = load(z + i);
                    const u32 nw = load(w + i);
                    const u32 before = load(w + i - Stride);
                    // w alone is checked field by field. x, y and z then need only their other
                    // fields: a time equal to w's is as finite and as ordered as w's (given the
                    // keys before, which line up too), and a value whose square adds up to a
                    // length near 1 is finite.
                    bad |= broken(nw, b.all[v]);
                    if constexpr (Stride != compact_keyframe_size) {
                        bad |= broken(nx, b.other[v]) | broken(ny, b.other[v]) |
                               broken(nz, b.other[v]);
                    }
                    const f32 fx = (f32)nx;
                    const f32 fy = (f32)ny;
                    const f32 fz = (f32)nz;
                    const f32 fw = (f32)nw;
                    const i32 timely = (fx == fw) & (fy == fw) & (fz == fw) & ((f32)before < fw);
                    bad |= constant(b.time[v]) & ~timely;
                    const f32 squared = fx * fx + fy * fy + fz * fz + fw * fw;
                    bad |= constant(b.value[v]) & ~((squared >= lo) & (squared <= hi));
                }
            }
            if (any(bad)) return k;
            k += m;
        }
        return k;
    } else {
        (void)q;
        (void)n;
        (void)low;
        (void)high;
        return from;
    }
}

template <std::size_t Stride>
std::size_t aligned(const std::byte* const* q, std::size_t n, float low, float high) noexcept {
    if constexpr (lane_loads) {
        constexpr block_lanes<Stride> const& b = block<Stride>;
        const f32 lo = f32{} + low;
        const f32 hi = f32{} + high;
        std::size_t k = 0;
        for (; n - k >= block_keys; k += block_keys) {
            i32 bad{};
            for (std::size_t v = 0; v < b.vectors; ++v) {
                const std::size_t i = k * Stride + sizeof(u32) * v;
                const u32 nx = load(q[0] + i);
                const u32 ny = load(q[1] + i);
                const u32 nz = load(q[2] + i);
                const u32 nw = load(q[3] + i);
                const f32 fx = (f32)nx;
                const f32 fy = (f32)ny;
                const f32 fz = (f32)nz;
                const f32 fw = (f32)nw;
                bad |= constant(b.time[v]) & ~((fx == fw) & (fy == fw) & (fz == fw));
                const f32 squared = fx * fx + fy * fy + fz * fz + fw * fw;
                bad |= constant(b.value[v]) & ~((squared >= lo) & (squared <= hi));
            }
            if (any(bad)) break;
        }
        return k;
    } else {
        (void)q;
        (void)n;
        (void)low;
        (void)high;
        return 0;
    }
}

// widen, a step of widen_keys keys at a time: lane d of the step's output is field d % 7 of key
// d / 7, its time and value (fields 0 and 1) from lanes 2k and 2k + 1 of the input, the other
// fields from linear_key_tail. Each output vector is one shuffle of one input vector with one
// constant vector of the tail.
constexpr std::size_t widen_keys = 8;
constexpr std::size_t widen_in_vectors = widen_keys * 2 / lanes;
constexpr std::size_t widen_out_vectors = widen_keys * 7 / lanes;
constexpr std::size_t from_tail = ~std::size_t{0};

constexpr std::size_t widen_source_lane(std::size_t d) noexcept {
    return d % 7 < 2 ? d / 7 * 2 + d % 7 : from_tail;
}

// The input vector that output vector j takes its times and values from: one for each, since a
// vector of up to 8 lanes holds the time and value of at most two keys, and two keys that share
// an output vector share an input vector (checked below).
constexpr std::size_t widen_source_vector(std::size_t j) noexcept {
    for (std::size_t l = 0; l < lanes; ++l) {
        const std::size_t s = widen_source_lane(j * lanes + l);
        if (s != from_tail) return s / lanes;
    }
    return 0;
}
constexpr bool widen_one_source() noexcept {
    for (std::size_t j = 0; j < widen_out_vectors; ++j) {
        for (std::size_t l = 0; l < lanes; ++l) {
            const std::size_t s = widen_source_lane(j * lanes + l);
            if (s != from_tail && s / lanes != widen_source_vector(j)) return false;
        }
    }
    return true;
}
static_assert(widen_one_source());

// The shuffle index of output lane d: an input lane, or lane d's own lane of the tail vector.
constexpr int widen_index(std::size_t d) noexcept {
    const std::size_t s = widen_source_lane(d);
    return static_cast<int>(s == from_tail ? lanes + d % lanes : s % lanes);
}

struct widen_tail {
    u32 v[widen_out_vectors];
};
widen_tail make_widen_tail() noexcept {
    std::byte bytes[widen_keys * full_keyframe_size]{};
    for (std::size_t k = 0; k < widen_keys; ++k) {
        std::memcpy(bytes + k * full_keyframe_size + 8, linear_key_tail.data(),
                    linear_key_tail.size());
    }
    widen_tail t;
    for (std::size_t j = 0; j < widen_out_vectors; ++j)
        load_lanes_raw(bytes + j * sizeof(u32), t.v[j]);
    return t;
}

template <std::size_t J, std::size_t... L>
u32 widen_vector(const u32 (&in)[widen_in_vectors], const u32 tail,
                 std::index_sequence<L...>) noexcept {
    return __builtin_shufflevector(in[widen_source_vector(J)], tail, widen_index(J * lanes + L)...);
}

template <std::size_t... J>
void widen_step(const std::byte* in, std::byte* out, const widen_tail& tail,
                std::index_sequence<J...>) noexcept {
    u32 source[widen_in_vectors];
    for (std::size_t s = 0; s < widen_in_vectors; ++s) {
        load_lanes_raw(in + s * sizeof(u32), source[s]);
    }
    (store_lanes_raw(out + J * sizeof(u32),
                     widen_vector<J>(source, tail.v[J], std::make_index_sequence<lanes>{})),
     ...);
}

void widen(const std::byte* in, std::byte* out, std::size_t n) noexcept {
    const widen_tail tail = make_widen_tail();
    std::size_t i = 0;
    for (; n - i >= widen_keys; i += widen_keys) {
        widen_step(in + i * compact_keyframe_size, out + i * full_keyframe_size, tail,
                   std::make_index_sequence<widen_out_vectors>{});
    }
    for (; i < n; ++i) {
        std::memcpy(out + i * full_keyframe_size, in + i * compact_keyframe_size, 8);
        std::memcpy(out + i * full_keyframe_size + 8, linear_key_tail.data(),
                    linear_key_tail.size());
    }
}

std::size_t narrow(const std::byte* in, std::byte* out, std::size_t n) noexcept {
    std::size_t curved = 0;
    for (std::size_t i = 0; i < n; ++i, in += full_keyframe_size, out += compact_keyframe_size) {
        std::memcpy(out, in, compact_keyframe_size);
        // The bytes first: almost every key is MRTK's, byte for byte.
        if (std::memcmp(in + 8, linear_key_tail.data(), linear_key_tail.size()) != 0 &&
            !mrtk_linear_key(in)) {
            ++curved;
        }
    }
    return curved;
}

template <std::size_t... L>
u32 shift_lanes(u32 shifted, u32 now, std::index_sequence<L...>) noexcept {
    // Even lanes (times) from `shifted`, odd ones (values) from `now`, untouched as bits.
    return __builtin_shufflevector(shifted, now, (L % 2 == 0 ? L : lanes + L)...);
}
template <std::size_t... L>
f32 time_before(f32 previous, f32 now, std::index_sequence<L...>) noexcept {
    // In each even lane, the time two lanes back: the previous vector's last time for lane 0.
    return __builtin_shufflevector(previous, now, (L == 0 ? lanes - 2 : lanes + L - 2)...);
}

std::size_t shift_compact(const std::byte* in, std::byte* out, std::size_t n, float by,
                          float before) noexcept {
    if constexpr (lane_loads) {
        constexpr std::size_t keys_per_vector = lanes / 2;
        lane_constants even_bits{};
        lane_constants by_bits{};
        for (std::size_t l = 0; l < lanes; l += 2) {
            even_bits[l] = ~0u;
            by_bits[l] = std::bit_cast<std::uint32_t>(by);
        }
        const i32 even = constant(even_bits);
        const f32 by_lanes = (f32)constant(by_bits);
        const u32 magnitude = u32{} + 0x7fffffffu;
        const f32 largest = f32{} + std::numeric_limits<float>::max();
        f32 previous = f32{} + before;
        std::size_t k = 0;
        while (n - k >= block_keys) {
            const std::size_t m = smaller(block_run, (n - k) / block_keys * block_keys);
            i32 bad{};
            for (std::size_t i = k; i != k + m; i += keys_per_vector) {
                const u32 now = load(in + i * compact_keyframe_size);
                const f32 shifted = (f32)now - by_lanes;
                bad |= even & ~((shifted > time_before(previous, shifted,
                                                       std::make_index_sequence<lanes>{})) &
                                ((f32)((u32)shifted & magnitude) <= largest));
                store_lanes_raw(out + i * compact_keyframe_size,
                                shift_lanes((u32)shifted, now, std::make_index_sequence<lanes>{}));
                previous = shifted;
            }
            if (any(bad)) return k;
            k += m;
        }
        return k;
    } else {
        (void)in;
        (void)out;
        (void)n;
        (void)by;
        (void)before;
        return 0;
    }
}

}  // namespace
}  // namespace inputanim::detail

#define INPUTANIM_KERNEL_TABLE(table_name, implementation)                                        \
    extern const inputanim::detail::block_kernels table_name {                                    \
        implementation,                                                                           \
            {inputanim::detail::clean_keys<inputanim::compact_keyframe_size>,                     \
             inputanim::detail::clean_keys<inputanim::full_keyframe_size>},                       \
            {inputanim::detail::lockstep<inputanim::compact_keyframe_size>,                       \
             inputanim::detail::lockstep<inputanim::full_keyframe_size>},                         \
            {inputanim::detail::aligned<inputanim::compact_keyframe_size>,                        \
             inputanim::detail::aligned<inputanim::full_keyframe_size>},                          \
            inputanim::detail::widen, inputanim::detail::narrow, inputanim::detail::shift_compact \
    }
