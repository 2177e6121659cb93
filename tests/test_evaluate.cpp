// evaluate() against values computed by hand from FORMAT.md section 7, one branch at a time.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/curve_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr std::int32_t mode_none = 0;
constexpr std::int32_t mode_in = 1;
constexpr std::int32_t mode_out = 2;
constexpr std::int32_t mode_both = 3;

constexpr std::int32_t wrap_default = 0;
constexpr std::int32_t wrap_clamp = 1;
constexpr std::int32_t wrap_loop = 2;
constexpr std::int32_t wrap_ping_pong = 4;
constexpr std::int32_t wrap_clamp_forever = 8;

keyframe key(float time, float value, float in_tangent = 0.0f, float out_tangent = 0.0f,
             float in_weight = 0.0f, float out_weight = 0.0f, std::int32_t mode = mode_none) {
    return {time, value, in_tangent, out_tangent, in_weight, out_weight, mode};
}

}  // namespace

TEST(EvaluateCounts, ACurveWithoutKeysIsZeroAndFalse) {
    const curve_fixture f({});
    ASSERT_FALSE(f.open_error());
    EXPECT_EQ(f(-1.0f), 0.0f);
    EXPECT_EQ(f(0.0f), 0.0f);
    EXPECT_EQ(f(5.0f), 0.0f);
    const curve_fixture b({}, shape::v11_compact, 8, 8, hand_state_curve(hand_state::left_tracked));
    EXPECT_FALSE(evaluate_bool(b.curve(), 1.0f));
}

TEST(EvaluateCounts, ACurveWithOneKeyIsItsValueAtEveryTimeAndWrapMode) {
    for (std::int32_t wrap :
         {wrap_default, wrap_clamp, wrap_loop, wrap_ping_pong, wrap_clamp_forever}) {
        const curve_fixture f({key(2.0f, 7.5f, 3.0f, -4.0f, 0.5f, 0.5f, mode_both)},
                              shape::v11_full, wrap, wrap);
        for (float t : {-100.0f, 0.0f, 2.0f, 2.5f, 1e6f}) EXPECT_EQ(f(t), 7.5f) << wrap << " " << t;
    }
}

TEST(EvaluateLinear, CompactKeysInterpolateLinearlyNotAsASmoothstep) {
    const curve_fixture f({{0.0f, 0.0f}, {4.0f, 8.0f}, {6.0f, 2.0f}}, shape::v11_compact);
    EXPECT_EQ(f(1.0f), 2.0f);  // smoothstep would give 1.25
    EXPECT_EQ(f(2.0f), 4.0f);
    EXPECT_EQ(f(3.0f), 6.0f);
    EXPECT_EQ(f(5.0f), 5.0f);
    EXPECT_EQ(f(5.5f), 3.5f);
}

TEST(EvaluateLinear, MrtkV10KeysOfZeroTangentsAndWeightsInModeBothAreLinear) {
    // keyframe{} defaults are MRTK's (0, 0, 0, 0, Both).
    const curve_fixture f({{0.0f, 0.0f}, {4.0f, 8.0f}, {6.0f, 2.0f}}, shape::v10);
    EXPECT_EQ(f(1.0f), 2.0f);
    EXPECT_EQ(f(2.0f), 4.0f);
    EXPECT_EQ(f(3.0f), 6.0f);
    EXPECT_EQ(f(5.5f), 3.5f);
}

TEST(EvaluateLinear, MrtkV10MidpointsAreTheAverageOfTheirEnds) {
    const std::vector<keyframe> keys = {{-0.75f, 0.123456f}, {0.016667f, -3.5f},
                                        {0.033334f, 1e-3f},  {1.5f, 1e4f},
                                        {1.6f, 1e4f + 1.0f}, {10.0f, -2.25e-5f}};
    const curve_fixture f(keys, shape::v10);
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
        const double t0 = keys[i].time;
        const double t1 = keys[i + 1].time;
        const auto mid = static_cast<float>((t0 + t1) / 2);
        // The float midpoint is not exactly halfway: compare with the line at that time.
        const double s = (mid - t0) / (t1 - t0);
        const double p0 = keys[i].value;
        const double p1 = keys[i + 1].value;
        const double expected = p0 + (p1 - p0) * s;
        const double average = (p0 + p1) / 2;
        const double scale = std::max(std::abs(p0), std::abs(p1));
        EXPECT_NEAR(f(mid), expected, 1e-6 * scale) << i;
        EXPECT_NEAR(f(mid), average, 1e-6 * scale) << i;
    }
}

TEST(EvaluateLinear, ZeroWeightsOnBothSidesAreLinearWhateverTheTangents) {
    // With w1 = w2 = 0 both inner Bezier control points sit on the end points.
    const curve_fixture f({key(0.0f, 1.0f, 0.0f, 25.0f, 0.0f, 0.0f, mode_both),
                           key(2.0f, 3.0f, -40.0f, 0.0f, 0.0f, 0.0f, mode_both)});
    EXPECT_EQ(f(0.5f), 1.5f);
    EXPECT_EQ(f(1.0f), 2.0f);
    EXPECT_EQ(f(1.5f), 2.5f);
}

TEST(EvaluateHermite, NonZeroTangentsFollowTheHermiteBasis) {
    // dt = 2, m0 = 1 * 2, m1 = -1 * 2.
    const curve_fixture f({key(0.0f, 0.0f, 0.0f, 1.0f), key(2.0f, 4.0f, -1.0f, 0.0f)});
    // s = 0.25: 0.140625 m0 - 0.046875 m1 + 0.15625 p1.
    EXPECT_EQ(f(0.5f), 1.0f);
    // s = 0.5: 0.125 m0 - 0.125 m1 + 0.5 p1.
    EXPECT_EQ(f(1.0f), 2.5f);
    // s = 0.75: 0.15625 p0 + 0.046875 m0 - 0.140625 m1 + 0.84375 p1.
    EXPECT_EQ(f(1.5f), 3.75f);
}

TEST(EvaluateHermite, ZeroTangentsInModeNoneAreASmoothstep) {
    const curve_fixture f({key(0.0f, 0.0f), key(1.0f, 1.0f)});
    EXPECT_EQ(f(0.25f), 0.15625f);
    EXPECT_EQ(f(0.5f), 0.5f);
}

TEST(EvaluateHermite, TheSegmentUsesTheLeftOutAndTheRightInTangent) {
    // The left key's in tangent and the right key's out tangent must not matter.
    const curve_fixture f({key(0.0f, 0.0f, 99.0f, 1.0f), key(2.0f, 4.0f, -1.0f, -99.0f)});
    EXPECT_EQ(f(1.0f), 2.5f);
}

TEST(EvaluateWeighted, OutWeightOnTheLeftKey) {
    // w1 = 0.5, w2 = 1/3: x(0.5) = 1.5/8 + 2/8 + 1/8 = 0.5625; y(0.5) = 3/8 (p0 + 0.5 m0) +
    // 3/8 p1 + 1/8 p1 with p0 = 0, p1 = 1, m0 = 2.
    const curve_fixture f({key(0.0f, 0.0f, 0.0f, 2.0f, 0.0f, 0.5f, mode_out),
                           key(1.0f, 1.0f, 0.0f, 0.0f, 0.9f, 0.0f, mode_none)});
    EXPECT_FLOAT_EQ(f(0.5625f), 0.875f);
}

TEST(EvaluateWeighted, InWeightOnTheRightKey) {
    // w1 = 1/3, w2 = 0.25: x(0.5) = 1/8 + 2.25/8 + 1/8 = 0.53125; y(0.5) = 3/8 (p1 - 0.25 m1) +
    // 1/8 p1 with p1 = 2, m1 = 4.
    const curve_fixture f({key(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.9f, mode_none),
                           key(1.0f, 2.0f, 4.0f, 0.0f, 0.25f, 0.0f, mode_in)});
    EXPECT_FLOAT_EQ(f(0.53125f), 0.625f);
}

TEST(EvaluateWeighted, BothWeightsAtOneHalf) {
    // x is symmetric: x(0.5) = 0.5. y(0.5) = 3/8 (0 + 0.5 * 2) + 3/8 (1 - 0) + 1/8.
    const curve_fixture f({key(0.0f, 0.0f, 0.0f, 2.0f, 0.5f, 0.5f, mode_both),
                           key(1.0f, 1.0f, 0.0f, 0.0f, 0.5f, 0.5f, mode_both)});
    EXPECT_FLOAT_EQ(f(0.5f), 0.875f);
}

TEST(EvaluateWeighted, BothWeightsAtOne) {
    // x(0.5) = 3/8 + 1/8 = 0.5. y(0.5) = 3/8 (0 + 2) + 3/8 (1 - 0) + 1/8.
    const curve_fixture f({key(0.0f, 0.0f, 0.0f, 2.0f, 1.0f, 1.0f, mode_both),
                           key(1.0f, 1.0f, 0.0f, 0.0f, 1.0f, 1.0f, mode_both)});
    EXPECT_FLOAT_EQ(f(0.5f), 1.25f);
}

TEST(EvaluateWeighted, TangentsAreScaledByTheSegmentDuration) {
    // The BothWeightsAtOneHalf segment stretched to dt = 2: out tangent 1 gives the same m0 = 2.
    const curve_fixture f({key(1.0f, 0.0f, 0.0f, 1.0f, 0.5f, 0.5f, mode_both),
                           key(3.0f, 1.0f, 0.0f, 0.0f, 0.5f, 0.5f, mode_both)});
    EXPECT_FLOAT_EQ(f(2.0f), 0.875f);
}

TEST(EvaluateWeighted, AZeroLeftWeightWithAFlatStartIsSolved) {
    // w1 = 0, w2 = 1/3: x(u) = 2u^2 - u^3 has x'(0) = 0. x(0.5) = 0.375; y(0.5) = 3/8 (p1 -
    // m1 / 3) + 1/8 p1 with p1 = 1, m1 = 3.
    const curve_fixture f({key(0.0f, 0.0f, 0.0f, 5.0f, 0.0f, 0.0f, mode_both),
                           key(1.0f, 1.0f, 3.0f, 0.0f, 0.0f, 0.0f, mode_none)});
    EXPECT_FLOAT_EQ(f(0.375f), 0.125f);
}

TEST(EvaluateWeighted, ANonMonotoneTimeCurveTakesTheSmallestRoot) {
    // w1 = w2 = 2: x(u) = 6u(1-u)^2 - 3u^2(1-u) + u^3 rises to 0.72 at u = 0.276, falls and
    // rises again, so x = 0.71875 has three roots; the smallest is u = 0.25, where
    // y = 27/64 (0 + 2 * 1) + 9/64 (1 - 0) + 1/64 = 1 (the others give 1.104 and 1.008).
    const curve_fixture f({key(0.0f, 0.0f, 0.0f, 1.0f, 2.0f, 2.0f, mode_both),
                           key(1.0f, 1.0f, 0.0f, 0.0f, 2.0f, 2.0f, mode_both)});
    EXPECT_FLOAT_EQ(f(0.71875f), 1.0f);
}

TEST(EvaluateWeighted, WeightsOfOneThirdAgreeWithHermite) {
    const float third = 1.0f / 3.0f;
    const std::vector<keyframe> weighted = {key(0.0f, 1.0f, 0.0f, 3.0f, third, third, mode_both),
                                            key(0.7f, -2.0f, -5.0f, 0.5f, third, third, mode_both),
                                            key(2.5f, 4.0f, 2.0f, 0.0f, third, third, mode_both)};
    std::vector<keyframe> plain = weighted;
    for (keyframe& k : plain) k.weighted_mode = mode_none;
    const curve_fixture w(weighted);
    const curve_fixture h(plain);
    for (int i = 0; i <= 100; ++i) {
        const float t = 2.5f * static_cast<float>(i) / 100.0f;
        // float(1/3) is not 1/3: the two differ by a few float roundings.
        EXPECT_NEAR(w(t), h(t), 1e-6 * std::max(1.0f, std::abs(h(t)))) << t;
    }
}

TEST(EvaluateWeighted, LargeWeightsGiveFiniteValuesAndKeyValuesAtKeys) {
    for (float weight : {1e3f, 1e6f, 3e38f}) {
        const curve_fixture f({key(0.0f, 0.0f, 0.0f, 50.0f, weight, weight, mode_both),
                               key(1.0f, 1.0f, -50.0f, 0.0f, weight, weight, mode_both)});
        EXPECT_EQ(f(0.0f), 0.0f);
        EXPECT_EQ(f(1.0f), 1.0f);
        for (int i = 1; i < 1000; ++i) {
            const float t = static_cast<float>(i) / 1000.0f;
            EXPECT_TRUE(std::isfinite(f(t))) << weight << " " << t;
        }
    }
}

TEST(EvaluateStepped, AnInfiniteLeftOutTangentHoldsTheLeftValue) {
    const curve_fixture f({key(0.0f, 3.0f, 0.0f, inf), key(1.0f, 5.0f), key(2.0f, 9.0f)});
    EXPECT_EQ(f(0.0f), 3.0f);
    EXPECT_EQ(f(0.5f), 3.0f);
    EXPECT_EQ(f(0.999f), 3.0f);
    EXPECT_EQ(f(1.0f), 5.0f);
    EXPECT_EQ(f(1.5f), 7.0f);  // the next segment is smooth again (Hermite, zero tangents)
}

TEST(EvaluateStepped, AnInfiniteRightInTangentHoldsTheLeftValueEvenWhenWeighted) {
    const curve_fixture f({key(0.0f, 3.0f, 0.0f, 1.0f, 0.5f, 0.5f, mode_both),
                           key(1.0f, 5.0f, -inf, 0.0f, 0.5f, 0.5f, mode_both)});
    EXPECT_EQ(f(0.25f), 3.0f);
    EXPECT_EQ(f(0.75f), 3.0f);
    EXPECT_EQ(f(1.0f), 5.0f);
}

TEST(EvaluateKeys, AtEveryKeyTimeTheValueIsThatKeys) {
    const std::vector<keyframe> keys = {
        key(-1.0f, 0.3f, 0.0f, 1e30f), key(0.1f, -7.0f, 2.0f, 3.0f, 0.9f, 0.2f, mode_both),
        key(0.2f, 11.0f, inf, -inf), key(5.0f, 1e-20f, -1.0f, 1.0f, 4.0f, 1e6f, mode_in),
        key(5.5f, 42.0f, 0.0f, 0.0f, 0.0f, 0.0f, mode_out)};
    const curve_fixture f(keys);
    for (const keyframe& k : keys) EXPECT_EQ(f(k.time), k.value) << k.time;
}

TEST(EvaluateBool, BoolCurvesAreStepsOfTheLastKeyAtOrBeforeT) {
    const curve_fixture f({{0.0f, 1.0f}, {0.5f, 0.0f}, {1.0f, 1.0f}}, shape::v11_compact, 8, 8,
                          hand_state_curve(hand_state::right_pinching));
    const curve_view& c = f.curve();
    EXPECT_EQ(evaluate(c, 0.25f), 1.0f);
    EXPECT_EQ(evaluate(c, 0.49f), 1.0f);
    EXPECT_EQ(evaluate(c, 0.5f), 0.0f);
    EXPECT_EQ(evaluate(c, 0.99f), 0.0f);
    EXPECT_TRUE(evaluate_bool(c, -3.0f));  // before the first key: held
    EXPECT_TRUE(evaluate_bool(c, 0.0f));
    EXPECT_FALSE(evaluate_bool(c, 0.75f));
    EXPECT_TRUE(evaluate_bool(c, 1.0f));
    EXPECT_TRUE(evaluate_bool(c, 9.0f));
}

TEST(EvaluateBool, BoolCurvesOfV10FilesAreStepsToo) {
    const curve_fixture f({{0.0f, 0.0f}, {2.0f, 1.0f}}, shape::v10, 8, 8,
                          hand_state_curve(hand_state::left_tracked));
    EXPECT_EQ(f(1.9f), 0.0f);
    EXPECT_EQ(f(2.0f), 1.0f);
}

class EvaluateHoldingWrap : public ::testing::TestWithParam<std::int32_t> {};

TEST_P(EvaluateHoldingWrap, HoldsTheFirstValueBeforeAndTheLastAfter) {
    const curve_fixture f({{1.0f, 0.0f}, {3.0f, 2.0f}}, shape::v11_compact, GetParam(), GetParam());
    EXPECT_EQ(f(0.5f), 0.0f);
    EXPECT_EQ(f(-1e30f), 0.0f);
    EXPECT_EQ(f(-inf), 0.0f);
    EXPECT_EQ(f(3.5f), 2.0f);
    EXPECT_EQ(f(1e30f), 2.0f);
    EXPECT_EQ(f(inf), 2.0f);
}

INSTANTIATE_TEST_SUITE_P(DefaultOnceClampClampForever, EvaluateHoldingWrap,
                         ::testing::Values(wrap_default, wrap_clamp, wrap_clamp_forever));

// value = t - 1 on [1, 3]: the wrapped time is readable from the value.
TEST(EvaluateWrap, LoopRepeatsBeforeTheFirstKey) {
    const curve_fixture f({{1.0f, 0.0f}, {3.0f, 2.0f}}, shape::v11_compact, wrap_loop, wrap_clamp);
    EXPECT_EQ(f(0.0f), 1.0f);   // 0 - floor(-1/2) * 2 = 2
    EXPECT_EQ(f(-2.5f), 0.5f);  // -2.5 - floor(-3.5/2) * 2 = 1.5
    EXPECT_EQ(f(-1.0f), 0.0f);  // lands on the first key
    EXPECT_EQ(f(3.5f), 2.0f);   // post-wrap is Clamp
}

TEST(EvaluateWrap, LoopRepeatsAfterTheLastKey) {
    const curve_fixture f({{1.0f, 0.0f}, {3.0f, 2.0f}}, shape::v11_compact, wrap_clamp, wrap_loop);
    EXPECT_EQ(f(3.25f), 0.25f);  // 3.25 - floor(2.25/2) * 2 = 1.25
    EXPECT_EQ(f(4.0f), 1.0f);
    EXPECT_EQ(f(7.5f), 0.5f);
    EXPECT_EQ(f(5.0f), 0.0f);  // a whole number of periods lands on the first key
    EXPECT_EQ(f(0.0f), 0.0f);  // pre-wrap is Clamp
}

TEST(EvaluateWrap, PingPongReflectsBeforeTheFirstKey) {
    const curve_fixture f({{1.0f, 0.0f}, {3.0f, 2.0f}}, shape::v11_compact, wrap_ping_pong,
                          wrap_clamp);
    EXPECT_EQ(f(0.5f), 0.5f);   // mirrored at 1: 1.5
    EXPECT_EQ(f(-1.5f), 1.5f);  // (-2.5 mod 4) = 1.5: forward again, 2.5
    EXPECT_EQ(f(-1.0f), 2.0f);  // one length back: the last key
    EXPECT_EQ(f(-3.0f), 0.0f);  // one period back: the first key
}

TEST(EvaluateWrap, PingPongReflectsAfterTheLastKey) {
    const curve_fixture f({{1.0f, 0.0f}, {3.0f, 2.0f}}, shape::v11_compact, wrap_clamp,
                          wrap_ping_pong);
    EXPECT_EQ(f(3.25f), 1.75f);  // mirrored at 3: 2.75
    EXPECT_EQ(f(4.5f), 0.5f);
    EXPECT_EQ(f(5.5f), 0.5f);  // (4.5 mod 4) = 0.5: forward again, 1.5
    EXPECT_EQ(f(5.0f), 0.0f);
}

TEST(EvaluateWrap, WrappedTimesUseTheCurveShapeNotJustItsKeys) {
    // A Hermite segment (zero tangents, mode None): s = 0.25 gives 0.15625 of the rise.
    const curve_fixture f({key(0.0f, 0.0f), key(4.0f, 4.0f)}, shape::v11_full, wrap_loop,
                          wrap_ping_pong);
    EXPECT_EQ(f(-3.0f), 0.625f);  // loops to 1
    EXPECT_EQ(f(7.0f), 0.625f);   // reflects to 1
}

TEST(EvaluateWrap, ARepeatingModeHasNoValueAtInfinity) {
    const curve_fixture f({{1.0f, 0.0f}, {3.0f, 2.0f}}, shape::v11_compact, wrap_loop,
                          wrap_ping_pong);
    EXPECT_TRUE(std::isnan(f(-inf)));
    EXPECT_TRUE(std::isnan(f(inf)));
}

TEST(EvaluateWrap, HugeTimesStillLandInsideTheKeys) {
    const curve_fixture f({{1.0f, 0.0f}, {3.0f, 2.0f}}, shape::v11_compact, wrap_loop,
                          wrap_ping_pong);
    for (float t : {-3e38f, -1e20f, 1e20f, 3e38f}) {
        const float v = f(t);
        EXPECT_GE(v, 0.0f) << t;
        EXPECT_LE(v, 2.0f) << t;
    }
}

TEST(EvaluateRange, ANanTimeGivesNan) {
    const curve_fixture f({{1.0f, 0.0f}, {3.0f, 2.0f}}, shape::v11_compact);
    EXPECT_TRUE(std::isnan(f(std::numeric_limits<float>::quiet_NaN())));
}

TEST(EvaluateRange, TinySegmentsInterpolateInDouble) {
    // 1e-30 s apart: s and the tangent scaling (1e30 x 1e-30 = 1) would underflow in float.
    const curve_fixture f({key(1e-30f, 0.0f, 0.0f, 1e30f), key(2e-30f, 1.0f, 1e30f, 0.0f)});
    // Hermite at s = 0.5 with m0 = m1 = 1: 0.125 - 0.125 + 0.5 = 0.5.
    EXPECT_NEAR(f(1.5e-30f), 0.5f, 1e-6);
    const curve_fixture d({key(0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.7f, mode_both),
                           key(1e-44f, 1.0f, 0.0f, 0.0f, 0.7f, 0.0f, mode_both)});
    const float mid = d(5e-45f);
    EXPECT_GT(mid, 0.0f);
    EXPECT_LT(mid, 1.0f);
}

TEST(EvaluateRange, ValuesBeyondTheFloatRangeSaturate) {
    // dt = 6e38 and tangents 3e38: m0 = 1.8e77 in double, far beyond float.
    const curve_fixture f({key(-3e38f, 0.0f, 0.0f, 3e38f), key(3e38f, 0.0f, -3e38f, 0.0f)});
    EXPECT_EQ(f(0.0f), std::numeric_limits<float>::max());
    const curve_fixture g({key(-3e38f, 0.0f, 0.0f, -3e38f, 0.0f, 1e6f, mode_both),
                           key(3e38f, 0.0f, 3e38f, 0.0f, 1e6f, 0.0f, mode_both)});
    EXPECT_EQ(g(0.0f), -std::numeric_limits<float>::max());
}
