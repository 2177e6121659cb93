// The 2019 layouts' error paths: a file without the magic that is not wholly a 2019 layout is
// still bad_magic at 0 (never a guess), a damaged v1.x file is never read as one, and a file read
// as a 2019 layout reports the codes and offsets of every other file, counted from its first byte.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/builders.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

const validate_options detect{level::full};
const validate_options as_june{level::full, layout_choice::june_2019, {}};
const validate_options as_may{level::full, layout_choice::may_2019, {}};

bool has_magic(const bytes& b) {
    for (std::size_t i = 0; i < 8; ++i) {
        if (std::to_integer<std::uint64_t>(b[i]) != ((file_magic >> (8 * i)) & 0xff)) return false;
    }
    return true;
}

model camera_and_hands() {
    return small_model(shape::v10);
}

// validate's report, which the streaming validator must give too at every chunking.
report checked(const bytes& b, const validate_options& o) {
    const report whole = validate(view(b), o);
    for (std::size_t chunk : {1, 13, 4096}) {
        EXPECT_EQ(difference(whole, stream_in_chunks_of(view(b), o, chunk)), "")
            << describe(o) << ", chunks of " << chunk;
    }
    return whole;
}

void expect_error(const report& r, errc code, std::uint64_t offset) {
    EXPECT_EQ(r.error.code, code) << r.error.message();
    EXPECT_EQ(r.error.offset, offset) << r.error.message();
}

TEST(Layout2019Errors, AJuneBodyWithAByteMoreIsNotJuneButAskedForItEndsThere) {
    bytes b = write_2019(camera_and_hands(), edition::june_2019);
    const std::size_t end = b.size();
    b.push_back(std::byte{0});
    expect_error(checked(b, detect), errc::bad_magic, 0);
    const report asked = checked(b, as_june);
    expect_error(asked, errc::trailing_bytes, end);
    EXPECT_EQ(asked.summary.edition, edition::june_2019);
}

TEST(Layout2019Errors, AJuneBodyCutShortIsNotJuneButAskedForItIsTruncated) {
    const model m = camera_and_hands();
    const bytes whole = write_2019(m, edition::june_2019);
    // Cut inside the first curve's keys (camera.position.x has keys in the small model).
    const std::size_t keys = curve_offset(m, 0) - header_size + curve_header_size;
    const bytes b(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(keys + 5));
    expect_error(checked(b, detect), errc::bad_magic, 0);
    const report asked = checked(b, as_june);
    expect_error(asked, errc::truncated, keys);
    EXPECT_EQ(curve_path(asked.error.curve), "camera.position.x");
}

TEST(Layout2019Errors, ADamagedV10FileIsNeverReadAsA2019Layout) {
    const model m = camera_and_hands();
    bytes b = write(m);
    put_i32(b, curve_offset(m, 5), 3);  // a wrap mode Unity does not have
    const report r = checked(b, detect);
    expect_error(r, errc::bad_wrap_mode, curve_offset(m, 5));
    EXPECT_EQ(r.summary.edition, edition::v1);
    EXPECT_EQ(r.summary.minor, 0);
}

TEST(Layout2019Errors, AFileShorterThanTheMagicIsStillTruncatedAtZero) {
    for (std::size_t n = 0; n < 8; ++n) {
        const bytes b(n, std::byte{0});
        expect_error(checked(b, detect), errc::truncated, 0);
    }
}

TEST(Layout2019Errors, OnlyAutomaticDetects) {
    const bytes b = write_2019(camera_and_hands(), edition::june_2019);
    for (layout_choice c : {layout_choice::compact, layout_choice::full}) {
        expect_error(checked(b, validate_options{level::full, c, {}}), errc::bad_magic, 0);
    }
}

TEST(Layout2019Errors, AFileWithTheMagicAskedForAsJuneFailsAtItsFirstBytes) {
    const bytes b = write(camera_and_hands());
    const report r = checked(b, as_june);
    // The magic's first four bytes are no wrap mode.
    expect_error(r, errc::bad_wrap_mode, 0);
    EXPECT_EQ(r.error.place, error_place::curve);
}

TEST(Layout2019Errors, MaysTrailerPrefixIsCheckedByteByByte) {
    const bytes whole = write_2019(camera_and_hands(), edition::may_2019);
    const std::size_t trailer = whole.size() - formatter_trailer().size();
    for (std::size_t k : {0, 5, 9, 16}) {
        bytes b = whole;
        b[trailer + k] ^= std::byte{0x40};
        expect_error(checked(b, detect), errc::bad_magic, 0);
        const report asked = checked(b, as_may);
        expect_error(asked, errc::bad_marker, trailer + k);
        EXPECT_EQ(asked.error.place, error_place::markers);
    }
}

TEST(Layout2019Errors, MaysTrailerMustEndWithItsClosingByte) {
    bytes b = write_2019(camera_and_hands(), edition::may_2019);
    b.back() = std::byte{0x0c};
    expect_error(checked(b, detect), errc::bad_magic, 0);
    expect_error(checked(b, as_may), errc::bad_marker, b.size() - 1);
}

TEST(Layout2019Errors, AMayFileCutInsideOrBeforeItsTrailerIsTruncated) {
    const bytes whole = write_2019(camera_and_hands(), edition::may_2019);
    const std::size_t trailer = whole.size() - formatter_trailer().size();
    for (std::size_t keep : {0, 10, 17}) {
        const bytes b(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(trailer + keep));
        expect_error(checked(b, detect), errc::bad_magic, 0);
        expect_error(checked(b, as_may), errc::truncated, trailer + keep);
    }
}

TEST(Layout2019Errors, ContentErrorsOfADetectedFileAreReportedAtTheirOffsets) {
    const model m = camera_and_hands();
    bytes b = write_2019(m, edition::june_2019);
    const std::size_t value = curve_offset(m, 0) - header_size + curve_header_size + 4;
    put_f32(b, value, std::nanf(""));
    const report r = checked(b, detect);
    expect_error(r, errc::non_finite, value);
    EXPECT_EQ(r.summary.edition, edition::june_2019);
    EXPECT_EQ(curve_path(r.error.curve), "camera.position.x");
    EXPECT_EQ(r.error.index, 0);
}

TEST(Layout2019Errors, MaysBoolValuesOfTwentyEightByteKeysAreChecked) {
    const model m = camera_and_hands();
    bytes b = write_2019(m, edition::may_2019, full_keyframe_size);
    // hand.left.tracked, the file's first curve: its first key's value.
    put_f32(b, curve_header_size + 4, 0.5f);
    const report r = checked(b, detect);
    expect_error(r, errc::bad_bool_value, curve_header_size + 4);
    EXPECT_EQ(curve_path(r.error.curve), "hand.left.tracked");
}

TEST(Layout2019Errors, LimitsApplyToADetectedFileAsToAnyOther) {
    const model m = camera_and_hands();
    const bytes b = write_2019(m, edition::june_2019);
    std::size_t most = 0;
    std::size_t at = 0;
    for (std::size_t i = 0; i < v10_curve_count; ++i) {
        const std::size_t n = m[curve_at(block_flags{true, true, false}, i)].keys.size();
        if (n > most) {
            most = n;
            at = i;
        }
    }
    ASSERT_GT(most, 1u);
    validate_options o = detect;
    o.limits.max_keyframes_per_curve = static_cast<std::uint32_t>(most - 1);
    const report r = checked(b, o);
    expect_error(r, errc::limit_exceeded, curve_offset(m, at) - header_size + 8);
    EXPECT_EQ(r.error.limit, limit_kind::keyframes_per_curve);
    EXPECT_EQ(r.summary.edition, edition::june_2019);
    EXPECT_EQ(r.summary.curves, at);
}

// Every seed and past finding of the fuzzers that has no magic is still bad_magic at 0 unless it
// is wholly a 2019 layout, and then reads as one under that layout asked by name too.
TEST(Layout2019Errors, FuzzCorporaWithoutTheMagicAreStillBadMagic) {
    std::size_t without_magic = 0;
    for (const char* folder : {"corpus", "regressions"}) {
        const std::filesystem::path root = std::filesystem::path(INPUTANIM_FUZZ_DIR) / folder;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
            if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
            std::ifstream in(entry.path(), std::ios::binary);
            const std::string text((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
            if (text.size() < 8) continue;
            bytes b(text.size());
            std::memcpy(b.data(), text.data(), text.size());
            if (has_magic(b)) continue;
            ++without_magic;
            const report r = validate(view(b), validate_options{level::structure});
            if (r.summary.edition == edition::v1) {
                EXPECT_EQ(r.error.code, errc::bad_magic) << entry.path();
                EXPECT_EQ(r.error.offset, 0u) << entry.path();
            } else {
                const layout_choice named = r.summary.edition == edition::june_2019
                                                ? layout_choice::june_2019
                                                : layout_choice::may_2019;
                const report asked =
                    validate(view(b), validate_options{level::structure, named, {}});
                EXPECT_EQ(difference(r, asked), "") << entry.path();
            }
        }
    }
    EXPECT_GT(without_magic, 0u);
}

}  // namespace
