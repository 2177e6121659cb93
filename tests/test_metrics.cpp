// Metrics and events on synthetic recordings whose answers are known: a palm on a straight line,
// tracking and pinching toggled at grid times, a head that moves and turns, gaze that holds and
// jumps, and the merge and minimum-duration rules of the fixations at their thresholds.
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <numbers>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

constexpr double rate = 60.0;

// The time of grid point i at 60 Hz from 0, as the resampler evaluates it.
float at(int i) {
    return static_cast<float>(i / rate);
}

// Collects every event measure() sends.
struct recorded_events final : metrics_sink {
    struct hand_event {
        side hand;
        grid_interval when;
    };
    std::vector<hand_event> tracked_intervals;
    std::vector<hand_event> gaps;
    std::vector<hand_event> pinches;
    std::vector<inputanim::fixation> fixations;
    std::vector<inputanim::saccade> saccades;

    void tracked(side s, const grid_interval& g) override { tracked_intervals.push_back({s, g}); }
    void gap(side s, const grid_interval& g) override { gaps.push_back({s, g}); }
    void pinch(side s, const grid_interval& g) override { pinches.push_back({s, g}); }
    void fixation(const inputanim::fixation& f) override { fixations.push_back(f); }
    void saccade(const inputanim::saccade& s) override { saccades.push_back(s); }
};

struct measured {
    recording_metrics metrics;
    recorded_events events;
};

measured measure_model(const model& m, const metrics_options& options = {}) {
    const opened o(m);
    EXPECT_FALSE(o.error) << o.error.message();
    measured r;
    const std::error_code ec = measure(o.rec, options, r.metrics, &r.events);
    EXPECT_FALSE(ec) << ec.message();
    return r;
}

// The interval of grid samples [from, to) at 60 Hz from 0.
grid_interval samples(std::uint64_t from, std::uint64_t to) {
    return {from, to, at(static_cast<int>(from)), at(static_cast<int>(to)),
            static_cast<double>(to - from) / rate};
}

void set_keys(model& m, curve_id id, std::vector<keyframe> keys) {
    m[id].keys = std::move(keys);
}

void set_tracked(model& m, side s, std::vector<keyframe> keys) {
    set_keys(
        m, hand_state_curve(s == side::left ? hand_state::left_tracked : hand_state::right_tracked),
        std::move(keys));
}

// The joint's position moves linearly between two keys.
void move_joint(model& m, side s, joint j, float t0, vec3 p0, float t1, vec3 p1) {
    set_keys(m, joint_curve(s, j, pose_channel::position_x), {{t0, p0.x}, {t1, p1.x}});
    set_keys(m, joint_curve(s, j, pose_channel::position_y), {{t0, p0.y}, {t1, p1.y}});
    set_keys(m, joint_curve(s, j, pose_channel::position_z), {{t0, p0.z}, {t1, p1.z}});
}

// A unit direction `deg` degrees from +z towards +x (a turn about y).
vec3 turned(double deg) {
    const double r = deg * std::numbers::pi / 180.0;
    return {static_cast<float>(std::sin(r)), 0.0f, static_cast<float>(std::cos(r))};
}

// Gaze keys at grid samples: the direction given at each listed sample (linear in between, so
// every sample between two keys with the same direction has it), the origin fixed.
model gaze_model(const std::vector<std::pair<int, vec3>>& directions) {
    model m;
    for (const auto& [i, d] : directions) {
        m[gaze_curve(ray_channel::direction_x)].keys.push_back({at(i), d.x});
        m[gaze_curve(ray_channel::direction_y)].keys.push_back({at(i), d.y});
        m[gaze_curve(ray_channel::direction_z)].keys.push_back({at(i), d.z});
    }
    set_keys(m, gaze_curve(ray_channel::origin_x), {{0.0f, 0.1f}});
    set_keys(m, gaze_curve(ray_channel::origin_y), {{0.0f, 1.6f}});
    set_keys(m, gaze_curve(ray_channel::origin_z), {{0.0f, -0.2f}});
    return m;
}

// Holds `a` from sample 0 to 30, makes an excursion of `steps` samples 10, 20, ... degrees
// away, then holds `b` from sample 31 + steps to 120.
model excursion_model(int steps, vec3 b) {
    std::vector<std::pair<int, vec3>> keys = {{0, turned(0)}, {30, turned(0)}};
    for (int j = 1; j <= steps; ++j) keys.push_back({30 + j, turned(10.0 * j)});
    keys.push_back({31 + steps, b});
    keys.push_back({120, b});
    return gaze_model(keys);
}

void expect_direction(const vec3& d, const vec3& expected) {
    EXPECT_NEAR(d.x, expected.x, 1e-6);
    EXPECT_NEAR(d.y, expected.y, 1e-6);
    EXPECT_NEAR(d.z, expected.z, 1e-6);
}

}  // namespace

TEST(Metrics, EventKindsHaveTheNamesOfTheirTables) {
    const std::pair<event_kind, std::string_view> kinds[] = {
        {event_kind::tracking, "tracking"},
        {event_kind::pinch, "pinch"},
        {event_kind::fixations, "fixations"},
        {event_kind::saccades, "saccades"},
    };
    for (const auto& [kind, name] : kinds) {
        EXPECT_EQ(event_kind_name(kind), name);
        EXPECT_EQ(parse_event_kind_name(name), kind) << name;
    }
    EXPECT_EQ(event_kind_name(static_cast<event_kind>(std::size(kinds))), "unknown");
    EXPECT_EQ(parse_event_kind_name("unknown"), std::nullopt);
    EXPECT_EQ(parse_event_kind_name("fixation"), std::nullopt);
    EXPECT_TRUE(is_hand_event(event_kind::tracking));
    EXPECT_TRUE(is_hand_event(event_kind::pinch));
    EXPECT_FALSE(is_hand_event(event_kind::fixations));
    EXPECT_FALSE(is_hand_event(event_kind::saccades));
}

TEST(Metrics, TheGridRunsFromTheFirstKeyToTheLastInclusive) {
    model m;
    set_tracked(m, side::left, {{0.5f, 1.0f}});
    set_keys(m, camera_curve(pose_channel::position_x), {{1.5f, 0.0f}, {2.5f, 1.0f}});
    const measured r = measure_model(m);
    EXPECT_EQ(r.metrics.samples, 121u);
    EXPECT_EQ(r.metrics.start, 0.5f);
    EXPECT_EQ(r.metrics.end, 2.5f);
    EXPECT_EQ(r.metrics.nonfinite_samples, 0u);
}

TEST(Metrics, APalmOnAStraightLineHasItsLengthAndSpeed) {
    // 0.5 m/s along (0.6, 0.8, 0) for 2 s: 1 m.
    model m;
    set_tracked(m, side::left, {{0.0f, 1.0f}});
    move_joint(m, side::left, joint::palm, 0.0f, {0, 0, 0}, 2.0f, {0.6f, 0.8f, 0.0f});
    const measured r = measure_model(m);
    ASSERT_TRUE(r.metrics.hands[0]);
    const hand_metrics& left = *r.metrics.hands[0];
    EXPECT_EQ(left.tracked_samples, 121u);
    EXPECT_EQ(left.coverage, 1.0);
    EXPECT_NEAR(left.motion.path_length, 1.0, 1e-5);
    EXPECT_EQ(left.motion.time, 2.0);
    ASSERT_TRUE(left.motion.mean_speed && left.motion.peak_speed);
    EXPECT_NEAR(*left.motion.mean_speed, 0.5, 1e-5);
    EXPECT_NEAR(*left.motion.peak_speed, 0.5, 1e-5);
    EXPECT_FALSE(r.metrics.hands[1]) << "the right hand's tracked curve has no key";
}

TEST(Metrics, TheJointOptionChoosesWhichJointMoves) {
    model m;
    set_tracked(m, side::right, {{0.0f, 1.0f}});
    move_joint(m, side::right, joint::palm, 0.0f, {0, 0, 0}, 1.0f, {0.1f, 0, 0});
    move_joint(m, side::right, joint::index_tip, 0.0f, {0, 0, 0}, 1.0f, {0, 0, 0.3f});
    metrics_options options;
    EXPECT_NEAR(measure_model(m, options).metrics.hands[1]->motion.path_length, 0.1, 1e-6);
    options.joint = joint::index_tip;
    const measured r = measure_model(m, options);
    EXPECT_NEAR(r.metrics.hands[1]->motion.path_length, 0.3, 1e-6);
    EXPECT_NEAR(*r.metrics.hands[1]->motion.peak_speed, 0.3, 1e-5);
}

TEST(Metrics, OnlyStepsBetweenTwoTrackedSamplesAreMotion) {
    // Tracked over samples [0, 30) and [45, 121): 29 + 75 steps of 0.5 m/s.
    model m;
    set_tracked(m, side::left, {{0.0f, 1.0f}, {at(30), 0.0f}, {at(45), 1.0f}});
    move_joint(m, side::left, joint::palm, 0.0f, {0, 0, 0}, 2.0f, {0.6f, 0.8f, 0.0f});
    const hand_metrics left = *measure_model(m).metrics.hands[0];
    EXPECT_EQ(left.motion.time, 104.0 / rate);
    EXPECT_NEAR(left.motion.path_length, 104.0 / rate * 0.5, 1e-5);
    EXPECT_NEAR(*left.motion.mean_speed, 0.5, 1e-5);
}

TEST(Metrics, TrackingIntervalsAndGapsAreExactToTheGrid) {
    // Tracked over samples [15, 30) and [45, 90) of 121: one gap, not the untracked ends.
    model m;
    set_tracked(m, side::left,
                {{0.0f, 0.0f}, {at(15), 1.0f}, {at(30), 0.0f}, {at(45), 1.0f}, {at(90), 0.0f}});
    set_keys(m, camera_curve(pose_channel::position_x), {{0.0f, 0.0f}, {2.0f, 0.0f}});
    const measured r = measure_model(m);
    const hand_metrics& left = *r.metrics.hands[0];
    EXPECT_EQ(left.tracked_samples, 60u);
    EXPECT_EQ(left.coverage, 60.0 / 121.0);
    EXPECT_EQ(left.gaps, 1u);
    EXPECT_EQ(left.gap_time, 0.25);
    EXPECT_EQ(left.longest_gap, 0.25);
    ASSERT_EQ(r.events.tracked_intervals.size(), 2u);
    EXPECT_EQ(r.events.tracked_intervals[0].when, samples(15, 30));
    EXPECT_EQ(r.events.tracked_intervals[1].when, samples(45, 90));
    ASSERT_EQ(r.events.gaps.size(), 1u);
    EXPECT_EQ(r.events.gaps[0].hand, side::left);
    EXPECT_EQ(r.events.gaps[0].when, samples(30, 45));
    EXPECT_EQ(r.events.gaps[0].when.start, 0.5f);
    EXPECT_EQ(r.events.gaps[0].when.end, 0.75f);
}

TEST(Metrics, AnIntervalThatRunsToTheEndEndsOneGridStepPastTheLastSample) {
    model m;
    set_tracked(m, side::right, {{0.0f, 0.0f}, {at(60), 1.0f}, {at(120), 1.0f}});
    const measured r = measure_model(m);
    ASSERT_EQ(r.events.tracked_intervals.size(), 1u);
    EXPECT_EQ(r.events.tracked_intervals[0].hand, side::right);
    EXPECT_EQ(r.events.tracked_intervals[0].when, samples(60, 121));
    EXPECT_EQ(r.metrics.hands[1]->gaps, 0u);
    EXPECT_FALSE(r.metrics.hands[1]->longest_gap);
}

TEST(Metrics, APinchIsPinchingWhileTracked) {
    // Tracked [15, 30) and [45, 90); pinching [12, 36), [60, 72) and from 84 on.
    model m;
    set_tracked(m, side::left,
                {{0.0f, 0.0f}, {at(15), 1.0f}, {at(30), 0.0f}, {at(45), 1.0f}, {at(90), 0.0f}});
    set_keys(m, hand_state_curve(hand_state::left_pinching),
             {{0.0f, 0.0f},
              {at(12), 1.0f},
              {at(36), 0.0f},
              {at(60), 1.0f},
              {at(72), 0.0f},
              {at(84), 1.0f},
              {at(120), 1.0f}});
    const measured r = measure_model(m);
    const hand_metrics& left = *r.metrics.hands[0];
    EXPECT_EQ(left.pinches, 3u);
    EXPECT_DOUBLE_EQ(left.pinch_time, 33.0 / rate);
    ASSERT_EQ(r.events.pinches.size(), 3u);
    EXPECT_EQ(r.events.pinches[0].when, samples(15, 30));
    EXPECT_EQ(r.events.pinches[1].when, samples(60, 72));
    EXPECT_EQ(r.events.pinches[2].when, samples(84, 90));
}

TEST(Metrics, TheHeadMovesAndTurns) {
    // From the origin to (1, 2, 2) and a quarter turn about y in 1 s; the rotation curves are
    // interpolated component by component and normalised, so the speed of the turn peaks
    // halfway, at 4 tan(pi / 8) radians per second.
    model m;
    set_keys(m, camera_curve(pose_channel::position_x), {{0.0f, 0.0f}, {1.0f, 1.0f}});
    set_keys(m, camera_curve(pose_channel::position_y), {{0.0f, 0.0f}, {1.0f, 2.0f}});
    set_keys(m, camera_curve(pose_channel::position_z), {{0.0f, 0.0f}, {1.0f, 2.0f}});
    const auto half = static_cast<float>(std::sqrt(0.5));
    set_keys(m, camera_curve(pose_channel::rotation_y), {{0.0f, 0.0f}, {1.0f, half}});
    set_keys(m, camera_curve(pose_channel::rotation_w), {{0.0f, 1.0f}, {1.0f, half}});
    const measured r = measure_model(m);
    ASSERT_TRUE(r.metrics.head);
    const head_metrics& head = *r.metrics.head;
    EXPECT_NEAR(head.motion.path_length, 3.0, 1e-5);
    EXPECT_EQ(head.motion.time, 1.0);
    EXPECT_NEAR(*head.motion.mean_speed, 3.0, 1e-5);
    EXPECT_NEAR(*head.motion.peak_speed, 3.0, 1e-4);
    EXPECT_NEAR(head.rotation, 90.0, 1e-4);
    EXPECT_NEAR(*head.peak_angular_speed,
                4.0 * std::tan(std::numbers::pi / 8) * 180.0 / std::numbers::pi, 0.01);
}

TEST(Metrics, AHeadWithoutRotationKeysHasTheIdentityRotation) {
    model m;
    set_keys(m, camera_curve(pose_channel::position_x), {{0.0f, 0.0f}, {1.0f, 1.0f}});
    const head_metrics head = *measure_model(m).metrics.head;
    EXPECT_EQ(head.rotation, 0.0);
    EXPECT_EQ(head.peak_angular_speed, 0.0);
}

TEST(Metrics, GazeThatHoldsJumpsAndHoldsIsTwoFixationsAndOneSaccade) {
    // 0 degrees until sample 60, 20 degrees from sample 61: the jump's sample moves at
    // 1200 deg/s, so the first fixation ends at 60 and the second starts at 62.
    const measured r = measure_model(
        gaze_model({{0, turned(0)}, {60, turned(0)}, {61, turned(20)}, {120, turned(20)}}));
    ASSERT_TRUE(r.metrics.gaze);
    const gaze_metrics& gaze = *r.metrics.gaze;
    EXPECT_EQ(gaze.samples, 121u);
    EXPECT_EQ(gaze.fixations, 2u);
    EXPECT_DOUBLE_EQ(gaze.fixation_time, 118.0 / rate);
    EXPECT_DOUBLE_EQ(*gaze.mean_fixation_duration, 59.0 / rate);
    EXPECT_EQ(gaze.longest_fixation, 1.0);
    EXPECT_EQ(gaze.saccades, 1u);
    EXPECT_NEAR(*gaze.mean_saccade_amplitude, 20.0, 1e-4);
    ASSERT_EQ(r.events.fixations.size(), 2u);
    EXPECT_EQ(r.events.fixations[0].when, grid_interval({0, 60, 0.0f, 1.0f, 1.0}));
    EXPECT_EQ(r.events.fixations[1].when, samples(62, 120));
    expect_direction(r.events.fixations[0].direction, turned(0));
    expect_direction(r.events.fixations[1].direction, turned(20));
    EXPECT_EQ(r.events.fixations[1].origin, (vec3{0.1f, 1.6f, -0.2f}));
    ASSERT_EQ(r.events.saccades.size(), 1u);
    EXPECT_EQ(r.events.saccades[0].when, samples(60, 62));
    EXPECT_NEAR(r.events.saccades[0].amplitude, 20.0, 1e-4);
}

TEST(Metrics, TheFirstSampleTakesTheVelocityOfTheSecond) {
    // Moving at 600 deg/s from the start, then holding from sample 10: sample 0 is not a
    // fixation sample although it has no predecessor.
    const measured r =
        measure_model(gaze_model({{0, turned(0)}, {10, turned(100)}, {120, turned(100)}}));
    ASSERT_EQ(r.events.fixations.size(), 1u);
    EXPECT_EQ(r.events.fixations[0].when.start_sample, 11u);
}

TEST(Metrics, CandidatesCloserThanTheMergeGapWithTheSameDirectionAreOneFixation) {
    // A one-sample excursion: fixation samples up to 30 and from 33, 3 samples (50 ms) apart.
    const measured r = measure_model(excursion_model(1, turned(0)));
    ASSERT_EQ(r.events.fixations.size(), 1u);
    EXPECT_EQ(r.events.fixations[0].when, samples(0, 120));
    expect_direction(r.events.fixations[0].direction, turned(0));
    EXPECT_EQ(r.metrics.gaze->saccades, 0u);
    // Three samples of excursion: 5 samples (83 ms) apart, two fixations.
    const measured apart = measure_model(excursion_model(3, turned(0)));
    ASSERT_EQ(apart.events.fixations.size(), 2u);
    EXPECT_EQ(apart.events.fixations[0].when, samples(0, 30));
    EXPECT_EQ(apart.events.fixations[1].when, samples(35, 120));
    EXPECT_EQ(apart.events.saccades[0].when, samples(30, 35));
    EXPECT_NEAR(apart.events.saccades[0].amplitude, 0.0, 1e-6);
}

TEST(Metrics, AGapOfExactlyTheMergeGapIsNotMerged) {
    // The candidates are 3 samples apart: 3 / 60 s, which is 0.05 in double.
    metrics_options options;
    options.merge_gap = 0.05;
    EXPECT_EQ(measure_model(excursion_model(1, turned(0)), options).events.fixations.size(), 2u);
    options.merge_gap = std::nextafter(0.05, 1.0);
    EXPECT_EQ(measure_model(excursion_model(1, turned(0)), options).events.fixations.size(), 1u);
}

TEST(Metrics, CandidatesWhoseDirectionsDifferByTheMergeAngleOrMoreAreNotMerged) {
    const measured close = measure_model(excursion_model(1, turned(0.49)));
    ASSERT_EQ(close.events.fixations.size(), 1u);
    // The mean of 31 samples at 0 and 88 at 0.49 degrees.
    expect_direction(close.events.fixations[0].direction, turned(0.49 * 88.0 / 119.0));
    const measured apart = measure_model(excursion_model(1, turned(0.51)));
    ASSERT_EQ(apart.events.fixations.size(), 2u);
    EXPECT_NEAR(apart.events.saccades[0].amplitude, 0.51, 1e-5);
    metrics_options options;
    options.merge_angle = 0.4;
    EXPECT_EQ(measure_model(excursion_model(1, turned(0.49)), options).events.fixations.size(), 2u);
}

TEST(Metrics, FixationsShorterThanTheMinimumAreDropped) {
    // 0 degrees to sample 30, 20 degrees from 31 to 31 + n, 40 degrees from 32 + n: the
    // middle fixation's samples are 32 .. 31 + n (the jump's sample moves), (n - 1) / 60 s.
    const auto hold = [](int n) {
        return gaze_model({{0, turned(0)},
                           {30, turned(0)},
                           {31, turned(20)},
                           {31 + n, turned(20)},
                           {32 + n, turned(40)},
                           {120, turned(40)}});
    };
    // 7 samples: 6 / 60 s = 0.1 s, not shorter than the minimum: kept.
    const measured kept = measure_model(hold(7));
    ASSERT_EQ(kept.events.fixations.size(), 3u);
    EXPECT_EQ(kept.events.fixations[1].when, samples(32, 38));
    EXPECT_EQ(kept.events.fixations[1].when.duration, 0.1);
    ASSERT_EQ(kept.events.saccades.size(), 2u);
    EXPECT_EQ(kept.events.saccades[1].when, samples(38, 40));
    // 6 samples: dropped; the saccade runs from the first fixation to the last.
    const measured dropped = measure_model(hold(6));
    ASSERT_EQ(dropped.events.fixations.size(), 2u);
    EXPECT_EQ(dropped.events.fixations[1].when, samples(39, 120));
    ASSERT_EQ(dropped.events.saccades.size(), 1u);
    EXPECT_EQ(dropped.events.saccades[0].when, samples(30, 39));
    EXPECT_NEAR(dropped.events.saccades[0].amplitude, 40.0, 1e-4);
    EXPECT_EQ(dropped.metrics.gaze->saccades, 1u);
}

TEST(Metrics, SamplesWithoutADirectionEndARunAndTheNextRunStartsAfresh) {
    // A zero direction (no gaze) at samples 41 and 42: fixation samples up to 40 and from 43,
    // 3 samples apart with the same direction: one fixation of 119 samples with a direction.
    const vec3 none{0.0f, 0.0f, 0.0f};
    const measured r = measure_model(gaze_model({{0, turned(5)},
                                                 {40, turned(5)},
                                                 {41, none},
                                                 {42, none},
                                                 {43, turned(5)},
                                                 {120, turned(5)}}));
    EXPECT_EQ(r.metrics.gaze->samples, 119u);
    ASSERT_EQ(r.events.fixations.size(), 1u);
    EXPECT_EQ(r.events.fixations[0].when, samples(0, 120));
    expect_direction(r.events.fixations[0].direction, turned(5));
}

TEST(Metrics, AThresholdOfZeroFindsNoFixation) {
    metrics_options options;
    options.fixation_velocity = 0.0;
    const measured r = measure_model(gaze_model({{0, turned(0)}, {120, turned(0)}}), options);
    EXPECT_EQ(r.metrics.gaze->fixations, 0u);
    EXPECT_FALSE(r.metrics.gaze->mean_fixation_duration);
    EXPECT_FALSE(r.metrics.gaze->mean_saccade_amplitude);
}

TEST(Metrics, ARecordingWithoutGazeHasNoGazeMetrics) {
    // v1.0 files hold no gaze; v1.1 files may leave the block out or hold it without keys.
    model v10 = small_model(shape::v10);
    EXPECT_FALSE(measure_model(v10).metrics.gaze);
    model no_block;
    no_block.blocks.gaze = false;
    set_tracked(no_block, side::left, {{0.0f, 1.0f}, {1.0f, 1.0f}});
    EXPECT_FALSE(measure_model(no_block).metrics.gaze);
    model no_keys;
    set_tracked(no_keys, side::left, {{0.0f, 1.0f}, {1.0f, 1.0f}});
    const measured r = measure_model(no_keys);
    EXPECT_FALSE(r.metrics.gaze);
    EXPECT_FALSE(r.metrics.head);
    EXPECT_TRUE(r.metrics.hands[0]);
    // Gaze keys that never give a direction: gaze metrics without a gaze sample.
    model origin_only;
    set_keys(origin_only, gaze_curve(ray_channel::origin_x), {{0.0f, 1.0f}, {1.0f, 1.0f}});
    const gaze_metrics gaze = *measure_model(origin_only).metrics.gaze;
    EXPECT_EQ(gaze.samples, 0u);
    EXPECT_EQ(gaze.fixations, 0u);
}

TEST(Metrics, ARecordingWithoutHandsHasNoHandMetrics) {
    model m;
    m.blocks.hands = false;
    set_keys(m, camera_curve(pose_channel::position_x), {{0.0f, 0.0f}, {1.0f, 1.0f}});
    const measured r = measure_model(m);
    EXPECT_FALSE(r.metrics.hands[0]);
    EXPECT_FALSE(r.metrics.hands[1]);
    EXPECT_TRUE(r.metrics.head);
}

TEST(Metrics, ARecordingWithoutKeysHasNoSamplesAndNoMetrics) {
    const measured r = measure_model(model{});
    EXPECT_EQ(r.metrics.samples, 0u);
    EXPECT_FALSE(r.metrics.start);
    EXPECT_FALSE(r.metrics.end);
    EXPECT_FALSE(r.metrics.hands[0] || r.metrics.hands[1] || r.metrics.head || r.metrics.gaze);
    EXPECT_TRUE(r.events.tracked_intervals.empty());
}

TEST(Metrics, OneSampleIsOneGridStepOfTrackingAndNoMotion) {
    model m;
    set_tracked(m, side::left, {{3.0f, 1.0f}});
    set_keys(m, hand_state_curve(hand_state::left_pinching), {{3.0f, 1.0f}});
    const measured r = measure_model(m);
    EXPECT_EQ(r.metrics.samples, 1u);
    EXPECT_EQ(r.metrics.start, 3.0f);
    EXPECT_EQ(r.metrics.end, 3.0f);
    const hand_metrics& left = *r.metrics.hands[0];
    EXPECT_EQ(left.coverage, 1.0);
    EXPECT_EQ(left.pinches, 1u);
    EXPECT_EQ(left.pinch_time, 1.0 / rate);
    EXPECT_EQ(left.motion.path_length, 0.0);
    EXPECT_EQ(left.motion.time, 0.0);
    EXPECT_FALSE(left.motion.mean_speed);
    EXPECT_FALSE(left.motion.peak_speed);
    ASSERT_EQ(r.events.tracked_intervals.size(), 1u);
    const grid_interval expected{0, 1, 3.0f, static_cast<float>(3.0 + 1.0 / rate), 1.0 / rate};
    EXPECT_EQ(r.events.tracked_intervals[0].when, expected);
}

TEST(Metrics, TheRateSetsTheGrid) {
    model m;
    set_tracked(m, side::left, {{0.0f, 1.0f}});
    move_joint(m, side::left, joint::palm, 0.0f, {0, 0, 0}, 2.0f, {0.6f, 0.8f, 0.0f});
    metrics_options options;
    options.rate = 10.0;
    const measured r = measure_model(m, options);
    EXPECT_EQ(r.metrics.samples, 21u);
    EXPECT_EQ(r.metrics.hands[0]->motion.time, 2.0);
    EXPECT_NEAR(*r.metrics.hands[0]->motion.peak_speed, 0.5, 1e-5);
}

// The June 2019 MRTK recordings (v1.0 bodies, the header prepended as tests/test_real_recordings
// does): real hand and head motion gives finite metrics everywhere; v1.0 has no gaze.
class JuneMetrics : public ::testing::TestWithParam<const char*> {};

TEST_P(JuneMetrics, RealRecordingsGiveFiniteMetrics) {
    const std::optional<bytes> file = june_recording(GetParam());
    if (!file) GTEST_SKIP() << GetParam() << " not found in " << recordings_dir();
    recording rec;
    ASSERT_FALSE(rec.open(view(*file)));
    recording_metrics m;
    ASSERT_FALSE(measure(rec, {}, m));
    EXPECT_GT(m.samples, 60u) << "more than a second at 60 Hz";
    EXPECT_EQ(m.nonfinite_samples, 0u);
    const auto finite_motion = [](const motion_metrics& motion) {
        EXPECT_TRUE(std::isfinite(motion.path_length));
        EXPECT_GE(motion.path_length, 0.0);
        EXPECT_TRUE(std::isfinite(motion.time));
        if (motion.mean_speed) {
            EXPECT_TRUE(std::isfinite(*motion.mean_speed));
        }
        if (motion.peak_speed) {
            EXPECT_TRUE(std::isfinite(*motion.peak_speed));
        }
    };
    ASSERT_TRUE(m.head.has_value());
    finite_motion(m.head->motion);
    EXPECT_TRUE(std::isfinite(m.head->rotation));
    for (const std::optional<hand_metrics>& h : m.hands) {
        ASSERT_TRUE(h.has_value());
        EXPECT_GE(h->coverage, 0.0);
        EXPECT_LE(h->coverage, 1.0);
        EXPECT_TRUE(std::isfinite(h->gap_time));
        EXPECT_TRUE(std::isfinite(h->pinch_time));
        finite_motion(h->motion);
    }
    EXPECT_FALSE(m.gaze.has_value()) << "a v1.0 file has no gaze curves";
}

INSTANTIATE_TEST_SUITE_P(June2019, JuneMetrics,
                         ::testing::Values("InputAnimation-20190606-161538.bin",
                                           "InputAnimation-20190607-120309.bin",
                                           "InputAnimation-20190607-121439.bin"));
