// measure()'s refusals and what it makes of values that are not finite: options it cannot use,
// grids it cannot measure on, and files that passed only the structure checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Counts the events it is sent.
struct counting_sink final : metrics_sink {
    int events = 0;
    void tracked(side, const grid_interval&) override { ++events; }
    void gap(side, const grid_interval&) override { ++events; }
    void pinch(side, const grid_interval&) override { ++events; }
    void fixation(const inputanim::fixation&) override { ++events; }
    void saccade(const inputanim::saccade&) override { ++events; }
};

// The left hand tracked from 0 to 2 s with its palm moving.
model tracked_model() {
    model m;
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}};
    m[joint_curve(side::left, joint::palm, pose_channel::position_x)].keys = {{0.0f, 0.0f},
                                                                              {2.0f, 1.0f}};
    return m;
}

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
constexpr double infinite = std::numeric_limits<double>::infinity();

}  // namespace

TEST(MetricsErrors, TheOptionsAreCheckedBeforeTheRecording) {
    const opened o(tracked_model());
    ASSERT_FALSE(o.error);
    const auto refused = [&](auto change) {
        metrics_options options;
        change(options);
        recording_metrics out;
        out.samples = 7;
        counting_sink sink;
        const std::error_code ec = measure(o.rec, options, out, &sink);
        EXPECT_EQ(ec, options.problem());
        EXPECT_EQ(out.samples, 7u) << "left as it was";
        EXPECT_EQ(sink.events, 0);
        return ec;
    };
    for (const double r : {0.0, -60.0, not_a_number, infinite, 1e-310}) {
        EXPECT_EQ(refused([&](metrics_options& m) { m.rate = r; }),
                  std::error_code(grid_error::bad_rate))
            << r;
    }
    EXPECT_EQ(refused([](metrics_options& m) { m.joint = static_cast<joint>(joint_count); }),
              std::error_code(metrics_error::bad_joint));
    for (const double v : {-1.0, not_a_number, infinite}) {
        EXPECT_EQ(refused([&](metrics_options& m) { m.fixation_velocity = v; }),
                  std::error_code(metrics_error::bad_fixation_velocity));
        EXPECT_EQ(refused([&](metrics_options& m) { m.merge_gap = v; }),
                  std::error_code(metrics_error::bad_merge_gap));
        EXPECT_EQ(refused([&](metrics_options& m) { m.merge_angle = v; }),
                  std::error_code(metrics_error::bad_merge_angle));
        EXPECT_EQ(refused([&](metrics_options& m) { m.min_fixation = v; }),
                  std::error_code(metrics_error::bad_min_fixation));
    }
    EXPECT_FALSE(metrics_options{}.problem());
}

TEST(MetricsErrors, WhatASinkThrowsLeavesMeasure) {
    struct throwing_sink final : metrics_sink {
        void tracked(side, const grid_interval&) override { throw std::runtime_error("full"); }
    };
    const opened o(tracked_model());
    recording_metrics out;
    out.samples = 7;
    throwing_sink sink;
    EXPECT_THROW(measure(o.rec, {}, out, &sink), std::runtime_error);
    EXPECT_EQ(out.samples, 7u) << "the metrics are written only at the end";
}

TEST(MetricsErrors, MoreSamplesThanTheCeilingIsRefusedBeforeAnyIsEvaluated) {
    // 0 to 2 s at 60 Hz: 121 samples.
    const opened o(tracked_model());
    metrics_options options;
    options.max_samples = 120;
    recording_metrics out;
    counting_sink sink;
    EXPECT_EQ(measure(o.rec, options, out, &sink), std::error_code(grid_error::too_many_rows));
    EXPECT_EQ(sink.events, 0);
    options.max_samples = 121;
    EXPECT_FALSE(measure(o.rec, options, out, &sink));
    EXPECT_EQ(out.samples, 121u);
    EXPECT_EQ(sink.events, 1) << "one tracked interval";
}

TEST(MetricsErrors, GridPointsThatShareAFloatTimeAreRefused) {
    // Above 2^24 s floats are 2 apart: a 60 Hz grid's points share their times.
    model m;
    m[hand_state_curve(hand_state::left_tracked)].keys = {{16777216.0f, 1.0f}, {16777226.0f, 1.0f}};
    const opened o(m);
    recording_metrics out;
    const std::error_code ec = measure(o.rec, {}, out);
    EXPECT_EQ(ec, std::error_code(metrics_error::shared_times));
    EXPECT_EQ(std::string(ec.category().name()), "inputanim.metrics");
    EXPECT_NE(ec.message().find("share a float32 time"), std::string::npos) << ec.message();
    metrics_options slow;
    slow.rate = 0.25;
    EXPECT_FALSE(measure(o.rec, slow, out));
    EXPECT_EQ(out.samples, 3u);
}

TEST(MetricsErrors, ErrorNamesAndMessagesAreStable) {
    EXPECT_EQ(metrics_error_name(metrics_error::none), "none");
    EXPECT_EQ(metrics_error_name(metrics_error::bad_joint), "bad_joint");
    EXPECT_EQ(metrics_error_name(metrics_error::bad_fixation_velocity), "bad_fixation_velocity");
    EXPECT_EQ(metrics_error_name(metrics_error::bad_merge_gap), "bad_merge_gap");
    EXPECT_EQ(metrics_error_name(metrics_error::bad_merge_angle), "bad_merge_angle");
    EXPECT_EQ(metrics_error_name(metrics_error::bad_min_fixation), "bad_min_fixation");
    EXPECT_EQ(metrics_error_name(metrics_error::shared_times), "shared_times");
    EXPECT_EQ(metrics_error_name(static_cast<metrics_error>(200)), "unknown");
    EXPECT_FALSE(std::error_code(metrics_error::none));
    EXPECT_EQ(std::error_code(metrics_error::bad_merge_gap).message(),
              "the merge gap is negative or not finite");
}

TEST(MetricsErrors, KeysOutOfOrderThatEndBeforeTheyStartGiveNoSamples) {
    // Passes the structure checks; the last key time (1) is before the first (5).
    model m;
    m[hand_state_curve(hand_state::left_tracked)].keys = {{5.0f, 1.0f}, {1.0f, 1.0f}};
    const opened o(m);
    ASSERT_FALSE(o.error);
    recording_metrics out;
    out.samples = 7;
    EXPECT_FALSE(measure(o.rec, {}, out));
    EXPECT_EQ(out.samples, 0u);
    EXPECT_FALSE(out.hands[0]);
}

TEST(MetricsErrors, ANonFiniteKeyTimeIsABadTime) {
    model m;
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}};
    m[camera_curve(pose_channel::position_x)].keys = {
        {std::numeric_limits<float>::infinity(), 1.0f}};
    const opened o(m);
    ASSERT_FALSE(o.error) << "structurally sound";
    recording_metrics out;
    EXPECT_EQ(measure(o.rec, {}, out), std::error_code(grid_error::bad_time));
}

TEST(MetricsErrors, PositionsThatAreNotFiniteAreLeftOutAndCounted) {
    // Palm x is NaN from just after 0 to just before 2 s (a NaN key at 1 s): only samples 0 and
    // 120 have a position, never two consecutive ones.
    model m = tracked_model();
    m[joint_curve(side::left, joint::palm, pose_channel::position_x)].keys = {
        {0.0f, 0.0f}, {1.0f, std::numeric_limits<float>::quiet_NaN()}, {2.0f, 1.0f}};
    const opened o(m);
    ASSERT_FALSE(o.error);
    recording_metrics out;
    ASSERT_FALSE(measure(o.rec, {}, out));
    EXPECT_EQ(out.nonfinite_samples, 119u);
    const hand_metrics& left = *out.hands[0];
    EXPECT_EQ(left.coverage, 1.0) << "tracking is still read";
    EXPECT_EQ(left.motion.path_length, 0.0);
    EXPECT_EQ(left.motion.time, 0.0);
    EXPECT_FALSE(left.motion.mean_speed);
}

TEST(MetricsErrors, AnInfiniteCameraValueLeavesOutThePairsItIsIn) {
    // Rotation w is infinite at sample 60 only (keys at 59/60 and 61/60 are finite), so the
    // two rotation steps around it are left out; the position is unaffected.
    model m;
    m[camera_curve(pose_channel::position_x)].keys = {{0.0f, 0.0f}, {2.0f, 2.0f}};
    m[camera_curve(pose_channel::rotation_w)].keys = {
        {0.0f, 1.0f},
        {static_cast<float>(59 / 60.0), 1.0f},
        {1.0f, std::numeric_limits<float>::infinity()},
        {static_cast<float>(61 / 60.0), 1.0f}};
    const opened o(m);
    ASSERT_FALSE(o.error);
    recording_metrics out;
    ASSERT_FALSE(measure(o.rec, {}, out));
    EXPECT_EQ(out.nonfinite_samples, 1u);
    const head_metrics& head = *out.head;
    EXPECT_NEAR(head.motion.path_length, 2.0, 1e-5);
    EXPECT_EQ(head.motion.time, 2.0);
    EXPECT_EQ(head.rotation, 0.0);
    EXPECT_EQ(head.peak_angular_speed, 0.0);
}

TEST(MetricsErrors, AGazeDirectionThatIsNotFiniteIsNoGazeSample) {
    model m;
    for (const ray_channel c : {ray_channel::origin_x, ray_channel::direction_z}) {
        m[gaze_curve(c)].keys = {{0.0f, 1.0f}, {2.0f, 1.0f}};
    }
    m[gaze_curve(ray_channel::direction_x)].keys = {
        {0.0f, 0.0f}, {1.0f, std::numeric_limits<float>::quiet_NaN()}, {2.0f, 0.0f}};
    const opened o(m);
    recording_metrics out;
    ASSERT_FALSE(measure(o.rec, {}, out));
    EXPECT_EQ(out.gaze->samples, 2u);
    EXPECT_EQ(out.gaze->fixations, 0u) << "two samples, each alone in its run";
}
