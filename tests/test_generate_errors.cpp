#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
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
    option_error expected;
    // A word the problem's message must mention, so that a user knows which option to fix.
    const char* mentions;
};

const bad_case bad_cases[] = {
    {"negative seconds", [](generate_options& o) { o.seconds = -1; }, option_error::bad_seconds,
     "seconds"},
    {"NaN seconds", [](generate_options& o) { o.seconds = std::nan(""); },
     option_error::bad_seconds, "seconds"},
    {"infinite seconds",
     [](generate_options& o) { o.seconds = std::numeric_limits<double>::infinity(); },
     option_error::bad_seconds, "seconds"},
    {"zero rate", [](generate_options& o) { o.rate = 0; }, option_error::bad_rate, "rate"},
    {"negative rate", [](generate_options& o) { o.rate = -60; }, option_error::bad_rate, "rate"},
    {"more samples than an Int32 key count",
     [](generate_options& o) {
         o.seconds = 1e9;
         o.rate = 60;
     },
     option_error::too_many_samples, "2^31"},
    {"steps below float32 resolution at the end",
     [](generate_options& o) {
         o.seconds = 100000;
         o.rate = 10000;
     },
     option_error::rate_too_high, "rate"},
    {"minor 2", [](generate_options& o) { o.minor = 2; }, option_error::bad_version, "minor"},
    {"layout 7", [](generate_options& o) { o.layout = static_cast<layout>(7); },
     option_error::bad_layout, "layout"},
    {"negative markers", [](generate_options& o) { o.markers = -1; }, option_error::bad_markers,
     "markers"},
    {"negative position tolerance", [](generate_options& o) { o.tolerances.position = -0.001; },
     option_error::bad_position_tolerance, "position"},
    {"NaN rotation tolerance",
     [](generate_options& o) { o.tolerances.rotation_degrees = std::nan(""); },
     option_error::bad_rotation_tolerance, "rotation"},
    {"negative partition", [](generate_options& o) { o.tolerances.partition = -1; },
     option_error::bad_partition, "partition"},
};

}  // namespace

TEST(GenerateErrors, DefaultOptionsHaveNoProblem) {
    EXPECT_FALSE(generate_options{}.problem());
}

TEST(GenerateErrors, EachUnusableOptionIsAnInvalidArgumentNamedInTheProblem) {
    for (const bad_case& c : bad_cases) {
        generate_options o;
        c.spoil(o);
        const std::error_code problem = o.problem();
        EXPECT_EQ(problem, c.expected) << c.what;
        EXPECT_EQ(problem, std::errc::invalid_argument) << c.what;
        EXPECT_EQ(problem.category().name(), std::string("inputanim.options")) << c.what;
        EXPECT_NE(problem.message().find(c.mentions), std::string::npos)
            << c.what << ": " << problem.message();
    }
}

TEST(GenerateErrors, UnusableOptionsAreReturnedBeforeAnythingIsProduced) {
    for (const bad_case& c : bad_cases) {
        generate_options o;
        c.spoil(o);
        model m;
        m.markers = std::vector<marker>{{1.0f, "kept"}};
        const model before = m;
        EXPECT_EQ(generate(o, m), c.expected) << c.what;
        EXPECT_EQ(m, before) << c.what << ": the model is left as it was";
        std::ostringstream out;
        EXPECT_EQ(generate_to(o, out), c.expected) << c.what;
        EXPECT_TRUE(out.str().empty()) << c.what;
        int calls = 0;
        EXPECT_EQ(generate_curves(o, [&](curve_id, const curve&) { ++calls; }), c.expected)
            << c.what;
        EXPECT_EQ(calls, 0) << c.what;
    }
}

TEST(GenerateErrors, TheLimitsThemselvesAreUsable) {
    generate_options o;
    o.seconds = 0;
    o.markers = 0;
    o.tolerances = {0, 0, 0};
    EXPECT_FALSE(o.problem());
    o.tolerances.rotation_degrees = 180;
    EXPECT_FALSE(o.problem());
    o.seconds = 100000;
    // Float32 times near 1e5 s are 1/128 s apart: 1 ms steps would repeat, 1/60 s ones do not.
    o.rate = 1000;
    EXPECT_EQ(o.problem(), option_error::rate_too_high);
    o.rate = 60;
    EXPECT_FALSE(o.problem());
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
