// Specification of the content errors of level full, their order, and the configured limits
// (FORMAT.md section 6, docs/VALIDATION.md). Every file is hand-made from a model with one field
// damaged, so the expected offset is computed from the layout, not from the library.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "inputanim/generate.hpp"
#include "support/builders.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
const float qnan = std::nanf("");

// The models used here hold every curve of their shape, so a curve's file index is its id.
std::size_t key_offset(const model& m, curve_id id, std::size_t k) {
    const bool full = m.minor == 0 || m.layout == layout::full;
    const std::size_t stride = kind_of(id) == curve_kind::float_curve && full ? 28 : 8;
    return curve_offset(m, to_index(id)) + 12 + k * stride;
}

std::size_t marker_offset(const model& m, std::size_t index) {
    std::size_t at = marker_list_offset(m) + 4;
    for (std::size_t i = 0; i < index; ++i) at += 4 + 1 + m.markers->at(i).name.size();
    return at;
}

error full_error(const model& m) {
    return validate(view(write(m))).error;
}

void expect_curve_error(const error& e, errc code, std::uint64_t offset, curve_id id,
                        std::int64_t index) {
    EXPECT_EQ(error_name(e.code), error_name(code)) << e.message();
    EXPECT_EQ(e.offset, offset) << e.message();
    EXPECT_EQ(e.place, error_place::curve);
    EXPECT_EQ(e.curve, id);
    EXPECT_EQ(e.path(), curve_path(id));
    EXPECT_EQ(e.index, index);
}

void expect_marker_error(const error& e, errc code, std::uint64_t offset, std::int64_t index) {
    EXPECT_EQ(error_name(e.code), error_name(code)) << e.message();
    EXPECT_EQ(e.offset, offset) << e.message();
    EXPECT_EQ(e.place, error_place::markers);
    EXPECT_EQ(e.path(), "markers");
    EXPECT_EQ(e.index, index);
}

void expect_limit(const report& r, limit_kind kind, std::uint64_t offset, error_place place) {
    EXPECT_EQ(r.error.code, errc::limit_exceeded) << r.error.message();
    EXPECT_EQ(r.error.limit, kind);
    EXPECT_EQ(r.error.offset, offset) << r.error.message();
    EXPECT_EQ(r.error.place, place);
    EXPECT_NE(r.error.message().find(limit_name(kind)), std::string::npos) << r.error.message();
}

report validate_with(const bytes& b, const limits& lim) {
    return validate(view(b), validate_options{level::full, layout_choice::automatic, lim});
}

const curve_id camera_px = camera_curve(pose_channel::position_x);
const curve_id camera_pz = camera_curve(pose_channel::position_z);
const curve_id camera_ry = camera_curve(pose_channel::rotation_y);
const curve_id tracked = hand_state_curve(hand_state::left_tracked);
const curve_id wrist_py = joint_curve(side::left, joint::wrist, pose_channel::position_y);
const curve_id gaze_dz = gaze_curve(ray_channel::direction_z);

}  // namespace

TEST(ErrorNames, EveryCodeHasItsStableName) {
    const std::pair<errc, const char*> names[] = {
        {errc::ok, "ok"},
        {errc::truncated, "truncated"},
        {errc::bad_magic, "bad_magic"},
        {errc::unsupported_version, "unsupported_version"},
        {errc::bad_flag, "bad_flag"},
        {errc::bad_wrap_mode, "bad_wrap_mode"},
        {errc::negative_count, "negative_count"},
        {errc::bad_marker, "bad_marker"},
        {errc::trailing_bytes, "trailing_bytes"},
        {errc::limit_exceeded, "limit_exceeded"},
        {errc::non_finite, "non_finite"},
        {errc::bad_bool_value, "bad_bool_value"},
        {errc::bad_weighted_mode, "bad_weighted_mode"},
        {errc::unsorted_keys, "unsorted_keys"},
        {errc::bad_utf8, "bad_utf8"}};
    for (const auto& [code, name] : names) {
        EXPECT_EQ(error_name(code), name);
        EXPECT_EQ(is_structural(code), code != errc::ok && code < errc::non_finite) << name;
    }
    EXPECT_FALSE(is_structural(errc::non_finite));
    EXPECT_TRUE(is_structural(errc::limit_exceeded));
}

TEST(NonFinite, KeyTimeThatIsNotFiniteIsReportedAtTheTime) {
    for (float t : {qnan, inf, -inf}) {
        model m = small_model(shape::v11_compact);
        m[camera_pz].keys[2].time = t;
        expect_curve_error(full_error(m), errc::non_finite, key_offset(m, camera_pz, 2), camera_pz,
                           2);
    }
}

TEST(NonFinite, KeyValueThatIsNotFiniteIsReportedAtTheValue) {
    for (float v : {qnan, inf, -inf}) {
        model m = small_model(shape::v10);
        m[wrist_py].keys[1].value = v;
        expect_curve_error(full_error(m), errc::non_finite, key_offset(m, wrist_py, 1) + 4,
                           wrist_py, 1);
    }
}

TEST(NonFinite, NanTangentsAreReportedAtTheTangent) {
    model in = small_model(shape::v11_full);
    in[camera_ry].keys[3].in_tangent = qnan;
    expect_curve_error(full_error(in), errc::non_finite, key_offset(in, camera_ry, 3) + 8,
                       camera_ry, 3);
    model out = small_model(shape::v10);
    out[camera_ry].keys[0].out_tangent = -qnan;
    expect_curve_error(full_error(out), errc::non_finite, key_offset(out, camera_ry, 0) + 12,
                       camera_ry, 0);
}

TEST(NonFinite, WeightsThatAreNotFiniteAreReportedAtTheWeight) {
    for (float w : {inf, -inf, qnan}) {
        model in = small_model(shape::v11_full);
        in[gaze_dz].keys[1].in_weight = w;
        expect_curve_error(full_error(in), errc::non_finite, key_offset(in, gaze_dz, 1) + 16,
                           gaze_dz, 1);
        model out = small_model(shape::v11_full);
        out[gaze_dz].keys[2].out_weight = w;
        expect_curve_error(full_error(out), errc::non_finite, key_offset(out, gaze_dz, 2) + 20,
                           gaze_dz, 2);
    }
}

TEST(NonFinite, InfiniteTangentsAreLegalSteppedSegments) {
    for (shape s : {shape::v10, shape::v11_full}) {
        model m = small_model(s);
        for (keyframe& k : m[camera_px].keys) {
            k.in_tangent = inf;
            k.out_tangent = -inf;
        }
        m[camera_pz].keys[1].out_tangent = -inf;
        const report r = validate(view(write(m)));
        EXPECT_TRUE(r.valid()) << shape_name(s) << ": " << r.error.message();
    }
}

TEST(NonFinite, MarkerTimeThatIsNotFiniteIsReportedAtTheMarker) {
    for (float t : {qnan, inf}) {
        model m = small_model(shape::v11_compact);
        m.markers->at(1).time = t;
        expect_marker_error(full_error(m), errc::non_finite, marker_offset(m, 1), 1);
    }
}

TEST(BadBoolValue, BoolValuesOtherThanZeroAndOneAreReportedAtTheValue) {
    for (shape s : all_shapes) {
        for (float v : {0.5f, 2.0f, -1.0f, 1e-30f}) {
            model m = small_model(s);
            m[tracked].keys[1].value = v;
            SCOPED_TRACE(std::string(shape_name(s)) + " " + std::to_string(v));
            expect_curve_error(full_error(m), errc::bad_bool_value, key_offset(m, tracked, 1) + 4,
                               tracked, 1);
        }
    }
}

TEST(BadBoolValue, NegativeZeroCountsAsZero) {
    model m = small_model(shape::v11_full);
    m[tracked].keys[1].value = -0.0f;
    m[hand_state_curve(hand_state::right_pinching)].keys[0].value = -0.0f;
    const report r = validate(view(write(m)));
    EXPECT_TRUE(r.valid()) << r.error.message();
}

TEST(BadBoolValue, NonFiniteBoolValueIsNonFinite) {
    model m = small_model(shape::v11_compact);
    m[tracked].keys[0].value = qnan;
    expect_curve_error(full_error(m), errc::non_finite, key_offset(m, tracked, 0) + 4, tracked, 0);
}

TEST(BadWeightedMode, ModesOutsideZeroToThreeAreReportedAtTheMode) {
    for (std::int32_t mode : {4, -1, 0x7fffffff}) {
        model m = small_model(shape::v11_full);
        m[camera_pz].keys[2].weighted_mode = mode;
        expect_curve_error(full_error(m), errc::bad_weighted_mode, key_offset(m, camera_pz, 2) + 24,
                           camera_pz, 2);
    }
}

TEST(BadWeightedMode, EveryModeFromZeroToThreeIsAccepted) {
    model m = small_model(shape::v10);
    for (std::int32_t mode = 0; mode < 4; ++mode) {
        m[camera_px].keys[static_cast<std::size_t>(mode)].weighted_mode = mode;
        m[camera_pz].keys[static_cast<std::size_t>(mode)].weighted_mode = 3 - mode;
    }
    EXPECT_TRUE(validate(view(write(m))).valid());
}

TEST(UnsortedKeys, EqualTimesAreReportedAtTheLaterKeyframe) {
    model m = small_model(shape::v11_compact);
    m[wrist_py].keys[2].time = m[wrist_py].keys[1].time;
    expect_curve_error(full_error(m), errc::unsorted_keys, key_offset(m, wrist_py, 2), wrist_py, 2);
}

TEST(UnsortedKeys, DecreasingTimesAreReportedAtTheLaterKeyframe) {
    for (shape s : all_shapes) {
        model m = small_model(s);
        m[tracked].keys[1].time = -1.0f;
        expect_curve_error(full_error(m), errc::unsorted_keys, key_offset(m, tracked, 1), tracked,
                           1);
        model f = small_model(s);
        f[camera_pz].keys[3].time = 0.3f;
        expect_curve_error(full_error(f), errc::unsorted_keys, key_offset(f, camera_pz, 3),
                           camera_pz, 3);
    }
}

TEST(UnsortedKeys, OrderIsPerCurve) {
    model m = small_model(shape::v11_compact);
    // Later curves may start before earlier ones end.
    m[gaze_dz].keys = {{-5.0f, 0.0f}, {-4.0f, 0.0f}};
    EXPECT_TRUE(validate(view(write(m))).valid());
}

TEST(BadUtf8, InvalidNamesAreReportedAtTheNamesFirstByte) {
    const char* bad[] = {
        "\xc0\xaf",        // overlong '/'
        "ab\xe0\x80\xaf",  // overlong, three bytes
        "\xed\xa0\x80",    // surrogate U+D800
        "x\xed\xbf\xbfy",  // surrogate U+DFFF
        "\xe2\x82",        // truncated sequence at the end
        "\xe2\x82"
        "A",                 // truncated sequence followed by ASCII
        "\xf4\x90\x80\x80",  // U+110000
        "\xf5\x80\x80\x80",  // lead byte beyond U+10FFFF
        "\x80",              // lone continuation byte
        "ok\xff",
    };
    for (const char* name : bad) {
        model m = small_model(shape::v11_compact);
        m.markers->at(1).name = name;
        SCOPED_TRACE(name);
        expect_marker_error(full_error(m), errc::bad_utf8, marker_offset(m, 1) + 4 + 1, 1);
    }
}

TEST(BadUtf8, ValidNamesUpToU10FFFFAreAccepted) {
    model m = small_model(shape::v11_compact);
    m.markers = std::vector<marker>{{0.0f, ""},
                                    {0.1f, "\x7f"},
                                    {0.2f, "\xc2\x80\xdf\xbf"},
                                    {0.3f, "\xe0\xa0\x80\xef\xbf\xbf\xee\x80\x80"},
                                    {0.4f, "\xf0\x90\x80\x80\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"}};
    const report r = validate(view(write(m)));
    EXPECT_TRUE(r.valid()) << r.error.message();
}

TEST(BadUtf8, LongNameIsReportedAfterItsTwoByteLength) {
    model m = small_model(shape::v11_full);
    m.markers->at(0).name = std::string(300, 'a') + "\xc3";
    expect_marker_error(full_error(m), errc::bad_utf8, marker_offset(m, 0) + 4 + 2, 0);
}

TEST(ContentOrder, WithinAKeyframeTimeComesBeforeValue) {
    model m = small_model(shape::v11_full);
    m[camera_pz].keys[1].time = qnan;
    m[camera_pz].keys[1].value = qnan;
    expect_curve_error(full_error(m), errc::non_finite, key_offset(m, camera_pz, 1), camera_pz, 1);
}

TEST(ContentOrder, WithinAKeyframeValueComesBeforeTangents) {
    model m = small_model(shape::v11_full);
    m[camera_pz].keys[1].value = inf;
    m[camera_pz].keys[1].in_tangent = qnan;
    expect_curve_error(full_error(m), errc::non_finite, key_offset(m, camera_pz, 1) + 4, camera_pz,
                       1);
}

TEST(ContentOrder, WithinAKeyframeFieldsAreCheckedInFileOrder) {
    // Damage two adjacent fields; the earlier one is reported.
    struct field_pair {
        std::size_t first_offset;
        void (*damage)(keyframe&);
    };
    const field_pair pairs[] = {
        {8,
         [](keyframe& k) {
             k.in_tangent = qnan;
             k.out_tangent = qnan;
         }},
        {12,
         [](keyframe& k) {
             k.out_tangent = qnan;
             k.in_weight = inf;
         }},
        {16,
         [](keyframe& k) {
             k.in_weight = inf;
             k.out_weight = qnan;
         }},
        {20,
         [](keyframe& k) {
             k.out_weight = -inf;
             k.weighted_mode = 9;
         }},
    };
    for (const field_pair& p : pairs) {
        model m = small_model(shape::v11_full);
        p.damage(m[camera_pz].keys[2]);
        SCOPED_TRACE(p.first_offset);
        expect_curve_error(full_error(m), errc::non_finite,
                           key_offset(m, camera_pz, 2) + p.first_offset, camera_pz, 2);
    }
}

TEST(ContentOrder, UnsortedIsCheckedLastInAKeyframe) {
    model tangent = small_model(shape::v11_full);
    tangent[camera_pz].keys[2].time = 0.0f;
    tangent[camera_pz].keys[2].out_tangent = qnan;
    expect_curve_error(full_error(tangent), errc::non_finite,
                       key_offset(tangent, camera_pz, 2) + 12, camera_pz, 2);

    model mode = small_model(shape::v10);
    mode[camera_pz].keys[2].time = 0.0f;
    mode[camera_pz].keys[2].weighted_mode = 4;
    expect_curve_error(full_error(mode), errc::bad_weighted_mode,
                       key_offset(mode, camera_pz, 2) + 24, camera_pz, 2);

    model boolean = small_model(shape::v11_compact);
    boolean[tracked].keys[1].time = 0.0f;
    boolean[tracked].keys[1].value = 0.5f;
    expect_curve_error(full_error(boolean), errc::bad_bool_value,
                       key_offset(boolean, tracked, 1) + 4, tracked, 1);
}

TEST(ContentOrder, MarkerTimeComesBeforeItsName) {
    model m = small_model(shape::v11_compact);
    m.markers->at(0).time = qnan;
    m.markers->at(0).name = "\xc0";
    expect_marker_error(full_error(m), errc::non_finite, marker_offset(m, 0), 0);
}

TEST(ContentOrder, TheFirstErrorInFileOrderIsReported) {
    model m = small_model(shape::v11_compact);
    m[gaze_dz].keys[0].value = qnan;
    m[camera_pz].keys[3].time = 0.0f;
    m[wrist_py].keys[0].time = qnan;
    m.markers->at(0).name = "\xc0";
    expect_curve_error(full_error(m), errc::unsorted_keys, key_offset(m, camera_pz, 3), camera_pz,
                       3);
    m[camera_pz].keys[3].time = 0.75f;
    expect_curve_error(full_error(m), errc::non_finite, key_offset(m, wrist_py, 0), wrist_py, 0);
    m[wrist_py].keys[0].time = 0.0f;
    expect_curve_error(full_error(m), errc::non_finite, key_offset(m, gaze_dz, 0) + 4, gaze_dz, 0);
    m[gaze_dz].keys[0].value = 0.0f;
    expect_marker_error(full_error(m), errc::bad_utf8, marker_offset(m, 0) + 5, 0);
}

TEST(ContentOrder, AStructuralErrorAnywhereWinsOverAnEarlierContentError) {
    model m = small_model(shape::v11_compact);
    m[camera_px].keys[0].time = qnan;
    m.markers->at(0).name = "\xc0";

    bytes trailing = write(m);
    trailing.push_back(std::byte{0});
    const report r1 = validate(view(trailing));
    EXPECT_EQ(r1.error.code, errc::trailing_bytes);
    EXPECT_EQ(r1.error.offset, trailing.size() - 1);

    bytes wrap = write(m);
    put_i32(wrap, curve_offset(m, 394) + 4, 3);
    expect_curve_error(validate(view(wrap)).error, errc::bad_wrap_mode, curve_offset(m, 394) + 4,
                       gaze_dz, -1);

    bytes cut = write(m);
    cut.pop_back();
    expect_marker_error(validate(view(cut)).error, errc::truncated, marker_offset(m, 1) + 4 + 1, 1);
}

TEST(Limits, MaxBytesIsCheckedBeforeAnythingElse) {
    const bytes b = small_file(shape::v11_compact);
    limits lim;
    lim.max_bytes = b.size() - 1;
    const report r = validate_with(b, lim);
    expect_limit(r, limit_kind::bytes, b.size() - 1, error_place::none);
    EXPECT_EQ(r.error.index, -1);

    const bytes garbage(100, std::byte{0x55});
    lim.max_bytes = 10;
    expect_limit(validate_with(garbage, lim), limit_kind::bytes, 10, error_place::none);

    lim.max_bytes = b.size();
    EXPECT_TRUE(validate_with(b, lim).valid());
}

TEST(Limits, MaxKeyframesPerCurveIsCheckedAtTheCount) {
    const model m = small_model(shape::v11_compact);
    const bytes b = write(m);
    limits lim;
    lim.max_keyframes_per_curve = 3;
    const report r = validate_with(b, lim);
    expect_limit(r, limit_kind::keyframes_per_curve, 19 + 8, error_place::curve);
    EXPECT_EQ(r.error.curve, camera_px);
    EXPECT_EQ(r.error.index, -1);
    lim.max_keyframes_per_curve = 4;
    EXPECT_TRUE(validate_with(b, lim).valid());
}

TEST(Limits, KeyframeLimitsComeAfterTheSignAndBeforeTheFit) {
    const model m = small_model(shape::v10);
    limits lim;
    lim.max_keyframes_per_curve = 1000;
    bytes huge = write(m);
    put_i32(huge, curve_offset(m, 5) + 8, std::numeric_limits<std::int32_t>::max());
    expect_limit(validate_with(huge, lim), limit_kind::keyframes_per_curve, curve_offset(m, 5) + 8,
                 error_place::curve);

    bytes negative = write(m);
    put_i32(negative, curve_offset(m, 5) + 8, -5);
    EXPECT_EQ(validate_with(negative, lim).error.code, errc::negative_count);
}

TEST(Limits, PerCurveLimitIsCheckedBeforeTheTotal) {
    const bytes b = small_file(shape::v11_compact);
    limits lim;
    lim.max_keyframes_per_curve = 3;
    lim.max_total_keyframes = 2;
    expect_limit(validate_with(b, lim), limit_kind::keyframes_per_curve, 27, error_place::curve);
}

TEST(Limits, MaxTotalKeyframesIsCheckedAtTheCountThatPassesIt) {
    const model m = small_model(shape::v11_compact);
    const bytes b = write(m);
    limits lim;
    lim.max_total_keyframes = 82;
    const report r = validate_with(b, lim);
    expect_limit(r, limit_kind::total_keyframes, curve_offset(m, 394) + 8, error_place::curve);
    EXPECT_EQ(r.error.curve, gaze_dz);

    lim.max_total_keyframes = 30;
    const report early = validate_with(b, lim);
    // Camera 28 keys, then the tracked curve's 2 make 30, the pinching key makes 31.
    expect_limit(early, limit_kind::total_keyframes,
                 curve_offset(m, to_index(hand_state_curve(hand_state::right_pinching))) + 8,
                 error_place::curve);

    lim.max_total_keyframes = 83;
    EXPECT_TRUE(validate_with(b, lim).valid());
}

TEST(Limits, MaxMarkersIsCheckedAtTheCount) {
    const model m = small_model(shape::v10);
    const bytes b = write(m);
    limits lim;
    lim.max_markers = 1;
    const report r = validate_with(b, lim);
    expect_limit(r, limit_kind::markers, marker_list_offset(m), error_place::markers);
    EXPECT_EQ(r.error.index, -1);
    lim.max_markers = 2;
    EXPECT_TRUE(validate_with(b, lim).valid());
}

TEST(Limits, MaxMarkerNameBytesIsCheckedAtTheLength) {
    const model m = small_model(shape::v11_full);
    const bytes b = write(m);
    limits lim;
    lim.max_marker_name_bytes = 5;
    const report r = validate_with(b, lim);
    expect_limit(r, limit_kind::marker_name_bytes, marker_offset(m, 1) + 4, error_place::markers);
    EXPECT_EQ(r.error.index, 1);
    lim.max_marker_name_bytes = 6;
    EXPECT_TRUE(validate_with(b, lim).valid());
}

TEST(Limits, MarkerNameLimitComesBeforeTheNamesFit) {
    model m = small_model(shape::v11_compact);
    m.markers->at(1).name = std::string(100, 'z');
    bytes b = write(m);
    b.resize(b.size() - 97);
    limits lim;
    lim.max_marker_name_bytes = 10;
    expect_limit(validate_with(b, lim), limit_kind::marker_name_bytes, marker_offset(m, 1) + 4,
                 error_place::markers);
    EXPECT_EQ(validate(view(b)).error.code, errc::truncated);
}

// FORMAT.md section 3 picks the layout by structural soundness; a limit says nothing about the
// layout, so a walk it stops counts as sound and the limit is what the report names, not a
// misreading of the file under the other layout.
TEST(Limits, AWalkStoppedByALimitCountsAsSoundWhenTheLayoutIsDetected) {
    generate_options g;
    g.seconds = 5;
    const bytes b = write(generated_model(g));
    limits lim;
    lim.max_total_keyframes = 1000;
    const report r = validate_with(b, lim);
    EXPECT_EQ(r.error.code, errc::limit_exceeded);
    EXPECT_EQ(r.error.limit, limit_kind::total_keyframes);
    EXPECT_EQ(r.summary.layout, layout::compact);

    stream_validator v(validate_options{level::full, layout_choice::automatic, lim});
    v.feed(view(b));
    EXPECT_EQ(v.finish().error, r.error);
}

TEST(Limits, AreStructuralAndApplyAtLevelStructure) {
    const bytes b = small_file(shape::v11_compact);
    limits lim;
    lim.max_markers = 0;
    const report r =
        validate(view(b), validate_options{level::structure, layout_choice::automatic, lim});
    EXPECT_EQ(r.error.code, errc::limit_exceeded);
    EXPECT_EQ(r.error.limit, limit_kind::markers);
}

// docs/SECURITY.md's table and the CLI's --upload-limits both rest on this one function.
TEST(Limits, UploadLimitsAreTheDocumentedOnes) {
    constexpr limits l = upload_limits();
    EXPECT_EQ(l.max_bytes, 64u << 20);
    EXPECT_EQ(l.max_keyframes_per_curve, 1u << 18);
    EXPECT_EQ(l.max_total_keyframes, 1u << 21);
    EXPECT_EQ(l.max_markers, 4096u);
    EXPECT_EQ(l.max_marker_name_bytes, 1024u);
}
