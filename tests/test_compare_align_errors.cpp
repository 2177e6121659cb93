// What estimate_offset() refuses, each with its own code and the estimate left as it was: a take
// without a head, a head too still or too short to time, takes past the alignment's ceiling,
// motions that do not match at any offset, and options that cannot compare.
#include <gtest/gtest.h>

#include <limits>

#include "inputanim/compare.hpp"
#include "support/builders.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

model take(std::uint64_t seed = 1, double seconds = 20) {
    generate_options g;
    g.seconds = seconds;
    g.seed = seed;
    return generated_model(g);
}

// estimate_offset() of a and b under `o`: its error, the estimate left as it was (a sentinel),
// and compare() with `align` refused with the same error.
std::error_code refused(const model& a, const model& b, compare_options o = {}) {
    const bytes wa = write(a);
    const bytes wb = write(b);
    recording ra;
    recording rb;
    EXPECT_FALSE(ra.open(view(wa)));
    EXPECT_FALSE(rb.open(view(wb)));
    time_alignment found{.offset = 7.0, .confidence = 0.25, .overlap = 3.0};
    const std::error_code ec = estimate_offset(ra, rb, o, found);
    EXPECT_EQ(found.offset, 7.0);
    EXPECT_EQ(found.confidence, 0.25);
    o.align = true;
    comparison c;
    c.rows = 12345;
    EXPECT_EQ(compare(ra, rb, o, c), ec);
    EXPECT_EQ(c.rows, 12345u);
    return ec;
}

model still(model m) {
    for (const pose_channel ch :
         {pose_channel::position_x, pose_channel::position_y, pose_channel::position_z,
          pose_channel::rotation_x, pose_channel::rotation_y, pose_channel::rotation_z}) {
        m[camera_curve(ch)].keys = {{.time = 0.0f, .value = 0.0f}, {.time = 20.0f, .value = 0.0f}};
    }
    m[camera_curve(pose_channel::rotation_w)].keys = {{.time = 0.0f, .value = 1.0f},
                                                      {.time = 20.0f, .value = 1.0f}};
    return m;
}

}  // namespace

TEST(CompareAlignErrors, ATakeWithoutACameraBlockHasNoHeadToAlignBy) {
    model headless = take();
    headless.blocks.camera = false;
    EXPECT_EQ(refused(take(), headless), align_error::no_head);
    EXPECT_EQ(refused(headless, take()), align_error::no_head);
}

TEST(CompareAlignErrors, AStillHeadIsTooFlatToAlign) {
    EXPECT_EQ(refused(still(take()), still(take())), align_error::too_flat);
    // One still side is enough: a channel counts only where both takes move.
    EXPECT_EQ(refused(take(), still(take())), align_error::too_flat);
}

TEST(CompareAlignErrors, AHeadMovingLessThanTrackingJitterIsTooFlat) {
    model m = still(take());
    // 0.05 mm back and forth every 1/60 s: a speed of 3 mm/s, varying by 1.5 mm/s, below
    // align_flat_speed.
    std::vector<keyframe> keys;
    for (int i = 0; i <= 1200; ++i) {
        keys.push_back({.time = float(i) / 60.0f, .value = (i % 2) * 0.00005f});
    }
    m[camera_curve(pose_channel::position_x)].keys = keys;
    EXPECT_EQ(refused(m, m), align_error::too_flat);
}

TEST(CompareAlignErrors, ATakeOfFewerThanThreeRowsIsTooShort) {
    compare_options o;
    o.rate = 0.05;  // 20 s at one row every 20 s: two rows, one speed.
    EXPECT_EQ(refused(take(), take(), o), align_error::too_flat);
}

TEST(CompareAlignErrors, TakesPastTheCeilingAreRefusedBeforeARowIsEvaluated) {
    compare_options o;
    // 20 s at 60,000 rows a second: 1.2 million rows a side, 2.4 million together.
    o.rate = 60000.0;
    EXPECT_EQ(refused(take(), take(), o), align_error::too_long);
    // A side past the caller's row ceiling is the grid's refusal.
    o.rate = 60.0;
    o.max_rows = 100;
    EXPECT_EQ(refused(take(), take(), o), grid_error::too_many_rows);
}

TEST(CompareAlignErrors, TwoUnrelatedTakesMatchAtNoOffset) {
    EXPECT_EQ(refused(take(1), take(2)), align_error::no_match);
}

TEST(CompareAlignErrors, OptionsThatCannotCompareAreRefusedFirst) {
    compare_options o;
    o.offset = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(refused(take(), take(), o), option_error::bad_offset);
    o.offset = 0.0;
    o.rate = -1.0;
    EXPECT_EQ(refused(take(), take(), o), option_error::bad_rate);
}
