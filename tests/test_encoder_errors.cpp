// The encoder's errors: every call out of file order is std::errc::invalid_argument, a count or
// name length beyond the format's Int32 is the encoder_error that says which (each equivalent to
// std::errc::value_too_large), a sink's failure is the sink's own code; the first error stays,
// and nothing more reaches the sink after it.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

#include "support/builders.hpp"
#include "support/encoder_sinks.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

const std::error_code misuse = std::make_error_code(std::errc::invalid_argument);
const std::error_code no_space = std::make_error_code(std::errc::no_space_on_device);

// Gaze only: six float curves, few enough to name one by one.
constexpr block_flags gaze_only{false, false, true};

curve_id gaze_curve_at(std::size_t i) {
    return curve_at(gaze_only, i);
}

// An encoder with the header written and the first `curves` gaze curves written empty.
void start(encoder& e, std::size_t curves) {
    ASSERT_FALSE(e.write_header(1, 1, layout::compact, gaze_only));
    for (std::size_t i = 0; i < curves; ++i) {
        ASSERT_FALSE(e.begin_curve(gaze_curve_at(i), 8, 8, 0));
    }
}

TEST(EncoderErrors, ACurveBeforeTheHeaderIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    EXPECT_EQ(e.begin_curve(gaze_curve_at(0), 8, 8, 0), misuse);
}

TEST(EncoderErrors, ASecondHeaderIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, 0);
    EXPECT_EQ(e.write_header(1, 1, layout::compact, gaze_only), misuse);
}

TEST(EncoderErrors, FinishingBeforeTheLastCurveIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only) - 1);
    EXPECT_EQ(e.finish(), misuse);
    EXPECT_TRUE(sink.bytes.empty());
}

TEST(EncoderErrors, ACurveAfterTheLastIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    EXPECT_EQ(e.begin_curve(gaze_curve_at(0), 8, 8, 0), misuse);
}

TEST(EncoderErrors, ACurveOtherThanTheNextIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, 1);
    EXPECT_EQ(e.begin_curve(gaze_curve_at(2), 8, 8, 0), misuse);
}

TEST(EncoderErrors, ACurveOfABlockTheHeaderLeftOutIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, 0);
    EXPECT_EQ(e.begin_curve(camera_curve(pose_channel::position_x), 8, 8, 0), misuse);
}

TEST(EncoderErrors, TheNextCurveBeforeAllKeysOfThisOneIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, 0);
    ASSERT_FALSE(e.begin_curve(gaze_curve_at(0), 8, 8, 2));
    ASSERT_FALSE(e.write_key(keyframe{}));
    EXPECT_EQ(e.begin_curve(gaze_curve_at(1), 8, 8, 0), misuse);
}

TEST(EncoderErrors, FinishingWithKeysMissingIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only) - 1);
    ASSERT_FALSE(e.begin_curve(gaze_curve_at(curve_count(gaze_only) - 1), 8, 8, 1));
    EXPECT_EQ(e.finish(), misuse);
}

TEST(EncoderErrors, MoreKeysThanAnnouncedAreMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, 0);
    ASSERT_FALSE(e.begin_curve(gaze_curve_at(0), 8, 8, 2));
    const std::vector<keyframe> three(3);
    EXPECT_EQ(e.write_keys(three), misuse);
}

TEST(EncoderErrors, MoreEncodedKeysThanAnnouncedAreMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, 0);
    ASSERT_FALSE(e.begin_curve(gaze_curve_at(0), 8, 8, 2));
    const std::vector<std::byte> three(3 * 8);
    EXPECT_EQ(e.write_encoded_keys(three, 3), misuse);
}

TEST(EncoderErrors, EncodedKeysOfAnotherLayoutOrCountAreMisuse) {
    for (const std::size_t size : {std::size_t{2 * 28}, std::size_t{8 + 1}, std::size_t{0}}) {
        recording_sink sink;
        encoder e(sink);
        start(e, 0);
        // A compact curve's keys are 8 bytes each: two keys are 16 bytes, nothing else.
        ASSERT_FALSE(e.begin_curve(gaze_curve_at(0), 8, 8, 2));
        const std::vector<std::byte> keys(size);
        EXPECT_EQ(e.write_encoded_keys(keys, 2), misuse) << size;
    }
}

TEST(EncoderErrors, EncodedKeysBeforeAnyCurveAreMisuse) {
    recording_sink sink;
    encoder e(sink);
    const std::vector<std::byte> none;
    EXPECT_EQ(e.write_encoded_keys(none, 0), misuse);
}

TEST(EncoderErrors, AKeyBeforeAnyCurveIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, 0);
    EXPECT_EQ(e.write_key(keyframe{}), misuse);
}

TEST(EncoderErrors, MarkersBeforeTheLastCurveAreMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, 2);
    EXPECT_EQ(e.begin_markers(0), misuse);
}

TEST(EncoderErrors, AMarkerWithoutAMarkerListIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    EXPECT_EQ(e.write_marker(0.0f, "m"), misuse);
}

TEST(EncoderErrors, MoreMarkersThanAnnouncedAreMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    ASSERT_FALSE(e.begin_markers(1));
    ASSERT_FALSE(e.write_marker(0.0f, "one"));
    EXPECT_EQ(e.write_marker(1.0f, "two"), misuse);
}

TEST(EncoderErrors, FinishingWithMarkersMissingIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    ASSERT_FALSE(e.begin_markers(2));
    ASSERT_FALSE(e.write_marker(0.0f, "one"));
    EXPECT_EQ(e.finish(), misuse);
}

TEST(EncoderErrors, MoreNameBytesThanAnnouncedAreMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    ASSERT_FALSE(e.begin_markers(1));
    ASSERT_FALSE(e.begin_marker(0.0f, 2));
    ASSERT_FALSE(e.write_marker_name(std::as_bytes(std::span("a", 1))));
    EXPECT_EQ(e.write_marker_name(std::as_bytes(std::span("bc", 2))), misuse);
}

TEST(EncoderErrors, TheNextMarkerOrFinishBeforeANameIsWholeIsMisuse) {
    for (const bool next : {true, false}) {
        recording_sink sink;
        encoder e(sink);
        start(e, curve_count(gaze_only));
        ASSERT_FALSE(e.begin_markers(2));
        ASSERT_FALSE(e.begin_marker(0.0f, 3));
        ASSERT_FALSE(e.write_marker_name(std::as_bytes(std::span("ab", 2))));
        EXPECT_EQ(next ? e.begin_marker(1.0f, 0) : e.finish(), misuse) << next;
    }
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    ASSERT_FALSE(e.begin_markers(1));
    ASSERT_FALSE(e.begin_marker(0.0f, 1));
    EXPECT_EQ(e.finish(), misuse);
}

TEST(EncoderErrors, NameBytesWithoutAMarkerAreMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    EXPECT_EQ(e.write_marker_name(std::as_bytes(std::span("a", 1))), misuse);
}

TEST(EncoderErrors, ASecondMarkerListIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    ASSERT_FALSE(e.begin_markers(0));
    EXPECT_EQ(e.begin_markers(0), misuse);
}

TEST(EncoderErrors, AnythingAfterFinishIsMisuse) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    ASSERT_FALSE(e.finish());
    const std::size_t written = sink.bytes.size();
    EXPECT_EQ(e.finish(), misuse);
    EXPECT_EQ(sink.bytes.size(), written);
}

TEST(EncoderErrors, AKeyCountBeyondInt32IsTooLarge) {
    recording_sink sink;
    encoder e(sink);
    start(e, 0);
    const auto beyond = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) + 1;
    const std::error_code ec = e.begin_curve(gaze_curve_at(0), 8, 8, beyond);
    EXPECT_EQ(ec, encoder_error::too_many_keys);
    EXPECT_EQ(ec, std::errc::value_too_large);
}

TEST(EncoderErrors, AMarkerCountBeyondInt32IsTooLarge) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    const auto beyond = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) + 1;
    const std::error_code ec = e.begin_markers(beyond);
    EXPECT_EQ(ec, encoder_error::too_many_markers);
    EXPECT_EQ(ec, std::errc::value_too_large);
}

TEST(EncoderErrors, AMarkerNameBeyondInt32IsTooLong) {
    recording_sink sink;
    encoder e(sink);
    start(e, curve_count(gaze_only));
    ASSERT_FALSE(e.begin_markers(1));
    const std::size_t written = sink.bytes.size();
    const auto beyond = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()) + 1;
    const std::error_code ec = e.begin_marker(0.0f, beyond);
    EXPECT_EQ(ec, encoder_error::name_too_long);
    EXPECT_EQ(ec, std::errc::value_too_large);
    EXPECT_EQ(e.finish(), encoder_error::name_too_long);
    EXPECT_EQ(sink.bytes.size(), written);
}

TEST(EncoderErrors, TheFirstErrorStaysAndLaterCallsWriteNothing) {
    recording_sink sink;
    encoder e(sink);
    start(e, 1);
    ASSERT_EQ(e.begin_markers(0), misuse);
    // Calls that would be in order now still return the first error.
    EXPECT_EQ(e.begin_curve(gaze_curve_at(1), 8, 8, 0), misuse);
    EXPECT_EQ(e.status(), misuse);
    EXPECT_EQ(e.finish(), misuse);
    EXPECT_TRUE(sink.bytes.empty());
}

TEST(EncoderErrors, ASinkThatFailsAtFinishIsReportedByFinish) {
    failing_sink sink(0);
    encoder e(sink);
    start(e, curve_count(gaze_only));
    EXPECT_EQ(e.finish(), no_space);
    EXPECT_EQ(sink.calls, 1u);
}

TEST(EncoderErrors, ASinkThatFailsPartWayStopsTheEncoderAndIsReported) {
    model m = small_model(shape::v11_full);
    m.markers = std::vector<marker>{{0.0f, std::string(50000, 'x')}};
    failing_sink sink(1);
    encoder e(sink);
    e.write_header(m.major, m.minor, m.layout, m.blocks);
    for (std::size_t i = 0; i < curve_count(m.blocks); ++i) {
        e.write_curve(curve_at(m.blocks, i), m[curve_at(m.blocks, i)]);
    }
    // The long name fills the encoder's buffer more than once: the second handing-over fails.
    EXPECT_EQ(e.write_markers(*m.markers), no_space);
    EXPECT_EQ(e.finish(), no_space);
    EXPECT_EQ(e.status(), no_space);
    EXPECT_EQ(sink.calls, 2u);
    EXPECT_LT(sink.taken, write(m).size());
}

}  // namespace
