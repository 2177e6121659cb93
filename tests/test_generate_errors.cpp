#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "inputanim/generate.hpp"
#include "inputanim/inputanim.hpp"
#include "support/encoder_sinks.hpp"

using namespace inputanim;

namespace {

struct bad_case {
    const char* what;
    std::function<void(generate_options&)> spoil;
    // A word the problem must mention, so that a user knows which option to fix.
    const char* mentions;
};

const bad_case bad_cases[] = {
    {"negative seconds", [](generate_options& o) { o.seconds = -1; }, "seconds"},
    {"NaN seconds", [](generate_options& o) { o.seconds = std::nan(""); }, "seconds"},
    {"infinite seconds",
     [](generate_options& o) { o.seconds = std::numeric_limits<double>::infinity(); }, "seconds"},
    {"zero rate", [](generate_options& o) { o.rate = 0; }, "rate"},
    {"negative rate", [](generate_options& o) { o.rate = -60; }, "rate"},
    {"more samples than an Int32 key count",
     [](generate_options& o) {
         o.seconds = 1e9;
         o.rate = 60;
     },
     "2^31"},
    {"steps below float32 resolution at the end",
     [](generate_options& o) {
         o.seconds = 100000;
         o.rate = 10000;
     },
     "rate"},
    {"minor 2", [](generate_options& o) { o.minor = 2; }, "minor"},
    {"negative markers", [](generate_options& o) { o.markers = -1; }, "markers"},
    {"negative position tolerance", [](generate_options& o) { o.tolerances.position = -0.001; },
     "position"},
    {"NaN rotation tolerance",
     [](generate_options& o) { o.tolerances.rotation_degrees = std::nan(""); }, "rotation"},
    {"negative partition", [](generate_options& o) { o.tolerances.partition = -1; }, "partition"},
};

}  // namespace

TEST(GenerateErrors, DefaultOptionsHaveNoProblem) {
    EXPECT_TRUE(generate_options{}.problem().empty());
}

TEST(GenerateErrors, EachUnusableOptionIsNamedInTheProblem) {
    for (const bad_case& c : bad_cases) {
        generate_options o;
        c.spoil(o);
        const std::string problem(o.problem());
        EXPECT_NE(problem.find(c.mentions), std::string::npos) << c.what << ": " << problem;
    }
}

TEST(GenerateErrors, UnusableOptionsThrowBeforeAnythingIsProduced) {
    for (const bad_case& c : bad_cases) {
        generate_options o;
        c.spoil(o);
        EXPECT_THROW(generate(o), std::invalid_argument) << c.what;
        std::ostringstream out;
        EXPECT_THROW(generate_to(o, out), std::invalid_argument) << c.what;
        EXPECT_TRUE(out.str().empty()) << c.what;
        int calls = 0;
        EXPECT_THROW(generate_curves(o, [&](curve_id, const curve&) { ++calls; }),
                     std::invalid_argument)
            << c.what;
        EXPECT_EQ(calls, 0) << c.what;
    }
}

TEST(GenerateErrors, TheLimitsThemselvesAreUsable) {
    generate_options o;
    o.seconds = 0;
    o.markers = 0;
    o.tolerances = {0, 0, 0};
    EXPECT_TRUE(o.problem().empty());
    o.seconds = 100000;
    // Float32 times near 1e5 s are 1/128 s apart: 1 ms steps would repeat, 1/60 s ones do not.
    o.rate = 1000;
    EXPECT_FALSE(o.problem().empty());
    o.rate = 60;
    EXPECT_TRUE(o.problem().empty());
}

TEST(GenerateErrors, ASinkThatFailsIsReportedWithItsOwnCode) {
    generate_options o;
    o.seconds = 10;
    for (std::size_t accepted : {0, 1, 10}) {
        inputanim::testing::failing_sink sink(accepted);
        EXPECT_EQ(generate_to(o, sink), std::make_error_code(std::errc::no_space_on_device))
            << accepted;
        // The encoder stops at the first refusal.
        EXPECT_EQ(sink.calls, accepted + 1) << accepted;
    }
}

TEST(GenerateErrors, AStreamThatFailsIsAnIoErrorAndStaysFailed) {
    generate_options o;
    o.seconds = 10;
    std::ostringstream out;
    out.setstate(std::ios::badbit);
    EXPECT_EQ(generate_to(o, out), std::make_error_code(std::errc::io_error));
    EXPECT_TRUE(out.bad());
}
