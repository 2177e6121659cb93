// Specification of every structural error (FORMAT.md section 6 and docs/VALIDATION.md): each
// test damages one field of a hand-made file and asserts the code, the offset, where it sits and
// the keyframe or marker index.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Runs the reader to its end; the file must end in an error, which is returned.
error read_error(const bytes& b, layout_choice choice = layout_choice::automatic) {
    reader r(view(b), read_options{choice});
    item it = r.next();
    while (it == item::curve || it == item::marker) it = r.next();
    EXPECT_EQ(it, item::error) << "the file was expected to be damaged";
    EXPECT_EQ(r.next(), item::error) << "an error repeats";
    return r.error();
}

bool reads_to_end(const bytes& b, layout_choice choice = layout_choice::automatic) {
    reader r(view(b), read_options{choice});
    item it = r.next();
    while (it == item::curve || it == item::marker) it = r.next();
    return it == item::end;
}

void expect_header_error(const error& e, errc code, std::uint64_t offset) {
    EXPECT_EQ(e.code, code) << e.message();
    EXPECT_EQ(e.offset, offset) << e.message();
    EXPECT_EQ(e.place, error_place::header);
    EXPECT_EQ(e.path(), "");
    EXPECT_EQ(e.index, -1);
    EXPECT_EQ(e.limit, limit_kind::none);
}

void expect_curve_error(const error& e, errc code, std::uint64_t offset, curve_id id,
                        std::int64_t index = -1) {
    EXPECT_EQ(e.code, code) << e.message();
    EXPECT_EQ(e.offset, offset) << e.message();
    EXPECT_EQ(e.place, error_place::curve);
    EXPECT_EQ(e.curve, id);
    EXPECT_EQ(e.path(), curve_path(id));
    EXPECT_EQ(e.index, index);
    EXPECT_EQ(e.limit, limit_kind::none);
}

void expect_marker_error(const error& e, errc code, std::uint64_t offset, std::int64_t index) {
    EXPECT_EQ(e.code, code) << e.message();
    EXPECT_EQ(e.offset, offset) << e.message();
    EXPECT_EQ(e.place, error_place::markers);
    EXPECT_EQ(e.path(), "markers");
    EXPECT_EQ(e.index, index);
    EXPECT_EQ(e.limit, limit_kind::none);
}

bytes prefix(const bytes& b, std::size_t n) {
    return bytes(b.begin(), b.begin() + n);
}

bytes v11_header(std::uint8_t camera, std::uint8_t hands, std::uint8_t gaze) {
    bytes b = write(empty_model(shape::v11_compact, false));
    b.resize(19);
    b[16] = std::byte{camera};
    b[17] = std::byte{hands};
    b[18] = std::byte{gaze};
    return b;
}

void append(bytes& b, std::initializer_list<std::uint8_t> raw) {
    for (std::uint8_t v : raw) b.push_back(std::byte{v});
}

void append_i32(bytes& b, std::int32_t v) {
    b.resize(b.size() + 4);
    put_i32(b, b.size() - 4, v);
}

// A v1.1 file with no blocks: the marker list starts at 19.
bytes no_curves_file() {
    return v11_header(0, 0, 0);
}

const curve_id camera_px = camera_curve(pose_channel::position_x);
const curve_id camera_py = camera_curve(pose_channel::position_y);

}  // namespace

TEST(Truncated, FilesShorterThanTheMagicAreTruncatedAtZero) {
    const bytes full = small_file(shape::v11_compact);
    for (std::size_t n = 0; n < 8; ++n) {
        SCOPED_TRACE(n);
        expect_header_error(read_error(prefix(full, n)), errc::truncated, 0);
    }
    expect_header_error(read_error(bytes{std::byte{'x'}, std::byte{'y'}}), errc::truncated, 0);
}

TEST(Truncated, FilesWithTheMagicButNoFullVersionAreTruncatedAtEight) {
    const bytes full = small_file(shape::v11_compact);
    for (std::size_t n = 8; n < 16; ++n) {
        SCOPED_TRACE(n);
        expect_header_error(read_error(prefix(full, n)), errc::truncated, 8);
    }
}

TEST(Truncated, V11FilesWithoutAllThreeFlagsAreTruncatedAtSixteen) {
    const bytes full = small_file(shape::v11_compact);
    for (std::size_t n = 16; n < 19; ++n) {
        SCOPED_TRACE(n);
        expect_header_error(read_error(prefix(full, n)), errc::truncated, 16);
    }
    bytes bad_first_flag = prefix(full, 17);
    bad_first_flag[16] = std::byte{7};
    expect_header_error(read_error(bad_first_flag), errc::truncated, 16);
}

TEST(Truncated, V10FileOfJustTheHeaderIsTruncatedAtTheFirstCurveHeader) {
    const bytes b = prefix(small_file(shape::v10), 16);
    expect_curve_error(read_error(b), errc::truncated, 16, camera_px);
}

TEST(Truncated, CurveHeaderWithFewerThanTwelveBytesIsTruncatedAtItsStart) {
    const model m = small_model(shape::v11_full);
    const bytes b = write(m);
    const std::size_t at = curve_offset(m, 9);
    for (std::size_t cut = 0; cut < 12; ++cut) {
        SCOPED_TRACE(cut);
        expect_curve_error(read_error(prefix(b, at + cut), layout_choice::full), errc::truncated,
                           at, curve_at(m.blocks, 9));
    }
}

TEST(Truncated, KeyframesThatDoNotFitAreTruncatedAtTheFirstKeyframe) {
    for (shape s : all_shapes) {
        SCOPED_TRACE(shape_name(s));
        const model m = small_model(s);
        const bytes b = write(m);
        const std::size_t keys = curve_offset(m, 1) + 12;
        const std::size_t key_bytes = s == shape::v11_compact ? 32 : 112;
        const layout_choice choice =
            s == shape::v11_compact ? layout_choice::compact : layout_choice::full;
        for (std::size_t cut : {std::size_t{0}, std::size_t{1}, key_bytes - 1}) {
            expect_curve_error(read_error(prefix(b, keys + cut), choice), errc::truncated, keys,
                               camera_py, 0);
        }
    }
}

TEST(Truncated, MarkerCountOfOneToThreeBytesIsTruncatedAtTheList) {
    for (std::size_t extra = 1; extra < 4; ++extra) {
        bytes b = no_curves_file();
        b.resize(19 + extra);
        expect_marker_error(read_error(b), errc::truncated, 19, -1);
    }
}

TEST(Truncated, MarkerTimeOfFewerThanFourBytesIsTruncatedAtTheTime) {
    for (std::size_t extra = 0; extra < 4; ++extra) {
        bytes b = no_curves_file();
        append_i32(b, 2);
        append_i32(b, 0);
        append(b, {1, 'a'});
        b.resize(b.size() + extra);
        expect_marker_error(read_error(b), errc::truncated, 29, 1);
    }
}

TEST(Truncated, FileEndingInsideTheNameLengthIsTruncatedAtTheLength) {
    bytes b = no_curves_file();
    append_i32(b, 1);
    append_i32(b, 0);
    expect_marker_error(read_error(b), errc::truncated, 27, 0);
    for (std::size_t continued = 1; continued < 5; ++continued) {
        bytes c = b;
        for (std::size_t i = 0; i < continued; ++i) append(c, {0x80});
        SCOPED_TRACE(continued);
        expect_marker_error(read_error(c), errc::truncated, 27, 0);
    }
}

TEST(Truncated, NameThatDoesNotFitIsTruncatedAtItsFirstByte) {
    bytes b = no_curves_file();
    append_i32(b, 1);
    append_i32(b, 0);
    append(b, {5, 'a', 'b', 'c'});
    expect_marker_error(read_error(b), errc::truncated, 28, 0);

    bytes two_byte_length = no_curves_file();
    append_i32(two_byte_length, 1);
    append_i32(two_byte_length, 0);
    append(two_byte_length, {0x80, 0x01});
    two_byte_length.resize(two_byte_length.size() + 127);
    expect_marker_error(read_error(two_byte_length), errc::truncated, 29, 0);
}

TEST(BadMagic, AnyChangedMagicByteIsBadMagicAtZero) {
    const bytes good = small_file(shape::v11_compact);
    for (std::size_t i = 0; i < 8; ++i) {
        bytes b = good;
        b[i] ^= std::byte{0x01};
        SCOPED_TRACE(i);
        expect_header_error(read_error(b), errc::bad_magic, 0);
    }
    expect_header_error(read_error(bytes(8, std::byte{0})), errc::bad_magic, 0);
}

TEST(BadMagic, WinsOverAShortFile) {
    bytes b = prefix(small_file(shape::v10), 10);
    b[0] = std::byte{0};
    expect_header_error(read_error(b), errc::bad_magic, 0);
}

TEST(UnsupportedVersion, OnlyVersionsOnePointZeroAndOnePointOneAreRead) {
    const bytes good = small_file(shape::v11_compact);
    const std::pair<std::int32_t, std::int32_t> versions[] = {
        {2, 0}, {2, 1}, {1, 2}, {1, -1}, {0, 1}, {-1, 1}, {0x7fffffff, 0}};
    for (const auto& [major, minor] : versions) {
        bytes b = good;
        put_i32(b, 8, major);
        put_i32(b, 12, minor);
        SCOPED_TRACE(std::to_string(major) + "." + std::to_string(minor));
        expect_header_error(read_error(b), errc::unsupported_version, 8);
    }
}

TEST(UnsupportedVersion, IsReportedEvenWithoutABody) {
    bytes b = prefix(small_file(shape::v10), 16);
    put_i32(b, 12, 2);
    expect_header_error(read_error(b), errc::unsupported_version, 8);
}

TEST(BadFlag, EachFlagAboveOneIsBadFlagAtItsOffset) {
    const bytes good = small_file(shape::v11_compact);
    for (std::size_t i = 0; i < 3; ++i) {
        for (std::uint8_t v : {2, 8, 0xff}) {
            bytes b = good;
            b[16 + i] = std::byte{v};
            SCOPED_TRACE(std::to_string(i) + " = " + std::to_string(v));
            expect_header_error(read_error(b), errc::bad_flag, 16 + i);
        }
    }
}

TEST(BadFlag, TheFirstBadFlagIsReported) {
    bytes b = v11_header(1, 2, 3);
    expect_header_error(read_error(b), errc::bad_flag, 17);
}

TEST(BadWrapMode, IllegalPreWrapIsReportedAtTheHeader) {
    const model m = small_model(shape::v11_compact);
    for (std::int32_t mode : {3, 5, 6, 7, 9, 16, -1, std::numeric_limits<std::int32_t>::min()}) {
        bytes b = write(m);
        put_i32(b, curve_offset(m, 1), mode);
        SCOPED_TRACE(mode);
        expect_curve_error(read_error(b, layout_choice::compact), errc::bad_wrap_mode,
                           curve_offset(m, 1), camera_py);
    }
}

TEST(BadWrapMode, IllegalPostWrapIsReportedFourBytesIn) {
    const model m = small_model(shape::v11_full);
    const curve_id last = gaze_curve(ray_channel::direction_z);
    for (std::int32_t mode : {3, 10, -8}) {
        bytes b = write(m);
        const std::size_t at = curve_offset(m, 394);
        put_i32(b, at + 4, mode);
        SCOPED_TRACE(mode);
        expect_curve_error(read_error(b, layout_choice::full), errc::bad_wrap_mode, at + 4, last);
    }
}

TEST(BadWrapMode, PreWrapIsCheckedBeforePostWrap) {
    const model m = small_model(shape::v10);
    bytes b = write(m);
    put_i32(b, curve_offset(m, 0), 3);
    put_i32(b, curve_offset(m, 0) + 4, 3);
    expect_curve_error(read_error(b), errc::bad_wrap_mode, 16, camera_px);
}

TEST(BadWrapMode, EveryLegalValueIsAcceptedForPreAndPost) {
    for (shape s : all_shapes) {
        const model base = small_model(s);
        for (std::int32_t pre : {0, 1, 2, 4, 8}) {
            for (std::int32_t post : {0, 1, 2, 4, 8}) {
                model m = base;
                m[camera_px].pre_wrap = pre;
                m[camera_px].post_wrap = post;
                m[hand_state_curve(hand_state::right_pinching)].pre_wrap = post;
                m[hand_state_curve(hand_state::right_pinching)].post_wrap = pre;
                const bytes b = write(m);
                EXPECT_TRUE(reads_to_end(b)) << shape_name(s) << " " << pre << "/" << post;
            }
        }
    }
}

TEST(NegativeCount, NegativeKeyframeCountIsReportedAtTheCount) {
    const model m = small_model(shape::v11_compact);
    const curve_id tracked = hand_state_curve(hand_state::left_tracked);
    for (std::int32_t count : {-1, -28, std::numeric_limits<std::int32_t>::min()}) {
        bytes b = write(m);
        const std::size_t at = curve_offset(m, 7);
        put_i32(b, at + 8, count);
        SCOPED_TRACE(count);
        expect_curve_error(read_error(b, layout_choice::compact), errc::negative_count, at + 8,
                           tracked);
    }
}

TEST(NegativeCount, WrapModesAreCheckedBeforeTheCount) {
    const model m = small_model(shape::v11_compact);
    bytes b = write(m);
    put_i32(b, 19 + 4, 5);
    put_i32(b, 19 + 8, -1);
    expect_curve_error(read_error(b, layout_choice::compact), errc::bad_wrap_mode, 23, camera_px);
}

TEST(NegativeCount, NegativeMarkerCountIsReportedAtTheList) {
    for (std::int32_t count : {-1, std::numeric_limits<std::int32_t>::min()}) {
        const model m = small_model(shape::v10);
        bytes b = write(m);
        put_i32(b, marker_list_offset(m), count);
        expect_marker_error(read_error(b), errc::negative_count, marker_list_offset(m), -1);
    }
}

TEST(BadMarker, LengthNeedingASixthByteIsBadMarker) {
    bytes b = no_curves_file();
    append_i32(b, 1);
    append_i32(b, 0);
    append(b, {0x80, 0x80, 0x80, 0x80, 0x80, 0x00});
    expect_marker_error(read_error(b), errc::bad_marker, 27, 0);
}

TEST(BadMarker, FiveContinuedLengthBytesAreBadMarkerEvenAtTheEndOfTheFile) {
    // A sixth byte is needed whatever follows, so the length cannot become valid.
    bytes b = no_curves_file();
    append_i32(b, 1);
    append_i32(b, 0);
    append(b, {0xff, 0xff, 0xff, 0xff, 0x80});
    expect_marker_error(read_error(b), errc::bad_marker, 27, 0);
}

TEST(BadMarker, LengthAboveTwoToTheThirtyOneMinusOneIsBadMarker) {
    for (std::uint8_t last : {0x08, 0x0f, 0x7f}) {
        bytes b = no_curves_file();
        append_i32(b, 1);
        append_i32(b, 0);
        append(b, {0xff, 0xff, 0xff, 0xff, last});
        SCOPED_TRACE(static_cast<int>(last));
        expect_marker_error(read_error(b), errc::bad_marker, 27, 0);
    }
}

TEST(BadMarker, LengthOfExactlyTwoToTheThirtyOneMinusOneIsALengthThatDoesNotFit) {
    bytes b = no_curves_file();
    append_i32(b, 1);
    append_i32(b, 0);
    append(b, {0xff, 0xff, 0xff, 0xff, 0x07, 'a'});
    expect_marker_error(read_error(b), errc::truncated, 32, 0);
}

TEST(BadMarker, IsReportedForTheMarkerItConcerns) {
    const model m = small_model(shape::v11_compact);
    bytes b = write(m);
    const std::size_t second_length = marker_list_offset(m) + 4 + 10 + 4;
    b.resize(second_length);
    append(b, {0x80, 0x80, 0x80, 0x80, 0x90, 0x01});
    expect_marker_error(read_error(b), errc::bad_marker, second_length, 1);
}

TEST(TrailingBytes, BytesAfterTheMarkerListAreReportedWhereTheyStart) {
    for (shape s : all_shapes) {
        bytes b = small_file(s);
        const std::size_t end = b.size();
        for (std::size_t extra : {1, 3, 4, 100}) {
            bytes c = b;
            c.resize(end + extra);
            const error e = read_error(c);
            EXPECT_EQ(e.code, errc::trailing_bytes) << shape_name(s) << e.message();
            EXPECT_EQ(e.offset, end);
            EXPECT_EQ(e.place, error_place::trailer);
            EXPECT_EQ(e.path(), "");
            EXPECT_EQ(e.index, -1);
        }
    }
}

TEST(TrailingBytes, FollowAnEmptyMarkerListToo) {
    bytes b = no_curves_file();
    append_i32(b, 0);
    append(b, {0});
    const error e = read_error(b);
    EXPECT_EQ(e.code, errc::trailing_bytes);
    EXPECT_EQ(e.offset, 23u);
    EXPECT_EQ(e.place, error_place::trailer);
}

TEST(HugeCounts, MaximalKeyframeCountWithFewBytesLeftIsTruncatedWithoutOverflow) {
    for (shape s : all_shapes) {
        const layout_choice matching =
            s == shape::v11_compact ? layout_choice::compact : layout_choice::full;
        for (layout_choice choice : {layout_choice::automatic, matching}) {
            const model m = small_model(s);
            bytes b = write(m);
            const std::size_t at = curve_offset(m, 3);
            put_i32(b, at + 8, std::numeric_limits<std::int32_t>::max());
            SCOPED_TRACE(std::string(shape_name(s)) + " layout " +
                         std::to_string(static_cast<int>(choice)));
            const error e = read_error(b, choice);
            expect_curve_error(e, errc::truncated, at + 12, camera_curve(pose_channel::rotation_x),
                               0);
        }
    }
}

TEST(HugeCounts, CountsWhoseFullKeyBytesWrapThirtyTwoBitsAreStillTruncated) {
    // 153391690 x 28 = 2^32 + 24: a 32-bit product would claim 24 bytes, which fit.
    const model m = small_model(shape::v10);
    bytes b = write(m);
    put_i32(b, 16 + 8, 153391690);
    expect_curve_error(read_error(b), errc::truncated, 28, camera_px, 0);
}

TEST(AutoDetection, DamagedFullFileReportsTheFullWalksErrorWhenItGetsFurther) {
    const model m = small_model(shape::v11_full);
    bytes b = write(m);
    const std::size_t at = curve_offset(m, 394);
    put_i32(b, at, 3);
    reader r(view(b));
    EXPECT_FALSE(r.open()) << "detection picks a layout; the walk reports the error";
    EXPECT_EQ(r.header().layout, layout::full);
    expect_curve_error(read_error(b), errc::bad_wrap_mode, at,
                       gaze_curve(ray_channel::direction_z));
    EXPECT_EQ(read_error(b, layout_choice::full), read_error(b));
    EXPECT_LT(read_error(b, layout_choice::compact).offset, at);
}

TEST(AutoDetection, DamagedCompactFileReportsTheCompactWalksErrorWhenItGetsFurther) {
    const model m = small_model(shape::v11_compact);
    bytes b = write(m);
    b.resize(b.size() - 1);
    const error e = read_error(b);
    expect_marker_error(e, errc::truncated, marker_list_offset(m) + 4 + 10 + 4 + 1, 1);
    EXPECT_EQ(e, read_error(b, layout_choice::compact));
    EXPECT_LT(read_error(b, layout_choice::full).offset, e.offset);
}

TEST(AutoDetection, TieGoesToCompactEvenWhenTheCodesDiffer) {
    // Camera only. Under full, curve 1's header starts at 59 with pre-wrap -1. Under compact the
    // all-zero full key reads as curve 1's header (0, 0, 0 keys) and curve 2's header (0, 0,
    // count at 59 = -1). Both walks fail at 59.
    model m = empty_model(shape::v11_full, false);
    m.blocks = {true, false, false};
    m[camera_px].keys = {keyframe{0, 0, 0, 0, 0, 0, 0}};
    m[camera_py].pre_wrap = -1;
    const bytes b = write(m);
    ASSERT_EQ(curve_offset(m, 1), 59u);

    expect_curve_error(read_error(b, layout_choice::full), errc::bad_wrap_mode, 59, camera_py);
    const curve_id camera_pz = camera_curve(pose_channel::position_z);
    expect_curve_error(read_error(b, layout_choice::compact), errc::negative_count, 59, camera_pz);
    expect_curve_error(read_error(b), errc::negative_count, 59, camera_pz);
    reader r(view(b));
    r.open();
    EXPECT_EQ(r.header().layout, layout::compact);
}

TEST(AutoDetection, TieWithTheSameErrorIsCompact) {
    const model m = small_model(shape::v11_full);
    bytes b = write(m);
    put_i32(b, 19, 16);
    expect_curve_error(read_error(b), errc::bad_wrap_mode, 19, camera_px);
    reader r(view(b));
    r.open();
    EXPECT_EQ(r.header().layout, layout::compact);
}

TEST(AutoDetection, FullWalkThatGetsFurtherWithATruncationStillWins) {
    const model m = small_model(shape::v11_full);
    const bytes b = write(m);
    const std::size_t cut = marker_list_offset(m) - 1;
    const error e = read_error(prefix(b, cut));
    expect_curve_error(e, errc::truncated, curve_offset(m, 394) + 12,
                       gaze_curve(ray_channel::direction_z), 0);
}

// What a tool that stops taking bytes itself says: the reader's own error for the byte ceiling.
TEST(SizeError, ARecordingPastMaxBytesIsLimitExceededAtTheCeilingAndOneAtItIsNot) {
    limits lim;
    lim.max_bytes = 1000;
    const error e = size_error(1001, lim);
    EXPECT_EQ(e.code, errc::limit_exceeded);
    EXPECT_EQ(e.offset, 1000u);
    EXPECT_EQ(e.limit, limit_kind::bytes);
    EXPECT_EQ(e.place, error_place::none);
    EXPECT_FALSE(size_error(1000, lim));
    bytes big(1001);
    reader r(view(big), read_options{layout_choice::automatic, lim});
    EXPECT_EQ(r.next(), item::error);
    EXPECT_EQ(r.error(), e);
}
