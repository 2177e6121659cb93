#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "inputanim/generate.hpp"
#include "support/builders.hpp"
#include "support/encoder_sinks.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

generate_options options(double seconds, std::uint64_t seed = 1) {
    generate_options o;
    o.seconds = seconds;
    o.seed = seed;
    return o;
}

bytes generated_bytes(const generate_options& o) {
    return write(generated_model(o));
}

bytes streamed_bytes(const generate_options& o) {
    std::ostringstream out;
    EXPECT_FALSE(generate_to(o, out));
    const std::string s = out.str();
    bytes b(s.size());
    std::transform(s.begin(), s.end(), b.begin(), [](char c) { return std::byte(c); });
    return b;
}

enum class quantity { position, rotation, direction, state };

quantity quantity_of(curve_id id) {
    const std::size_t i = to_index(id);
    if (kind_of(id) == curve_kind::bool_curve) return quantity::state;
    if (i >= gaze_first) return i < gaze_first + 3 ? quantity::position : quantity::direction;
    const std::size_t channel =
        i < hand_state_first ? i : (i - left_joint_first) % pose_channel_count;
    return channel < 3 ? quantity::position : quantity::rotation;
}

// The first curve of the vector a float curve belongs to (position.x, rotation.x, origin.x or
// direction.x).
std::size_t vector_start(std::size_t i) {
    if (i >= gaze_first) return i < gaze_first + 3 ? gaze_first : gaze_first + 3;
    const std::size_t base = i < hand_state_first    ? camera_first
                             : i < right_joint_first ? left_joint_first
                                                     : right_joint_first;
    const std::size_t channel = (i - base) % pose_channel_count;
    return i - (channel < 3 ? channel : channel - 3);
}

// The tolerances generate_options documents for the default thinning (1 mm, 0.02 degree).
double tolerance_of(quantity q) {
    const double angle = 0.02 * std::numbers::pi / 180;
    switch (q) {
        case quantity::position:
            return 0.001;
        case quantity::rotation:
            return 2 * std::sin(angle / 4);
        case quantity::direction:
            return 2 * std::sin(angle / 2);
        case quantity::state:
            break;
    }
    return 0;
}

// How compact keys are played back: linear interpolation between the keys around t.
double interpolate(const std::vector<keyframe>& keys, float t) {
    const auto after = std::upper_bound(keys.begin(), keys.end(), t,
                                        [](float v, const keyframe& k) { return v < k.time; });
    if (after == keys.begin()) return keys.front().value;
    if (after == keys.end()) return keys.back().value;
    const keyframe& a = *(after - 1);
    const keyframe& b = *after;
    const double s = (static_cast<double>(t) - a.time) / (static_cast<double>(b.time) - a.time);
    return a.value + (static_cast<double>(b.value) - a.value) * s;
}

// A bool curve's value at t: its last key at or before t.
bool state_at(const curve& c, float t) {
    bool v = false;
    for (const keyframe& k : c.keys) {
        if (k.time > t) break;
        v = k.value > 0.5f;
    }
    return v;
}

// Every (joint, side) with curves, i.e. all joints but None.
std::vector<curve_id> rotation_x_curves(block_flags blocks) {
    std::vector<curve_id> out;
    if (blocks.camera) out.push_back(camera_curve(pose_channel::rotation_x));
    if (blocks.hands) {
        for (side s : {side::left, side::right}) {
            for (std::size_t j = 1; j < joint_count; ++j) {
                out.push_back(joint_curve(s, joint(j), pose_channel::rotation_x));
            }
        }
    }
    return out;
}

struct shape_case {
    int minor;
    layout lay;
    const char* name;
};
constexpr shape_case shape_cases[] = {{0, layout::full, "v1.0"},
                                      {1, layout::compact, "v1.1 compact"},
                                      {1, layout::full, "v1.1 full"}};

}  // namespace

TEST(Generate, EveryVersionLayoutAndBlockChoiceIsValidAtLevelFullWithoutWarnings) {
    for (const shape_case& sc : shape_cases) {
        for (int flags = 0; flags < 8; ++flags) {
            generate_options o = options(2, 11);
            o.minor = sc.minor;
            o.layout = sc.lay;
            o.blocks = {(flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0};
            o.markers = 3;
            const bytes b = generated_bytes(o);
            const report r = validate(view(b), validate_options{level::full});
            SCOPED_TRACE(std::string(sc.name) + " flags " + std::to_string(flags));
            ASSERT_TRUE(r.valid()) << r.error.message();
            EXPECT_EQ(r.warnings_found, 0u);
            EXPECT_EQ(r.summary.minor, sc.minor);
            // Without float curves the layout cannot be told (automatic reads it as compact).
            if (flags != 0 || sc.minor == 0) {
                EXPECT_EQ(r.summary.layout, sc.lay);
            }
            EXPECT_EQ(r.summary.markers, 3u);
            const block_flags expected = sc.minor == 0 ? block_flags{true, true, false} : o.blocks;
            EXPECT_EQ(r.summary.blocks, expected);
            EXPECT_EQ(r.summary.curves, curve_count(expected));
        }
    }
}

TEST(Generate, RawRecordingsAreValidAtLevelFullWithoutWarnings) {
    for (const shape_case& sc : shape_cases) {
        generate_options o = options(3, 5);
        o.minor = sc.minor;
        o.layout = sc.lay;
        o.raw = true;
        const bytes b = generated_bytes(o);
        const report r = validate(view(b));
        EXPECT_TRUE(r.valid()) << sc.name << ": " << r.error.message();
        EXPECT_EQ(r.warnings_found, 0u) << sc.name;
    }
}

TEST(Generate, TheSameSeedGivesTheSameBytes) {
    generate_options o = options(5, 42);
    o.markers = 4;
    EXPECT_EQ(generated_bytes(o), generated_bytes(o));
    EXPECT_EQ(streamed_bytes(o), streamed_bytes(o));
}

TEST(Generate, DifferentSeedsGiveDifferentCurvesInEveryBlock) {
    const block_flags single[] = {{true, false, false}, {false, true, false}, {false, false, true}};
    for (const block_flags blocks : single) {
        std::vector<bytes> seen;
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            generate_options o = options(3, seed);
            o.blocks = blocks;
            const bytes b = generated_bytes(o);
            for (const bytes& other : seen) EXPECT_NE(b, other) << "seed " << seed;
            seen.push_back(b);
        }
    }
}

TEST(Generate, SwitchingABlockOffLeavesTheOtherBlocksUnchanged) {
    const model all = generated_model(options(4, 3));
    generate_options o = options(4, 3);
    o.blocks.gaze = false;
    const model no_gaze = generated_model(o);
    o.blocks = {false, true, true};
    const model no_camera = generated_model(o);
    for (std::size_t i = 0; i < gaze_first; ++i) EXPECT_EQ(all.curves[i], no_gaze.curves[i]);
    for (std::size_t i = hand_state_first; i < curve_id_count; ++i) {
        EXPECT_EQ(all.curves[i], no_camera.curves[i]);
    }
}

TEST(Generate, RawKeysSitAtEverySampleFromZeroInStepsOfOneOverTheRate) {
    generate_options o = options(2.5);
    o.rate = 30;
    o.raw = true;
    const model m = generated_model(o);
    const std::vector<keyframe>& keys = m[camera_curve(pose_channel::position_x)].keys;
    ASSERT_EQ(keys.size(), 76u);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        EXPECT_EQ(keys[i].time, static_cast<float>(static_cast<double>(i) / 30)) << i;
    }
    EXPECT_EQ(m[gaze_curve(ray_channel::direction_z)].keys.size(), 76u);
}

TEST(Generate, AZeroSecondRecordingHasOneSampleAtTimeZero) {
    generate_options o = options(0);
    o.raw = true;
    const model m = generated_model(o);
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const curve_id id = curve_id(i);
        if (m.curves[i].keys.empty()) continue;
        ASSERT_EQ(m.curves[i].keys.size(), 1u) << curve_path(id);
        EXPECT_EQ(m.curves[i].keys[0].time, 0.0f);
    }
    EXPECT_EQ(m[camera_curve(pose_channel::rotation_w)].keys.size(), 1u);
    EXPECT_TRUE(validate(view(write(m))).valid());
}

TEST(Generate, KeyTimesStrictlyIncreaseAndEveryValueIsFinite) {
    for (bool raw : {false, true}) {
        generate_options o = options(6, 9);
        o.raw = raw;
        const model m = generated_model(o);
        for (std::size_t i = 0; i < curve_id_count; ++i) {
            const std::vector<keyframe>& keys = m.curves[i].keys;
            for (std::size_t k = 0; k < keys.size(); ++k) {
                ASSERT_TRUE(std::isfinite(keys[k].time) && std::isfinite(keys[k].value))
                    << curve_path(curve_id(i));
                if (k > 0) {
                    ASSERT_LT(keys[k - 1].time, keys[k].time) << curve_path(curve_id(i));
                }
            }
        }
    }
}

TEST(Generate, ThinningKeepsEveryRawSampleWithinToleranceOfTheKeptKeys) {
    generate_options o = options(20, 2);
    o.raw = true;
    const model raw = generated_model(o);
    o.raw = false;
    const model thin = generated_model(o);
    std::size_t raw_keys = 0, thin_keys = 0;
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const curve_id id = curve_id(i);
        const std::vector<keyframe>& all = raw.curves[i].keys;
        const std::vector<keyframe>& kept = thin.curves[i].keys;
        if (quantity_of(id) == quantity::state) {
            EXPECT_EQ(all, kept) << curve_path(id);
            continue;
        }
        raw_keys += all.size();
        thin_keys += kept.size();
        ASSERT_EQ(all.empty(), kept.empty()) << curve_path(id);
        if (all.empty()) continue;
        const double tolerance = tolerance_of(quantity_of(id));
        double worst = 0;
        for (const keyframe& sample : all) {
            worst = std::max(worst, std::abs(sample.value - interpolate(kept, sample.time)));
        }
        EXPECT_LE(worst, tolerance * (1 + 1e-9)) << curve_path(id);
        // Kept keys are samples: thinning removes keys, it never moves them.
        for (const keyframe& k : kept) {
            const auto at = std::lower_bound(all.begin(), all.end(), k.time,
                                             [](const keyframe& a, float t) { return a.time < t; });
            ASSERT_TRUE(at != all.end() && *at == k) << curve_path(id) << " at " << k.time;
        }
    }
    EXPECT_LT(thin_keys * 2, raw_keys);
}

TEST(Generate, ThinningKeepsTheEndsOfEveryRunAndAKeyAtLeastEveryPartition) {
    generate_options o = options(20, 4);
    o.raw = true;
    const model raw = generated_model(o);
    o.raw = false;
    const model thin = generated_model(o);
    const float gap = 1.5f / static_cast<float>(o.rate);
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const curve_id id = curve_id(i);
        if (quantity_of(id) == quantity::state) continue;
        const std::vector<keyframe>& all = raw.curves[i].keys;
        const std::vector<keyframe>& kept = thin.curves[i].keys;
        std::vector<std::size_t> positions;
        for (const keyframe& k : kept) {
            positions.push_back(
                static_cast<std::size_t>(std::find(all.begin(), all.end(), k) - all.begin()));
        }
        for (std::size_t k = 1; k < positions.size(); ++k) {
            EXPECT_LE(positions[k] - positions[k - 1], 32u) << curve_path(id);
        }
        // A hand that reappears is not interpolated from where it vanished.
        for (std::size_t k = 1; k < all.size(); ++k) {
            if (all[k].time - all[k - 1].time <= gap) continue;
            EXPECT_TRUE(std::binary_search(positions.begin(), positions.end(), k - 1));
            EXPECT_TRUE(std::binary_search(positions.begin(), positions.end(), k));
        }
        if (!all.empty()) {
            EXPECT_EQ(kept.front(), all.front()) << curve_path(id);
            EXPECT_EQ(kept.back(), all.back()) << curve_path(id);
        }
    }
}

TEST(Generate, TheCurvesOfOneVectorShareTheirKeyTimes) {
    const model m = generated_model(options(20, 6));
    auto times = [&](std::size_t i) {
        std::vector<float> t;
        for (const keyframe& k : m.curves[i].keys) t.push_back(k.time);
        return t;
    };
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const curve_id id = curve_id(i);
        if (quantity_of(id) == quantity::state) continue;
        EXPECT_EQ(times(i), times(vector_start(i))) << curve_path(id);
    }
}

TEST(Generate, QuaternionsAndGazeDirectionsAreUnitLengthAtEverySample) {
    generate_options o = options(8, 8);
    o.raw = true;
    const model m = generated_model(o);
    for (const curve_id x : rotation_x_curves(o.blocks)) {
        const std::size_t i = to_index(x);
        for (std::size_t k = 0; k < m.curves[i].keys.size(); ++k) {
            double sum = 0;
            for (std::size_t c = 0; c < 4; ++c) {
                const double v = m.curves[i + c].keys[k].value;
                sum += v * v;
            }
            ASSERT_NEAR(std::sqrt(sum), 1.0, 1e-5) << curve_path(x) << " key " << k;
        }
    }
    const std::size_t d = to_index(gaze_curve(ray_channel::direction_x));
    ASSERT_FALSE(m.curves[d].keys.empty());
    for (std::size_t k = 0; k < m.curves[d].keys.size(); ++k) {
        double sum = 0;
        for (std::size_t c = 0; c < 3; ++c) {
            const double v = m.curves[d + c].keys[k].value;
            sum += v * v;
        }
        ASSERT_NEAR(std::sqrt(sum), 1.0, 1e-5) << "gaze direction key " << k;
    }
}

TEST(Generate, TrackedAndPinchingHaveKeysOnlyAtTheStartAndAtEachChange) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        // Tracked spells last at most 20 s and lost ones 3 s, so 25 s sees both change.
        generate_options o = options(25, seed);
        o.blocks = {false, true, false};
        const model m = generated_model(o);
        for (const auto s : {hand_state::left_tracked, hand_state::right_tracked,
                             hand_state::left_pinching, hand_state::right_pinching}) {
            const std::vector<keyframe>& keys = m[hand_state_curve(s)].keys;
            SCOPED_TRACE(std::string(curve_path(hand_state_curve(s))) + " seed " +
                         std::to_string(seed));
            ASSERT_GE(keys.size(), 2u);
            EXPECT_EQ(keys.front().time, 0.0f);
            for (std::size_t k = 0; k < keys.size(); ++k) {
                EXPECT_TRUE(keys[k].value == 0.0f || keys[k].value == 1.0f);
                if (k > 0) {
                    EXPECT_NE(keys[k].value, keys[k - 1].value);
                }
            }
        }
    }
}

TEST(Generate, PinchingHappensOnlyWhileTheHandIsTracked) {
    generate_options o = options(30, 2);
    o.blocks = {false, true, false};
    const model m = generated_model(o);
    for (const side s : {side::left, side::right}) {
        const bool left = s == side::left;
        const curve& tracked =
            m[hand_state_curve(left ? hand_state::left_tracked : hand_state::right_tracked)];
        const curve& pinching =
            m[hand_state_curve(left ? hand_state::left_pinching : hand_state::right_pinching)];
        for (int i = 0; i <= 1800; ++i) {
            const float t = static_cast<float>(i / 60.0);
            if (state_at(pinching, t)) {
                ASSERT_TRUE(state_at(tracked, t)) << t;
            }
        }
    }
}

TEST(Generate, JointsHaveKeysExactlyWhileTheirHandIsTracked) {
    generate_options o = options(25, 1);
    o.blocks = {false, true, false};
    o.raw = true;
    const model m = generated_model(o);
    for (const side s : {side::left, side::right}) {
        const curve& tracked = m[hand_state_curve(s == side::left ? hand_state::left_tracked
                                                                  : hand_state::right_tracked)];
        std::vector<float> tracked_times;
        for (int i = 0; i <= 1500; ++i) {
            const float t = static_cast<float>(i / 60.0);
            if (state_at(tracked, t)) tracked_times.push_back(t);
        }
        ASSERT_LT(tracked_times.size(), 1501u) << "the hand leaves the view at least once";
        for (std::size_t c = 0; c < pose_channel_count; ++c) {
            EXPECT_TRUE(m[joint_curve(s, joint::none, pose_channel(c))].keys.empty());
        }
        for (std::size_t j = 1; j < joint_count; ++j) {
            const curve& x = m[joint_curve(s, joint(j), pose_channel::position_x)];
            std::vector<float> times;
            for (const keyframe& k : x.keys) times.push_back(k.time);
            ASSERT_EQ(times, tracked_times) << joint_names[j];
        }
    }
}

TEST(Generate, MarkersAreNumberedInOrderAndSomeNamesAreNotAscii) {
    generate_options o = options(20);
    o.markers = 9;
    const model m = generated_model(o);
    ASSERT_TRUE(m.markers.has_value());
    const std::vector<marker>& markers = *m.markers;
    ASSERT_EQ(markers.size(), 9u);
    EXPECT_EQ(markers[0].name, "marker 1");
    EXPECT_EQ(markers[1].name, "marker 2 — café");
    EXPECT_EQ(markers[2].name, "marker 3");
    EXPECT_EQ(markers[3].name, "マーカー 4 🎯");
    for (std::size_t k = 0; k < markers.size(); ++k) {
        EXPECT_NE(markers[k].name.find(std::to_string(k + 1)), std::string::npos);
        EXPECT_GE(markers[k].time, 0.0f);
        EXPECT_LE(markers[k].time, 20.0f);
        if (k > 0) {
            EXPECT_LT(markers[k - 1].time, markers[k].time);
        }
    }
    // Spread over the recording: one in each ninth.
    for (std::size_t k = 0; k < markers.size(); ++k) {
        EXPECT_GE(markers[k].time, 20.0f * static_cast<float>(k) / 9) << k;
        EXPECT_LE(markers[k].time, 20.0f * static_cast<float>(k + 1) / 9) << k;
    }
    const bytes b = write(m);
    recording rec;
    ASSERT_FALSE(rec.open(view(b)));
    std::size_t read = 0;
    for (const marker_view& mv : rec.markers()) {
        EXPECT_EQ(mv.name, markers[read].name);
        ++read;
    }
    EXPECT_EQ(read, 9u);
}

TEST(Generate, WithoutMarkersTheFileStillEndsWithAnEmptyMarkerList) {
    const model m = generated_model(options(1));
    ASSERT_TRUE(m.markers.has_value());
    EXPECT_TRUE(m.markers->empty());
    const bytes b = write(m);
    EXPECT_EQ(get_i32(b, b.size() - 4), 0);
}

TEST(Generate, VersionOneZeroHasFullKeyframesWithMrtkTangentsAndNoGaze) {
    generate_options o = options(3);
    o.minor = 0;
    o.layout = layout::compact;
    const bytes b = generated_bytes(o);
    recording rec;
    ASSERT_FALSE(rec.open(view(b)));
    EXPECT_EQ(rec.summary().curves, v10_curve_count);
    EXPECT_EQ(rec.summary().layout, layout::full);
    std::size_t float_keys = 0;
    for (const curve_view& c : rec.curves()) {
        if (kind_of(c.id) != curve_kind::float_curve) continue;
        for (const keyframe_view k : c.keys) {
            ASSERT_TRUE(k.has_tangents());
            EXPECT_EQ(k.in_tangent(), 0.0f);
            EXPECT_EQ(k.out_tangent(), 0.0f);
            EXPECT_EQ(k.in_weight(), 0.0f);
            EXPECT_EQ(k.out_weight(), 0.0f);
            EXPECT_EQ(k.weighted_mode_raw(), 3);
            ++float_keys;
        }
    }
    EXPECT_GT(float_keys, 0u);
}

TEST(Generate, VersionOneZeroWritesASwitchedOffBlockAsEmptyCurves) {
    generate_options o = options(3);
    o.minor = 0;
    o.blocks.camera = false;
    const model m = generated_model(o);
    for (std::size_t i = camera_first; i < hand_state_first; ++i) {
        EXPECT_TRUE(m.curves[i].keys.empty());
    }
    EXPECT_FALSE(m[joint_curve(side::right, joint::wrist, pose_channel::position_x)].keys.empty() &&
                 m[joint_curve(side::left, joint::wrist, pose_channel::position_x)].keys.empty());
    EXPECT_TRUE(validate(view(write(m))).valid());
}

TEST(Generate, TheStreamingWriterGivesExactlyTheBytesOfWriteGenerate) {
    for (const shape_case& sc : shape_cases) {
        for (const block_flags blocks :
             {block_flags{true, true, true}, block_flags{true, false, true}}) {
            for (bool raw : {false, true}) {
                generate_options o = options(2, 17);
                o.minor = sc.minor;
                o.layout = sc.lay;
                o.blocks = blocks;
                o.raw = raw;
                o.markers = 5;
                EXPECT_EQ(streamed_bytes(o), generated_bytes(o)) << sc.name << " raw " << raw;
            }
        }
    }
}

TEST(Generate, GeneratingIntoAByteSinkGivesExactlyTheBytesOfWriteGenerate) {
    for (const shape_case& sc : shape_cases) {
        generate_options o = options(2, 29);
        o.minor = sc.minor;
        o.layout = sc.lay;
        o.markers = 3;
        recording_sink sink;
        EXPECT_FALSE(generate_to(o, sink)) << sc.name;
        EXPECT_EQ(sink.bytes, generated_bytes(o)) << sc.name;
    }
}

TEST(Generate, CurvesArePassedOneAtATimeInFileOrder) {
    generate_options o = options(3, 23);
    o.blocks.camera = false;
    const model m = generated_model(o);
    std::vector<curve_id> order;
    EXPECT_FALSE(generate_curves(o, [&](curve_id id, const curve& c) {
        EXPECT_EQ(c, m[id]) << curve_path(id);
        order.push_back(id);
    }));
    ASSERT_EQ(order.size(), curve_count(o.blocks));
    for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], curve_at(o.blocks, i));
}

TEST(Generate, TheModelRoundTripsThroughTheReader) {
    for (const shape_case& sc : shape_cases) {
        generate_options o = options(2, 31);
        o.minor = sc.minor;
        o.layout = sc.lay;
        o.markers = 2;
        const model m = generated_model(o);
        model back;
        ASSERT_FALSE(read_model(view(write(m)), back)) << sc.name;
        EXPECT_EQ(back, m) << sc.name;
    }
}

TEST(Generate, AMinuteAtSixtyHertzIsTheSizeOfARealRecordingAndThinningShrinksIt) {
    generate_options o = options(60);
    const std::size_t thinned = generated_bytes(o).size();
    o.raw = true;
    const std::size_t raw = generated_bytes(o).size();
    RecordProperty("thinned_bytes", std::to_string(thinned));
    RecordProperty("raw_bytes", std::to_string(raw));
    // At least one key per 32-sample partition per curve (about 360 KB), at most a few
    // megabytes: real HoloLens 2 recordings hold 15-20 keys per second per tracked curve.
    EXPECT_GT(thinned, 360'000u);
    EXPECT_LT(thinned, 4'000'000u);
    EXPECT_LT(thinned * 3, raw);
}
