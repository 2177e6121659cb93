// Specification of the block checks behind validate (lib/detail/block_checks.hpp) at both lane
// widths, 4 (SSE2 and other 16-byte vector units: what validate runs without AVX2) and 8: the
// first fault they find in any range of keys is the one check_keyframe finds key by key, and the
// lockstep prefix of a rotation's curves never covers a key that a key-by-key look would stop at.
// On a processor without AVX2 the 8-lane width is left out.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "detail/block_checks.hpp"
#include "detail/load.hpp"

using namespace inputanim;
using namespace inputanim::detail;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
const float qnan = std::nanf("");
constexpr std::size_t key_count = 700;

// Valid keys with awkward but legal fields: -0.0 and denormal values, infinite tangents, every
// weighted mode.
std::vector<std::byte> valid_keys(std::size_t stride, std::size_t n) {
    std::vector<std::byte> b(n * stride);
    for (std::size_t i = 0; i < n; ++i) {
        std::byte* p = b.data() + i * stride;
        store_f32_le(p, static_cast<float>(i) / 60.0f - 2.0f);
        store_f32_le(p + 4, i % 3 == 0 ? -0.0f : i % 3 == 1 ? 1e-40f : 0.5f);
        if (stride == full_keyframe_size) {
            store_f32_le(p + 8, i % 5 == 0 ? -inf : 0.25f);
            store_f32_le(p + 12, i % 7 == 0 ? inf : -1e-42f);
            store_f32_le(p + 16, 1.0f / 3.0f);
            store_f32_le(p + 20, -0.0f);
            store_i32_le(p + 24, static_cast<std::int32_t>(i % 4));
        }
    }
    return b;
}

struct damage {
    std::string name;
    std::size_t field;
    bool full_only;
    float f = 0;
    std::int32_t i = 0;
    bool is_int = false;
};

std::vector<damage> damages() {
    return {{"infinite time", 0, false, inf},
            {"NaN time", 0, false, qnan},
            {"time going back", 0, false, -5.0f},
            {"time standing still", 0, false, -2.0f},
            {"infinite value", 4, false, -inf},
            {"NaN value", 4, false, qnan},
            {"NaN in tangent", 8, true, -qnan},
            {"NaN out tangent", 12, true, qnan},
            {"infinite in weight", 16, true, inf},
            {"NaN out weight", 20, true, qnan},
            {"mode 4", 24, true, 0, 4, true},
            {"mode -1", 24, true, 0, -1, true},
            {"mode INT32_MAX", 24, true, 0, std::numeric_limits<std::int32_t>::max(), true}};
}

struct range {
    std::size_t from;
    std::size_t to;
};
const range ranges[] = {{0, key_count}, {1, key_count}, {0, 9},     {3, 300},
                        {257, 263},     {256, 700},     {600, 700}, {699, 700}};

template <std::size_t Stride, std::size_t Lanes>
void expect_first_faults_as_key_by_key(key_fault (*check)(const std::byte*, std::size_t,
                                                          std::size_t)) {
    const std::vector<std::byte> valid = valid_keys(Stride, key_count);
    for (const range& r : ranges) {
        EXPECT_EQ(check(valid.data(), r.from, r.to).index, r.to);
    }
    for (const damage& d : damages()) {
        if (d.full_only && Stride != full_keyframe_size) continue;
        for (std::size_t k : {0, 1, 2, 7, 8, 9, 100, 255, 256, 257, 258, 263, 264, 511, 698, 699}) {
            std::vector<std::byte> b = valid;
            std::byte* p = b.data() + k * Stride + d.field;
            if (d.is_int) {
                store_i32_le(p, d.i);
            } else {
                store_f32_le(p, d.f);
            }
            for (const range& r : ranges) {
                // The checks take a range whose keys before it passed.
                if (k < r.from) continue;
                SCOPED_TRACE(d.name + " at key " + std::to_string(k) + ", keys [" +
                             std::to_string(r.from) + ", " + std::to_string(r.to) + ")");
                const key_fault expected = scan_keys(b.data(), Stride, false, r.from, r.to);
                const key_fault got = check(b.data(), r.from, r.to);
                EXPECT_EQ(got.index, expected.index);
                EXPECT_EQ(got.fault.code, expected.fault.code);
                EXPECT_EQ(got.fault.field, expected.fault.field);
            }
        }
    }
}

// A rotation's four curves of `n` keys at the same times, all unit quaternions.
struct rotation {
    std::vector<std::byte> curve[4];
    explicit rotation(std::size_t stride, std::size_t n) {
        for (auto& c : curve) c = valid_keys(stride, n);
        for (std::size_t i = 0; i < n; ++i) {
            const float a = 0.01f * static_cast<float>(i);
            const float q[4] = {0.0f, std::sin(a), 0.0f, std::cos(a)};
            for (std::size_t c = 0; c < 4; ++c)
                store_f32_le(curve[c].data() + i * stride + 4, q[c]);
        }
    }
};

// What lockstep_prefix promises: keys [0, K) of the four curves pass check_keyframe, share
// their times and have a squared length within the bounds.
template <std::size_t Stride>
bool clean_prefix(const rotation& r, std::size_t k, float low, float high) {
    for (const auto& c : r.curve) {
        if (scan_keys(c.data(), Stride, false, 0, k).index != k) return false;
    }
    for (std::size_t i = 0; i < k; ++i) {
        float sum = 0;
        for (std::size_t c = 0; c < 4; ++c) {
            const std::byte* p = r.curve[c].data() + i * Stride;
            if (load_f32_le(p) != load_f32_le(r.curve[3].data() + i * Stride)) return false;
            sum += load_f32_le(p + 4) * load_f32_le(p + 4);
        }
        if (!(sum >= low && sum <= high)) return false;
    }
    return true;
}

template <std::size_t Stride, std::size_t Lanes>
void expect_lockstep_prefix_stops_before_anything_else(
    std::size_t (*prefix)(const std::byte*, const std::byte*, const std::byte*, const std::byte*,
                          std::size_t, float, float)) {
    constexpr float low = 0.99f;
    constexpr float high = 1.01f;
    const rotation clean(Stride, key_count);
    const auto run = [&](const rotation& r) {
        return prefix(r.curve[0].data(), r.curve[1].data(), r.curve[2].data(), r.curve[3].data(),
                      key_count, low, high);
    };
    // Everything but a last partial block of 8 keys after the first key.
    EXPECT_EQ(run(clean), key_count - (key_count - 1) % 8);
    for (std::size_t c = 0; c < 4; ++c) {
        // Every lane of a block, and past the first run.
        for (std::size_t k : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 256, 257, 300, 690}) {
            for (const char* what : {"fault", "other time", "long quaternion"}) {
                SCOPED_TRACE(std::string(what) + " in curve " + std::to_string(c) + " at key " +
                             std::to_string(k));
                rotation r = clean;
                std::byte* p = r.curve[c].data() + k * Stride;
                if (what[0] == 'f') {
                    store_f32_le(p + 4, qnan);
                } else if (what[0] == 'o') {
                    store_f32_le(p, load_f32_le(p) + 0.001f);
                } else {
                    store_f32_le(p + 4, 1.5f);
                }
                const std::size_t got = run(r);
                EXPECT_LE(got, k);
                // It gives up no more than a run of 256 keys and a block before the key.
                EXPECT_GT(got + 256 + 8, k);
                EXPECT_TRUE(clean_prefix<Stride>(r, got, low, high));
            }
        }
    }
}

template <std::size_t Stride>
key_fault four_lanes(const std::byte* keys, std::size_t from, std::size_t to) {
    return check_float_keys<Stride, 4>(keys, from, to);
}

template <std::size_t Stride>
std::size_t four_lane_prefix(const std::byte* x, const std::byte* y, const std::byte* z,
                             const std::byte* w, std::size_t n, float low, float high) {
    return lockstep_prefix<Stride, 4>(x, y, z, w, n, low, high);
}

#if defined(INPUTANIM_AVX2_AT_RUN_TIME) || defined(__AVX2__)
template <std::size_t Stride>
#if defined(INPUTANIM_AVX2_AT_RUN_TIME)
[[gnu::target("avx2")]]
#endif
key_fault
eight_lanes(const std::byte* keys, std::size_t from, std::size_t to) {
    return check_float_keys<Stride, 8>(keys, from, to);
}

template <std::size_t Stride>
#if defined(INPUTANIM_AVX2_AT_RUN_TIME)
[[gnu::target("avx2")]]
#endif
std::size_t
eight_lane_prefix(const std::byte* x, const std::byte* y, const std::byte* z, const std::byte* w,
                  std::size_t n, float low, float high) {
    return lockstep_prefix<Stride, 8>(x, y, z, w, n, low, high);
}

bool have_eight_lanes() {
#if defined(INPUTANIM_AVX2_AT_RUN_TIME)
    return avx2_at_run_time();
#else
    return true;
#endif
}
#endif

}  // namespace

TEST(BlockChecks, FourLanesFindTheFirstFaultOfCompactKeysAsKeyByKey) {
    if (!lane_loads) GTEST_SKIP() << "big-endian: validate checks key by key";
    expect_first_faults_as_key_by_key<compact_keyframe_size, 4>(four_lanes<compact_keyframe_size>);
}

TEST(BlockChecks, FourLanesFindTheFirstFaultOfFullKeysAsKeyByKey) {
    if (!lane_loads) GTEST_SKIP() << "big-endian: validate checks key by key";
    expect_first_faults_as_key_by_key<full_keyframe_size, 4>(four_lanes<full_keyframe_size>);
}

TEST(BlockChecks, FourLaneLockstepPrefixStopsBeforeAnyFaultOrMisalignment) {
    if (!lane_loads) GTEST_SKIP() << "big-endian: validate checks key by key";
    expect_lockstep_prefix_stops_before_anything_else<compact_keyframe_size, 4>(
        four_lane_prefix<compact_keyframe_size>);
    expect_lockstep_prefix_stops_before_anything_else<full_keyframe_size, 4>(
        four_lane_prefix<full_keyframe_size>);
}

#if defined(INPUTANIM_AVX2_AT_RUN_TIME) || defined(__AVX2__)
TEST(BlockChecks, EightLanesFindTheFirstFaultAsKeyByKey) {
    if (!have_eight_lanes()) GTEST_SKIP() << "no AVX2 on this processor";
    expect_first_faults_as_key_by_key<compact_keyframe_size, 8>(eight_lanes<compact_keyframe_size>);
    expect_first_faults_as_key_by_key<full_keyframe_size, 8>(eight_lanes<full_keyframe_size>);
}

TEST(BlockChecks, EightLaneLockstepPrefixStopsBeforeAnyFaultOrMisalignment) {
    if (!have_eight_lanes()) GTEST_SKIP() << "no AVX2 on this processor";
    expect_lockstep_prefix_stops_before_anything_else<compact_keyframe_size, 8>(
        eight_lane_prefix<compact_keyframe_size>);
    expect_lockstep_prefix_stops_before_anything_else<full_keyframe_size, 8>(
        eight_lane_prefix<full_keyframe_size>);
}
#endif
