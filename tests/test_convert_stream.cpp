// The conversion of a recording that arrives piece by piece (inputanim::stream_converter,
// convert.hpp): for every source and target, fed in pieces of any size, the bytes and the result
// of convert() over the whole recording.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "inputanim/convert.hpp"
#include "inputanim/generate.hpp"
#include "support/builders.hpp"
#include "support/converted.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// `source` fed `piece` bytes at a time.
converted streamed(const bytes& source, layout source_layout, const convert_options& o,
                   std::size_t piece) {
    converted c;
    vector_sink sink(c.data);
    stream_converter s(source_layout, sink, o);
    for (std::size_t at = 0; at < source.size(); at += piece) {
        const std::size_t n = std::min(piece, source.size() - at);
        if (s.feed(std::span(source).subspan(at, n))) break;
    }
    c.result = s.finish();
    return c;
}

convert_options target(int minor, layout l) {
    convert_options o;
    o.minor = minor;
    o.layout = l;
    return o;
}

void expect_same_result(const convert_result& a, const convert_result& b) {
    EXPECT_EQ(a.error, b.error);
    EXPECT_EQ(a.gaze_curves_dropped, b.gaze_curves_dropped);
    EXPECT_EQ(a.gaze_keys_dropped, b.gaze_keys_dropped);
    EXPECT_EQ(a.empty_curves_added, b.empty_curves_added);
    EXPECT_EQ(a.curved_curves, b.curved_curves);
    EXPECT_EQ(a.curved_keys, b.curved_keys);
    EXPECT_EQ(a.marker_list_added, b.marker_list_added);
    EXPECT_EQ(a.keys_written, b.keys_written);
    EXPECT_EQ(a.markers_written, b.markers_written);
    EXPECT_EQ(a.keys_outside, 0u);
    EXPECT_EQ(a.keys_nudged, 0u);
    EXPECT_EQ(a.keys_thinned, 0u);
}

struct source_case {
    std::string name;
    bytes data;
    layout source_layout;
};

// Every version and layout, every combination of blocks, with and without a marker list, with
// tangents and weights that a compact target drops, and markers whose names take a length of
// one, two and three bytes.
std::vector<source_case> sources() {
    std::vector<source_case> out;
    for (const shape s : all_shapes) {
        const layout l = s == shape::v11_compact ? layout::compact : layout::full;
        out.push_back({shape_name(s), small_file(s), l});
        out.push_back({std::string(shape_name(s)) + " without markers", small_file(s, false), l});
        out.push_back({std::string(shape_name(s)) + " empty", write(empty_model(s)), l});
    }
    for (int minor : {0, 1}) {
        for (const layout l : {layout::compact, layout::full}) {
            for (int b = 0; b < 8; ++b) {
                if (minor == 0 && (l == layout::compact || b != 7)) continue;
                generate_options g;
                g.seconds = 1.5;
                g.markers = 4;
                g.minor = minor;
                g.layout = l;
                g.blocks = {(b & 1) != 0, (b & 2) != 0, (b & 4) != 0};
                model m = generated_model(g);
                m.markers->push_back({0.25f, std::string(200, 'n')});
                m.markers->push_back({0.5f, std::string(20000, 'x')});
                out.push_back({"generated 1." + std::to_string(minor) +
                                   (l == layout::compact ? " compact" : " full") + " blocks " +
                                   std::to_string(b),
                               write(m), minor == 0 ? layout::full : l});
            }
        }
    }
    return out;
}

}  // namespace

TEST(StreamConvert, GivesConvertsBytesAndResultForEverySourceTargetAndPieceSize) {
    for (const source_case& s : sources()) {
        for (const convert_options& o :
             {target(1, layout::compact), target(1, layout::full), target(0, layout::full)}) {
            const converted expected = convert_bytes(s.data, o);
            ASSERT_FALSE(expected.result.error) << s.name;
            for (const std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{29},
                                            std::size_t{4096}, s.data.size()}) {
                SCOPED_TRACE(s.name + " to 1." + std::to_string(o.minor) +
                             (o.layout == layout::compact ? " compact" : " full") + ", pieces of " +
                             std::to_string(piece));
                const converted got = streamed(s.data, s.source_layout, o, piece);
                EXPECT_EQ(got.data, expected.data);
                expect_same_result(got.result, expected.result);
            }
        }
    }
}

TEST(StreamConvert, SaysWhatTheTargetLeftOutAsConvertDoes) {
    // v1.1 with gaze to v1.0: the gaze curves and their keys are counted.
    const bytes with_gaze = small_file(shape::v11_full);
    const converted to_v10 = streamed(with_gaze, layout::full, target(0, layout::full), 7);
    EXPECT_EQ(to_v10.result.gaze_curves_dropped, 6u);
    EXPECT_GT(to_v10.result.gaze_keys_dropped, 0u);
    // Full keys with tangents to compact: the curves whose playback changes.
    const converted to_compact = streamed(with_gaze, layout::full, target(1, layout::compact), 64);
    EXPECT_GT(to_compact.result.curved_curves, 0u);
    // A source without camera to v1.0: its 7 camera curves are written empty.
    generate_options g;
    g.seconds = 1;
    g.blocks = {false, true, true};
    const converted no_camera =
        streamed(write(generated_model(g)), layout::compact, target(0, layout::full), 100);
    EXPECT_EQ(no_camera.result.empty_curves_added, 7u);
    // A source that ends after its last curve gets an empty marker list.
    const converted no_list =
        streamed(small_file(shape::v11_compact, false), layout::compact, {}, 5);
    EXPECT_TRUE(no_list.result.marker_list_added);
}

TEST(StreamConvert, ALongRawRecordingGoesThroughInLargePieces) {
    generate_options g;
    g.seconds = 20;
    g.raw = true;
    g.markers = 3;
    g.blocks = {true, true, true};
    const bytes source = write(generated_model(g));
    for (const convert_options& o :
         {target(1, layout::compact), target(1, layout::full), target(0, layout::full)}) {
        const converted expected = convert_bytes(source, o);
        const converted got = streamed(source, layout::compact, o, 65536);
        EXPECT_EQ(got.data, expected.data);
        expect_same_result(got.result, expected.result);
    }
}
