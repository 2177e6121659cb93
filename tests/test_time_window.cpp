// The one check of a time window (inputanim/time_window.hpp): which windows are sound, the code
// of each that is not, and its words with the names each caller gives the ends.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "inputanim/error.hpp"
#include "inputanim/time_window.hpp"

using namespace inputanim;

namespace {

constexpr double float_max = std::numeric_limits<float>::max();
constexpr double inf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(TimeWindow, OpenEndsAndOrderedEndsAreSound) {
    for (const time_window w :
         {time_window{}, time_window{1.0, std::nullopt}, time_window{std::nullopt, -1.0},
          time_window{1.0, 1.0}, time_window{-float_max, float_max}}) {
        EXPECT_FALSE(w.problem());
        EXPECT_EQ(w.problem_text("--from", "--until"), "");
    }
}

TEST(TimeWindow, AnEndNoFloatCanHoldIsNotFinite) {
    // Finite as a double, past the largest float: a key time would be infinite.
    const double past = std::nextafter(float_max, inf);
    EXPECT_TRUE(time_window::holds(float_max));
    EXPECT_TRUE(time_window::holds(-float_max));
    EXPECT_FALSE(time_window::holds(past));
    EXPECT_FALSE(time_window::holds(-inf));
    EXPECT_FALSE(time_window::holds(std::nan("")));
    for (const time_window w : {time_window{inf, std::nullopt}, time_window{std::nullopt, -past},
                                time_window{std::nan(""), 1.0}, time_window{2.0, inf}}) {
        EXPECT_EQ(w.problem(), option_error::window_not_finite);
        EXPECT_EQ(w.problem(), std::errc::invalid_argument);
    }
}

TEST(TimeWindow, FromAfterUntilIsReversed) {
    const time_window w{2.0, 1.5};
    EXPECT_EQ(w.problem(), option_error::window_reversed);
    EXPECT_EQ(w.problem_text("--from", "--until"), "--from 2 is after --until 1.5");
    EXPECT_EQ(w.problem_text("start", "stop"), "start 2 is after stop 1.5");
}

TEST(TimeWindow, TheWordsNameTheFirstEndThatIsNotATime) {
    const std::string tail =
        " is not a time a recording can hold (a finite float, at most 3.4028234663852886e+38 in "
        "magnitude)";
    EXPECT_EQ((time_window{inf, -inf}).problem_text("--from", "--to"), "--from inf" + tail);
    EXPECT_EQ((time_window{1.0, -1e39}).problem_text("--from", "--to-time"),
              "--to-time -1e+39" + tail);
    // Not finite wins over reversed: the order of the ends means nothing until both are times.
    EXPECT_EQ((time_window{5.0, -inf}).problem(), option_error::window_not_finite);
}
