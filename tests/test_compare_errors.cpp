// What compare() refuses: options that cannot compare (each its own code) and a grid past the
// caller's ceiling, each leaving the report as it was.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "inputanim/compare.hpp"
#include "support/builders.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

struct pair_of_files {
    pair_of_files() : data(generated()) { EXPECT_FALSE(rec.open(view(data))); }
    bytes data;
    recording rec;
};

// The default options with one field changed.
template <class F>
compare_options with(F&& change) {
    compare_options o;
    change(o);
    return o;
}

// compare() of a file with itself under `o`: its error, the report left as it was (a sentinel).
std::error_code refused(const compare_options& o) {
    pair_of_files f;
    comparison c;
    c.rows = 12345;
    const std::error_code ec = compare(f.rec, f.rec, o, c);
    EXPECT_EQ(c.rows, 12345u);
    EXPECT_TRUE(c.motion.empty());
    return ec;
}

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST(CompareErrors, ARateNotAboveZeroOrNotFiniteIsBadRate) {
    for (const double rate : {0.0, -1.0, not_a_number, std::numeric_limits<double>::infinity()}) {
        EXPECT_EQ(refused(with([&](compare_options& o) { o.rate = rate; })), option_error::bad_rate)
            << rate;
    }
}

TEST(CompareErrors, AWindowNotFiniteOrReversedIsRefusedAsTheWindowsProblem) {
    EXPECT_EQ(refused(with([](compare_options& o) {
                  o.window = {2.0, 1.0};
              })),
              option_error::window_reversed);
    EXPECT_EQ(refused(with([](compare_options& o) { o.window.from = not_a_number; })),
              option_error::window_not_finite);
}

TEST(CompareErrors, EachToleranceNegativeOrNotFiniteHasItsOwnCode) {
    EXPECT_EQ(refused(with([](compare_options& o) { o.tolerance.position = -0.001; })),
              option_error::bad_position_tolerance);
    EXPECT_EQ(refused(with([](compare_options& o) { o.tolerance.position = not_a_number; })),
              option_error::bad_position_tolerance);
    EXPECT_EQ(refused(with([](compare_options& o) { o.tolerance.angle = -1.0; })),
              option_error::bad_rotation_tolerance);
    EXPECT_EQ(refused(with([](compare_options& o) { o.tolerance.angle = 180.5; })),
              option_error::bad_rotation_tolerance);
    EXPECT_EQ(refused(with([](compare_options& o) { o.tolerance.time = -0.02; })),
              option_error::bad_time_tolerance);
    EXPECT_EQ(refused(with([](compare_options& o) { o.tolerance.time = not_a_number; })),
              option_error::bad_time_tolerance);
}

TEST(CompareErrors, AGridWithMoreRowsThanTheCeilingIsRefusedBeforeAnyIsCompared) {
    // 2 s at 60 Hz: 121 rows.
    EXPECT_EQ(refused(with([](compare_options& o) { o.max_rows = 120; })),
              grid_error::too_many_rows);
    pair_of_files f;
    comparison c;
    EXPECT_FALSE(compare(f.rec, f.rec, with([](compare_options& o) { o.max_rows = 121; }), c));
    EXPECT_EQ(c.rows, 121u);
}

TEST(CompareErrors, ARateWhoseStepIsNotFiniteIsTheGridsBadRate) {
    EXPECT_EQ(refused(with([](compare_options& o) { o.rate = 1e-320; })), grid_error::bad_rate);
}
