// When the streaming validator reports each error, and which: a structural error that more bytes
// cannot change at once (with the chunk that completes its field), a truncation and a content
// error only at finish(), max_bytes as soon as the fed total passes it. Under layout `automatic`
// an error is final only once the compact and the full walk have both failed.
#include <gtest/gtest.h>

#include <limits>
#include <ostream>
#include <string>

#include "support/builders.hpp"

namespace inputanim {
// Readable failures.
void PrintTo(const error& e, std::ostream* os) {
    *os << error_name(e.code) << " at " << e.offset << " (place " << static_cast<int>(e.place)
        << ", curve " << to_index(e.curve) << ", index " << e.index << ", limit "
        << limit_name(e.limit) << ")";
}
void PrintTo(stream_status s, std::ostream* os) {
    *os << (s == stream_status::more ? "more" : s == stream_status::error ? "error" : "done");
}
}  // namespace inputanim

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Feeds `b` one byte at a time: how many bytes had been fed when feed() first returned `error`,
// or 0 when it never did.
std::size_t bytes_until_error(const bytes& b, const validate_options& options = {}) {
    stream_validator v(options);
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (v.feed(view(b).subspan(i, 1)) == stream_status::error) return i + 1;
    }
    return 0;
}

report stream_whole(const bytes& b, const validate_options& options = {}) {
    stream_validator v(options);
    v.feed(view(b));
    return v.finish();
}

bytes v11_header(std::uint8_t camera, std::uint8_t hands, std::uint8_t gaze) {
    bytes b = small_file(shape::v11_compact);
    b.resize(19);
    b[16] = std::byte{camera};
    b[17] = std::byte{hands};
    b[18] = std::byte{gaze};
    return b;
}

// A v1.1 file with no blocks, then the given marker-list bytes.
bytes no_curves_then(std::initializer_list<std::uint8_t> tail) {
    bytes b = v11_header(0, 0, 0);
    for (std::uint8_t t : tail) b.push_back(std::byte{t});
    return b;
}

TEST(StreamValidatorErrors, BadMagicIsReportedWhenTheEighthByteArrives) {
    bytes b = small_file(shape::v10);
    b[0] = std::byte{0};
    EXPECT_EQ(bytes_until_error(b), 8u);
    const report r = stream_whole(b);
    EXPECT_EQ(r.error, (error{errc::bad_magic, 0, error_place::header}));
}

TEST(StreamValidatorErrors, UnsupportedVersionIsReportedWhenTheSixteenthByteArrives) {
    bytes b = small_file(shape::v10);
    put_i32(b, 12, 2);
    EXPECT_EQ(bytes_until_error(b), 16u);
    EXPECT_EQ(stream_whole(b).error, (error{errc::unsupported_version, 8, error_place::header}));
}

TEST(StreamValidatorErrors, BadFlagIsReportedOnceAllThreeFlagsArrived) {
    const bytes b = v11_header(0, 2, 1);
    EXPECT_EQ(bytes_until_error(b), 19u);
    EXPECT_EQ(stream_whole(b).error, (error{errc::bad_flag, 17, error_place::header}));
}

// The flags are one 3-byte field, as in validate: 17 bytes are `truncated` even with a bad flag.
TEST(StreamValidatorErrors, AShortHeaderIsTruncatedOnlyAtFinish) {
    const bytes v11 = v11_header(7, 0, 0);
    for (const auto& [size, offset] : {std::pair<std::size_t, std::uint64_t>{0, 0},
                                       {5, 0},
                                       {8, 8},
                                       {15, 8},
                                       {16, 16},
                                       {17, 16}}) {
        const bytes b(v11.begin(), v11.begin() + static_cast<std::ptrdiff_t>(size));
        stream_validator v;
        EXPECT_NE(v.feed(view(b)), stream_status::error) << size << " bytes";
        EXPECT_EQ(v.finish().error, (error{errc::truncated, offset, error_place::header}))
            << size << " bytes";
        EXPECT_EQ(v.status(), stream_status::error);
    }
}

TEST(StreamValidatorErrors, AStructuralErrorUnderAFixedLayoutIsReportedWithItsField) {
    const model m = small_model(shape::v10);
    bytes b = write(m);
    const std::size_t at = curve_offset(m, 5);
    put_i32(b, at + 4, 3);
    // The 12-byte curve header is one field: it is judged once whole.
    EXPECT_EQ(bytes_until_error(b), at + curve_header_size);
    EXPECT_EQ(stream_whole(b).error,
              (error{errc::bad_wrap_mode, at + 4, error_place::curve, curve_id(5)}));
}

// The full walk gets further than the compact one (which loses its way in the first curve's
// 28-byte keys), so the error is the full walk's: known once it fails, the compact walk having
// failed long before.
TEST(StreamValidatorErrors, UnderAutomaticADamagedFullLayoutFileFailsWhenTheFullWalkDoes) {
    const model m = small_model(shape::v11_full);
    bytes b = write(m);
    const std::size_t at = curve_offset(m, 30);
    put_i32(b, at + 8, -1);
    const report whole = validate(view(b));
    ASSERT_EQ(whole.error, (error{errc::negative_count, at + 8, error_place::curve, curve_id(30)}));
    EXPECT_EQ(whole.summary.layout, layout::full);
    EXPECT_EQ(bytes_until_error(b), at + curve_header_size);
    const report r = stream_whole(b);
    EXPECT_EQ(r.error, whole.error);
    EXPECT_EQ(r.summary.layout, layout::full);
    EXPECT_EQ(r.summary.curves, 30u);
}

// Here the full walk fails early and the compact walk late: nothing is final before the compact
// walk's error, which is then the verdict.
TEST(StreamValidatorErrors, UnderAutomaticNothingIsFinalWhileOneWalkGoesOn) {
    const model m = small_model(shape::v11_compact);
    bytes b = write(m);
    const std::size_t at = curve_offset(m, 300);
    put_i32(b, at, 5);
    const report whole = validate(view(b));
    ASSERT_EQ(whole.error, (error{errc::bad_wrap_mode, at, error_place::curve, curve_id(300)}));
    ASSERT_TRUE(validate(view(b), {level::full, layout_choice::full, {}}).error.offset < at);
    EXPECT_EQ(bytes_until_error(b), at + curve_header_size);
    EXPECT_EQ(stream_whole(b).error, whole.error);
}

TEST(StreamValidatorErrors, AContentErrorIsReportedOnlyAtFinish) {
    model m = small_model(shape::v10);
    m[camera_curve(pose_channel::position_y)].keys[2].value =
        std::numeric_limits<float>::quiet_NaN();
    const bytes b = write(m);
    stream_validator v;
    EXPECT_EQ(v.feed(view(b)), stream_status::done);
    const report& r = v.finish();
    EXPECT_EQ(r.error.code, errc::non_finite);
    EXPECT_EQ(r.error.curve, camera_curve(pose_channel::position_y));
    EXPECT_EQ(r.error.index, 2);
    EXPECT_EQ(r.error, validate(view(b)).error);
}

TEST(StreamValidatorErrors, AStructuralErrorAfterAContentErrorWins) {
    model m = small_model(shape::v10);
    m[camera_curve(pose_channel::position_x)].keys[1].time = 5.0f;
    m[joint_curve(side::right, joint::palm, pose_channel::position_x)].post_wrap = 16;
    const bytes b = write(m);
    const report r = stream_whole(b);
    EXPECT_EQ(r.error.code, errc::bad_wrap_mode);
    EXPECT_EQ(r.error.curve, joint_curve(side::right, joint::palm, pose_channel::position_x));
    EXPECT_EQ(r.error, validate(view(b)).error);
}

struct case_ {
    std::string what;
    bytes data;
    error expected;
};

bytes first(const bytes& b, std::size_t n) {
    return bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
}

TEST(StreamValidatorErrors, ATruncationIsReportedOnlyAtFinish) {
    const model m = small_model(shape::v10, false);
    const bytes v10 = write(m);
    const case_ cases[] = {
        {"no curve header", first(v10, 16), {errc::truncated, 16, error_place::curve, curve_id(0)}},
        {"inside a curve header",
         first(v10, 21),
         {errc::truncated, 16, error_place::curve, curve_id(0)}},
        {"inside a curve's keyframes",
         first(v10, 16 + 12 + 30),
         {errc::truncated, 28, error_place::curve, curve_id(0), 0}},
        {"inside the marker count",
         no_curves_then({1, 0}),
         {errc::truncated, 19, error_place::markers}},
        {"before a marker's time",
         no_curves_then({1, 0, 0, 0}),
         {errc::truncated, 23, error_place::markers, {}, 0}},
        {"before a name's length",
         no_curves_then({1, 0, 0, 0, 0, 0, 0, 0}),
         {errc::truncated, 27, error_place::markers, {}, 0}},
        {"inside a name's length",
         no_curves_then({1, 0, 0, 0, 0, 0, 0, 0, 0x83}),
         {errc::truncated, 27, error_place::markers, {}, 0}},
        {"inside a name",
         no_curves_then({2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 'a'}),
         {errc::truncated, 33, error_place::markers, {}, 1}},
    };
    for (const case_& c : cases) {
        stream_validator v;
        EXPECT_EQ(v.feed(view(c.data)), stream_status::more) << c.what;
        EXPECT_EQ(v.finish().error, c.expected) << c.what;
        EXPECT_EQ(v.result().error, validate(view(c.data)).error) << c.what;
    }
}

TEST(StreamValidatorErrors, MarkerListErrorsAreReportedWithTheirField) {
    const case_ cases[] = {
        {"negative marker count",
         no_curves_then({0xff, 0xff, 0xff, 0xff}),
         {errc::negative_count, 19, error_place::markers}},
        {"a sixth length byte",
         no_curves_then({1, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80}),
         {errc::bad_marker, 27, error_place::markers, {}, 0}},
        {"a length above 2^31-1",
         no_curves_then({1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}),
         {errc::bad_marker, 27, error_place::markers, {}, 0}},
    };
    for (const case_& c : cases) {
        EXPECT_EQ(bytes_until_error(c.data), c.data.size()) << c.what;
        EXPECT_EQ(stream_whole(c.data).error, c.expected) << c.what;
        EXPECT_EQ(validate(view(c.data)).error, c.expected) << c.what;
    }
}

TEST(StreamValidatorErrors, AByteAfterTheMarkerListIsTrailingAtOnce) {
    for (shape s : all_shapes) {
        bytes b = small_file(s);
        const std::size_t size = b.size();
        b.push_back(std::byte{0});
        b.push_back(std::byte{0});
        EXPECT_EQ(bytes_until_error(b), size + 1) << shape_name(s);
        const report r = stream_whole(b);
        EXPECT_EQ(r.error, (error{errc::trailing_bytes, size, error_place::trailer}))
            << shape_name(s);
        EXPECT_EQ(r.error, validate(view(b)).error) << shape_name(s);
    }
}

TEST(StreamValidatorErrors, KeyframeLimitsAreReportedWithTheCurveHeader) {
    const model m = small_model(shape::v10);
    const bytes b = write(m);
    validate_options options;
    options.limits.max_keyframes_per_curve = 3;
    EXPECT_EQ(bytes_until_error(b, options), 16 + curve_header_size);
    EXPECT_EQ(stream_whole(b, options).error,
              (error{errc::limit_exceeded, 24, error_place::curve, curve_id(0), -1,
                     limit_kind::keyframes_per_curve}));
    options.limits = {};
    options.limits.max_total_keyframes = 5;
    const std::size_t second = curve_offset(m, 1);
    EXPECT_EQ(bytes_until_error(b, options), second + curve_header_size);
    EXPECT_EQ(stream_whole(b, options).error,
              (error{errc::limit_exceeded, second + 8, error_place::curve, curve_id(1), -1,
                     limit_kind::total_keyframes}));
}

// The ceiling comes before anything else, as in validate: an upload is cut as soon as it passes.
TEST(StreamValidatorErrors, MaxBytesIsReportedAsSoonAsTheFedTotalPassesIt) {
    const bytes b = small_file(shape::v11_compact);
    validate_options options;
    options.limits.max_bytes = 1000;
    stream_validator v(options);
    EXPECT_EQ(v.feed(view(b).first(600)), stream_status::more);
    EXPECT_EQ(v.feed(view(b).subspan(600, 400)), stream_status::more);
    EXPECT_EQ(v.feed(view(b).subspan(1000, 1)), stream_status::error);
    const error expected{errc::limit_exceeded, 1000, error_place::none, {}, -1, limit_kind::bytes};
    EXPECT_EQ(v.result().error, expected);
    EXPECT_EQ(v.bytes_consumed(), 1001u);
    EXPECT_EQ(v.finish().error, expected);
    EXPECT_EQ(validate(view(b), options).error, expected);
}

TEST(StreamValidatorErrors, BytesFedAfterTheVerdictAreIgnored) {
    bytes b = small_file(shape::v10);
    put_i32(b, 16, 3);
    stream_validator v;
    EXPECT_EQ(v.feed(view(b).first(100)), stream_status::error);
    const error e = v.result().error;
    EXPECT_EQ(e.code, errc::bad_wrap_mode);
    EXPECT_EQ(v.feed(view(b).subspan(100)), stream_status::error);
    EXPECT_EQ(v.bytes_consumed(), 100u);
    EXPECT_EQ(v.finish().error, e);
    EXPECT_EQ(v.finish().summary.bytes, 100u);

    const bytes good = small_file(shape::v10);
    stream_validator finished;
    finished.feed(view(good));
    ASSERT_TRUE(finished.finish().valid());
    EXPECT_EQ(finished.feed(view(good)), stream_status::done);
    EXPECT_EQ(finished.bytes_consumed(), good.size());
    EXPECT_TRUE(finished.result().valid());
}

// A name whose bad byte arrives in a later chunk than its first byte is still reported at the
// name's first byte.
TEST(StreamValidatorErrors, BadUtf8SplitAcrossChunksIsReportedAtTheNamesFirstByte) {
    model m = small_model(shape::v11_compact);
    (*m.markers)[1].name = "abc\xe2\x82\x28";
    const bytes b = write(m);
    const report whole = validate(view(b));
    ASSERT_EQ(whole.error.code, errc::bad_utf8);
    ASSERT_EQ(whole.error.index, 1);
    for (std::size_t split = whole.error.offset; split < b.size(); ++split) {
        stream_validator v;
        v.feed(view(b).first(split));
        v.feed(view(b).subspan(split));
        EXPECT_EQ(v.finish().error, whole.error) << "split at " << split;
    }
}

}  // namespace
