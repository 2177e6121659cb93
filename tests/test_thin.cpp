// MRTK's keyframe thinning (include/inputanim/thin.hpp): the tolerances and their Euclidean
// forms, and which samples a run keeps. The generator's and the converter's use of it are tested
// with them (test_generate.cpp, test_convert.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <vector>

#include "inputanim/thin.hpp"

using namespace inputanim;

namespace {

constexpr double degree = std::numbers::pi / 180.0;

// The samples of one vector: its times and 1 to 4 components.
struct run {
    std::vector<float> times;
    std::vector<std::vector<float>> values;

    explicit run(std::size_t n, std::size_t dims = 1)
        : times(n), values(dims, std::vector<float>(n)) {
        for (std::size_t i = 0; i < n; ++i) times[i] = static_cast<float>(i) / 60.0f;
    }
    std::size_t size() const { return times.size(); }
};

// The flags keep_run sets over the whole run (all clear before).
std::vector<std::uint8_t> kept(const run& r, double tolerance, int partition) {
    std::vector<std::span<const float>> components(r.values.begin(), r.values.end());
    std::vector<std::uint8_t> keep(r.size());
    thinner t;
    t.keep_run(r.times, components, 0, r.size() - 1, tolerance, partition, keep);
    return keep;
}

std::vector<std::size_t> indices_of(const std::vector<std::uint8_t>& keep) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < keep.size(); ++i) {
        if (keep[i]) out.push_back(i);
    }
    return out;
}

// Distance of sample i from the line through samples lo and hi, linear in time, over every
// component.
double distance_from_line(const run& r, std::size_t lo, std::size_t i, std::size_t hi) {
    const double s = (static_cast<double>(r.times[i]) - r.times[lo]) /
                     (static_cast<double>(r.times[hi]) - r.times[lo]);
    double sum = 0;
    for (const std::vector<float>& v : r.values) {
        const double line = v[lo] + (static_cast<double>(v[hi]) - v[lo]) * s;
        sum += (v[i] - line) * (v[i] - line);
    }
    return std::sqrt(sum);
}

}  // namespace

TEST(Thinning, DefaultsAreOneMillimetreAndTwoHundredthsOfADegreeInPartitionsOf32Samples) {
    const thinning t;
    EXPECT_EQ(t.position, 0.001);
    EXPECT_EQ(t.rotation_degrees, 0.02);
    EXPECT_EQ(t.partition, 32);
}

TEST(Thinning, ToleranceItCannotUseIsItsProblem) {
    EXPECT_FALSE(thinning{}.problem());
    EXPECT_FALSE((thinning{0, 0, 0}.problem()));
    EXPECT_FALSE((thinning{0, 180, 1}.problem()));
    constexpr double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const double position : {-1e-9, inf, nan}) {
        EXPECT_EQ((thinning{position, 0.02, 32}.problem()), option_error::bad_position_tolerance)
            << position;
    }
    for (const double degrees : {-1e-9, 180.0001, inf, nan}) {
        EXPECT_EQ((thinning{0.001, degrees, 32}.problem()), option_error::bad_rotation_tolerance)
            << degrees;
    }
    EXPECT_EQ((thinning{0.001, 0.02, -1}.problem()), option_error::bad_partition);
    // The first problem in the order of the fields.
    EXPECT_EQ((thinning{-1, -1, -1}.problem()), option_error::bad_position_tolerance);
}

TEST(Thinning, RotationDistanceIsHowFarApartTwoUnitQuaternionsThatAngleApartAre) {
    for (const double angle : {0.02, 1.0, 45.0, 90.0, 180.0}) {
        thinning t;
        t.rotation_degrees = angle;
        // The identity and a rotation by `angle` about x.
        const double half = angle * degree / 2;
        const double gap = std::hypot(std::sin(half), 1.0 - std::cos(half));
        EXPECT_NEAR(t.rotation_distance(), gap, 1e-12) << angle << " degrees";
    }
    EXPECT_NEAR(thinning{}.rotation_distance(), 1.745e-4, 1e-7);
}

TEST(Thinning, DirectionDistanceIsHowFarApartTwoUnitDirectionsThatAngleApartAre) {
    for (const double angle : {0.02, 1.0, 45.0, 90.0, 180.0}) {
        thinning t;
        t.rotation_degrees = angle;
        const double a = angle * degree;
        const double gap = std::hypot(1.0 - std::cos(a), std::sin(a));
        EXPECT_NEAR(t.direction_distance(), gap, 1e-12) << angle << " degrees";
    }
}

TEST(Thinner, AStraightRunKeepsItsTwoEndsOnly) {
    run r(100, 3);
    for (std::size_t i = 0; i < r.size(); ++i) {
        r.values[0][i] = 0.5f * r.times[i];
        r.values[1][i] = -2.0f * r.times[i] + 1.0f;
        r.values[2][i] = 3.0f;
    }
    EXPECT_EQ(indices_of(kept(r, 0.001, 0)), (std::vector<std::size_t>{0, 99}));
}

TEST(Thinner, TheLineIsLinearInTimeNotInSampleNumber) {
    run r(40);
    for (std::size_t i = 0; i < r.size(); ++i) {
        r.times[i] = static_cast<float>(i * i) / 64.0f;
        r.values[0][i] = 2.0f * r.times[i];
    }
    EXPECT_EQ(indices_of(kept(r, 0.001, 0)), (std::vector<std::size_t>{0, 39}));
}

TEST(Thinner, TheEndsOfEveryPartitionAreKept) {
    run r(100);
    EXPECT_EQ(indices_of(kept(r, 0.001, 32)), (std::vector<std::size_t>{0, 32, 64, 96, 99}));
    EXPECT_EQ(indices_of(kept(r, 0.001, 200)), (std::vector<std::size_t>{0, 99}));
}

TEST(Thinner, ASampleFurtherThanTheToleranceFromTheLineIsKeptAndOneWithinItIsNot) {
    for (const float offset : {0.0015f, -0.0015f, 0.0005f, -0.0005f}) {
        run r(3);
        r.values[0][1] = offset;
        const std::vector<std::size_t> expected = std::abs(offset) > 0.001f
                                                      ? std::vector<std::size_t>{0, 1, 2}
                                                      : std::vector<std::size_t>{0, 2};
        EXPECT_EQ(indices_of(kept(r, 0.001, 0)), expected) << offset;
    }
}

TEST(Thinner, TheDistanceIsMeasuredOverAllComponentsTogether) {
    // 0.7 of the tolerance on one component is within it; on each of three it is 1.2 times it.
    run one(11, 3);
    one.values[1][5] = 0.0007f;
    EXPECT_EQ(indices_of(kept(one, 0.001, 0)), (std::vector<std::size_t>{0, 10}));
    run three(11, 3);
    for (std::vector<float>& v : three.values) v[5] = 0.0007f;
    EXPECT_EQ(indices_of(kept(three, 0.001, 0)), (std::vector<std::size_t>{0, 5, 10}));
}

TEST(Thinner, EveryRemovedSampleIsWithinTheToleranceOfTheLineThroughItsKeptNeighbours) {
    run r(600, 2);
    for (std::size_t i = 0; i < r.size(); ++i) {
        const double t = r.times[i];
        r.values[0][i] = static_cast<float>(0.1 * std::sin(0.5 * t) + 0.05 * std::sin(1.3 * t));
        r.values[1][i] = static_cast<float>(0.01 * std::cos(2.1 * t));
    }
    for (const int partition : {0, 32}) {
        const std::vector<std::size_t> keys = indices_of(kept(r, 0.001, partition));
        ASSERT_GE(keys.size(), 2u);
        EXPECT_EQ(keys.front(), 0u);
        EXPECT_EQ(keys.back(), r.size() - 1);
        // A thinning that keeps most samples would pass the check below trivially.
        EXPECT_LT(keys.size() * 4, r.size()) << "partition " << partition;
        for (std::size_t k = 0; k + 1 < keys.size(); ++k) {
            if (partition > 0) {
                EXPECT_LE(keys[k + 1] - keys[k], static_cast<std::size_t>(partition));
            }
            for (std::size_t i = keys[k] + 1; i < keys[k + 1]; ++i) {
                EXPECT_LE(distance_from_line(r, keys[k], i, keys[k + 1]), 0.001)
                    << "sample " << i << ", partition " << partition;
            }
        }
    }
}

TEST(Thinner, OnlyTheRunItIsGivenIsMarkedAndNoFlagIsCleared) {
    run r(30);
    r.values[0][25] = 1.0f;
    const std::span<const float> component = r.values[0];
    std::vector<std::uint8_t> keep(r.size());
    keep[12] = 1;
    thinner t;
    t.keep_run(r.times, std::span(&component, 1), 10, 20, 0.001, 0, keep);
    EXPECT_EQ(indices_of(keep), (std::vector<std::size_t>{10, 12, 20}));
}

TEST(Thinner, ARunOfOneSampleKeepsIt) {
    run r(5);
    const std::span<const float> component = r.values[0];
    std::vector<std::uint8_t> keep(r.size());
    thinner t;
    t.keep_run(r.times, std::span(&component, 1), 3, 3, 0.001, 32, keep);
    EXPECT_EQ(indices_of(keep), (std::vector<std::size_t>{3}));
}

TEST(Thinner, OneThinnerGivesEachRunTheSameKeysAsAFreshOne) {
    run wavy(200);
    for (std::size_t i = 0; i < wavy.size(); ++i) {
        wavy.values[0][i] = static_cast<float>(std::sin(3.0 * wavy.times[i]));
    }
    run straight(50);
    const std::span<const float> wave = wavy.values[0];
    const std::span<const float> line = straight.values[0];
    thinner reused;
    std::vector<std::uint8_t> first(wavy.size());
    std::vector<std::uint8_t> second(straight.size());
    std::vector<std::uint8_t> third(wavy.size());
    reused.keep_run(wavy.times, std::span(&wave, 1), 0, wavy.size() - 1, 0.001, 0, first);
    reused.keep_run(straight.times, std::span(&line, 1), 0, straight.size() - 1, 0.001, 0, second);
    reused.keep_run(wavy.times, std::span(&wave, 1), 0, wavy.size() - 1, 0.001, 0, third);
    EXPECT_EQ(first, kept(wavy, 0.001, 0));
    EXPECT_EQ(second, kept(straight, 0.001, 0));
    EXPECT_EQ(third, first);
}
