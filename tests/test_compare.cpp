// The comparison of two recordings on generated pairs with known changes: each change is reported
// as exactly that change (curve, time, size) and nothing else, and pairs that differ only in
// layout or by MRTK's thinning compare equal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string_view>
#include <vector>

#include "inputanim/compare.hpp"
#include "support/builders.hpp"
#include "support/converted.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

constexpr double step = 1.0 / 60.0;

// 8 s sampled at 60 Hz and kept whole (a key every 1/60 s on every float curve), so that a key
// lies on every grid point. With seed 1 both hands are tracked from 0 to 6.5 s and the left hand
// pinches from about 3 s.
model raw_model(int markers = 0) {
    generate_options g;
    g.seconds = 8;
    g.raw = true;
    g.markers = markers;
    return generated_model(g);
}

compare_options with_keys() {
    compare_options o;
    o.keys = true;
    return o;
}

comparison compare_bytes(const bytes& a, const bytes& b, const compare_options& o = {}) {
    recording ra;
    recording rb;
    EXPECT_FALSE(ra.open(view(a)));
    EXPECT_FALSE(rb.open(view(b)));
    comparison c;
    const std::error_code ec = compare(ra, rb, o, c);
    EXPECT_FALSE(ec) << ec.message();
    return c;
}

comparison compare_models(const model& a, const model& b, const compare_options& o = {}) {
    return compare_bytes(write(a), write(b), o);
}

const motion_difference& pose_of(const comparison& c, std::string_view name) {
    const auto it = std::find_if(c.motion.begin(), c.motion.end(),
                                 [&](const motion_difference& m) { return m.name == name; });
    EXPECT_NE(it, c.motion.end()) << name;
    return *it;
}

std::vector<std::string_view> exceeded(const comparison& c) {
    std::vector<std::string_view> names;
    for (const motion_difference& m : c.motion) {
        if (comparison::exceeded(m)) names.push_back(m.name);
    }
    return names;
}

double max_error(const comparison& c, error_kind kind) {
    double worst = 0.0;
    for (const motion_difference& m : c.motion) {
        if (m.kind == kind) worst = std::max(worst, m.max);
    }
    return worst;
}

}  // namespace

TEST(Compare, ARecordingEqualsItselfWithEveryPoseComparedAndNoErrorAtAll) {
    const model m = raw_model(3);
    const comparison c = compare_models(m, m, with_keys());
    EXPECT_TRUE(c.same());
    // Head and gaze (2 poses each) and 27 joints x 2 poses x 2 hands.
    EXPECT_EQ(c.motion.size(), 2u + 2u + 108u);
    EXPECT_EQ(c.rows, 8u * 60u + 1u);
    EXPECT_EQ(c.from, 0.0f);
    EXPECT_EQ(c.to, 8.0f);
    for (const motion_difference& d : c.motion) EXPECT_EQ(d.max, 0.0) << d.name;
    EXPECT_EQ(pose_of(c, "camera.position").samples, c.rows);
    EXPECT_EQ(c.key_curves, 0u);
    EXPECT_EQ(c.marker_count, 0u);
    EXPECT_EQ(c.state_count, 0u);
}

TEST(Compare, FilesThatDifferOnlyInLayoutAreTheSameKeyForKey) {
    generate_options g;
    g.seconds = 5;
    g.markers = 2;
    const bytes compact = write(generated_model(g));
    convert_options to_full;
    to_full.layout = layout::full;
    const bytes full = convert_bytes(compact, to_full).data;
    const comparison c = compare_bytes(compact, full, with_keys());
    EXPECT_TRUE(c.same());
    EXPECT_EQ(c.a.layout, layout::compact);
    EXPECT_EQ(c.b.layout, layout::full);
    EXPECT_EQ(c.key_count_curves, 0u);
    EXPECT_EQ(c.key_curves, 0u);
    EXPECT_EQ(max_error(c, error_kind::position), 0.0);
    EXPECT_EQ(max_error(c, error_kind::rotation), 0.0);
}

TEST(Compare, AFileThinnedWithMrtksTolerancesIsTheSameEvenAtThoseTolerances) {
    const bytes raw = write(raw_model());
    convert_options thin;
    thin.thin = thinning{};
    const bytes thinned = convert_bytes(raw, thin).data;
    compare_options at_mrtk;
    at_mrtk.tolerance.position = 0.001;
    at_mrtk.tolerance.angle = 0.02;
    const comparison c = compare_bytes(raw, thinned, at_mrtk);
    EXPECT_TRUE(c.same()) << (exceeded(c).empty() ? "" : exceeded(c).front());
    // The thinning removed keys and moved the motion, up to its tolerances.
    EXPECT_GT(c.key_count_curves, 0u);
    EXPECT_GT(max_error(c, error_kind::position), 0.0005);
    EXPECT_LE(max_error(c, error_kind::position), 0.001 + 1e-6);
    EXPECT_LE(max_error(c, error_kind::rotation), 0.02 + 1e-4);
    // --keys sees that the keys are not the same.
    EXPECT_FALSE(compare_bytes(raw, thinned, with_keys()).same());
}

TEST(Compare, AJointMoved2MillimetresFrom3SecondsIsThatJointFromThatTimeBy2Millimetres) {
    const model a = raw_model();
    model b = a;
    for (keyframe& k :
         b[joint_curve(side::left, joint::index_tip, pose_channel::position_x)].keys) {
        if (k.time >= 3.0f) k.value += 0.002f;
    }
    const comparison c = compare_models(a, b);
    EXPECT_FALSE(c.same());
    ASSERT_EQ(exceeded(c), std::vector<std::string_view>{"hand.left.joint.IndexTip.position"});
    const motion_difference& d = pose_of(c, "hand.left.joint.IndexTip.position");
    EXPECT_EQ(d.kind, error_kind::position);
    EXPECT_EQ(d.first_exceeded, 3.0f);
    EXPECT_NEAR(d.first_exceeded_error, 0.002, 1e-6);
    EXPECT_NEAR(d.max, 0.002, 1e-6);
    EXPECT_GE(d.max_time, 3.0f);
    EXPECT_EQ(pose_of(c, "hand.left.joint.IndexTip.rotation").max, 0.0);
    EXPECT_EQ(c.state_count, 0u);
}

TEST(Compare, AHeadTurnedBy1DegreeIsTheHeadsRotationBy1DegreeFromTheStart) {
    const model a = raw_model();
    model b = a;
    // q' = q * r, r a turn of 1 degree about y: the rotation between q and q' is r's whatever q.
    const double half = 0.5 * std::numbers::pi / 180.0;
    const double ry = std::sin(half);
    const double rw = std::cos(half);
    auto& x = b[camera_curve(pose_channel::rotation_x)].keys;
    auto& y = b[camera_curve(pose_channel::rotation_y)].keys;
    auto& z = b[camera_curve(pose_channel::rotation_z)].keys;
    auto& w = b[camera_curve(pose_channel::rotation_w)].keys;
    ASSERT_EQ(x.size(), w.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double qx = x[i].value, qy = y[i].value, qz = z[i].value, qw = w[i].value;
        x[i].value = static_cast<float>(qx * rw - qz * ry);
        y[i].value = static_cast<float>(qy * rw + qw * ry);
        z[i].value = static_cast<float>(qz * rw + qx * ry);
        w[i].value = static_cast<float>(qw * rw - qy * ry);
    }
    const comparison c = compare_models(a, b);
    ASSERT_EQ(exceeded(c), std::vector<std::string_view>{"camera.rotation"});
    const motion_difference& d = pose_of(c, "camera.rotation");
    EXPECT_EQ(d.kind, error_kind::rotation);
    EXPECT_EQ(d.first_exceeded, 0.0f);
    EXPECT_NEAR(d.max, 1.0, 1e-4);
    EXPECT_NEAR(d.rms, 1.0, 1e-4);
    EXPECT_EQ(d.exceeded_samples, c.rows);
    EXPECT_EQ(pose_of(c, "camera.position").max, 0.0);
}

TEST(Compare, ARotationAndItsNegationAreTheSameRotation) {
    const model a = raw_model();
    model b = a;
    for (std::size_t ch = 3; ch < 7; ++ch) {
        for (keyframe& k : b[camera_curve(pose_channel(ch))].keys) k.value = -k.value;
    }
    const comparison c = compare_models(a, b);
    EXPECT_TRUE(c.same());
    EXPECT_EQ(pose_of(c, "camera.rotation").max, 0.0);
}

TEST(Compare, APinch50MillisecondsLongerIsThatPinchMovedAtItsEnd) {
    const model a = raw_model();
    model b = a;
    auto& keys = b[hand_state_curve(hand_state::left_pinching)].keys;
    // The end of the first pinch: the first key at 0 after a key at 1.
    std::size_t end = 1;
    while (end < keys.size() && !(keys[end - 1].value == 1.0f && keys[end].value == 0.0f)) ++end;
    ASSERT_LT(end + 1, keys.size());
    const float old_end = keys[end].time;
    keys[end].time = old_end + 0.05f;
    ASSERT_LT(keys[end].time, keys[end + 1].time);
    const comparison c = compare_models(a, b);
    EXPECT_FALSE(c.same());
    EXPECT_TRUE(exceeded(c).empty());
    ASSERT_EQ(c.state_count, 1u);
    const state_difference& d = c.state.front();
    EXPECT_EQ(d.curve, hand_state_curve(hand_state::left_pinching));
    EXPECT_EQ(d.change, interval_change::moved);
    ASSERT_TRUE(d.a && d.b);
    EXPECT_EQ(d.a->start, d.b->start);
    // Ends on the grid: the first row at or after the key.
    EXPECT_NEAR(d.a->end, old_end, step);
    EXPECT_NEAR(d.b->end - d.a->end, 0.05, step);
    EXPECT_EQ(d.a_intervals, 1u);
    EXPECT_EQ(d.b_intervals, 1u);
}

TEST(Compare, AnIntervalEndMovedByLessThanTheTimeToleranceIsTheSame) {
    const model a = raw_model();
    model b = a;
    auto& keys = b[hand_state_curve(hand_state::left_pinching)].keys;
    std::size_t end = 1;
    while (end < keys.size() && !(keys[end - 1].value == 1.0f && keys[end].value == 0.0f)) ++end;
    ASSERT_LT(end, keys.size());
    // Half a grid step later: on the grid the end moves by at most one step (1/60 s), under the
    // default 0.02 s.
    keys[end].time += static_cast<float>(step / 2);
    EXPECT_TRUE(compare_models(a, b).same());
}

TEST(Compare, APinchOnlyOneSideHasIsLostOrGained) {
    const model a = raw_model();
    model b = a;
    for (keyframe& k : b[hand_state_curve(hand_state::left_pinching)].keys) k.value = 0.0f;
    const comparison lost = compare_models(a, b);
    ASSERT_GE(lost.state.size(), 1u);
    EXPECT_EQ(lost.state.front().change, interval_change::lost);
    EXPECT_FALSE(lost.state.front().b.has_value());
    const comparison gained = compare_models(b, a);
    ASSERT_GE(gained.state.size(), 1u);
    EXPECT_EQ(gained.state.front().change, interval_change::gained);
    EXPECT_FALSE(gained.state.front().a.has_value());
}

TEST(Compare, AHandTrackedOnOneSideOnlyIsATrackingDifferenceNotAJointError) {
    const model a = raw_model();
    model b = a;
    // The left hand untracked in B from 2 s: its joints keep their keys (played, not compared).
    auto& tracked = b[hand_state_curve(hand_state::left_tracked)].keys;
    std::vector<keyframe> keys;
    for (const keyframe& k : tracked) {
        if (k.time < 2.0f) keys.push_back(k);
    }
    keys.push_back({.time = 2.0f, .value = 0.0f});
    tracked = keys;
    for (keyframe& k : b[joint_curve(side::left, joint::palm, pose_channel::position_y)].keys) {
        if (k.time >= 2.0f) k.value += 1.0f;
    }
    const comparison c = compare_models(a, b);
    EXPECT_FALSE(c.same());
    EXPECT_TRUE(exceeded(c).empty());
    EXPECT_GT(c.tracking_mismatch_rows[0], 0u);
    EXPECT_EQ(c.tracking_mismatch_rows[1], 0u);
    EXPECT_EQ(pose_of(c, "hand.left.joint.Palm.position").max, 0.0);
    EXPECT_LT(pose_of(c, "hand.left.joint.Palm.position").samples,
              pose_of(c, "hand.right.joint.Palm.position").samples);
    ASSERT_GE(c.state_count, 1u);
    EXPECT_EQ(c.state.front().curve, hand_state_curve(hand_state::left_tracked));
}

TEST(Compare, AMarkerRenamedIsRenamedWithBothNamesAtItsTime) {
    const model a = raw_model(3);
    model b = a;
    (*b.markers)[1].name = "another name";
    const comparison c = compare_models(a, b);
    EXPECT_FALSE(c.same());
    ASSERT_EQ(c.marker_count, 1u);
    const marker_difference& d = c.markers.front();
    EXPECT_EQ(d.change, marker_change::renamed);
    EXPECT_EQ(d.a, (*a.markers)[1]);
    EXPECT_EQ(d.b, (*b.markers)[1]);
    EXPECT_TRUE(exceeded(c).empty());
}

TEST(Compare, MarkersMovedRemovedAndAddedAreSaidAsSuch) {
    const model a = raw_model(3);
    model b = a;
    (*b.markers)[0].time += 1.0f;
    b.markers->erase(b.markers->begin() + 2);
    b.markers->push_back({7.5f, "new"});
    const comparison c = compare_models(a, b);
    std::vector<marker_change> changes;
    for (const marker_difference& d : c.markers) changes.push_back(d.change);
    EXPECT_EQ(changes, (std::vector<marker_change>{marker_change::moved, marker_change::removed,
                                                   marker_change::added}));
    EXPECT_EQ(c.markers[1].a, (*a.markers)[2]);
    EXPECT_EQ(c.markers[2].b, (marker{7.5f, "new"}));
}

TEST(Compare, KeysThatDifferInOneBitAreTheFirstFieldThatDiffers) {
    generate_options g;
    g.seconds = 4;
    g.layout = layout::full;
    const model a = generated_model(g);
    model b = a;
    const curve_id id = camera_curve(pose_channel::position_z);
    b[id].keys[2].in_tangent = std::nextafter(b[id].keys[2].in_tangent, 1.0f);
    const comparison c = compare_models(a, b, with_keys());
    EXPECT_FALSE(c.same());
    ASSERT_EQ(c.key_curves, 1u);
    ASSERT_EQ(c.keys.size(), 1u);
    EXPECT_EQ(c.keys[0].curve, id);
    EXPECT_EQ(c.keys[0].field, "in_tangent");
    EXPECT_EQ(c.keys[0].key, 2u);
    // Without --keys the motion is within the tolerances.
    EXPECT_TRUE(compare_models(a, b).same());
}

TEST(Compare, FilesWithOtherBlocksDifferAndOnlyTheSharedPosesAreCompared) {
    generate_options g;
    g.seconds = 2;
    const model a = generated_model(g);
    g.blocks.gaze = false;
    const model b = generated_model(g);
    const comparison c = compare_models(a, b);
    EXPECT_TRUE(c.blocks_differ);
    EXPECT_FALSE(c.same());
    EXPECT_EQ(c.motion.size(), 112u - 2u);
}

TEST(Compare, ListsHoldAtMostMaxListedEntriesAndTheCountsCountAll) {
    const model a = raw_model(3);
    model b = a;
    for (marker& m : *b.markers) m.name += " changed";
    compare_options o;
    o.max_listed = 1;
    const comparison c = compare_models(a, b, o);
    EXPECT_EQ(c.marker_count, 3u);
    EXPECT_EQ(c.markers.size(), 1u);
}

TEST(Compare, EachRowsLargestErrorsAreHandedOverRowByRowWhileTheReportKeepsNoneOfThem) {
    const model a = raw_model();
    model b = a;
    for (keyframe& k :
         b[joint_curve(side::right, joint::thumb_tip, pose_channel::position_z)].keys) {
        if (k.time >= 3.0f) k.value += 0.005f;
    }
    const bytes wa = write(a);
    const bytes wb = write(b);
    recording ra;
    recording rb;
    ASSERT_FALSE(ra.open(view(wa)));
    ASSERT_FALSE(rb.open(view(wb)));
    std::vector<row_errors> rows;
    comparison c;
    ASSERT_FALSE(compare(ra, rb, {}, c, [&](const row_errors& r) { rows.push_back(r); }));
    ASSERT_EQ(rows.size(), c.rows);
    // The thumb's 5 mm is the row's largest error where both sides track the right hand from
    // 3 s; every other row compares unchanged poses.
    const motion_difference& thumb = pose_of(c, "hand.right.joint.ThumbTip.position");
    std::uint64_t moved = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_NEAR(rows[i].time, i * step, 1e-4);
        EXPECT_EQ(rows[i].angle, 0.0) << rows[i].time;
        if (rows[i].position == 0.0) continue;
        ++moved;
        EXPECT_GE(rows[i].time, 3.0f);
        EXPECT_NEAR(rows[i].position, 0.005, 1e-6) << rows[i].time;
    }
    EXPECT_GT(moved, 60u);
    EXPECT_EQ(moved, thumb.exceeded_samples);
    EXPECT_EQ(thumb.first_exceeded, 3.0f);
}

TEST(Compare, ARowWithoutAnyPoseOfAKindHasNoErrorOfThatKind) {
    // Hands alone, never tracked: no pose is compared on any row.
    model m = raw_model();
    m.blocks = {.camera = false, .hands = true, .gaze = false};
    for (const hand_state s : {hand_state::left_tracked, hand_state::right_tracked}) {
        for (keyframe& k : m[hand_state_curve(s)].keys) k.value = 0.0f;
    }
    const bytes file = write(m);
    recording r;
    ASSERT_FALSE(r.open(view(file)));
    std::vector<row_errors> rows;
    comparison c;
    ASSERT_FALSE(compare(r, r, {}, c, [&](const row_errors& e) { rows.push_back(e); }));
    ASSERT_FALSE(rows.empty());
    for (const row_errors& e : rows) {
        EXPECT_TRUE(std::isnan(e.position));
        EXPECT_TRUE(std::isnan(e.angle));
    }
}
