// Converting recordings between versions and layouts (inputanim/convert.hpp): the same bytes when
// nothing changes, the same keys after any round trip, the time window and its edge keys, the
// shift to zero, and MRTK's thinning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inputanim/convert.hpp"
#include "inputanim/generate.hpp"
#include "support/builders.hpp"
#include "support/bytes_source.hpp"
#include "support/converted.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

model read_back(const bytes& b) {
    model m;
    EXPECT_FALSE(read_model(view(b), m));
    return m;
}

convert_options to_shape(shape s) {
    convert_options o;
    o.minor = s == shape::v10 ? 0 : 1;
    o.layout = s == shape::v11_compact ? layout::compact : layout::full;
    return o;
}

bool has_tangents(shape s) {
    return s != shape::v11_compact;
}

block_flags blocks_of(const model& m) {
    return m.minor == 0 ? block_flags{true, true, false} : m.blocks;
}

// Time and value of every key of every curve both models hold, and the markers.
void expect_same_keys(const model& a, const model& b) {
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const auto id = curve_id(i);
        if (!has_curve(blocks_of(a), id) || !has_curve(blocks_of(b), id)) continue;
        const curve& x = a[id];
        const curve& y = b[id];
        ASSERT_EQ(x.keys.size(), y.keys.size()) << curve_path(id);
        EXPECT_EQ(x.pre_wrap, y.pre_wrap) << curve_path(id);
        EXPECT_EQ(x.post_wrap, y.post_wrap) << curve_path(id);
        for (std::size_t k = 0; k < x.keys.size(); ++k) {
            EXPECT_EQ(x.keys[k].time, y.keys[k].time) << curve_path(id) << " key " << k;
            EXPECT_EQ(x.keys[k].value, y.keys[k].value) << curve_path(id) << " key " << k;
        }
    }
    EXPECT_EQ(a.markers, b.markers);
}

model linear_model() {
    model m;
    m.blocks = {true, true, false};
    // camera.position.x: 0 at t=0, 10 at t=1, 0 at t=2 (linear between).
    m[camera_curve(pose_channel::position_x)].keys = {{0.0f, 0.0f}, {1.0f, 10.0f}, {2.0f, 0.0f}};
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}, {0.5f, 0.0f}, {1.5f, 1.0f}};
    m.markers = std::vector<marker>{{0.2f, "early"}, {1.2f, "inside"}, {1.9f, "late"}};
    return m;
}

}  // namespace

TEST(Convert, ToTheSourcesOwnVersionAndLayoutGivesTheSourcesBytes) {
    for (const shape s : all_shapes) {
        const bytes source = small_file(s);
        EXPECT_EQ(convert_bytes(source, to_shape(s)).data, source) << shape_name(s);
    }
    generate_options g;
    g.seconds = 3;
    g.markers = 5;
    for (const shape s : all_shapes) {
        g.minor = s == shape::v10 ? 0 : 1;
        g.layout = s == shape::v11_compact ? layout::compact : layout::full;
        const bytes source = write(generated_model(g));
        EXPECT_EQ(convert_bytes(source, to_shape(s)).data, source) << shape_name(s);
    }
}

TEST(Convert, ConvertsToItselfIsTrueExactlyWhenTheOutputIsTheSourcesBytes) {
    for (const shape s : all_shapes) {
        const bytes source = small_file(s);
        recording rec;
        ASSERT_FALSE(rec.open(view(source)));
        EXPECT_TRUE(converts_to_itself(rec, to_shape(s))) << shape_name(s);
        EXPECT_EQ(convert_bytes(source, to_shape(s)).data, source) << shape_name(s);
        for (const shape other : all_shapes) {
            if (other == s) continue;
            EXPECT_FALSE(converts_to_itself(rec, to_shape(other))) << shape_name(s);
        }
        convert_options window = to_shape(s);
        window.to = 100.0f;
        EXPECT_FALSE(converts_to_itself(rec, window)) << shape_name(s);
        convert_options shifted = to_shape(s);
        shifted.shift_to_zero = true;
        EXPECT_FALSE(converts_to_itself(rec, shifted)) << shape_name(s);
        convert_options thinned = to_shape(s);
        thinned.thin = thinning{};
        EXPECT_FALSE(converts_to_itself(rec, thinned)) << shape_name(s);
    }
}

TEST(Convert, ASourceWithoutAMarkerListOrWithALongFormNameLengthDoesNotConvertToItself) {
    const bytes bare = small_file(shape::v11_compact, false);
    recording rec;
    ASSERT_FALSE(rec.open(view(bare)));
    EXPECT_FALSE(converts_to_itself(rec));
    // The first marker's name length in two bytes (L | 0x80, 0): .NET reads it, and the encoder
    // writes it in one.
    const model m = small_model(shape::v11_compact);
    const bytes shortest = write(m);
    bytes longer = shortest;
    const std::size_t length_at = marker_list_offset(m) + 4 + 4;
    ASSERT_LT(std::to_integer<int>(longer[length_at]), 0x80);
    longer[length_at] |= std::byte{0x80};
    longer.insert(longer.begin() + static_cast<std::ptrdiff_t>(length_at) + 1, std::byte{0});
    recording long_form;
    ASSERT_FALSE(long_form.open(view(longer)));
    EXPECT_FALSE(converts_to_itself(long_form));
    EXPECT_EQ(convert_bytes(longer).data, shortest);
}

TEST(Convert, TheDefaultTargetIsVersion11Compact) {
    const converted c = convert_bytes(small_file(shape::v10));
    const model m = read_back(c.data);
    EXPECT_EQ(m.minor, 1);
    EXPECT_EQ(m.layout, layout::compact);
    EXPECT_EQ(m.blocks, (block_flags{true, true, false}));
}

TEST(Convert, EveryPairOfLayoutsAndBackGivesTheSameKeys) {
    for (const shape a : all_shapes) {
        for (const shape b : all_shapes) {
            const bytes source = small_file(a);
            const bytes there = convert_bytes(source, to_shape(b)).data;
            const bytes back = convert_bytes(there, to_shape(a)).data;
            const model original = read_back(source);
            const model returned = read_back(back);
            SCOPED_TRACE(std::string(shape_name(a)) + " -> " + shape_name(b));
            expect_same_keys(original, read_back(there));
            expect_same_keys(original, returned);
            // Tangents survive when both ends hold them.
            if (has_tangents(a) && has_tangents(b)) {
                const curve_id x = camera_curve(pose_channel::position_x);
                EXPECT_EQ(returned[x].keys, original[x].keys);
            }
            // The same bytes when the middle lost nothing: eye gaze and tangents.
            if (a != shape::v10 && b != shape::v10 && (has_tangents(b) || !has_tangents(a))) {
                EXPECT_EQ(back, source);
            }
        }
    }
}

TEST(Convert, Version10ToVersion11KeepsCameraAndHandsWithTheGazeFlagOff) {
    const converted c = convert_bytes(small_file(shape::v10));
    EXPECT_EQ(std::to_integer<int>(c.data.at(16)), 1);
    EXPECT_EQ(std::to_integer<int>(c.data.at(17)), 1);
    EXPECT_EQ(std::to_integer<int>(c.data.at(18)), 0);
    EXPECT_EQ(read_back(c.data).blocks, (block_flags{true, true, false}));
}

TEST(Convert, Version11WithGazeToVersion10LeavesTheGazeOutAndSaysSo) {
    const converted c = convert_bytes(small_file(shape::v11_compact), to_shape(shape::v10));
    EXPECT_EQ(c.result.gaze_curves_dropped, 6u);
    EXPECT_EQ(c.result.gaze_keys_dropped, 24u);
    recording rec;
    ASSERT_FALSE(rec.open(view(c.data)));
    EXPECT_EQ(rec.curves().size(), v10_curve_count);
    EXPECT_EQ(rec.find(gaze_curve(ray_channel::origin_x)), nullptr);
}

TEST(Convert, Version10AlwaysHas389CurvesWithMissingBlocksWrittenEmpty) {
    model m = small_model(shape::v11_compact);
    m.blocks = {false, false, true};
    const converted c = convert_bytes(write(m), to_shape(shape::v10));
    EXPECT_EQ(c.result.empty_curves_added, v10_curve_count);
    EXPECT_EQ(c.result.gaze_curves_dropped, 6u);
    recording rec;
    ASSERT_FALSE(rec.open(view(c.data)));
    ASSERT_EQ(rec.curves().size(), v10_curve_count);
    for (const curve_view& v : rec.curves()) {
        EXPECT_TRUE(v.keys.empty()) << v.path();
        EXPECT_EQ(v.pre_wrap, 8);
        EXPECT_EQ(v.post_wrap, 8);
    }
    EXPECT_EQ(c.data.size(), 4688u + (4 + 1 + 5) + (4 + 1 + 6));
}

TEST(Convert, FullToCompactCountsTheCurvesWhoseTangentsChangedPlayback) {
    const converted c = convert_bytes(small_file(shape::v11_full), to_shape(shape::v11_compact));
    // Camera, left wrist and gaze curves carry tangents that are not MRTK's.
    EXPECT_EQ(c.result.curved_curves, 7u + 7u + 6u);
    EXPECT_EQ(c.result.curved_keys, 4u * (7 + 7 + 6));
    // MRTK's own full keys (0, 0, 0, 0, 3) are exactly what compact keys play back as.
    generate_options g;
    g.seconds = 1;
    g.minor = 0;
    EXPECT_EQ(convert_bytes(write(generated_model(g))).result.curved_curves, 0u);
}

TEST(Convert, CompactToFullGivesMrtksDefaultTangents) {
    const model m =
        read_back(convert_bytes(small_file(shape::v11_compact), to_shape(shape::v11_full)).data);
    for (const keyframe& k : m[camera_curve(pose_channel::position_x)].keys) {
        EXPECT_EQ(k.in_tangent, 0.0f);
        EXPECT_EQ(k.out_tangent, 0.0f);
        EXPECT_EQ(k.in_weight, 0.0f);
        EXPECT_EQ(k.out_weight, 0.0f);
        EXPECT_EQ(k.weighted_mode, 3);
    }
}

TEST(Convert, ASourceWithoutAMarkerListGetsAnEmptyOne) {
    const converted c = convert_bytes(small_file(shape::v11_compact, false));
    EXPECT_TRUE(c.result.marker_list_added);
    const model m = read_back(c.data);
    ASSERT_TRUE(m.markers.has_value());
    EXPECT_TRUE(m.markers->empty());
}

TEST(Convert, TheWindowKeepsKeysInsideAndAddsKeysAtItsEndsWherePlaybackNeedsThem) {
    convert_options o;
    o.from = 0.5f;
    o.to = 1.5f;
    const bytes source = write(linear_model());
    const converted c = convert_bytes(source, o);
    const model m = read_back(c.data);
    const std::vector<keyframe> x = m[camera_curve(pose_channel::position_x)].keys;
    ASSERT_EQ(x.size(), 3u);
    EXPECT_EQ(x[0].time, 0.5f);
    EXPECT_EQ(x[0].value, 5.0f);
    EXPECT_EQ(x[1].time, 1.0f);
    EXPECT_EQ(x[1].value, 10.0f);
    EXPECT_EQ(x[2].time, 1.5f);
    EXPECT_EQ(x[2].value, 5.0f);
    // The bool curve has a key at 0.5 already and one at 1.5: nothing to add.
    const std::vector<keyframe> tracked = m[hand_state_curve(hand_state::left_tracked)].keys;
    ASSERT_EQ(tracked.size(), 2u);
    EXPECT_EQ(tracked[0].time, 0.5f);
    EXPECT_EQ(tracked[1].time, 1.5f);
    EXPECT_EQ(c.result.keys_outside, 3u);
    EXPECT_EQ(c.result.edge_keys_added, 2u);
    ASSERT_EQ(m.markers->size(), 1u);
    EXPECT_EQ((*m.markers)[0].name, "inside");
    EXPECT_EQ(c.result.markers_dropped, 2u);

    // Playback inside the window is the source's.
    recording before, after;
    ASSERT_FALSE(before.open(view(source)));
    ASSERT_FALSE(after.open(view(c.data)));
    for (float t = 0.5f; t <= 1.5f; t += 1.0f / 64) {
        for (const curve_view& v : before.curves()) {
            EXPECT_EQ(evaluate(*after.find(v.id), t), evaluate(v, t)) << v.path() << " at " << t;
        }
    }
}

TEST(Convert, ABoolCurveGetsAKeyAtTheStartOfTheWindowOnly) {
    convert_options o;
    o.from = 0.25f;
    o.to = 1.0f;
    const model m = read_back(convert_bytes(write(linear_model()), o).data);
    const std::vector<keyframe> tracked = m[hand_state_curve(hand_state::left_tracked)].keys;
    ASSERT_EQ(tracked.size(), 2u);
    EXPECT_EQ(tracked[0].time, 0.25f);
    EXPECT_EQ(tracked[0].value, 1.0f);
    EXPECT_EQ(tracked[1].time, 0.5f);
    EXPECT_EQ(tracked[1].value, 0.0f);
}

TEST(Convert, ACurveWithKeysOnlyBeforeTheWindowHoldsItsLastValueInIt) {
    model m = linear_model();
    m[camera_curve(pose_channel::position_y)].keys = {{0.0f, 3.0f}, {0.1f, 4.0f}};
    convert_options o;
    o.from = 1.0f;
    o.to = 2.0f;
    const model out = read_back(convert_bytes(write(m), o).data);
    const std::vector<keyframe> y = out[camera_curve(pose_channel::position_y)].keys;
    ASSERT_EQ(y.size(), 1u);
    EXPECT_EQ(y[0].time, 1.0f);
    EXPECT_EQ(y[0].value, 4.0f);
}

TEST(Convert, AStepCutByTheWindowStaysAStep) {
    model m;
    m.layout = layout::full;
    keyframe a{0.0f, 1.0f};
    a.out_tangent = std::numeric_limits<float>::infinity();
    m[camera_curve(pose_channel::position_x)].keys = {a, {1.0f, 5.0f}};
    convert_options o;
    o.layout = layout::full;
    o.from = 0.5f;
    const bytes source = write(m);
    const converted c = convert_bytes(source, o);
    EXPECT_EQ(c.result.curved_edges, 0u);
    recording after;
    ASSERT_FALSE(after.open(view(c.data)));
    const curve_view& x = *after.camera(pose_channel::position_x);
    EXPECT_EQ(evaluate(x, 0.5f), 1.0f);
    EXPECT_EQ(evaluate(x, 0.99f), 1.0f);
    EXPECT_EQ(evaluate(x, 1.0f), 5.0f);
}

TEST(Convert, ACurvedSegmentCutByTheWindowIsCounted) {
    const converted c = [] {
        convert_options o = to_shape(shape::v11_full);
        o.from = 0.1f;
        return convert_bytes(small_file(shape::v11_full), o);
    }();
    // Camera, left wrist and gaze: each curve's first segment is a Hermite or Bezier one.
    EXPECT_EQ(c.result.curved_edges, 7u + 7u + 6u);
}

TEST(Convert, ShiftToZeroSubtractsTheWindowStartFromKeysAndMarkers) {
    convert_options o;
    o.from = 0.5f;
    o.shift_to_zero = true;
    const model m = read_back(convert_bytes(write(linear_model()), o).data);
    const std::vector<keyframe> x = m[camera_curve(pose_channel::position_x)].keys;
    ASSERT_EQ(x.size(), 3u);
    EXPECT_EQ(x[0].time, 0.0f);
    EXPECT_EQ(x[1].time, 0.5f);
    EXPECT_EQ(x[2].time, 1.5f);
    ASSERT_EQ(m.markers->size(), 2u);
    EXPECT_FLOAT_EQ((*m.markers)[0].time, 0.7f);
}

TEST(Convert, ShiftToZeroWithoutAWindowSubtractsTheFirstKeyTime) {
    model m = linear_model();
    for (keyframe& k : m[camera_curve(pose_channel::position_x)].keys) k.time -= 3.0f;
    convert_options o;
    o.shift_to_zero = true;
    const model out = read_back(convert_bytes(write(m), o).data);
    EXPECT_EQ(out[camera_curve(pose_channel::position_x)].keys[0].time, 0.0f);
    EXPECT_EQ(out[hand_state_curve(hand_state::left_tracked)].keys[0].time, 3.0f);
    EXPECT_EQ((*out.markers)[0].time, 3.2f);
}

TEST(Convert, ShiftedKeysThatRoundToTheSameTimeAreMovedApart) {
    model m;
    // Far from zero the shift's float subtraction rounds: 1000 + 1e-4 and 1000 + 1.1e-4 from -1000.
    m[camera_curve(pose_channel::position_x)].keys = {
        {-1000.0f, 0.0f}, {0.0001f, 1.0f}, {0.00011f, 2.0f}, {0.00012f, 3.0f}};
    convert_options o;
    o.shift_to_zero = true;
    const converted c = convert_bytes(write(m), o);
    const std::vector<keyframe> x = read_back(c.data)[camera_curve(pose_channel::position_x)].keys;
    ASSERT_EQ(x.size(), 4u);
    for (std::size_t i = 1; i < x.size(); ++i) EXPECT_LT(x[i - 1].time, x[i].time);
    EXPECT_EQ(x[2].time, std::nextafter(x[1].time, 2000.0f));
    EXPECT_EQ(c.result.keys_nudged, 2u);
    EXPECT_FALSE(validate(view(c.data)).error);
}

// The rule of convert.hpp, key by key: each time less the shift, moved to the float after the
// previous shifted time where the subtraction made it no later.
std::vector<float> shifted_key_by_key(const std::vector<keyframe>& keys, float by) {
    std::vector<float> out;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        float t = keys[i].time - by;
        if (i > 0 && keys[i].time > keys[i - 1].time && !(t > out.back())) {
            t = std::nextafter(out.back(), std::numeric_limits<float>::infinity());
        }
        out.push_back(t);
    }
    return out;
}

TEST(Convert, ShiftedTimesFollowTheKeyByKeyRuleAcrossLongCurvesInEveryLayout) {
    // Keys 1/60 s apart, then a stretch a float apart far from zero, then apart again: the
    // stretch's shifted times collapse and are moved apart, the keys around it are not.
    model m;
    m.minor = 1;
    std::vector<keyframe>& keys = m[camera_curve(pose_channel::position_x)].keys;
    for (int i = 0; i < 3000; ++i) keys.push_back({static_cast<float>(i) / 60.0f, 1.0f});
    for (int i = 0; i < 1500; ++i) keys.push_back({4e6f + static_cast<float>(i) / 2.0f, 2.0f});
    for (int i = 0; i < 2000; ++i) keys.push_back({5e6f + static_cast<float>(i) * 64.0f, 3.0f});
    for (const shape from : {shape::v11_compact, shape::v11_full}) {
        for (const shape to : all_shapes) {
            SCOPED_TRACE(std::string(shape_name(from)) + " to " + std::string(shape_name(to)));
            m.layout = from == shape::v11_compact ? layout::compact : layout::full;
            convert_options o = to_shape(to);
            o.from = -2e7f;
            o.shift_to_zero = true;
            const converted c = convert_bytes(write(m), o);
            const std::vector<keyframe> x =
                read_back(c.data)[camera_curve(pose_channel::position_x)].keys;
            // The window's start adds no key: the curve starts after it.
            ASSERT_EQ(x.size(), keys.size());
            const std::vector<float> expected = shifted_key_by_key(keys, -2e7f);
            std::size_t nudged = 0;
            for (std::size_t i = 0; i < x.size(); ++i) {
                ASSERT_EQ(x[i].time, expected[i]) << "key " << i;
                ASSERT_EQ(x[i].value, keys[i].value) << "key " << i;
                nudged += expected[i] != keys[i].time + 2e7f ? 1 : 0;
            }
            EXPECT_GT(nudged, 0u);
            EXPECT_EQ(c.result.keys_nudged, nudged);
        }
    }
}

TEST(Convert, KeysReadFromTheSourceFileGiveTheBytesOfTheMapping) {
    generate_options g;
    g.seconds = 20;
    g.raw = true;
    g.layout = layout::full;
    model m;
    ASSERT_FALSE(generate(g, m));
    const bytes source = write(m);
    const bytes_source file(source);
    for (const shape to : all_shapes) {
        for (const bool shift : {false, true}) {
            SCOPED_TRACE(std::string(shape_name(to)) + (shift ? " shifted" : ""));
            convert_options o = to_shape(to);
            o.from = 3.0f;
            o.shift_to_zero = shift;
            const converted mapped = convert_bytes(source, o);
            o.source = &file;
            const converted read = convert_bytes(source, o);
            EXPECT_FALSE(read.result.source_failed);
            EXPECT_EQ(read.data, mapped.data);
        }
    }
}

TEST(Convert, ThinningARawRecordingGivesTheKeysTheGeneratorThins) {
    generate_options g;
    g.seconds = 4;
    g.raw = true;
    const bytes raw = write(generated_model(g));
    g.raw = false;
    const model thinned_by_gen = generated_model(g);
    convert_options o;
    o.thin = thinning{};
    const converted c = convert_bytes(raw, o);
    const model thinned = read_back(c.data);
    for (std::size_t i = 0; i < pose_channel_count; ++i) {
        EXPECT_EQ(thinned.curves[camera_first + i], thinned_by_gen.curves[camera_first + i]);
    }
    for (std::size_t i = 0; i < ray_channel_count; ++i) {
        EXPECT_EQ(thinned.curves[gaze_first + i], thinned_by_gen.curves[gaze_first + i]);
    }
    EXPECT_GT(c.result.keys_thinned, 0u);
}

TEST(Convert, ThinnedCurvesEvaluateWithinTheToleranceAtEveryOriginalKeyTime) {
    generate_options g;
    g.seconds = 5;
    g.raw = true;
    const bytes raw = write(generated_model(g));
    convert_options o;
    o.thin = thinning{};
    const converted c = convert_bytes(raw, o);
    recording before, after;
    ASSERT_FALSE(before.open(view(raw)));
    ASSERT_FALSE(after.open(view(c.data)));
    EXPECT_LT(c.data.size(), raw.size() / 4);
    for (const curve_view& v : before.curves()) {
        const curve_view& t = *after.find(v.id);
        const std::size_t i = to_index(v.id);
        const bool rotation = i < gaze_first && kind_of(v.id) == curve_kind::float_curve &&
                              (i - (i < hand_state_first ? 0 : left_joint_first)) % 7 >= 3;
        const bool direction = i >= gaze_first + 3;
        const double tolerance = direction  ? o.thin->direction_distance()
                                 : rotation ? o.thin->rotation_distance()
                                            : o.thin->position;
        for (const keyframe_view k : v.keys) {
            // The thinning measures in double; the float keys add at most a rounding.
            EXPECT_LE(std::abs(evaluate(t, k.time()) - k.value()), tolerance * (1 + 1e-4) + 1e-6)
                << v.path() << " at " << k.time();
        }
    }
}

TEST(Convert, ThinnedBoolCurvesKeepTheFirstKeyAndEachChange) {
    model m;
    m[hand_state_curve(hand_state::left_pinching)].keys = {
        {0.0f, 0.0f}, {0.1f, 0.0f}, {0.2f, 1.0f}, {0.3f, 1.0f}, {0.4f, 0.0f}};
    convert_options o;
    o.thin = thinning{};
    const converted c = convert_bytes(write(m), o);
    const std::vector<keyframe> k =
        read_back(c.data)[hand_state_curve(hand_state::left_pinching)].keys;
    ASSERT_EQ(k.size(), 3u);
    EXPECT_EQ(k[0].time, 0.0f);
    EXPECT_EQ(k[1].time, 0.2f);
    EXPECT_EQ(k[2].time, 0.4f);
    EXPECT_EQ(c.result.keys_thinned, 2u);
}

TEST(Convert, ThinningLeavesCurvedCurvesOfAFullTargetWhole) {
    convert_options o = to_shape(shape::v11_full);
    o.thin = thinning{};
    const converted c = convert_bytes(small_file(shape::v11_full), o);
    EXPECT_EQ(c.result.curves_not_thinned, 7u + 7u + 6u);
    EXPECT_EQ(c.data, small_file(shape::v11_full));
}

TEST(Convert, EverySourceByteOfTheCurvesIsHandedBackOnceInOrder) {
    generate_options g;
    // Curves of 42000 keys: each is handed back in more than one piece.
    g.seconds = 700;
    g.raw = true;
    g.blocks = {true, false, false};
    const bytes source = write(generated_model(g));
    recording rec;
    ASSERT_FALSE(rec.open(view(source)));
    std::vector<std::pair<std::size_t, std::size_t>> pieces;
    convert_options o;
    o.consumed = [&](std::span<const std::byte> b) {
        pieces.emplace_back(static_cast<std::size_t>(b.data() - source.data()), b.size());
    };
    bytes out;
    vector_sink sink(out);
    ASSERT_FALSE(convert(rec, sink, o).error);
    EXPECT_EQ(out, source);
    ASSERT_FALSE(pieces.empty());
    EXPECT_GE(pieces.size(), 2 * rec.curves().size());
    std::size_t next = rec.curves().front().offset;
    for (const auto& [offset, size] : pieces) {
        EXPECT_EQ(offset, next);
        next = offset + size;
    }
    EXPECT_EQ(next, marker_list_offset(read_back(source)));
}

// The 2019 layouts (FORMAT.md section 9) convert like any other source: by curve_id, whatever
// their curve order.
TEST(Convert, AJune2019FileToVersion10IsTheV10HeaderFollowedByItsBytes) {
    const model m = small_model(shape::v10);
    const bytes june = write_2019(m, edition::june_2019);
    const converted c = convert_bytes(june, to_shape(shape::v10));
    EXPECT_EQ(c.data, write(m));
    EXPECT_EQ(c.result.marker_list_added, false);
}

TEST(Convert, AMay2019FileToVersion10IsTheV10FileOfItsCurvesWithAnEmptyMarkerList) {
    model m = small_model(shape::v10);
    for (std::size_t bool_key_size : {bool_keyframe_size, full_keyframe_size}) {
        const converted c =
            convert_bytes(write_2019(m, edition::may_2019, bool_key_size), to_shape(shape::v10));
        model expected = m;
        expected.markers = std::vector<marker>{};
        EXPECT_EQ(c.data, write(expected)) << bool_key_size;
        EXPECT_TRUE(c.result.marker_list_added);
    }
}

TEST(Convert, Every2019LayoutToEveryTargetAndBackToVersion10GivesTheSameKeys) {
    const model m = small_model(shape::v10);
    for (const bytes& source :
         {write_2019(m, edition::june_2019), write_2019(m, edition::may_2019, bool_keyframe_size),
          write_2019(m, edition::may_2019, full_keyframe_size)}) {
        for (shape target : all_shapes) {
            const converted there = convert_bytes(source, to_shape(target));
            const converted back = convert_bytes(there.data, to_shape(shape::v10));
            model got = read_back(back.data);
            model want = m;
            // May's markers are unknown: its conversions carry an empty list.
            if (got.markers->empty()) want.markers = std::vector<marker>{};
            expect_same_keys(want, got);
        }
    }
}

// The six real recordings (../shared/recordings, skipped without it): each converts to v1.1
// compact, which validates at level full and plays as the original at every key time of every
// curve (bit for bit at a curve's own keys; between them, where the original's full keys are
// MRTK's linear ones, within float rounding).
class RealRecordingConverts : public ::testing::TestWithParam<const char*> {};

TEST_P(RealRecordingConverts, ToVersion11CompactValidAndPlayingTheSame) {
    const std::optional<bytes> source = real_recording(GetParam());
    if (!source) GTEST_SKIP() << GetParam() << " not found in " << recordings_dir();
    const converted c = convert_bytes(*source);
    const report r = validate(view(c.data), validate_options{level::full});
    ASSERT_TRUE(r.valid()) << r.error.message();
    EXPECT_EQ(r.summary.minor, 1);
    EXPECT_EQ(r.summary.layout, layout::compact);
    recording original;
    ASSERT_FALSE(original.open(view(*source)));
    recording copy;
    ASSERT_FALSE(copy.open(view(c.data)));
    EXPECT_EQ(copy.summary().keyframes, original.summary().keyframes);
    std::vector<float> times;
    for (const curve_view& k : original.curves()) {
        for (const keyframe_view key : k.keys) times.push_back(key.time());
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    ASSERT_GT(times.size(), 300u);
    for (const curve_view& o : original.curves()) {
        const curve_view* n = copy.find(o.id);
        ASSERT_NE(n, nullptr) << o.path();
        for (const keyframe_view key : o.keys) {
            EXPECT_EQ(evaluate(*n, key.time()), evaluate(o, key.time())) << o.path();
        }
        for (float t : times) {
            if (o.kind == curve_kind::bool_curve) {
                ASSERT_EQ(evaluate_bool(*n, t), evaluate_bool(o, t)) << o.path() << " at " << t;
                continue;
            }
            const float want = evaluate(o, t);
            ASSERT_NEAR(evaluate(*n, t), want, 1e-6f * std::max(1.0f, std::fabs(want)))
                << o.path() << " at " << t;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shared, RealRecordingConverts,
    ::testing::Values("InputAnimation-20190515-104548.bin", "InputAnimation-20190515-150550.bin",
                      "InputAnimation-20190516-130120.bin", "InputAnimation-20190606-161538.bin",
                      "InputAnimation-20190607-120309.bin", "InputAnimation-20190607-121439.bin"),
    [](const ::testing::TestParamInfo<const char*>& info) {
        return recording_test_name(info.param);
    });
