// The writer: byte-exact layout of every field (checked against bytes computed by hand from
// FORMAT.md), and the writer / read_model round trip for every layout and block combination.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// "c6 42 9e" -> {0xc6, 0x42, 0x9e}; spaces and '|' separate fields for the reader's eye.
bytes hex(std::string_view text) {
    bytes out;
    for (std::size_t i = 0; i < text.size();) {
        if (text[i] == ' ' || text[i] == '|') {
            ++i;
            continue;
        }
        out.push_back(
            static_cast<std::byte>(std::stoul(std::string(text.substr(i, 2)), nullptr, 16)));
        i += 2;
    }
    return out;
}

bytes operator+(bytes a, const bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

bytes repeat(const bytes& b, std::size_t times) {
    bytes out;
    for (std::size_t i = 0; i < times; ++i) out = out + b;
    return out;
}

bytes slice(const bytes& b, std::size_t offset, std::size_t size) {
    return {b.begin() + static_cast<std::ptrdiff_t>(offset),
            b.begin() + static_cast<std::ptrdiff_t>(offset + size)};
}

const bytes magic = hex("c6 42 9e 0f 6e af 8f 6a");
const bytes v10_header = magic + hex("01 00 00 00 | 00 00 00 00");
const bytes v11_header = magic + hex("01 00 00 00 | 01 00 00 00");
// MRTK's wrap modes 8/8 and no keys.
const bytes empty_curve = hex("08 00 00 00 | 08 00 00 00 | 00 00 00 00");
const bytes no_markers = hex("00 00 00 00");

model v11(layout lay, block_flags blocks) {
    model m = empty_model(lay == layout::compact ? shape::v11_compact : shape::v11_full);
    m.blocks = blocks;
    return m;
}

// Two keys with every field set, so that the layout decides which fields reach the file.
std::vector<keyframe> two_keys() {
    return {{1.0f, -2.0f, 0.5f, -0.25f, 0.75f, 2.0f, 1}, {2.5f, 0.5f}};
}

// The curve header for pre-wrap 1 (Once), post-wrap 4 (PingPong) and two keys.
const bytes once_pingpong_two_keys = hex("01 00 00 00 | 04 00 00 00 | 02 00 00 00");
// two_keys() as compact keyframes: time, value.
const bytes two_compact_keys = hex("00 00 80 3f 00 00 00 c0 | 00 00 20 40 00 00 00 3f");
// two_keys() as full keyframes: time, value, in/out tangent, in/out weight, weighted mode.
const bytes two_full_keys =
    hex("00 00 80 3f 00 00 00 c0 00 00 00 3f 00 00 80 be 00 00 40 3f 00 00 00 40 01 00 00 00") +
    hex("00 00 20 40 00 00 00 3f 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 03 00 00 00");

TEST(WriterLayout, V11HeaderIsMagicVersionOneOneAndThreeFlagBytes) {
    const bytes b = write(v11(layout::compact, block_flags{false, false, false}));
    EXPECT_EQ(b, v11_header + hex("00 00 00") + no_markers);
}

TEST(WriterLayout, FlagBytesFollowTheBlocksInEveryCombination) {
    for (unsigned mask = 0; mask < 8; ++mask) {
        const block_flags blocks{(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
        const bytes b = write(v11(layout::full, blocks));
        SCOPED_TRACE(mask);
        const bytes flags = {std::byte{blocks.camera}, std::byte{blocks.hands},
                             std::byte{blocks.gaze}};
        EXPECT_EQ(b, v11_header + flags + repeat(empty_curve, curve_count(blocks)) + no_markers);
    }
}

TEST(WriterLayout, EmptyFilesHaveTheSizesFormatMdGives) {
    EXPECT_EQ(write(empty_model(shape::v11_compact)).size(), 4763u);
    EXPECT_EQ(write(empty_model(shape::v11_full)).size(), 4763u);
    EXPECT_EQ(write(empty_model(shape::v10)).size(), 4688u);
}

TEST(WriterLayout, CompactFloatKeyframesAreTimeThenValueOnly) {
    model m = v11(layout::compact, block_flags{true, false, false});
    curve& c = m[camera_curve(pose_channel::position_x)];
    c.pre_wrap = 1;
    c.post_wrap = 4;
    c.keys = two_keys();
    EXPECT_EQ(write(m), v11_header + hex("01 00 00") + once_pingpong_two_keys + two_compact_keys +
                            repeat(empty_curve, 6) + no_markers);
}

TEST(WriterLayout, FullFloatKeyframesHoldAll28Bytes) {
    model m = v11(layout::full, block_flags{true, false, false});
    curve& c = m[camera_curve(pose_channel::position_x)];
    c.pre_wrap = 1;
    c.post_wrap = 4;
    c.keys = two_keys();
    EXPECT_EQ(write(m), v11_header + hex("01 00 00") + once_pingpong_two_keys + two_full_keys +
                            repeat(empty_curve, 6) + no_markers);
}

TEST(WriterLayout, V10HasNoFlagBytesAndFullKeyframes) {
    model m = empty_model(shape::v10);
    curve& c = m[camera_curve(pose_channel::position_x)];
    c.pre_wrap = 1;
    c.post_wrap = 4;
    c.keys = two_keys();
    EXPECT_EQ(write(m), v10_header + once_pingpong_two_keys + two_full_keys +
                            repeat(empty_curve, v10_curve_count - 1) + no_markers);
}

TEST(WriterLayout, V10IgnoresTheBlockFlagsAndTheLayout) {
    model m = empty_model(shape::v10);
    m.blocks = block_flags{false, false, true};
    m.layout = layout::compact;
    m[gaze_curve(ray_channel::origin_x)].keys = {{0.0f, 1.0f}};
    m[camera_curve(pose_channel::position_x)].keys = two_keys();
    EXPECT_EQ(write(m), v10_header + hex("08 00 00 00 | 08 00 00 00 | 02 00 00 00") +
                            two_full_keys + repeat(empty_curve, v10_curve_count - 1) + no_markers);
}

TEST(WriterLayout, BoolKeyframesAreEightBytesInEveryLayout) {
    const std::vector<keyframe> keys = {{0.5f, 1.0f, 9.0f, 9.0f, 9.0f, 9.0f, 0}, {1.5f, 0.0f}};
    const bytes tracked = hex("08 00 00 00 | 08 00 00 00 | 02 00 00 00") +
                          hex("00 00 00 3f 00 00 80 3f | 00 00 c0 3f 00 00 00 00");
    const std::size_t hand_curves = curve_count(block_flags{false, true, false});
    for (layout lay : {layout::compact, layout::full}) {
        model m = v11(lay, block_flags{false, true, false});
        m[hand_state_curve(hand_state::left_tracked)].keys = keys;
        EXPECT_EQ(write(m), v11_header + hex("00 01 00") + tracked +
                                repeat(empty_curve, hand_curves - 1) + no_markers)
            << (lay == layout::compact ? "compact" : "full");
    }
    model m = empty_model(shape::v10);
    m[hand_state_curve(hand_state::left_tracked)].keys = keys;
    EXPECT_EQ(write(m), v10_header + repeat(empty_curve, 7) + tracked +
                            repeat(empty_curve, v10_curve_count - 8) + no_markers);
}

TEST(WriterLayout, MarkerListIsCountThenTimeAndLengthPrefixedName) {
    model m = v11(layout::compact, block_flags{false, false, false});
    const std::string long_name(200, 'n');
    m.markers = std::vector<marker>{
        {1.5f, "ab"}, {-1.0f, ""}, {0.25f, long_name}, {4.0f, "gr\xc3\xbc\xc3\x9f"}};
    EXPECT_EQ(write(m), v11_header + hex("00 00 00") + hex("04 00 00 00") +
                            hex("00 00 c0 3f | 02 | 61 62") + hex("00 00 80 bf | 00") +
                            hex("00 00 80 3e | c8 01") + repeat(hex("6e"), 200) +
                            hex("00 00 80 40 | 06 | 67 72 c3 bc c3 9f"));
}

TEST(WriterLayout, MarkerNameLengthIsA7BitVarint) {
    const struct {
        std::size_t length;
        const char* encoded;
    } cases[] = {{0, "00"},      {1, "01"},        {127, "7f"},        {128, "80 01"},
                 {200, "c8 01"}, {16383, "ff 7f"}, {16384, "80 80 01"}};
    for (const auto& c : cases) {
        model m = v11(layout::compact, block_flags{false, false, false});
        m.markers = std::vector<marker>{{0.0f, std::string(c.length, 'x')}};
        const bytes b = write(m);
        const bytes prefix = hex(c.encoded);
        SCOPED_TRACE(c.length);
        const std::size_t length_offset = 19 + 4 + 4;
        ASSERT_EQ(b.size(), length_offset + prefix.size() + c.length);
        EXPECT_EQ(slice(b, length_offset, prefix.size()), prefix);
    }
}

TEST(WriterLayout, NoMarkerListWhenMarkersAreAbsent) {
    model m = v11(layout::compact, block_flags{false, false, false});
    m.markers.reset();
    EXPECT_EQ(write(m), v11_header + hex("00 00 00"));

    model v10 = empty_model(shape::v10, false);
    EXPECT_EQ(write(v10), v10_header + repeat(empty_curve, v10_curve_count));
}

TEST(WriterLayout, WriteIntoAVectorReplacesItsContents) {
    const model m = small_model(shape::v11_compact);
    bytes out = hex("de ad be ef");
    write(m, out);
    EXPECT_EQ(out, write(m));
}

// One file configuration: version, layout and blocks as the model states them.
struct config {
    int minor;
    layout lay;
    block_flags blocks;
    bool markers;
};

std::string config_name(const ::testing::TestParamInfo<config>& info) {
    const config& c = info.param;
    if (c.minor == 0) return std::string("v10_") + (c.markers ? "markers" : "no_markers");
    std::string name = c.lay == layout::compact ? "v11_compact" : "v11_full";
    name += c.blocks.camera ? "_camera" : "";
    name += c.blocks.hands ? "_hands" : "";
    name += c.blocks.gaze ? "_gaze" : "";
    return name + (c.markers ? "_markers" : "_no_markers");
}

std::vector<config> every_config() {
    std::vector<config> out;
    for (bool markers : {true, false}) {
        // v1.0 files hold camera and hands whatever the model says: all blocks on shows it.
        out.push_back({0, layout::full, block_flags{true, true, true}, markers});
        for (layout lay : {layout::compact, layout::full}) {
            for (unsigned mask = 0; mask < 8; ++mask) {
                out.push_back({1, lay,
                               block_flags{(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0},
                               markers});
            }
        }
    }
    return out;
}

// Odd but structurally sound content in every block: negative times, -0.0, infinite tangents,
// denormal weights, every wrap mode, keys the content checks would reject (unsorted, a bool
// value of 0.5, weighted mode 7), and markers with empty, long and invalid UTF-8 names.
model odd_model(const config& c) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    constexpr float denormal = std::numeric_limits<float>::denorm_min();
    model m;
    m.minor = c.minor;
    m.layout = c.lay;
    m.blocks = c.blocks;
    const std::int32_t wraps[] = {0, 1, 2, 4, 8};
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        curve& cv = m.curves[i];
        cv.pre_wrap = wraps[i % 5];
        cv.post_wrap = wraps[(i + 2) % 5];
        // Every third curve has keys, so empty curves sit between curves with keys.
        if (i % 3 != 0) continue;
        const float base = static_cast<float>(i);
        cv.keys = {{-1.5f, -0.0f, inf, -inf, 0.25f, 0.75f, 0},
                   {0.0f, base, 0.5f, -0.5f, denormal, -denormal, 2},
                   {1e30f, 0.5f, -inf, inf, -1.0f, 2.0f, 7},
                   {-2.0f, -base, 0.0f, 0.0f, 0.0f, 0.0f, 3}};
    }
    if (c.markers) {
        m.markers = std::vector<marker>{{-2.0f, ""},
                                        {inf, "x"},
                                        {0.5f, std::string(200, 'n')},
                                        {1.0f, "gr\xc3\xbc\xc3\x9f"},
                                        {0.0f, "\xff\xfe"}};
    } else {
        m.markers.reset();
    }
    return m;
}

bool holds(block_flags blocks, curve_id id) {
    switch (block_of(id)) {
        case block::camera:
            return blocks.camera;
        case block::hands:
            return blocks.hands;
        case block::gaze:
            return blocks.gaze;
    }
    return false;
}

// What a file keeps of a model: v1.0 holds camera and hands in the full layout; curves of absent
// blocks are not written; bool and compact keyframes keep only time and value.
model as_stored(model m) {
    if (m.minor == 0) {
        m.blocks = block_flags{true, true, false};
        m.layout = layout::full;
    }
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const auto id = curve_id(i);
        curve& c = m[id];
        if (!holds(m.blocks, id)) {
            c = curve{};
            continue;
        }
        if (kind_of(id) == curve_kind::bool_curve || m.layout == layout::compact) {
            for (keyframe& k : c.keys) k = keyframe{k.time, k.value};
        }
    }
    return m;
}

class WriterRoundTrip : public ::testing::TestWithParam<config> {};

TEST_P(WriterRoundTrip, WriteReadWriteIsByteIdentical) {
    const bytes first = write(odd_model(GetParam()));
    model back;
    ASSERT_FALSE(read_model(view(first), back)) << read_model(view(first), back).message();
    EXPECT_EQ(write(back), first);
}

TEST_P(WriterRoundTrip, ModelReadBackIsTheModelAsStored) {
    const model written = odd_model(GetParam());
    // A file without float keyframes cannot tell its layout, so the reader is told it.
    const read_options options{written.layout == layout::compact ? layout_choice::compact
                                                                 : layout_choice::full};
    model back;
    ASSERT_FALSE(read_model(view(write(written)), back, options));
    const model expected = as_stored(written);
    EXPECT_EQ(back.major, expected.major);
    EXPECT_EQ(back.minor, expected.minor);
    EXPECT_EQ(back.layout, expected.layout);
    EXPECT_EQ(back.blocks, expected.blocks);
    EXPECT_EQ(back.markers, expected.markers);
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        EXPECT_TRUE(back.curves[i] == expected.curves[i]) << curve_path(curve_id(i));
    }
    EXPECT_TRUE(back == expected);
}

TEST_P(WriterRoundTrip, AutomaticLayoutReadsTheModelBack) {
    const model written = odd_model(GetParam());
    model expected = as_stored(written);
    // Without blocks there is no float keyframe to tell the layouts apart: FORMAT.md picks the
    // first that fits, compact.
    if (written.minor == 1 && curve_count(written.blocks) == 0) expected.layout = layout::compact;
    model back;
    ASSERT_FALSE(read_model(view(write(written)), back));
    EXPECT_TRUE(back == expected);
}

INSTANTIATE_TEST_SUITE_P(EveryLayoutAndBlockCombination, WriterRoundTrip,
                         ::testing::ValuesIn(every_config()), config_name);

float from_bits(std::uint32_t bits) {
    return std::bit_cast<float>(bits);
}
std::uint32_t bits_of(float f) {
    return std::bit_cast<std::uint32_t>(f);
}

TEST(WriterRoundTrip, NanPayloadBitsSurviveWriteAndRead) {
    // Quiet with a payload, signalling, negative signalling, negative quiet.
    const std::uint32_t nans[] = {0x7fc00001u, 0x7f800001u, 0xffa5a5a5u, 0xfff00000u};
    for (shape s : all_shapes) {
        SCOPED_TRACE(shape_name(s));
        model m = empty_model(s);
        const keyframe k{from_bits(nans[0]),
                         from_bits(nans[1]),
                         from_bits(nans[2]),
                         from_bits(nans[3]),
                         from_bits(nans[1]),
                         from_bits(nans[0]),
                         3};
        m[camera_curve(pose_channel::rotation_w)].keys = {k};
        m.markers = std::vector<marker>{{from_bits(nans[2]), "nan"}};
        const bytes b = write(m);
        const std::size_t key = curve_offset(m, 6) + curve_header_size;
        EXPECT_EQ(slice(b, key, 8), hex("01 00 c0 7f | 01 00 80 7f"));

        model back;
        ASSERT_FALSE(read_model(view(b), back));
        const keyframe& r = back[camera_curve(pose_channel::rotation_w)].keys.at(0);
        EXPECT_EQ(bits_of(r.time), nans[0]);
        EXPECT_EQ(bits_of(r.value), nans[1]);
        if (s != shape::v11_compact) {
            EXPECT_EQ(bits_of(r.in_tangent), nans[2]);
            EXPECT_EQ(bits_of(r.out_tangent), nans[3]);
            EXPECT_EQ(bits_of(r.in_weight), nans[1]);
            EXPECT_EQ(bits_of(r.out_weight), nans[0]);
        }
        ASSERT_TRUE(back.markers.has_value());
        EXPECT_EQ(bits_of(back.markers->at(0).time), nans[2]);
        EXPECT_EQ(write(back), b);
    }
}

TEST(WriterRoundTrip, BuilderModelsOfEveryShapeReadBackUnchanged) {
    for (shape s : all_shapes) {
        for (bool markers : {true, false}) {
            const model m = small_model(s, markers);
            model back;
            ASSERT_FALSE(read_model(view(write(m)), back));
            EXPECT_TRUE(back == m)
                << shape_name(s) << (markers ? " with" : " without") << " markers";
        }
    }
}

}  // namespace
