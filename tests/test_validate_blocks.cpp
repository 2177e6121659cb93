// Specification of level full on long curves, which validate checks many keyframes at a time
// (docs/PERFORMANCE.md): a fault anywhere in a curve (the first key, either side of every
// boundary of a block of 8 keys, of a run of 256 and of a rotation's stretch of 4096, the tail)
// is reported with the same code, offset and keyframe index as key by key, and the first fault in
// file order wins even when the curves of a rotation are checked side by side. Expected offsets
// come from the layout; where two faults compete, the streaming validator, which checks one key
// at a time, must agree too.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
const float qnan = std::nanf("");

// Longer than one stretch of a rotation (4096 keys), with a partial block at the end.
constexpr std::size_t key_count = 4500;

const curve_id camera_px = camera_curve(pose_channel::position_x);
const curve_id camera_pz = camera_curve(pose_channel::position_z);
const curve_id camera_rx = camera_curve(pose_channel::rotation_x);
const curve_id camera_ry = camera_curve(pose_channel::rotation_y);
const curve_id camera_rz = camera_curve(pose_channel::rotation_z);
const curve_id camera_rw = camera_curve(pose_channel::rotation_w);
const curve_id wrist_rx = joint_curve(side::left, joint::wrist, pose_channel::rotation_x);

// Indices around every boundary the checks have: the first key (no previous key), blocks of 8
// from key 1, runs of 256, stretches of 4096, and the last keys, which fall outside any block.
const std::size_t positions[] = {0,   1,   2,    7,    8,    9,    16,   17,   255,  256,
                                 257, 258, 4095, 4096, 4097, 4100, 4495, 4496, 4497, 4499};

float key_time(std::size_t i) {
    return static_cast<float>(i) / 60.0f;
}

bool is_full(const model& m) {
    return m.minor == 0 || m.layout == layout::full;
}

// Long curves on the camera (position and rotation, unit quaternions at every key) and on the
// left wrist's rotation; full keyframes carry tangents (some infinite: stepped, legal), weights
// and every weighted mode.
model long_model(shape s) {
    model m = empty_model(s);
    const auto fill = [&](curve_id id, const std::function<float(std::size_t)>& value) {
        std::vector<keyframe>& keys = m[id].keys;
        for (std::size_t i = 0; i < key_count; ++i) {
            keyframe k{key_time(i), value(i)};
            if (is_full(m)) {
                k.in_tangent = i % 5 == 0 ? -inf : 0.25f;
                k.out_tangent = i % 7 == 0 ? inf : -0.5f;
                k.in_weight = 0.3f;
                k.out_weight = 1.0f / 3.0f;
                k.weighted_mode = static_cast<std::int32_t>(i % 4);
            }
            keys.push_back(k);
        }
    };
    const auto angle = [](std::size_t i) { return 0.001f * static_cast<float>(i); };
    for (curve_id x : {camera_rx, wrist_rx}) {
        fill(x, [](std::size_t) { return 0.0f; });
        fill(curve_id(to_index(x) + 1), [&](std::size_t i) { return std::sin(angle(i)); });
        fill(curve_id(to_index(x) + 2), [](std::size_t) { return 0.0f; });
        fill(curve_id(to_index(x) + 3), [&](std::size_t i) { return std::cos(angle(i)); });
    }
    fill(camera_px, [](std::size_t i) { return 0.01f * static_cast<float>(i % 100); });
    fill(camera_pz, [](std::size_t i) { return -0.5f + 0.002f * static_cast<float>(i % 50); });
    return m;
}

// The curves of these models are all present, so a curve's file index is its id.
std::uint64_t key_offset(const model& m, curve_id id, std::size_t k) {
    const std::size_t stride = kind_of(id) == curve_kind::float_curve && is_full(m) ? 28 : 8;
    return curve_offset(m, to_index(id)) + 12 + k * stride;
}

// A fault written into the bytes of a key: the field it damages and what it writes there,
// given the key's offset and its previous key's.
struct fault {
    std::string name;
    errc code;
    std::size_t field;
    bool full_only;
    // Key 0 has no previous key to be out of order with.
    bool needs_previous;
    std::function<void(bytes&, std::size_t key, std::size_t previous)> apply;
};

std::function<void(bytes&, std::size_t, std::size_t)> put_float(std::size_t field, float v) {
    return [=](bytes& b, std::size_t key, std::size_t) { put_f32(b, key + field, v); };
}

std::function<void(bytes&, std::size_t, std::size_t)> put_int(std::size_t field, std::int32_t v) {
    return [=](bytes& b, std::size_t key, std::size_t) { put_i32(b, key + field, v); };
}

std::vector<fault> all_faults() {
    return {
        {"infinite time", errc::non_finite, 0, false, false, put_float(0, inf)},
        {"NaN time", errc::non_finite, 0, false, false, put_float(0, qnan)},
        {"negative infinite value", errc::non_finite, 4, false, false, put_float(4, -inf)},
        {"NaN value", errc::non_finite, 4, false, false, put_float(4, -qnan)},
        {"NaN in tangent", errc::non_finite, 8, true, false, put_float(8, qnan)},
        {"NaN out tangent", errc::non_finite, 12, true, false, put_float(12, -qnan)},
        {"infinite in weight", errc::non_finite, 16, true, false, put_float(16, inf)},
        {"NaN out weight", errc::non_finite, 20, true, false, put_float(20, qnan)},
        {"weighted mode 4", errc::bad_weighted_mode, 24, true, false, put_int(24, 4)},
        {"weighted mode -1", errc::bad_weighted_mode, 24, true, false, put_int(24, -1)},
        {"weighted mode INT32_MIN", errc::bad_weighted_mode, 24, true, false,
         put_int(24, std::numeric_limits<std::int32_t>::min())},
        {"time equal to the previous", errc::unsorted_keys, 0, false, true,
         [](bytes& b, std::size_t key, std::size_t previous) {
             std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(previous), 4,
                         b.begin() + static_cast<std::ptrdiff_t>(key));
         }},
        {"time before the previous", errc::unsorted_keys, 0, false, true,
         [](bytes& b, std::size_t key, std::size_t) { put_f32(b, key, -1.0f); }},
    };
}

const report& streamed(const bytes& b, stream_validator& v) {
    v.feed(view(b));
    return v.finish();
}

void expect_error(const report& r, errc code, std::uint64_t offset, curve_id id,
                  std::size_t index) {
    EXPECT_EQ(error_name(r.error.code), error_name(code)) << r.error.message();
    EXPECT_EQ(r.error.offset, offset) << r.error.message();
    EXPECT_EQ(r.error.place, error_place::curve);
    EXPECT_EQ(r.error.path(), curve_path(id));
    EXPECT_EQ(r.error.index, static_cast<std::int64_t>(index));
}

void expect_same_as_stream(const bytes& b, const report& r) {
    stream_validator v;
    const report& s = streamed(b, v);
    EXPECT_EQ(s.error, r.error) << "stream: " << s.error.message()
                                << "\nvalidate: " << r.error.message();
}

std::vector<warning> warnings_of(const report& r, warning_code code) {
    std::vector<warning> out;
    for (const warning& w : r.warnings()) {
        if (w.code == code) out.push_back(w);
    }
    return out;
}

}  // namespace

TEST(LongCurves, ValidFilesPassWithTheirWarningsOnly) {
    for (shape s : all_shapes) {
        SCOPED_TRACE(shape_name(s));
        const bytes b = write(long_model(s));
        const report r = validate(view(b));
        EXPECT_TRUE(r.valid()) << r.error.message();
        EXPECT_EQ(r.warnings_found, 0u);
        expect_same_as_stream(b, r);
    }
}

TEST(LongCurves, EveryKeyframeFaultIsFoundWhereverItIsInTheCurve) {
    // A plain curve, each curve of a rotation (checked side by side), and a curve after them.
    const curve_id curves[] = {camera_px, camera_rx, camera_ry, camera_rz, camera_rw, wrist_rx};
    for (shape s : all_shapes) {
        const model m = long_model(s);
        const bytes valid = write(m);
        // One copy, each fault written into a key and the key put back after (a fault touches
        // only its key's bytes): a copy of the file per case was most of this test's time.
        bytes b = valid;
        for (const fault& f : all_faults()) {
            if (f.full_only && !is_full(m)) continue;
            for (curve_id id : curves) {
                for (std::size_t k : positions) {
                    if (f.needs_previous && k == 0) continue;
                    SCOPED_TRACE(std::string(shape_name(s)) + ", " + f.name + ", " +
                                 std::string(curve_path(id)) + ", key " + std::to_string(k));
                    const std::uint64_t key = key_offset(m, id, k);
                    f.apply(b, key, k == 0 ? key : key_offset(m, id, k - 1));
                    const report r = validate(view(b));
                    expect_error(r, f.code, key + f.field, id, k);
                    const auto at = static_cast<std::ptrdiff_t>(key);
                    const auto n = static_cast<std::ptrdiff_t>(
                        std::min<std::uint64_t>(full_keyframe_size, valid.size() - key));
                    std::copy(valid.begin() + at, valid.begin() + at + n, b.begin() + at);
                }
            }
        }
        EXPECT_EQ(b, valid);
    }
}

TEST(LongCurves, TheFirstFaultInFileOrderWinsAcrossTheCurvesOfARotation) {
    struct damage {
        curve_id curve;
        std::size_t key;
    };
    struct pair_case {
        damage first;
        damage later_in_file_found_first;
    };
    // The second fault of each pair is in a curve after the first one's but at a smaller key
    // index, so that it is met first when the rotation's curves are checked side by side.
    const pair_case cases[] = {
        {{camera_rx, 4400}, {camera_ry, 3}}, {{camera_rx, 4097}, {camera_rw, 4096}},
        {{camera_ry, 300}, {camera_rw, 1}},  {{camera_rz, 4499}, {camera_rw, 0}},
        {{camera_pz, 4000}, {camera_rx, 1}}, {{camera_rw, 4499}, {wrist_rx, 0}},
    };
    for (shape s : all_shapes) {
        const model valid = long_model(s);
        for (const pair_case& c : cases) {
            SCOPED_TRACE(std::string(shape_name(s)) + ", " +
                         std::string(curve_path(c.first.curve)) + " key " +
                         std::to_string(c.first.key) + " before " +
                         std::string(curve_path(c.later_in_file_found_first.curve)) + " key " +
                         std::to_string(c.later_in_file_found_first.key));
            model m = valid;
            m[c.first.curve].keys[c.first.key].value = qnan;
            m[c.later_in_file_found_first.curve].keys[c.later_in_file_found_first.key].time = inf;
            const bytes b = write(m);
            const report r = validate(view(b));
            expect_error(r, errc::non_finite, key_offset(m, c.first.curve, c.first.key) + 4,
                         c.first.curve, c.first.key);
            expect_same_as_stream(b, r);
        }
    }
}

TEST(LongCurves, NonUnitQuaternionsAreCountedAtEveryPosition) {
    // Lengths just inside the tolerance are not reported, just outside they are; 2 is far out.
    const std::array<std::pair<std::size_t, float>, 6> damaged = {
        {{9, 2.0f}, {256, 1.012f}, {257, 1.007f}, {4095, 0.988f}, {4096, 0.993f}, {4499, 2.0f}}};
    for (shape s : all_shapes) {
        SCOPED_TRACE(shape_name(s));
        model m = long_model(s);
        std::uint32_t expected_count = 0;
        for (const auto& [k, length] : damaged) {
            m[camera_rx].keys[k].value = 0.0f;
            m[camera_ry].keys[k].value = 0.0f;
            m[camera_rz].keys[k].value = 0.0f;
            m[camera_rw].keys[k].value = length;
            if (std::fabs(length - 1.0f) > 0.01f) ++expected_count;
        }
        const report r = validate(view(write(m)));
        ASSERT_TRUE(r.valid()) << r.error.message();
        const std::vector<warning> w = warnings_of(r, warning_code::non_unit_quaternion);
        ASSERT_EQ(w.size(), 1u);
        EXPECT_EQ(w[0].path(), curve_path(camera_rw));
        EXPECT_EQ(w[0].count, expected_count);
        EXPECT_EQ(w[0].keyframe, 9);
        EXPECT_FLOAT_EQ(w[0].value, 2.0f);
    }
}

TEST(LongCurves, NonUnitQuaternionsCountOnlyWhereAllFourCurvesHaveAKey) {
    for (shape s : all_shapes) {
        SCOPED_TRACE(shape_name(s));
        model m = long_model(s);
        // rotation.x keeps every other key: only there do the four curves make a quaternion.
        std::vector<keyframe>& x = m[camera_rx].keys;
        std::vector<keyframe> kept;
        for (std::size_t i = 0; i < x.size(); i += 2) kept.push_back(x[i]);
        x = kept;
        // Far from unit at keys 1001 (x has no key there: not a quaternion) and 3000 (one).
        m[camera_rw].keys[1001].value = 3.0f;
        m[camera_rw].keys[3000].value = 3.0f;
        const report r = validate(view(write(m)));
        ASSERT_TRUE(r.valid()) << r.error.message();
        const std::vector<warning> w = warnings_of(r, warning_code::non_unit_quaternion);
        ASSERT_EQ(w.size(), 1u);
        EXPECT_EQ(w[0].count, 1u);
        EXPECT_EQ(w[0].keyframe, 3000);
    }
}
