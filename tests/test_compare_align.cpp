// The offset between two takes of one motion, estimated from their heads: a take started later
// or earlier is found to the nearest grid step with a correlation near 1, and compared after the
// shift it is the same motion; a known offset can be given instead.
#include <gtest/gtest.h>

#include <cmath>
#include <string_view>

#include "inputanim/compare.hpp"
#include "support/builders.hpp"
#include "support/converted.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

constexpr double step = 1.0 / 60.0;

// 20 s of generated motion (thinned as `gen` writes it) with three markers.
model take() {
    generate_options g;
    g.seconds = 20;
    g.markers = 3;
    return generated_model(g);
}

// The same take started `seconds` later: every key and marker time moved.
model started_later(model m, float seconds) {
    for (curve& c : m.curves) {
        for (keyframe& k : c.keys) k.time += seconds;
    }
    for (marker& mk : *m.markers) mk.time += seconds;
    return m;
}

struct opened_pair {
    opened_pair(const model& a, const model& b) : wa(write(a)), wb(write(b)) {
        EXPECT_FALSE(ra.open(view(wa)));
        EXPECT_FALSE(rb.open(view(wb)));
    }
    bytes wa;
    bytes wb;
    recording ra;
    recording rb;
};

compare_options aligned() {
    compare_options o;
    o.align = true;
    return o;
}

comparison compared(const opened_pair& p, const compare_options& o) {
    comparison c;
    const std::error_code ec = compare(p.ra, p.rb, o, c);
    EXPECT_FALSE(ec) << ec.message();
    return c;
}

}  // namespace

TEST(CompareAlign, ATakeStarted400MillisecondsLaterIsFoundAndThenTheSame) {
    const model a = take();
    const opened_pair p(a, started_later(a, 0.4f));
    EXPECT_FALSE(compared(p, {}).same());

    time_alignment found;
    ASSERT_FALSE(estimate_offset(p.ra, p.rb, {}, found));
    EXPECT_NEAR(found.offset, 0.4, step);
    EXPECT_GT(found.confidence, 0.99);
    EXPECT_GT(found.overlap, 19.0);

    const comparison c = compared(p, aligned());
    ASSERT_TRUE(c.alignment.has_value());
    EXPECT_EQ(c.alignment->offset, found.offset);
    EXPECT_EQ(c.alignment->confidence, found.confidence);
    EXPECT_EQ(c.offset, found.offset);
    EXPECT_TRUE(c.same());
    // Every time of the report is A's: the grid spans A's take, markers pair at A's times.
    EXPECT_EQ(c.from, 0.0f);
    EXPECT_EQ(c.marker_count, 0u);
    EXPECT_EQ(c.state_count, 0u);
}

TEST(CompareAlign, ATakeStartedEarlierHasANegativeOffset) {
    const model a = take();
    const opened_pair p(started_later(a, 1.25f), a);
    time_alignment found;
    ASSERT_FALSE(estimate_offset(p.ra, p.rb, {}, found));
    EXPECT_NEAR(found.offset, -1.25, step);
    EXPECT_GT(found.confidence, 0.99);
    EXPECT_TRUE(compared(p, aligned()).same());
}

TEST(CompareAlign, TheOffsetIsFoundToTheNearestStepOfTheRateAsked) {
    const model a = take();
    const opened_pair p(a, started_later(a, 0.4f));
    compare_options coarse;
    coarse.rate = 10.0;
    time_alignment found;
    ASSERT_FALSE(estimate_offset(p.ra, p.rb, coarse, found));
    EXPECT_NEAR(found.offset, 0.4, 0.1);
}

TEST(CompareAlign, AKnownOffsetComparesTheShiftedTakeWithoutEstimating) {
    const model a = take();
    const opened_pair p(a, started_later(a, 0.4f));
    compare_options o;
    o.offset = 0.4;
    const comparison c = compared(p, o);
    EXPECT_TRUE(c.same());
    EXPECT_EQ(c.offset, 0.4);
    EXPECT_FALSE(c.alignment.has_value());
    // The wrong offset shows the shift as motion.
    o.offset = -0.4;
    EXPECT_FALSE(compared(p, o).same());
}

TEST(CompareAlign, AChangeAfterAligningIsStillReportedAtAsTime) {
    const model a = take();
    model b = started_later(a, 0.4f);
    for (keyframe& k :
         b[joint_curve(side::left, joint::index_tip, pose_channel::position_x)].keys) {
        if (k.time >= 3.4f) k.value += 0.002f;
    }
    const opened_pair p(a, b);
    const comparison c = compared(p, aligned());
    ASSERT_TRUE(c.alignment.has_value());
    EXPECT_NEAR(c.alignment->offset, 0.4, step);
    EXPECT_FALSE(c.same());
    for (const motion_difference& m : c.motion) {
        if (m.name != "hand.left.joint.IndexTip.position") {
            EXPECT_FALSE(comparison::exceeded(m)) << m.name;
            continue;
        }
        ASSERT_TRUE(m.first_exceeded.has_value());
        // The first key at or after 3.4 s of B is A's first at or after 3 s; its value is
        // reached one thinned key earlier on a ramp, so the first row past 1 mm is near 3 s.
        EXPECT_NEAR(*m.first_exceeded, 3.0, 0.5);
        EXPECT_NEAR(m.max, 0.002, 1e-5);
    }
}

TEST(CompareAlign, AHeadThatOnlyTurnsIsAlignedByItsTurning) {
    // As in MRTK's June 2019 recordings, whose camera position is constant 0.
    model a = take();
    for (const pose_channel ch :
         {pose_channel::position_x, pose_channel::position_y, pose_channel::position_z}) {
        a[camera_curve(ch)].keys = {{.time = 0.0f, .value = 0.0f}, {.time = 20.0f, .value = 0.0f}};
    }
    const opened_pair p(a, started_later(a, 0.4f));
    time_alignment found;
    ASSERT_FALSE(estimate_offset(p.ra, p.rb, {}, found));
    EXPECT_NEAR(found.offset, 0.4, step);
    EXPECT_GT(found.confidence, 0.99);
}

TEST(CompareAlign, ATakeWithTrackingJitterIsAlignedWithALowerConfidence) {
    const model a = take();
    model b = started_later(a, 0.4f);
    // +-2 mm on every head position key, alternating: tracking noise, not motion.
    for (const pose_channel ch :
         {pose_channel::position_x, pose_channel::position_y, pose_channel::position_z}) {
        float sign = 1.0f;
        for (keyframe& k : b[camera_curve(ch)].keys) {
            k.value += sign * 0.002f;
            sign = -sign;
        }
    }
    const opened_pair p(a, b);
    time_alignment found;
    ASSERT_FALSE(estimate_offset(p.ra, p.rb, {}, found));
    EXPECT_NEAR(found.offset, 0.4, step);
    EXPECT_GT(found.confidence, min_align_confidence);
    EXPECT_LT(found.confidence, 0.999);
}

TEST(CompareAlign, ShiftedTakesAreComparedWhereBothHoldTheSameMoments) {
    // B is A without its first 2 s, its times moved back to 0 (`convert --from 2
    // --shift-to-zero`): aligned, the 2 s only A holds are not compared (B would hold its first
    // pose through them).
    model a = take();
    a.markers->clear();
    const bytes wa = write(a);
    convert_options cut;
    cut.from = 2.0f;
    cut.shift_to_zero = true;
    const bytes wb = convert_bytes(wa, cut).data;
    recording ra;
    recording rb;
    ASSERT_FALSE(ra.open(view(wa)));
    ASSERT_FALSE(rb.open(view(wb)));
    comparison c;
    ASSERT_FALSE(compare(ra, rb, aligned(), c));
    ASSERT_TRUE(c.alignment.has_value());
    EXPECT_NEAR(c.offset, -2.0, step);
    EXPECT_NEAR(*c.from, 2.0, step);
    EXPECT_EQ(c.to, 20.0f);
    EXPECT_TRUE(c.same());
    // Unshifted, the first 2 s of A are compared with B's and differ.
    comparison unshifted;
    ASSERT_FALSE(compare(ra, rb, {}, unshifted));
    EXPECT_FALSE(unshifted.same());
}
