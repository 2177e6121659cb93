// Weighted Bezier segments against a long double reference: the smallest root of x(u) = s found
// by bisection to 1e-16, then y(u). Weights in [0, 1] take evaluate's fast path (a fixed
// sequence of steps) unless it cannot certify its result, weights near the corners of that
// square and s near a flat end fall back to the safeguarded solver, and weights outside it take
// the general solver that splits x at its critical points. All must land on the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

#include "support/curve_fixture.hpp"
#include "support/seed.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

using real = long double;

constexpr std::int32_t mode_none = 0;
constexpr std::int32_t mode_in = 1;
constexpr std::int32_t mode_out = 2;
constexpr std::int32_t mode_both = 3;

// One segment from t = 0 to t = 1, so that s = t exactly and the tangents are the m of FORMAT.md.
struct segment {
    float w1;
    float w2;
    float p0;
    float p1;
    float m0;
    float m1;
};

curve_fixture make_curve(const segment& g) {
    return curve_fixture({{0.0f, g.p0, 0.0f, g.m0, 0.0f, g.w1, mode_out},
                          {1.0f, g.p1, g.m1, 0.0f, g.w2, 0.0f, mode_in}});
}

real time_at(real u, real w1, real w2) {
    const real v = 1 - u;
    return 3 * w1 * u * v * v + 3 * (1 - w2) * u * u * v + u * u * u;
}

// The sum of the absolute values of the terms of x(u): evaluating x in double is only good to
// a few eps of this, so s is only defined that well.
real time_magnitude(real u, real w1, real w2) {
    const real v = 1 - u;
    return 3 * std::abs(w1) * u * v * v + 3 * std::abs(1 - w2) * u * u * v + u * u * u;
}

// The root of x(u) = s in [lo, hi], where x is monotone and x(lo) <= s <= x(hi). |x(u)| <= M u
// on [0, 1], so a piece starting at 0 holds no root below s / M; from there a bracket that spans
// more than a factor of 2 is halved on a log scale, so that tiny roots are found in time.
real bisect(real s, real w1, real w2, real lo, real hi) {
    if (lo == 0) lo = s / (3 * std::abs(w1) + 3 * std::abs(1 - w2) + 1);
    for (int i = 0; i < 10000 && hi - lo > 1e-16L * hi; ++i) {
        const real mid = hi > 2 * lo ? std::sqrt(lo * hi) : (lo + hi) / 2;
        if (time_at(mid, w1, w2) < s) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return (lo + hi) / 2;
}

// The smallest u in [0, 1] with x(u) = s: [0, 1] split at the critical points of x, and the
// first piece that ends at or above s holds it.
real smallest_root(real s, real w1, real w2) {
    // x'(u) / 3 = qa u^2 + qb u + qc.
    const real qa = 3 * w1 + 3 * w2 - 2;
    const real qb = 2 * (1 - 2 * w1 - w2);
    const real qc = w1;
    std::vector<real> ends;
    auto add = [&](real r) {
        if (r > 0 && r < 1) ends.push_back(r);
    };
    if (qa == 0) {
        if (qb != 0) add(-qc / qb);
    } else if (const real disc = qb * qb - 4 * qa * qc; disc > 0) {
        add((-qb - std::sqrt(disc)) / (2 * qa));
        add((-qb + std::sqrt(disc)) / (2 * qa));
    }
    std::sort(ends.begin(), ends.end());
    ends.push_back(1);
    real lo = 0;
    for (real hi : ends) {
        if (time_at(hi, w1, w2) >= s) return bisect(s, w1, w2, lo, hi);
        lo = hi;
    }
    return 1;
}

real value_at(const segment& g, real s) {
    const real u = smallest_root(s, g.w1, g.w2);
    const real v = 1 - u;
    return v * v * v * g.p0 + 3 * u * v * v * (g.p0 + real(g.w1) * g.m0) +
           3 * u * u * v * (g.p1 - real(g.w2) * g.m1) + u * u * u * g.p1;
}

// The same sum with every part taken positive: evaluating it in double rounds to a few eps of
// this.
real value_magnitude(const segment& g, real s) {
    const real u = smallest_root(s, g.w1, g.w2);
    const real v = 1 - u;
    return v * v * v * std::abs(g.p0) +
           3 * u * v * v * (std::abs(g.p0) + std::abs(real(g.w1) * g.m0)) +
           3 * u * u * v * (std::abs(g.p1) + std::abs(real(g.w2) * g.m1)) +
           u * u * u * std::abs(g.p1);
}

// u |dy/du| at the root: how much the value moves when u moves by one part of itself.
real value_slope(const segment& g, real s) {
    const real u = smallest_root(s, g.w1, g.w2);
    const real v = 1 - u;
    const real c1 = g.p0 + real(g.w1) * g.m0;
    const real c2 = g.p1 - real(g.w2) * g.m1;
    return u * std::abs(3 * ((c1 - g.p0) * v * v + 2 * (c2 - c1) * u * v + (g.p1 - c2) * u * u));
}

// The reference value at s, and how far evaluate may be from it: one float ulp (its own
// rounding, and the double rounding after the double computation), 16 double eps of the
// magnitude of the Bernstein sum (its rounding in double), 2 eps of u |dy/du| (u held in a
// double: near u = 1, 1 - u keeps only the bits u has, which a weight of 1e6 multiplies), and
// the change of the exact value when s moves by 8 eps of x's terms at the root. That last term
// is what the rounding of x(u) leaves undetermined; it only matters where x' vanishes and the
// value jumps like a cube root.
::testing::AssertionResult matches_reference(float value, const segment& g, float t) {
    constexpr real eps = std::numeric_limits<double>::epsilon();
    const real s = t;
    const real exact = value_at(g, s);
    const real u = smallest_root(s, g.w1, g.w2);
    const real ds = 8 * eps * std::max(s, time_magnitude(u, g.w1, g.w2));
    real spread = 0;
    for (real shifted : {s - ds, s + ds}) {
        if (shifted > 0 && shifted <= 1) {
            spread = std::max(spread, std::abs(value_at(g, shifted) - exact));
        }
    }
    const float rounded = static_cast<float>(exact);
    const real ulp = std::nextafter(std::abs(rounded), std::numeric_limits<float>::infinity()) -
                     std::abs(rounded);
    const real tolerance =
        ulp + 16 * eps * value_magnitude(g, s) + 2 * eps * value_slope(g, s) + spread;
    const real error = std::abs(value - exact);
    if (error <= tolerance) return ::testing::AssertionSuccess();
    std::ostringstream out;
    out.precision(17);
    out << "w1 " << g.w1 << " w2 " << g.w2 << " p0 " << g.p0 << " p1 " << g.p1 << " m0 " << g.m0
        << " m1 " << g.m1 << " t " << t << ": " << value << " vs " << static_cast<double>(exact)
        << ", error " << static_cast<double>(error) << " > " << static_cast<double>(tolerance);
    return ::testing::AssertionFailure() << out.str();
}

class random_segments {
  public:
    // `fixed`: the test's seed (support/seed.hpp), which INPUTANIM_TEST_SEED replaces.
    explicit random_segments(std::uint32_t fixed) : rng_(test_seed(fixed)) {}

    float uniform(double lo, double hi) {
        return static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(rng_));
    }
    // Values and tangents of the size a recording holds.
    segment with_weights(float w1, float w2) {
        return {
            w1, w2, uniform(-2.0, 2.0), uniform(-2.0, 2.0), uniform(-5.0, 5.0), uniform(-5.0, 5.0)};
    }
    // Negative, in [0, 1], above 1 (with both above 1, x falls around u = 1/2), and large.
    float any_weight() {
        switch (std::uniform_int_distribution<int>(0, 4)(rng_)) {
            case 0:
                return uniform(-3.0, 0.0);
            case 1:
                return uniform(0.0, 1.0);
            case 2:
                return uniform(1.0, 10.0);
            case 3:
                return uniform(10.0, 1e6);
            default:
                return 1e6f;
        }
    }
    // A time inside the segment, on a log scale near either end and uniform in between.
    float time() {
        switch (std::uniform_int_distribution<int>(0, 3)(rng_)) {
            case 0:
                return std::ldexp(uniform(0.5, 1.0),
                                  -std::uniform_int_distribution<int>(1, 120)(rng_));
            case 1:
                return 1.0f - std::ldexp(uniform(0.5, 1.0),
                                         -std::uniform_int_distribution<int>(2, 24)(rng_));
            default:
                return uniform(0.0, 1.0);
        }
    }

  private:
    std::mt19937 rng_;
};

// Weights for a grid over the corners and edges of the unit square, where x' vanishes at an
// end or, for 1 and 1, at u = 1/2, and just outside it, where the general solver takes over.
const float edge_weights[] = {-1e-7f,      0.0f, 1e-30f,          1e-7f, 0x1p-24f,
                              1.0f / 3.0f, 0.5f, 1.0f - 0x1p-24f, 1.0f,  1.0f + 0x1p-23f};

}  // namespace

TEST(WeightedBezier, WeightsInTheUnitSquareMatchALongDoubleReference) {
    random_segments pick(1);
    for (int i = 0; i < 1500; ++i) {
        const segment g = pick.with_weights(pick.uniform(0.0, 1.0), pick.uniform(0.0, 1.0));
        const curve_fixture f = make_curve(g);
        for (int j = 0; j < 20; ++j) {
            const float t = pick.time();
            EXPECT_TRUE(matches_reference(f(t), g, t));
        }
    }
}

TEST(WeightedBezier, WeightsAtAndAroundTheCornersAndEdgesOfTheUnitSquareMatchTheReference) {
    random_segments pick(2);
    const float times[] = {0x1p-149f, 1e-40f, 1e-30f,          1e-12f, 1e-6f,
                           0.001f,    0.25f,  0.5f - 0x1p-25f, 0.5f,   0.5f + 0x1p-24f,
                           0.75f,     0.999f, 1.0f - 0x1p-24f};
    for (float w1 : edge_weights) {
        for (float w2 : edge_weights) {
            if (w1 == 0.0f && w2 == 0.0f) continue;  // the straight line, tested on its own
            segment g = pick.with_weights(w1, w2);
            // Starting at 0, the value just after the start is as small as s, and an error in
            // u shows in full instead of vanishing next to p0.
            for (float p0 : {g.p0, 0.0f}) {
                g.p0 = p0;
                const curve_fixture f = make_curve(g);
                for (float t : times) EXPECT_TRUE(matches_reference(f(t), g, t));
                for (int j = 0; j < 20; ++j) {
                    const float t = pick.time();
                    EXPECT_TRUE(matches_reference(f(t), g, t));
                }
            }
        }
    }
}

TEST(WeightedBezier, WeightsOutsideTheUnitSquareTakeTheSmallestRoot) {
    random_segments pick(3);
    for (int i = 0; i < 1500; ++i) {
        float w1 = pick.any_weight();
        float w2 = pick.any_weight();
        if (w1 >= 0.0f && w1 <= 1.0f && w2 >= 0.0f && w2 <= 1.0f) w2 = pick.uniform(1.0, 4.0);
        const segment g = pick.with_weights(w1, w2);
        const curve_fixture f = make_curve(g);
        for (int j = 0; j < 20; ++j) {
            const float t = pick.time();
            EXPECT_TRUE(matches_reference(f(t), g, t));
        }
    }
}

TEST(WeightedBezier, ATimeJustAfterAFlatStartIsSolvedToFullPrecision) {
    // w1 = 0, w2 = 1/3: x(u) = 2u^2 - u^3 and, with p0 = 0, p1 = 1 and no tangents,
    // y(u) = 3u^2 - 2u^3 = 1.5 x(u) - u^3 / 2, so y = 1.5 s to within s^1.5.
    const curve_fixture f({{0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, mode_out},
                           {1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, mode_none}});
    for (float t : {1e-30f, 1e-20f, 1e-12f}) EXPECT_FLOAT_EQ(f(t), 1.5f * t) << t;
}

TEST(WeightedBezier, WeightsOfOneAndOneAreSolvedAtTheirFlatInflection) {
    // x(u) = 1/2 + 4 (u - 1/2)^3: x' vanishes at u = 1/2, so s = 1/2 is a triple root there and
    // y(1/2) = (p0 + 3 (p0 + m0) + 3 (p1 - m1) + p1) / 8 = (0 + 3 + 3 * 3 + 2) / 8 = 1.75.
    const segment g{1.0f, 1.0f, 0.0f, 2.0f, 1.0f, -1.0f};
    const curve_fixture f({{0.0f, g.p0, 0.0f, g.m0, 0.0f, g.w1, mode_both},
                           {1.0f, g.p1, g.m1, 0.0f, g.w2, 0.0f, mode_both}});
    EXPECT_EQ(f(0.5f), 1.75f);
    for (float t : {0.5f - 0x1p-24f, 0.5f + 0x1p-24f, 0.5f - 0x1p-12f, 0.5f + 0x1p-12f}) {
        EXPECT_TRUE(matches_reference(f(t), g, t));
    }
}
