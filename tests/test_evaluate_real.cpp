// Evaluation of the real June 2019 MRTK recordings (v1.0 bodies; skipped when absent).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

const char* const june_files[] = {"InputAnimation-20190606-161538.bin",
                                  "InputAnimation-20190607-120309.bin",
                                  "InputAnimation-20190607-121439.bin"};

bool same_bits(float a, float b) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

class JuneRecording : public ::testing::TestWithParam<const char*> {
  protected:
    void SetUp() override {
        auto b = june_recording(GetParam());
        if (!b) GTEST_SKIP() << GetParam() << " is not in " << recordings_dir();
        data_ = std::move(*b);
        ASSERT_FALSE(rec_.open(view(data_)));
    }

    bytes data_;
    recording rec_;
};

}  // namespace

TEST_P(JuneRecording, EvaluatedAtTheirOwnKeyTimesCurvesReturnTheKeyValuesExactly) {
    std::size_t keys = 0;
    for (const curve_view& c : rec_.curves()) {
        curve_sampler s(c);
        for (const keyframe_view k : c.keys) {
            ASSERT_TRUE(same_bits(evaluate(c, k.time()), k.value()))
                << c.path() << " t " << k.time();
            ASSERT_TRUE(same_bits(s(k.time()), k.value())) << c.path() << " t " << k.time();
            ++keys;
        }
    }
    EXPECT_EQ(keys, rec_.summary().keyframes);
}

TEST_P(JuneRecording, MidpointsOfSegmentsAreTheAverageOfTheirEnds) {
    for (const curve_view& c : rec_.curves()) {
        if (c.kind != curve_kind::float_curve) continue;
        for (std::size_t i = 0; i + 1 < c.keys.size(); ++i) {
            const double t0 = c.keys[i].time();
            const double t1 = c.keys[i + 1].time();
            const auto mid = static_cast<float>((t0 + t1) / 2);
            const double p0 = c.keys[i].value();
            const double p1 = c.keys[i + 1].value();
            // The float midpoint is off by at most half an ulp of the time: this bounds how far
            // the line moves over it.
            const double slack = std::abs(p1 - p0) * std::abs(mid - (t0 + t1) / 2) / (t1 - t0);
            const double tolerance = 1e-6 * std::max(std::abs(p0), std::abs(p1)) + slack;
            ASSERT_NEAR(evaluate(c, mid), (p0 + p1) / 2, tolerance) << c.path() << " key " << i;
        }
    }
}

TEST_P(JuneRecording, BoolCurvesAreStepsBetweenTheirKeys) {
    for (hand_state h : {hand_state::left_tracked, hand_state::right_tracked,
                         hand_state::left_pinching, hand_state::right_pinching}) {
        const curve_view& c = *rec_.hand(h);
        for (std::size_t i = 0; i + 1 < c.keys.size(); ++i) {
            const float before_next =
                std::nextafter(c.keys[i + 1].time(), -std::numeric_limits<float>::infinity());
            EXPECT_EQ(evaluate(c, before_next), c.keys[i].value()) << c.path() << " key " << i;
            EXPECT_EQ(evaluate_bool(c, before_next), c.keys[i].value() > 0.5f);
        }
    }
}

TEST_P(JuneRecording, ResamplingTheWholeRecordingMatchesEvaluate) {
    resampler rs(rec_);
    rs.select_all();
    ASSERT_EQ(rs.set_grid(60.0), grid_error::none);
    const double span = static_cast<double>(*rec_.summary().duration) - *rec_.summary().start;
    EXPECT_EQ(rs.row_count(), static_cast<std::uint64_t>(std::floor(span * 60.0)) + 1);
    EXPECT_EQ(rs.row_time(0), *rec_.summary().start);
    std::vector<float> row(rs.curves().size());
    while (const auto t = rs.next(row)) {
        for (std::size_t i = 0; i < row.size(); ++i) {
            ASSERT_TRUE(same_bits(row[i], evaluate(rec_.curves()[i], *t)))
                << curve_path(rs.curves()[i]) << " t " << *t;
        }
    }
}

TEST_P(JuneRecording, CameraPosesAreTheirCurvesEvaluated) {
    const curve_view& x = *rec_.camera(pose_channel::position_x);
    ASSERT_FALSE(x.keys.empty());
    for (std::size_t i = 0; i < x.keys.size(); i += 7) {
        const float t = x.keys[i].time();
        const auto p = camera_pose(rec_, t);
        ASSERT_TRUE(p);
        EXPECT_EQ(p->position.x, x.keys[i].value());
        const float channels[] = {p->position.x, p->position.y, p->position.z, p->rotation.x,
                                  p->rotation.y, p->rotation.z, p->rotation.w};
        for (std::size_t c = 0; c < pose_channel_count; ++c) {
            EXPECT_EQ(channels[c], evaluate(*rec_.camera(static_cast<pose_channel>(c)), t));
        }
    }
    EXPECT_FALSE(gaze_ray(rec_, 0.0f));
}

INSTANTIATE_TEST_SUITE_P(June2019, JuneRecording, ::testing::ValuesIn(june_files),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                             std::string name = info.param;
                             name = name.substr(15, 15);  // yyyyMMdd-HHmmss
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

TEST(JuneRecordingDevice, NormalizedCameraRotationsAreThePlayedOnesScaledToUnitLength) {
    const auto b = june_recording("InputAnimation-20190607-120309.bin");
    if (!b) GTEST_SKIP() << "InputAnimation-20190607-120309.bin is absent";
    recording rec;
    ASSERT_FALSE(rec.open(view(*b)));
    const float start = *rec.summary().start;
    const float duration = *rec.summary().duration;
    double furthest = 0.0;
    for (int i = 0; i <= 200; ++i) {
        const float t = start + (duration - start) * static_cast<float>(i) / 200.0f;
        const auto played = camera_pose(rec, t);
        const auto unit = camera_pose(rec, t, rotation::normalized);
        ASSERT_TRUE(played && unit);
        const quat& q = played->rotation;
        const double length = std::sqrt(double{q.x} * q.x + double{q.y} * q.y + double{q.z} * q.z +
                                        double{q.w} * q.w);
        furthest = std::max(furthest, std::abs(length - 1.0));
        const quat& u = unit->rotation;
        EXPECT_NEAR(u.x, q.x / length, 1e-6) << t;
        EXPECT_NEAR(u.y, q.y / length, 1e-6) << t;
        EXPECT_NEAR(u.z, q.z / length, 1e-6) << t;
        EXPECT_NEAR(u.w, q.w / length, 1e-6) << t;
        EXPECT_EQ(unit->position, played->position);
    }
    // The rotation curves are keyed independently, so between keys the blend drifts from unit
    // length (by more than 1% in this file): that is what MRTK plays.
    EXPECT_GT(furthest, 0.01);
}
