// The three June 2019 MRTK recordings (a v1.0 body once the header is prepended): what
// recordings/README.md says they hold, and that the writer turns them into valid v1.1 files.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// One row of the table in recordings/README.md.
struct june_file {
    const char* name;
    std::uint64_t body_bytes;
    std::uint64_t keyframes;
    float first_key_time;
    float last_key_time;
};

const june_file june_files[] = {
    {"InputAnimation-20190606-161538.bin", 911924, 32409, 10.241122f, 21.143953f},
    {"InputAnimation-20190607-120309.bin", 1277328, 45467, 41.246346f, 62.369381f},
    {"InputAnimation-20190607-121439.bin", 1645680, 58621, 5.790154f, 25.308588f},
};

// The README prints times with 6 decimals.
constexpr float printed_tolerance = 1e-5f;

std::string param_name(const ::testing::TestParamInfo<june_file>& info) {
    return recording_test_name(info.param.name);
}

class JuneRecording : public ::testing::TestWithParam<june_file> {
  protected:
    void SetUp() override {
        auto file = june_recording(GetParam().name);
        if (!file) GTEST_SKIP() << GetParam().name << " not found in " << recordings_dir();
        bytes_ = std::move(*file);
    }
    bytes bytes_;
};

TEST_P(JuneRecording, IsValidAtLevelFull) {
    const report r = validate(view(bytes_), validate_options{level::full});
    EXPECT_TRUE(r.valid()) << r.error.message();
}

TEST_P(JuneRecording, SummaryMatchesTheReadmeTable) {
    const report r = validate(view(bytes_));
    const summary& s = r.summary;
    EXPECT_EQ(s.bytes, GetParam().body_bytes + header_size);
    EXPECT_EQ(s.keyframes, GetParam().keyframes);
    ASSERT_TRUE(s.start.has_value());
    ASSERT_TRUE(s.duration.has_value());
    EXPECT_NEAR(*s.start, GetParam().first_key_time, printed_tolerance);
    EXPECT_NEAR(*s.duration, GetParam().last_key_time, printed_tolerance);
}

TEST_P(JuneRecording, IsAV10FullLayoutFileWith389CurvesAndAnEmptyMarkerList) {
    recording rec;
    ASSERT_FALSE(rec.open(view(bytes_)));
    const summary& s = rec.summary();
    EXPECT_EQ(s.major, 1);
    EXPECT_EQ(s.minor, 0);
    EXPECT_EQ(s.layout, layout::full);
    EXPECT_EQ(s.blocks, (block_flags{true, true, false}));
    EXPECT_EQ(s.curves, 389u);
    // The body ends with 00 00 00 00: a marker list holding no marker, not an absent list.
    ASSERT_TRUE(s.markers.has_value());
    EXPECT_EQ(*s.markers, 0u);
    EXPECT_TRUE(rec.markers().empty());
}

TEST_P(JuneRecording, EveryCurveWrapsClampForeverOnBothEnds) {
    recording rec;
    ASSERT_FALSE(rec.open(view(bytes_)));
    for (const curve_view& c : rec.curves()) {
        EXPECT_EQ(c.pre_wrap, 8) << c.path();
        EXPECT_EQ(c.post_wrap, 8) << c.path();
    }
}

TEST_P(JuneRecording, EveryFloatKeyframeHasZeroTangentsAndWeightsAndModeBoth) {
    recording rec;
    ASSERT_FALSE(rec.open(view(bytes_)));
    std::uint64_t float_keys = 0;
    for (const curve_view& c : rec.curves()) {
        if (c.kind != curve_kind::float_curve) continue;
        for (std::size_t i = 0; i < c.keys.size(); ++i) {
            const keyframe_view k = c.keys[i];
            ASSERT_TRUE(k.has_tangents());
            const bool mrtk_defaults = k.in_tangent() == 0.0f && k.out_tangent() == 0.0f &&
                                       k.in_weight() == 0.0f && k.out_weight() == 0.0f &&
                                       k.weighted_mode() == weighted_mode::both;
            ASSERT_TRUE(mrtk_defaults) << c.path() << " keyframe " << i;
            ++float_keys;
        }
    }
    EXPECT_GT(float_keys, 0u);
}

TEST_P(JuneRecording, BoolKeysAreZeroOrOne) {
    recording rec;
    ASSERT_FALSE(rec.open(view(bytes_)));
    for (std::size_t s = 0; s < hand_state_count; ++s) {
        const curve_view* c = rec.hand(static_cast<hand_state>(s));
        ASSERT_NE(c, nullptr);
        for (const keyframe_view k : c->keys) {
            EXPECT_TRUE(k.value() == 0.0f || k.value() == 1.0f) << c->path() << " " << k.value();
        }
    }
}

TEST_P(JuneRecording, RewrittenAsCompactV11KeepsEveryKeyframeAndIsValid) {
    model m;
    ASSERT_FALSE(read_model(view(bytes_), m));
    m.minor = 1;
    m.layout = layout::compact;
    m.blocks = block_flags{true, true, false};
    const bytes rewritten = write(m);

    // Header, flags, 389 curve headers, 8 bytes per key, the empty marker list.
    EXPECT_EQ(rewritten.size(), 19 + 389 * curve_header_size + 8 * GetParam().keyframes + 4);
    const report r = validate(view(rewritten), validate_options{level::full});
    EXPECT_TRUE(r.valid()) << r.error.message();
    EXPECT_EQ(r.summary.layout, layout::compact);

    recording original;
    recording compact;
    ASSERT_FALSE(original.open(view(bytes_)));
    ASSERT_FALSE(compact.open(view(rewritten)));
    EXPECT_EQ(compact.header().minor, 1);
    ASSERT_EQ(compact.curves().size(), original.curves().size());
    for (const curve_view& before : original.curves()) {
        const curve_view* after = compact.find(before.id);
        ASSERT_NE(after, nullptr) << before.path();
        ASSERT_EQ(after->keys.size(), before.keys.size()) << before.path();
        EXPECT_EQ(after->pre_wrap, before.pre_wrap);
        EXPECT_EQ(after->post_wrap, before.post_wrap);
        for (std::size_t i = 0; i < before.keys.size(); ++i) {
            ASSERT_EQ(std::bit_cast<std::uint32_t>(after->keys[i].time()),
                      std::bit_cast<std::uint32_t>(before.keys[i].time()))
                << before.path() << " keyframe " << i;
            ASSERT_EQ(std::bit_cast<std::uint32_t>(after->keys[i].value()),
                      std::bit_cast<std::uint32_t>(before.keys[i].value()))
                << before.path() << " keyframe " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(June2019, JuneRecording, ::testing::ValuesIn(june_files), param_name);

}  // namespace
