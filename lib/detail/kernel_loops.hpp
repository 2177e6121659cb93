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

}  // namespace
}  // namespace inputanim::detail

#define INPUTANIM_KERNEL_TABLE(table_name, implementation)                    \
    extern const inputanim::detail::block_kernels table_name {                \
        implementation,                                                       \
            {inputanim::detail::clean_keys<inputanim::compact_keyframe_size>, \
             inputanim::detail::clean_keys<inputanim::full_keyframe_size>},   \
            {inputanim::detail::lockstep<inputanim::compact_keyframe_size>,   \
             inputanim::detail::lockstep<inputanim::full_keyframe_size>},     \
        {                                                                     \
            inputanim::detail::aligned<inputanim::compact_keyframe_size>,     \
                inputanim::detail::aligned<inputanim::full_keyframe_size>     \
        }                                                                     \
    }
