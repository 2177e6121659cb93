// What convert() refuses and how it fails: options it does not allow (nothing written) and a sink
// that stops taking bytes (its code, and nothing after it).
#include <gtest/gtest.h>

#include <limits>
#include <string_view>

#include "inputanim/convert.hpp"
#include "support/builders.hpp"
#include "support/encoder_sinks.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

convert_options bad_options(int which) {
    convert_options o;
    constexpr float inf = std::numeric_limits<float>::infinity();
    switch (which) {
        case 0:
            o.minor = 2;
            break;
        case 1:
            o.layout = static_cast<layout>(7);
            break;
        case 2:
            o.from = std::numeric_limits<float>::quiet_NaN();
            break;
        case 3:
            o.to = inf;
            break;
        case 4:
            o.from = 2.0f;
            o.to = 1.0f;
            break;
        case 5:
            o.thin = thinning{-0.001, 0.02, 32};
            break;
        case 6:
            o.thin = thinning{0.001, 181.0, 32};
            break;
        default:
            o.thin = thinning{0.001, 0.02, -1};
            break;
    }
    return o;
}

}  // namespace

TEST(ConvertErrors, OptionsItDoesNotAllowAreInvalidArgumentAndWriteNothing) {
    const bytes source = small_file(shape::v11_compact);
    recording rec;
    ASSERT_FALSE(rec.open(view(source)));
    const std::string_view expected[] = {"the target version must be 1.0 or 1.1",
                                         "unknown layout",
                                         "the window's ends must be finite times",
                                         "the window's ends must be finite times",
                                         "the window starts after it ends",
                                         "the position tolerance must be a finite number >= 0",
                                         "the rotation tolerance must be between 0 and 180 degrees",
                                         "the partition must be >= 0"};
    for (int which = 0; which < 8; ++which) {
        const convert_options o = bad_options(which);
        EXPECT_EQ(convert_options_problem(o), expected[which]);
        recording_sink sink;
        const convert_result r = convert(rec, sink, o);
        EXPECT_EQ(r.error, std::make_error_code(std::errc::invalid_argument)) << which;
        EXPECT_EQ(sink.calls, 0u) << which;
        EXPECT_EQ(r.keys_written, 0u) << which;
    }
    EXPECT_EQ(convert_options_problem(convert_options{}), "");
}

TEST(ConvertErrors, ASinkThatFailsStopsTheConversionWithItsCode) {
    model m = small_model(shape::v11_full);
    // Enough keys for several of the encoder's pieces.
    for (int i = 0; i < 5000; ++i) {
        m[camera_curve(pose_channel::position_x)].keys.push_back(
            keyframe{1.0f + static_cast<float>(i), 0.0f});
    }
    const bytes source = write(m);
    recording rec;
    ASSERT_FALSE(rec.open(view(source)));
    for (const bool thin : {false, true}) {
        for (std::size_t accepted : {0u, 1u, 3u}) {
            failing_sink sink(accepted);
            convert_options o;
            o.layout = layout::full;
            if (thin) o.thin = thinning{};
            const convert_result r = convert(rec, sink, o);
            EXPECT_EQ(r.error, std::make_error_code(std::errc::no_space_on_device))
                << accepted << (thin ? " thinned" : "");
            // The encoder stops at its first failure: one refused call, nothing after it.
            EXPECT_EQ(sink.calls, accepted + 1);
        }
    }
}

TEST(ConvertErrors, ASinkThatFailsOnlyAtTheEndIsStillReported) {
    const bytes source = small_file(shape::v10);
    recording rec;
    ASSERT_FALSE(rec.open(view(source)));
    // The whole small file fits the encoder's buffer: its one write comes from finish().
    failing_sink sink(0);
    const convert_result r = convert(rec, sink, convert_options{});
    EXPECT_EQ(r.error, std::make_error_code(std::errc::no_space_on_device));
    EXPECT_EQ(sink.calls, 1u);
}
