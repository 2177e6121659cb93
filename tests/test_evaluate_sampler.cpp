// curve_sampler returns exactly what evaluate returns, whatever the order of the times.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "support/curve_fixture.hpp"
#include "support/seed.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

bool same_bits(float a, float b) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

class random_curves {
  public:
    // `fixed`: the test's seed (support/seed.hpp), which INPUTANIM_TEST_SEED replaces.
    explicit random_curves(std::uint32_t fixed) : rng_(test_seed(fixed)) {}

    std::unique_ptr<curve_fixture> next() {
        constexpr std::int32_t wraps[] = {0, 1, 2, 4, 8};
        const shape s = all_shapes[pick(3)];
        const bool boolean = pick(6) == 0;
        const std::size_t n = pick(5) == 0 ? pick(3) : 2 + pick(60);
        std::vector<keyframe> keys;
        float t = uniform(-50.0, 50.0);
        for (std::size_t i = 0; i < n; ++i) {
            keyframe k;
            k.time = t;
            k.value = boolean ? static_cast<float>(pick(2)) : uniform(-1e3, 1e3);
            k.in_tangent = tangent();
            k.out_tangent = tangent();
            k.in_weight = weight();
            k.out_weight = weight();
            k.weighted_mode = static_cast<std::int32_t>(pick(4));
            keys.push_back(k);
            t = std::max(t + gap(), std::nextafter(t, std::numeric_limits<float>::infinity()));
        }
        const curve_id id = boolean ? hand_state_curve(hand_state::left_pinching)
                                    : camera_curve(pose_channel::rotation_y);
        auto f =
            std::make_unique<curve_fixture>(std::move(keys), s, wraps[pick(5)], wraps[pick(5)], id);
        EXPECT_FALSE(f->open_error());
        return f;
    }

    // Times around [first, last] that mostly go forward by small steps, sometimes stand still,
    // jump far ahead, or go back.
    std::vector<float> times(const curve_view& c, std::size_t count) {
        double first = -1.0;
        double last = 1.0;
        if (!c.keys.empty()) {
            first = c.keys.front().time();
            last = c.keys.back().time();
        }
        const double length = std::max(last - first, 1e-3);
        std::vector<float> out;
        double t = first - 1.5 * length;
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t kind = pick(20);
            if (kind == 0) {
                t = first + length * uniform(-2.0, 3.0);  // anywhere, often backwards
            } else if (kind == 1) {
                t += length * uniform(0.0, 0.5);  // a long jump ahead
            } else if (kind > 3) {
                t += length * uniform(0.0, 0.01);
            }
            out.push_back(static_cast<float>(t));
        }
        // Exact key times, where the segment changes.
        for (std::size_t i = 0; i < c.keys.size(); i += 1 + pick(3))
            out.push_back(c.keys[i].time());
        return out;
    }

  private:
    std::size_t pick(std::size_t n) {
        return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
    }
    float uniform(double lo, double hi) {
        return static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(rng_));
    }
    float tangent() {
        switch (pick(8)) {
            case 0:
                return std::numeric_limits<float>::infinity();
            case 1:
                return -std::numeric_limits<float>::infinity();
            case 2:
                return 0.0f;
            case 3:
                return uniform(-1e30, 1e30);
            default:
                return uniform(-20.0, 20.0);
        }
    }
    float weight() {
        switch (pick(5)) {
            case 0:
                return 0.0f;
            case 1:
                return 1.0f / 3.0f;
            case 2:
                return uniform(1.0, 1e6);
            default:
                return uniform(0.0, 1.0);
        }
    }
    float gap() {
        switch (pick(6)) {
            case 0:
                return uniform(1e-7, 1e-4);
            case 1:
                return uniform(10.0, 1e4);
            default:
                return uniform(1e-3, 0.1);
        }
    }

    std::mt19937 rng_;
};

}  // namespace

TEST(Sampler, ADefaultSamplerReadsAsACurveWithoutKeys) {
    curve_sampler s;
    EXPECT_EQ(s(0.0f), 0.0f);
    EXPECT_FALSE(s.state(1.0f));
    EXPECT_TRUE(s.curve().keys.empty());
}

TEST(Sampler, ForwardTimesOnADenseGridMatchEvaluate) {
    std::vector<keyframe> keys;
    for (int i = 0; i < 600; ++i) {
        keys.push_back({static_cast<float>(i) / 60.0f, std::sin(static_cast<float>(i) * 0.1f)});
    }
    const curve_fixture f(keys, shape::v11_compact);
    curve_sampler s(f.curve());
    for (int i = -30; i < 700; ++i) {
        const float t = static_cast<float>(i) / 70.0f;
        ASSERT_TRUE(same_bits(s(t), evaluate(f.curve(), t))) << t;
    }
}

TEST(Sampler, GoingBackInTimeFallsBackToASearch) {
    const curve_fixture f({{0.0f, 0.0f}, {1.0f, 10.0f}, {2.0f, 0.0f}, {3.0f, 30.0f}},
                          shape::v11_compact);
    curve_sampler s(f.curve());
    EXPECT_EQ(s(2.5f), 15.0f);
    EXPECT_EQ(s(0.5f), 5.0f);
    EXPECT_EQ(s(0.0f), 0.0f);
    EXPECT_EQ(s(3.0f), 30.0f);
    EXPECT_EQ(s(1.0f), 10.0f);
    EXPECT_EQ(s(-1.0f), 0.0f);
    EXPECT_EQ(s(1.5f), 5.0f);
}

TEST(Sampler, LoopingTimesWrapBackToTheStartOfTheKeys) {
    const curve_fixture f({{1.0f, 0.0f}, {2.0f, 1.0f}, {3.0f, 4.0f}}, shape::v11_compact, 2, 2);
    curve_sampler s(f.curve());
    for (int i = 0; i < 400; ++i) {
        const float t = -5.0f + static_cast<float>(i) * 0.0625f;
        ASSERT_TRUE(same_bits(s(t), evaluate(f.curve(), t))) << t;
    }
}

TEST(Sampler, BoolStatesMatchEvaluateBool) {
    const curve_fixture f({{0.0f, 0.0f}, {0.25f, 1.0f}, {0.5f, 0.0f}, {0.75f, 1.0f}},
                          shape::v11_compact, 8, 8, hand_state_curve(hand_state::right_tracked));
    curve_sampler s(f.curve());
    for (int i = -10; i < 100; ++i) {
        const float t = static_cast<float>(i) / 100.0f;
        EXPECT_EQ(s.state(t), evaluate_bool(f.curve(), t)) << t;
    }
}

TEST(Sampler, ThousandsOfRandomCurvesAndTimesMatchEvaluateBitForBit) {
    random_curves gen(20190607);
    std::size_t compared = 0;
    for (int c = 0; c < 3000; ++c) {
        const auto f = gen.next();
        curve_sampler s(f->curve());
        for (float t : gen.times(f->curve(), 200)) {
            const float expected = evaluate(f->curve(), t);
            const float got = s(t);
            ASSERT_TRUE(same_bits(got, expected))
                << "curve " << c << " t " << t << ": " << got << " vs " << expected;
            ASSERT_TRUE(std::isfinite(got)) << "curve " << c << " t " << t;
            ++compared;
        }
    }
    EXPECT_GT(compared, 600000u);
}
