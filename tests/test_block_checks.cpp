// Specification of the block kernels behind validate (lib/detail/kernels.hpp), under every
// implementation this processor can run (the baseline, and AVX2 where it has it): the first fault
// they find in any range of keys is the one check_keyframe finds key by key, the lockstep prefix
// of a rotation's curves never covers a key that a key-by-key look would stop at, and the aligned
// blocks of the quaternion walk are exactly those whose keys line up with lengths near 1; and the
// kernels convert writes with move every byte as the key-by-key definition does (compact keys
// widened to MRTK's full keys, full keys narrowed with the curved ones counted, times shifted up
// to the first key that needs the key-by-key rule).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "detail/kernels.hpp"
#include "detail/load.hpp"
#include "detail/rules.hpp"

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

// check_keyframe over keys [from, to), key by key, key from - 1 having passed.
key_fault key_by_key(const std::vector<std::byte>& keys, std::size_t stride, std::size_t from,
                     std::size_t to) {
    for (std::size_t i = from; i < to; ++i) {
        const std::byte* p = keys.data() + i * stride;
        const float previous = i == 0 ? 0.0f : load_f32_le(p - stride);
        const keyframe_fault f =
            check_keyframe(p, stride == full_keyframe_size, false, i == 0, previous);
        if (f.code != errc::ok) return {i, f};
    }
    return {to, {}};
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

template <std::size_t Stride>
void expect_first_faults_as_key_by_key(const block_kernels& k) {
    const std::vector<std::byte> valid = valid_keys(Stride, key_count);
    for (const range& r : ranges) {
        EXPECT_EQ(first_fault(k, valid.data(), Stride, r.from, r.to).index, r.to);
    }
    for (const damage& d : damages()) {
        if (d.full_only && Stride != full_keyframe_size) continue;
        for (std::size_t at :
             {0, 1, 2, 7, 8, 9, 100, 255, 256, 257, 258, 263, 264, 511, 698, 699}) {
            std::vector<std::byte> b = valid;
            std::byte* p = b.data() + at * Stride + d.field;
            if (d.is_int) {
                store_i32_le(p, d.i);
            } else {
                store_f32_le(p, d.f);
            }
            for (const range& r : ranges) {
                // The checks take a range whose keys before it passed.
                if (at < r.from) continue;
                SCOPED_TRACE(d.name + " at key " + std::to_string(at) + ", keys [" +
                             std::to_string(r.from) + ", " + std::to_string(r.to) + ")");
                const key_fault expected = key_by_key(b, Stride, r.from, r.to);
                const key_fault got = first_fault(k, b.data(), Stride, r.from, r.to);
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
        if (key_by_key(c, Stride, 0, k).index != k) return false;
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

// The ways a key of a rotation can leave lockstep: a fault in any field, a time of its own, a
// quaternion far from unit length.
const char* const departures[] = {"NaN value",  "NaN tangent",     "mode 4",
                                  "other time", "time going back", "long quaternion"};

// Rotation r with key k of curve c departing from lockstep as `what` says (false when that needs
// full keys, or a key before the first).
template <std::size_t Stride>
bool depart(rotation& r, std::size_t c, std::size_t k, const std::string& what) {
    std::byte* p = r.curve[c].data() + k * Stride;
    if (what == "NaN value") {
        store_f32_le(p + 4, qnan);
    } else if (what == "NaN tangent" || what == "mode 4") {
        if (Stride != full_keyframe_size) return false;
        if (what == "mode 4") {
            store_i32_le(p + 24, 4);
        } else {
            store_f32_le(p + 8, qnan);
        }
    } else if (what == "other time") {
        store_f32_le(p, load_f32_le(p) + 0.001f);
    } else if (what == "time going back") {
        // The first key has no key before it.
        if (k == 0) return false;
        // In all four curves, which therefore still line up.
        for (auto& curve : r.curve) store_f32_le(curve.data() + k * Stride, -100.0f);
    } else {
        store_f32_le(p + 4, 1.5f);
    }
    return true;
}

template <std::size_t Stride>
void expect_lockstep_prefix_stops_before_anything_else(const block_kernels& kernels) {
    constexpr float low = 0.99f;
    constexpr float high = 1.01f;
    const rotation clean(Stride, key_count);
    const auto run = [&](const rotation& r) {
        const std::byte* q[4] = {r.curve[0].data(), r.curve[1].data(), r.curve[2].data(),
                                 r.curve[3].data()};
        return lockstep_prefix(kernels, q, Stride, key_count, low, high);
    };
    // Everything but a last partial block of 8 keys after the first key.
    EXPECT_EQ(run(clean), key_count - (key_count - 1) % 8);
    for (std::size_t c = 0; c < 4; ++c) {
        // Every lane of a block, and past the first run.
        for (std::size_t k : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 256, 257, 300, 690}) {
            for (const std::string what : departures) {
                SCOPED_TRACE(what + " in curve " + std::to_string(c) + " at key " +
                             std::to_string(k));
                rotation r = clean;
                if (!depart<Stride>(r, c, k, what)) continue;
                const std::size_t got = run(r);
                EXPECT_LE(got, k);
                // It gives up no more than a run of 256 keys and a block before the key.
                EXPECT_GT(got + 256 + 8, k);
                EXPECT_TRUE(clean_prefix<Stride>(r, got, low, high));
            }
        }
    }
}

// The aligned blocks of a rotation: whole blocks of 8 keys from the first, up to the first block
// holding a key whose times differ or whose length is far from 1, whatever else its fields hold.
template <std::size_t Stride>
void expect_aligned_blocks_up_to_the_first_departure(const block_kernels& kernels) {
    constexpr float low = 0.99f;
    constexpr float high = 1.01f;
    const rotation clean(Stride, key_count);
    const auto run = [&](const rotation& r, std::size_t n) {
        const std::byte* q[4] = {r.curve[0].data(), r.curve[1].data(), r.curve[2].data(),
                                 r.curve[3].data()};
        return kernels.aligned[Stride == full_keyframe_size](q, n, low, high);
    };
    EXPECT_EQ(run(clean, key_count), key_count / 8 * 8);
    EXPECT_EQ(run(clean, 7), 0u);
    EXPECT_EQ(run(clean, 17), 16u);
    for (std::size_t c = 0; c < 4; ++c) {
        for (std::size_t k : {0, 1, 7, 8, 9, 15, 300, 695}) {
            for (const std::string what : {"other time", "long quaternion", "NaN value"}) {
                SCOPED_TRACE(what + " in curve " + std::to_string(c) + " at key " +
                             std::to_string(k));
                rotation r = clean;
                depart<Stride>(r, c, k, what);
                EXPECT_EQ(run(r, key_count), k / 8 * 8);
            }
            // Faults the content checks find are no business of the walk.
            rotation r = clean;
            if (depart<Stride>(r, c, k, "NaN tangent")) {
                EXPECT_EQ(run(r, key_count), key_count / 8 * 8);
            }
        }
    }
}

constexpr const char* big_endian =
    "big-endian: the kernels prove nothing, validate checks key by key";

// Runs `test` under every implementation this processor can run.
template <class F>
void under_every_implementation(F&& test) {
    for (const block_kernels* k : runnable_kernels()) {
        SCOPED_TRACE(std::string("implementation ") + std::string(k->name));
        test(*k);
    }
}

// Any bytes at all: a kernel that moves fields must not read them as numbers (NaN payloads,
// signalling NaNs and denormals come through bit for bit).
std::vector<std::byte> random_bytes(std::size_t n, std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::vector<std::byte> b(n);
    for (std::byte& x : b) x = static_cast<std::byte>(gen() & 0xff);
    return b;
}

// Key counts around the kernels' steps and runs, and one long curve.
constexpr std::size_t transcode_counts[] = {0, 1, 7, 8, 9, 15, 16, 17, 255, 256, 257, 700};

// n full keys whose tails are MRTK's own bytes, MRTK's linear key with -0 in place of 0, or
// something else (curved: tangents, weights or a mode other than MRTK's); `curved` counts those.
std::vector<std::byte> mixed_full_keys(std::size_t n, std::size_t& curved) {
    std::vector<std::byte> b = random_bytes(n * full_keyframe_size, 11);
    curved = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::byte* p = b.data() + i * full_keyframe_size;
        switch (i % 5) {
            case 0:
            case 1:
                std::memcpy(p + 8, linear_key_tail.data(), linear_key_tail.size());
                break;
            case 2:
                std::memcpy(p + 8, linear_key_tail.data(), linear_key_tail.size());
                store_f32_le(p + 8 + 4 * (i % 4), -0.0f);
                break;
            case 3:
                std::memcpy(p + 8, linear_key_tail.data(), linear_key_tail.size());
                store_i32_le(p + 24, static_cast<std::int32_t>(i % 3));
                ++curved;
                break;
            default:
                // Random tail bytes; a few may happen to be linear.
                if (!mrtk_linear_key(p)) ++curved;
                break;
        }
    }
    return b;
}

// n compact keys whose times rise by 1/60 from `start`, with random value bytes.
std::vector<std::byte> rising_compact_keys(std::size_t n, float start) {
    std::vector<std::byte> b = random_bytes(n * compact_keyframe_size, 5);
    for (std::size_t i = 0; i < n; ++i) {
        store_f32_le(b.data() + i * compact_keyframe_size, start + static_cast<float>(i) / 60.0f);
    }
    return b;
}

// What shift_compact promises for keys `in` shifted by `by` into `out` with answer k: keys
// [0, k) hold their times less `by` and their values' bytes, each shifted time finite and above
// the one before; a stop short of the last whole block is at a run holding a key that is not.
void expect_shifted_as_promised(const std::vector<std::byte>& in, const std::vector<std::byte>& out,
                                float by, float before, std::size_t k) {
    const std::size_t n = in.size() / compact_keyframe_size;
    ASSERT_LE(k, n);
    EXPECT_EQ(k % block_keys, 0u);
    float previous = before;
    for (std::size_t i = 0; i < k; ++i) {
        const std::byte* p = in.data() + i * compact_keyframe_size;
        const std::byte* q = out.data() + i * compact_keyframe_size;
        const float shifted = load_f32_le(p) - by;
        ASSERT_EQ(load_u32_le(q), std::bit_cast<std::uint32_t>(shifted)) << "key " << i;
        ASSERT_EQ(std::memcmp(p + 4, q + 4, 4), 0) << "key " << i;
        ASSERT_TRUE(shifted > previous && std::isfinite(shifted)) << "key " << i;
        previous = shifted;
    }
    if (n - k < block_keys) return;
    bool stop_found = false;
    for (std::size_t i = k; i < std::min(n, k + block_run) && !stop_found; ++i) {
        const float shifted = load_f32_le(in.data() + i * compact_keyframe_size) - by;
        stop_found = !(shifted > previous && std::isfinite(shifted));
        previous = shifted;
    }
    EXPECT_TRUE(stop_found) << "stopped at " << k << " of " << n << " without cause";
}

}  // namespace

TEST(BlockChecks, KernelsFindTheFirstFaultOfCompactKeysAsKeyByKey) {
    under_every_implementation(expect_first_faults_as_key_by_key<compact_keyframe_size>);
}

TEST(BlockChecks, KernelsFindTheFirstFaultOfFullKeysAsKeyByKey) {
    under_every_implementation(expect_first_faults_as_key_by_key<full_keyframe_size>);
}

TEST(BlockChecks, LockstepPrefixStopsBeforeAnyFaultOrMisalignment) {
    if (std::endian::native != std::endian::little) GTEST_SKIP() << big_endian;
    under_every_implementation(
        expect_lockstep_prefix_stops_before_anything_else<compact_keyframe_size>);
    under_every_implementation(
        expect_lockstep_prefix_stops_before_anything_else<full_keyframe_size>);
}

TEST(BlockChecks, AlignedBlocksEndAtTheFirstBlockOutOfLine) {
    if (std::endian::native != std::endian::little) GTEST_SKIP() << big_endian;
    under_every_implementation(
        expect_aligned_blocks_up_to_the_first_departure<compact_keyframe_size>);
    under_every_implementation(expect_aligned_blocks_up_to_the_first_departure<full_keyframe_size>);
}

TEST(BlockChecks, TheBaselineRunsEverywhereAndAvx2WhereTheProcessorHasIt) {
    const auto runnable = runnable_kernels();
    ASSERT_FALSE(runnable.empty());
    EXPECT_EQ(runnable.front()->name, "baseline");
#if defined(__x86_64__) && defined(__GNUC__)
    const bool avx2 = __builtin_cpu_supports("avx2");
    EXPECT_EQ(runnable.size(), avx2 ? 2u : 1u);
    if (avx2) {
        EXPECT_EQ(runnable.back()->name, "avx2");
    }
#endif
}

TEST(BlockChecks, ValidateUsesTheLastImplementationUnlessTheEnvironmentForcesOne) {
    const char* forced = std::getenv("INPUTANIM_FORCE_IMPLEMENTATION");
    if (forced != nullptr && std::string_view(forced) == "baseline") {
        EXPECT_EQ(kernels().name, "baseline");
    } else if (forced == nullptr) {
        EXPECT_EQ(kernels().name, runnable_kernels().back()->name);
    }
    // The same table at every call: chosen once.
    EXPECT_EQ(&kernels(), &kernels());
}

TEST(BlockChecks, WidenGivesEachCompactKeyMrtksLinearTailAndMovesTimeAndValueBitForBit) {
    under_every_implementation([](const block_kernels& k) {
        for (const std::size_t n : transcode_counts) {
            SCOPED_TRACE(n);
            const std::vector<std::byte> in = random_bytes(n * compact_keyframe_size, 3);
            std::vector<std::byte> out(n * full_keyframe_size, std::byte{0x55});
            k.widen(in.data(), out.data(), n);
            std::vector<std::byte> expected(n * full_keyframe_size);
            for (std::size_t i = 0; i < n; ++i) {
                std::memcpy(&expected[i * full_keyframe_size], &in[i * compact_keyframe_size], 8);
                std::memcpy(&expected[i * full_keyframe_size + 8], linear_key_tail.data(),
                            linear_key_tail.size());
                EXPECT_TRUE(mrtk_linear_key(&expected[i * full_keyframe_size]));
            }
            EXPECT_EQ(out, expected);
        }
    });
}

TEST(BlockChecks, NarrowKeepsTimeAndValueAndCountsTheKeysThatAreNotMrtksLinearOnes) {
    under_every_implementation([](const block_kernels& k) {
        for (const std::size_t n : transcode_counts) {
            SCOPED_TRACE(n);
            std::size_t curved = 0;
            const std::vector<std::byte> in = mixed_full_keys(n, curved);
            std::vector<std::byte> out(n * compact_keyframe_size, std::byte{0x55});
            EXPECT_EQ(k.narrow(in.data(), out.data(), n), curved);
            for (std::size_t i = 0; i < n; ++i) {
                EXPECT_EQ(std::memcmp(&out[i * compact_keyframe_size], &in[i * full_keyframe_size],
                                      compact_keyframe_size),
                          0)
                    << "key " << i;
            }
        }
    });
}

TEST(BlockChecks, ShiftingRisingTimesCoversEveryWholeBlock) {
    if (std::endian::native != std::endian::little) GTEST_SKIP() << big_endian;
    under_every_implementation([](const block_kernels& k) {
        for (const std::size_t n : transcode_counts) {
            SCOPED_TRACE(n);
            for (const float by : {0.0f, 2.5f, -1000.0f}) {
                const std::vector<std::byte> in = rising_compact_keys(n, -3.0f);
                std::vector<std::byte> out(in.size());
                const std::size_t done = k.shift_compact(in.data(), out.data(), n, by, -inf);
                EXPECT_EQ(done, n / block_keys * block_keys);
                expect_shifted_as_promised(in, out, by, -inf, done);
            }
        }
    });
}

TEST(BlockChecks, ShiftingStopsAtTheRunOfATimeThatNeedsTheKeyByKeyRule) {
    if (std::endian::native != std::endian::little) GTEST_SKIP() << big_endian;
    under_every_implementation([](const block_kernels& k) {
        constexpr std::size_t n = 700;
        struct breakage {
            const char* what;
            std::size_t at;
            float time;
            float by;
        };
        // A time equal to the one before once shifted (far from zero, neighbours a float apart
        // collapse), a time not finite, one that passes the largest float, and one below the key
        // before the block.
        for (const breakage b :
             {breakage{"collapse", 300, 0.0f, -3e7f}, breakage{"nan", 450, qnan, 1.0f},
              breakage{"overflow", 9, 3e38f, -1e38f}, breakage{"below before", 0, -100.0f, 0.0f}}) {
            SCOPED_TRACE(b.what);
            std::vector<std::byte> in = rising_compact_keys(n, -3.0f);
            if (std::string_view(b.what) == "collapse") {
                for (std::size_t i = b.at; i < n; ++i) {
                    store_f32_le(in.data() + i * compact_keyframe_size,
                                 1e7f + static_cast<float>(i));
                }
            } else {
                store_f32_le(in.data() + b.at * compact_keyframe_size, b.time);
            }
            std::vector<std::byte> out(in.size());
            const float before = std::string_view(b.what) == "below before" ? -50.0f : -inf;
            const std::size_t done = k.shift_compact(in.data(), out.data(), n, b.by, before);
            EXPECT_LE(done, b.at);
            expect_shifted_as_promised(in, out, b.by, before, done);
        }
    });
}
