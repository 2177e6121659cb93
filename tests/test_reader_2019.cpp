// The 2019 pre-release layouts (FORMAT.md section 9): a file without the magic that is wholly
// one of them reads as it, and so does any file when the layout is asked for by name. June 2019
// is a v1.0 body; May 2019 puts the hands first and the camera last, and ends with a .NET trailer
// that is checked and never read.
#include <gtest/gtest.h>

#include <string>

#include "support/builders.hpp"
#include "support/validation_cases.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

std::string version_of(const summary& s) {
    return std::string(version_name(s.edition, s.major, s.minor));
}

struct layout_case {
    const char* name;
    edition ed;
    std::size_t bool_key_size;
};

const layout_case cases[] = {
    {"june", edition::june_2019, bool_keyframe_size},
    {"may_bool8", edition::may_2019, bool_keyframe_size},
    {"may_bool28", edition::may_2019, full_keyframe_size},
};

std::string case_name(const ::testing::TestParamInfo<layout_case>& info) {
    return info.param.name;
}

// The small v1.0 model with what a May 2019 bool key held in its unused fields.
model camera_and_hands() {
    model m = small_model(shape::v10);
    for (std::size_t i = 0; i < hand_state_count; ++i) {
        for (keyframe& k : m[hand_state_curve(static_cast<hand_state>(i))].keys) {
            k.out_weight = 1e6f;
        }
    }
    return m;
}

class Layout2019 : public ::testing::TestWithParam<layout_case> {
  protected:
    model m_ = camera_and_hands();
    bytes b_ = write_2019(m_, GetParam().ed, GetParam().bool_key_size);
};

TEST_P(Layout2019, AFileWithoutTheMagicThatIsWhollyTheLayoutReadsAsIt) {
    const report r = validate(view(b_), validate_options{level::full});
    ASSERT_TRUE(r.valid()) << r.error.message();
    EXPECT_EQ(r.summary.edition, GetParam().ed);
    EXPECT_EQ(version_of(r.summary), GetParam().ed == edition::june_2019 ? "2019-06" : "2019-05");
    EXPECT_EQ(r.summary.major, 0);
    EXPECT_EQ(r.summary.layout, layout::full);
    EXPECT_EQ(r.summary.blocks, (block_flags{true, true, false}));
    EXPECT_EQ(r.summary.curves, v10_curve_count);
    EXPECT_EQ(r.summary.bytes, b_.size());
}

TEST_P(Layout2019, ItsSummaryIsTheV10FilesButForVersionBytesAndMarkers) {
    const summary v10 = validate(view(write(m_))).summary;
    const summary s = validate(view(b_)).summary;
    EXPECT_EQ(s.keyframes, v10.keyframes);
    EXPECT_EQ(s.start, v10.start);
    EXPECT_EQ(s.duration, v10.duration);
    // May's trailer holds its marker list in a form only .NET reads: markers are unknown.
    if (GetParam().ed == edition::june_2019) {
        EXPECT_EQ(s.markers, v10.markers);
    } else {
        EXPECT_EQ(s.markers, std::nullopt);
    }
}

TEST_P(Layout2019, EveryCurveHoldsTheModelsKeysUnderItsV1Path) {
    recording rec;
    ASSERT_FALSE(rec.open(view(b_)));
    for (std::size_t i = 0; i < v10_curve_count; ++i) {
        const curve_id id = curve_at(block_flags{true, true, false}, i);
        const curve_view* c = rec.find(id);
        ASSERT_NE(c, nullptr) << curve_path(id);
        const std::vector<keyframe>& keys = m_[id].keys;
        ASSERT_EQ(c->keys.size(), keys.size()) << curve_path(id);
        for (std::size_t k = 0; k < keys.size(); ++k) {
            EXPECT_EQ(c->keys[k].time(), keys[k].time) << curve_path(id);
            EXPECT_EQ(c->keys[k].value(), keys[k].value) << curve_path(id);
        }
    }
}

TEST_P(Layout2019, AskedForByNameItReadsTheSame) {
    const layout_choice asked =
        GetParam().ed == edition::june_2019 ? layout_choice::june_2019 : layout_choice::may_2019;
    const report named = validate(view(b_), validate_options{level::full, asked, {}});
    const report detected = validate(view(b_), validate_options{level::full});
    EXPECT_EQ(difference(named, detected), "");
}

TEST_P(Layout2019, TheStreamingValidatorAgreesAtEveryChunking) {
    for (const validate_options& o : every_layout_and_level()) {
        const report whole = validate(view(b_), o);
        for (std::size_t chunk : {1, 7, 28, 4096}) {
            EXPECT_EQ(difference(whole, stream_in_chunks_of(view(b_), o, chunk)), "")
                << describe(o) << ", chunks of " << chunk;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Layouts, Layout2019, ::testing::ValuesIn(cases), case_name);

TEST(June2019, CurvesSitWhereTheV10FileHasThemLessItsSixteenByteHeader) {
    const model m = camera_and_hands();
    recording v10;
    const bytes v10_bytes = write(m);
    ASSERT_FALSE(v10.open(view(v10_bytes)));
    recording june;
    const bytes june_bytes = write_2019(m, edition::june_2019);
    ASSERT_FALSE(june.open(view(june_bytes)));
    ASSERT_EQ(june.curves().size(), v10.curves().size());
    for (std::size_t i = 0; i < v10.curves().size(); ++i) {
        EXPECT_EQ(june.curves()[i].id, v10.curves()[i].id);
        EXPECT_EQ(june.curves()[i].offset + header_size, v10.curves()[i].offset);
    }
}

TEST(May2019, HandsComeFirstAndTheCameraLast) {
    const model m = camera_and_hands();
    for (std::size_t bool_key_size : {bool_keyframe_size, full_keyframe_size}) {
        const bytes b = write_2019(m, edition::may_2019, bool_key_size);
        recording rec;
        ASSERT_FALSE(rec.open(view(b)));
        EXPECT_EQ(rec.header().bool_key_size, bool_key_size);
        const std::span<const curve_view> curves = rec.curves();
        EXPECT_EQ(curve_path(curves[0].id), "hand.left.tracked");
        EXPECT_EQ(curve_path(curves[4].id), "hand.left.joint.None.position.x");
        EXPECT_EQ(curve_path(curves[4 + 189].id), "hand.right.joint.None.position.x");
        EXPECT_EQ(curve_path(curves[382].id), "camera.position.x");
        EXPECT_EQ(curve_path(curves[388].id), "camera.rotation.w");
        for (std::size_t i = 0; i < curves.size(); ++i) {
            EXPECT_EQ(curves[i].offset, may_curve_offset(m, i, bool_key_size)) << i;
        }
        // A bool key is 8 or 28 bytes; every float key is full.
        EXPECT_EQ(curves[0].keys.stride(), bool_key_size);
        EXPECT_EQ(curves[382].keys.stride(), full_keyframe_size);
    }
}

TEST(May2019, TheTrailerIsCheckedNotRead) {
    const model m = camera_and_hands();
    bytes b = write_2019(m, edition::may_2019);
    // Anything between the prefix and the last byte.
    const std::size_t trailer = b.size() - formatter_trailer().size();
    for (std::size_t i = trailer + 17; i + 1 < b.size(); ++i) b[i] = std::byte{0xee};
    const report r = validate(view(b), validate_options{level::full});
    EXPECT_TRUE(r.valid()) << r.error.message();
    EXPECT_EQ(version_of(r.summary), "2019-05");
    EXPECT_EQ(r.summary.markers, std::nullopt);
}

TEST(Layout2019, TheNamesAreThoseOfTheLayoutOption) {
    EXPECT_EQ(layout_choice_name(layout_choice::june_2019), "2019-06");
    EXPECT_EQ(layout_choice_name(layout_choice::may_2019), "2019-05");
    EXPECT_EQ(parse_layout_choice_name("2019-06"), layout_choice::june_2019);
    EXPECT_EQ(parse_layout_choice_name("2019-05"), layout_choice::may_2019);
    EXPECT_EQ(version_name(edition::v1, 1, 0), "1.0");
    EXPECT_EQ(version_name(edition::v1, 1, 1), "1.1");
    EXPECT_EQ(version_name(edition::v1, 0, 0), "");
}

TEST(Layout2019, ChoiceOfReadsAFileAgainAsItWasRead) {
    const model m = camera_and_hands();
    for (const layout_case& c : cases) {
        const bytes b = write_2019(m, c.ed, c.bool_key_size);
        recording rec;
        ASSERT_FALSE(rec.open(view(b)));
        recording again;
        ASSERT_FALSE(again.open(view(b), read_options{choice_of(rec.header()), {}}));
        EXPECT_EQ(again.header().edition, c.ed);
        EXPECT_EQ(again.header().bool_key_size, c.bool_key_size);
    }
}

// ../shared/recordings: the six real files, each read as its layout with the key counts and
// times of its README. The README gives none for the May files: theirs are what this reader
// finds, and a separate reading agreed on 2026-11-25 (a Python script written from FORMAT.md
// section 9 alone, struct.unpack over the 389 curves, that found the same counts, first and last
// times, bool key size and a 524-byte trailer), as EveryByteIsACurveOrTheTrailer checks here.
struct real_file {
    const char* name;
    edition ed;
    std::size_t bool_key_size;
    std::uint64_t bytes;
    std::uint64_t keyframes;
    float first_key_time;
    float last_key_time;
};

const real_file real_files[] = {
    {"InputAnimation-20190515-104548.bin", edition::may_2019, 28, 734676, 26053, 13.031273f,
     26.595013f},
    {"InputAnimation-20190515-150550.bin", edition::may_2019, 28, 717428, 25437, 25.534248f,
     35.743874f},
    {"InputAnimation-20190516-130120.bin", edition::may_2019, 8, 1181520, 42041, 18.372835f,
     39.572510f},
    {"InputAnimation-20190606-161538.bin", edition::june_2019, 8, 911924, 32409, 10.241122f,
     21.143953f},
    {"InputAnimation-20190607-120309.bin", edition::june_2019, 8, 1277328, 45467, 41.246346f,
     62.369381f},
    {"InputAnimation-20190607-121439.bin", edition::june_2019, 8, 1645680, 58621, 5.790154f,
     25.308588f},
};

std::string real_name(const ::testing::TestParamInfo<real_file>& info) {
    return recording_test_name(info.param.name);
}

class RealRecording : public ::testing::TestWithParam<real_file> {
  protected:
    void SetUp() override {
        auto file = real_recording(GetParam().name);
        if (!file) GTEST_SKIP() << GetParam().name << " not found in " << recordings_dir();
        bytes_ = std::move(*file);
    }
    bytes bytes_;
};

TEST_P(RealRecording, ReadsAsItsLayoutAndIsValidAtLevelFull) {
    const real_file& f = GetParam();
    const report r = validate(view(bytes_), validate_options{level::full});
    ASSERT_TRUE(r.valid()) << r.error.message();
    EXPECT_EQ(r.summary.edition, f.ed);
    EXPECT_EQ(r.summary.curves, v10_curve_count);
    EXPECT_EQ(r.summary.bytes, f.bytes);
    recording rec;
    ASSERT_FALSE(rec.open(view(bytes_)));
    EXPECT_EQ(rec.header().bool_key_size, f.bool_key_size);
}

TEST_P(RealRecording, KeyCountsAndTimesAreTheReadmes) {
    const real_file& f = GetParam();
    const summary s = validate(view(bytes_)).summary;
    EXPECT_EQ(s.keyframes, f.keyframes);
    ASSERT_TRUE(s.start && s.duration);
    constexpr float printed_tolerance = 1e-5f;
    EXPECT_NEAR(*s.start, f.first_key_time, printed_tolerance);
    EXPECT_NEAR(*s.duration, f.last_key_time, printed_tolerance);
}

TEST_P(RealRecording, EveryByteIsACurveOrTheTrailer) {
    const real_file& f = GetParam();
    recording rec;
    ASSERT_FALSE(rec.open(view(bytes_)));
    std::uint64_t accounted = 0;
    for (const curve_view& c : rec.curves()) {
        accounted += curve_header_size + c.keys.size() * c.keys.stride();
    }
    const std::uint64_t trailer = f.ed == edition::may_2019 ? 524 : 4;
    EXPECT_EQ(accounted + trailer, bytes_.size());
}

TEST_P(RealRecording, TheStreamingValidatorAgrees) {
    const validate_options o{level::full};
    const report whole = validate(view(bytes_), o);
    EXPECT_EQ(difference(whole, stream_in_chunks_of(view(bytes_), o, 65536)), "");
}

INSTANTIATE_TEST_SUITE_P(Shared, RealRecording, ::testing::ValuesIn(real_files), real_name);

}  // namespace
