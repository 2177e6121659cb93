// The writer's incremental encoder: for every version, layout, block choice and marker list, a
// recording encoded piece by piece (a key or a marker at a time, keys in uneven runs, whole
// curves, keys handed over as the file holds them) is byte for byte what write(model) makes, and
// it reaches the sink in file order.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "support/builders.hpp"
#include "support/encoder_sinks.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

struct config {
    int major;
    int minor;
    layout lay;
    block_flags blocks;
    bool markers;
};

std::string config_name(const ::testing::TestParamInfo<config>& info) {
    const config& c = info.param;
    std::string name = "v" + std::to_string(c.major) + std::to_string(c.minor);
    if (!(c.major == 1 && c.minor == 0)) {
        name += c.lay == layout::compact ? "_compact" : "_full";
        name += c.blocks.camera ? "_camera" : "";
        name += c.blocks.hands ? "_hands" : "";
        name += c.blocks.gaze ? "_gaze" : "";
    }
    return name + (c.markers ? "_markers" : "_no_markers");
}

std::vector<config> every_config() {
    std::vector<config> out;
    for (bool markers : {true, false}) {
        // v1.0 files hold camera and hands in the full layout whatever the header call says.
        out.push_back({1, 0, layout::compact, block_flags{false, false, true}, markers});
        for (layout lay : {layout::compact, layout::full}) {
            for (unsigned mask = 0; mask < 8; ++mask) {
                out.push_back({1, 1, lay,
                               block_flags{(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0},
                               markers});
            }
        }
        // An unsupported version is written as given, with the v1.1 body.
        out.push_back({2, 7, layout::full, block_flags{true, false, true}, markers});
    }
    return out;
}

// Curves with different numbers of keys (many empty), every field set so that the layout decides
// which reach the file, and markers whose names take one-, two- and three-byte length prefixes,
// one longer than any buffer a sink is likely to see at once.
model busy_model(const config& c) {
    model m;
    m.major = c.major;
    m.minor = c.minor;
    m.layout = c.lay;
    m.blocks = c.blocks;
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        curve& cv = m.curves[i];
        cv.pre_wrap = static_cast<std::int32_t>(i % 9);
        cv.post_wrap = static_cast<std::int32_t>((i + 4) % 9);
        if (i % 3 != 0) continue;
        for (std::size_t k = 0; k < i % 11; ++k) {
            const float f = static_cast<float>(i * 100 + k);
            cv.keys.push_back(
                {f, -f, f + 0.25f, f - 0.25f, 0.5f, 0.75f, static_cast<std::int32_t>(k % 4)});
        }
    }
    if (c.markers) {
        m.markers = std::vector<marker>{{0.0f, ""},
                                        {1.5f, std::string(200, 'm')},
                                        {2.0f, std::string(20000, 'x')},
                                        {3.0f, "caf\xc3\xa9"}};
    } else {
        m.markers.reset();
    }
    return m;
}

block_flags written_blocks(const model& m) {
    return m.major == 1 && m.minor == 0 ? block_flags{true, true, false} : m.blocks;
}

// As a caller that holds nothing: one key and one marker at a time.
std::error_code encode_one_at_a_time(const model& m, byte_sink& sink) {
    encoder e(sink);
    e.write_header(m.major, m.minor, m.layout, m.blocks);
    const block_flags blocks = written_blocks(m);
    for (std::size_t i = 0; i < curve_count(blocks); ++i) {
        const curve_id id = curve_at(blocks, i);
        const curve& c = m[id];
        e.begin_curve(id, c.pre_wrap, c.post_wrap, c.keys.size());
        for (const keyframe& k : c.keys) e.write_key(k);
    }
    if (m.markers) {
        e.begin_markers(m.markers->size());
        for (const marker& mk : *m.markers) e.write_marker(mk.time, mk.name);
    }
    return e.finish();
}

// Whole curves and the whole marker list.
std::error_code encode_whole(const model& m, byte_sink& sink) {
    encoder e(sink);
    e.write_header(m.major, m.minor, m.layout, m.blocks);
    const block_flags blocks = written_blocks(m);
    for (std::size_t i = 0; i < curve_count(blocks); ++i) {
        e.write_curve(curve_at(blocks, i), m[curve_at(blocks, i)]);
    }
    if (m.markers) e.write_markers(*m.markers);
    return e.finish();
}

// Keys as the file holds them: little-endian fields, time and value, and the other five for a
// float curve of the full layout.
bytes file_keys(std::span<const keyframe> keys, bool full) {
    bytes out;
    const auto put = [&](std::uint32_t v) {
        for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::byte>((v >> (8 * b)) & 0xff));
    };
    for (const keyframe& k : keys) {
        put(std::bit_cast<std::uint32_t>(k.time));
        put(std::bit_cast<std::uint32_t>(k.value));
        if (!full) continue;
        put(std::bit_cast<std::uint32_t>(k.in_tangent));
        put(std::bit_cast<std::uint32_t>(k.out_tangent));
        put(std::bit_cast<std::uint32_t>(k.in_weight));
        put(std::bit_cast<std::uint32_t>(k.out_weight));
        put(static_cast<std::uint32_t>(k.weighted_mode));
    }
    return out;
}

// Keys in runs of 1, 2, 3, ... keys: as keyframes, or (as_file_keys) as the file holds them.
std::error_code encode_in_runs(const model& m, byte_sink& sink, bool as_file_keys = false) {
    const bool full = (m.major == 1 && m.minor == 0) || m.layout == layout::full;
    encoder e(sink);
    e.write_header(m.major, m.minor, m.layout, m.blocks);
    const block_flags blocks = written_blocks(m);
    for (std::size_t i = 0; i < curve_count(blocks); ++i) {
        const curve_id id = curve_at(blocks, i);
        const curve& c = m[id];
        e.begin_curve(id, c.pre_wrap, c.post_wrap, c.keys.size());
        std::span<const keyframe> rest = c.keys;
        for (std::size_t run = 1; !rest.empty(); ++run) {
            const std::size_t n = std::min(run, rest.size());
            if (as_file_keys) {
                e.write_encoded_keys(
                    file_keys(rest.first(n), full && kind_of(id) == curve_kind::float_curve), n);
            } else {
                e.write_keys(rest.first(n));
            }
            rest = rest.subspan(n);
        }
    }
    if (m.markers) {
        // Each name in pieces of 1, 2, 3, ... bytes.
        e.begin_markers(m.markers->size());
        for (const marker& mk : *m.markers) {
            e.begin_marker(mk.time, mk.name.size());
            std::span<const std::byte> name = std::as_bytes(std::span(mk.name));
            for (std::size_t run = 1; !name.empty(); ++run) {
                const std::size_t n = std::min(run, name.size());
                e.write_marker_name(name.first(n));
                name = name.subspan(n);
            }
        }
    }
    return e.finish();
}

class Encoder : public ::testing::TestWithParam<config> {};

TEST_P(Encoder, KeysHandedOverAsTheFileHoldsThemGiveTheBytesOfWrite) {
    const model m = busy_model(GetParam());
    recording_sink sink;
    EXPECT_FALSE(encode_in_runs(m, sink, true));
    EXPECT_EQ(sink.bytes, write(m));
}

TEST_P(Encoder, OneKeyAndOneMarkerAtATimeGivesTheBytesOfWrite) {
    const model m = busy_model(GetParam());
    recording_sink sink;
    EXPECT_FALSE(encode_one_at_a_time(m, sink));
    EXPECT_EQ(sink.bytes, write(m));
}

TEST_P(Encoder, KeysAndMarkerNamesInUnevenRunsGiveTheBytesOfWrite) {
    const model m = busy_model(GetParam());
    recording_sink sink;
    EXPECT_FALSE(encode_in_runs(m, sink));
    EXPECT_EQ(sink.bytes, write(m));
}

TEST_P(Encoder, WholeCurvesAndMarkerListsGiveTheBytesOfWrite) {
    const model m = busy_model(GetParam());
    recording_sink sink;
    EXPECT_FALSE(encode_whole(m, sink));
    EXPECT_EQ(sink.bytes, write(m));
}

TEST_P(Encoder, EmptyCurvesGiveTheBytesOfWrite) {
    model m = busy_model(GetParam());
    for (curve& c : m.curves) c.keys.clear();
    recording_sink sink;
    EXPECT_FALSE(encode_one_at_a_time(m, sink));
    EXPECT_EQ(sink.bytes, write(m));
}

INSTANTIATE_TEST_SUITE_P(EveryVersionLayoutAndBlockChoice, Encoder,
                         ::testing::ValuesIn(every_config()), config_name);

TEST(EncoderOutput, ALargeRecordingReachesTheSinkInSeveralPiecesInFileOrder) {
    const model m = busy_model({1, 1, layout::full, block_flags{}, true});
    recording_sink sink;
    EXPECT_FALSE(encode_one_at_a_time(m, sink));
    EXPECT_GT(sink.calls, 1u);
    EXPECT_EQ(sink.bytes, write(m));
}

TEST(EncoderOutput, EncodedKeysLargerThanTheBufferGoToTheSinkInOneCall) {
    std::vector<keyframe> keys;
    for (int i = 0; i < 5000; ++i) keys.push_back({static_cast<float>(i), 1.0f});
    recording_sink sink;
    encoder e(sink);
    ASSERT_FALSE(e.write_header(1, 1, layout::compact, block_flags{false, false, true}));
    ASSERT_FALSE(e.begin_curve(gaze_curve(ray_channel::origin_x), 8, 8, keys.size()));
    const bytes encoded = file_keys(keys, false);
    ASSERT_FALSE(e.write_encoded_keys(encoded, keys.size()));
    // The header's bytes first, then the 40,000 bytes of keys as they are.
    ASSERT_EQ(sink.calls, 2u);
    EXPECT_TRUE(std::equal(encoded.begin(), encoded.end(), sink.bytes.end() - 40000));
}

TEST(EncoderOutput, TheSmallModelsOfTheTestsEncodeAsWriteWritesThem) {
    for (const shape s : all_shapes) {
        for (bool markers : {true, false}) {
            const model m = small_model(s, markers);
            recording_sink sink;
            EXPECT_FALSE(encode_one_at_a_time(m, sink));
            EXPECT_EQ(sink.bytes, write(m)) << shape_name(s) << " markers " << markers;
        }
    }
}

TEST(EncoderOutput, NothingReachesTheSinkBeforeFinishForASmallFile) {
    const model m = small_model(shape::v11_compact);
    recording_sink sink;
    encoder e(sink);
    e.write_header(m.major, m.minor, m.layout, m.blocks);
    for (std::size_t i = 0; i < curve_count(m.blocks); ++i) {
        e.write_curve(curve_at(m.blocks, i), m[curve_at(m.blocks, i)]);
    }
    e.write_markers(*m.markers);
    EXPECT_EQ(sink.calls, 0u);
    EXPECT_FALSE(e.finish());
    EXPECT_EQ(sink.calls, 1u);
    EXPECT_EQ(sink.bytes, write(m));
}

TEST(EncoderOutput, StatusIsClearWhileTheCallsFollowTheFileOrder) {
    recording_sink sink;
    encoder e(sink);
    EXPECT_FALSE(e.status());
    EXPECT_FALSE(e.write_header(1, 1, layout::compact, block_flags{false, false, true}));
    EXPECT_FALSE(e.begin_curve(curve_at(block_flags{false, false, true}, 0), 8, 8, 1));
    EXPECT_FALSE(e.write_key(keyframe{}));
    EXPECT_FALSE(e.status());
}

}  // namespace
