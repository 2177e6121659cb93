// Specification of validation on valid files (FORMAT.md section 6): the summary, the two
// levels, and the warnings with their cap.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

report validate_at(const bytes& b, level lvl) {
    return validate(view(b), validate_options{lvl});
}

std::vector<warning> warnings_of(const report& r, warning_code code) {
    std::vector<warning> out;
    for (const warning& w : r.warnings()) {
        if (w.code == code) out.push_back(w);
    }
    return out;
}

// Every rotation curve of a pose gets keys at times 0, 1, 2 with the given quaternions.
void set_rotation(model& m, curve_id x, const std::vector<std::array<float, 4>>& quats) {
    for (std::size_t c = 0; c < 4; ++c) {
        auto& keys = m[curve_id(to_index(x) + c)].keys;
        keys.clear();
        for (std::size_t k = 0; k < quats.size(); ++k) {
            keys.push_back(keyframe{static_cast<float>(k), quats[k][c]});
        }
    }
}

const curve_id camera_rx = camera_curve(pose_channel::rotation_x);
const curve_id camera_rw = camera_curve(pose_channel::rotation_w);

}  // namespace

TEST(Summary, SmallFilesReportVersionLayoutBlocksCountsAndTimes) {
    struct expected {
        shape s;
        int minor;
        layout lay;
        block_flags blocks;
        std::uint32_t curves;
        std::uint64_t keyframes;
    };
    const expected cases[] = {
        {shape::v10, 0, layout::full, {true, true, false}, 389, 59},
        {shape::v11_compact, 1, layout::compact, {true, true, true}, 395, 83},
        {shape::v11_full, 1, layout::full, {true, true, true}, 395, 83},
    };
    for (const expected& c : cases) {
        SCOPED_TRACE(shape_name(c.s));
        const bytes b = small_file(c.s);
        for (level lvl : {level::structure, level::full}) {
            const report r = validate_at(b, lvl);
            ASSERT_TRUE(r.valid()) << r.error.message();
            const summary& s = r.summary;
            EXPECT_EQ(s.bytes, b.size());
            EXPECT_EQ(s.major, 1);
            EXPECT_EQ(s.minor, c.minor);
            EXPECT_EQ(s.layout, c.lay);
            EXPECT_EQ(s.blocks, c.blocks);
            EXPECT_EQ(s.curves, c.curves);
            EXPECT_EQ(s.keyframes, c.keyframes);
            EXPECT_EQ(s.markers, std::optional<std::uint32_t>(2));
            EXPECT_EQ(s.start, std::optional<float>(0.0f));
            EXPECT_EQ(s.duration, std::optional<float>(0.75f));
        }
    }
}

TEST(Summary, MarkersAreAbsentWithoutAMarkerListAndZeroForAnEmptyOne) {
    const report without = validate(view(small_file(shape::v11_compact, false)));
    ASSERT_TRUE(without.valid());
    EXPECT_FALSE(without.summary.markers.has_value());

    const report empty_list = validate(view(write(empty_model(shape::v10))));
    ASSERT_TRUE(empty_list.valid());
    EXPECT_EQ(empty_list.summary.markers, std::optional<std::uint32_t>(0));
}

TEST(Summary, FileWithoutKeysHasNoStartOrDuration) {
    const bytes b = write(empty_model(shape::v11_full));
    const report r = validate(view(b));
    ASSERT_TRUE(r.valid());
    EXPECT_EQ(r.summary.keyframes, 0u);
    EXPECT_EQ(r.summary.curves, 395u);
    EXPECT_EQ(r.summary.bytes, 4763u);
    EXPECT_FALSE(r.summary.start.has_value());
    EXPECT_FALSE(r.summary.duration.has_value());
}

TEST(Summary, StartIsTheSmallestFirstKeyAndDurationTheLargestLastKey) {
    model m = small_model(shape::v11_compact);
    m[gaze_curve(ray_channel::origin_y)].keys = {{-0.5f, 0.0f}, {0.1f, 0.0f}};
    m[hand_state_curve(hand_state::right_tracked)].keys = {{0.2f, 1.0f}, {4.0f, 0.0f}};
    const report r = validate(view(write(m)));
    ASSERT_TRUE(r.valid()) << r.error.message();
    EXPECT_EQ(r.summary.start, std::optional<float>(-0.5f));
    EXPECT_EQ(r.summary.duration, std::optional<float>(4.0f));
}

TEST(Summary, CurveCountFollowsTheBlockFlags) {
    for (int bits = 0; bits < 8; ++bits) {
        model m = empty_model(shape::v11_compact);
        m.blocks = {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
        const report r = validate(view(write(m)));
        ASSERT_TRUE(r.valid());
        EXPECT_EQ(r.summary.blocks, m.blocks);
        EXPECT_EQ(r.summary.curves, curve_count(m.blocks));
        EXPECT_EQ(r.summary.layout, layout::compact);
    }
}

TEST(Summary, ForcedLayoutIsReported) {
    const bytes b = write(empty_model(shape::v11_full));
    const report r = validate(view(b), validate_options{level::full, layout_choice::full});
    ASSERT_TRUE(r.valid());
    EXPECT_EQ(r.summary.layout, layout::full);
}

TEST(Levels, StructureLevelIgnoresKeyframeAndMarkerContent) {
    model m = small_model(shape::v11_full);
    m[camera_curve(pose_channel::position_z)].keys[1].value = std::nanf("");
    m[hand_state_curve(hand_state::left_tracked)].keys[0].value = 0.5f;
    m.markers->at(0).name = "\xff";
    const bytes b = write(m);
    const report structure = validate_at(b, level::structure);
    EXPECT_TRUE(structure.valid()) << structure.error.message();
    EXPECT_EQ(structure.summary.keyframes, 83u);
    const report full = validate_at(b, level::full);
    EXPECT_FALSE(full.valid());
    EXPECT_EQ(full.error.code, errc::non_finite);
}

TEST(Levels, FullIsTheDefault) {
    model m = small_model(shape::v10);
    m[camera_curve(pose_channel::position_z)].keys[2].time = 0.0f;
    const report r = validate(view(write(m)));
    EXPECT_EQ(r.error.code, errc::unsorted_keys);
}

TEST(Levels, BothLevelsReportTheSameStructuralError) {
    bytes b = small_file(shape::v11_compact);
    b.push_back(std::byte{0});
    const report structure = validate_at(b, level::structure);
    const report full = validate_at(b, level::full);
    EXPECT_EQ(structure.error.code, errc::trailing_bytes);
    EXPECT_EQ(structure.error, full.error);
}

TEST(Warnings, CleanFileHasNone) {
    model m = small_model(shape::v11_compact);
    set_rotation(m, joint_curve(side::left, joint::wrist, pose_channel::rotation_x),
                 {{0, 0, 0, 1}, {0, 1, 0, 0}, {0.6f, 0, 0, 0.8f}});
    const report r = validate(view(write(m)));
    ASSERT_TRUE(r.valid());
    EXPECT_TRUE(r.warnings().empty());
    EXPECT_EQ(r.warnings_found, 0u);
}

TEST(Warnings, NegativeFirstKeyTimeIsReportedAtBothLevels) {
    model m = empty_model(shape::v11_compact);
    const curve_id joint_px = joint_curve(side::right, joint::palm, pose_channel::position_x);
    m[joint_px].keys = {{-0.25f, 1.0f}, {0.5f, 1.0f}};
    m[gaze_curve(ray_channel::origin_x)].keys = {{0.0f, 1.0f}};
    m[hand_state_curve(hand_state::left_pinching)].keys = {{-2.0f, 0.0f}};
    const bytes b = write(m);
    for (level lvl : {level::structure, level::full}) {
        const report r = validate_at(b, lvl);
        ASSERT_TRUE(r.valid());
        const auto w = warnings_of(r, warning_code::negative_time);
        ASSERT_EQ(w.size(), 2u);
        EXPECT_EQ(r.warnings_found, 2u);
        EXPECT_EQ(w[0].curve, hand_state_curve(hand_state::left_pinching));
        EXPECT_EQ(w[0].value, -2.0f);
        EXPECT_EQ(w[1].curve, joint_px);
        EXPECT_EQ(w[1].path(), "hand.right.joint.Palm.position.x");
        EXPECT_EQ(w[1].keyframe, 0);
        EXPECT_EQ(w[1].count, 1u);
        EXPECT_EQ(w[1].value, -0.25f);
        EXPECT_FALSE(w[1].message().empty());
    }
}

TEST(Warnings, DroppedRotationWIsReportedAtBothLevels) {
    model m = empty_model(shape::v11_compact);
    set_rotation(m, camera_rx, {{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}});
    m[camera_rw].keys.resize(1);
    const curve_id tip_rx = joint_curve(side::left, joint::index_tip, pose_channel::rotation_x);
    set_rotation(m, tip_rx, {{0, 0, 0, 1}, {0, 0, 0, 1}});
    m[curve_id(to_index(tip_rx) + 3)].keys.resize(1);
    const bytes b = write(m);
    for (level lvl : {level::structure, level::full}) {
        const report r = validate_at(b, lvl);
        ASSERT_TRUE(r.valid());
        const auto w = warnings_of(r, warning_code::dropped_rotation_w);
        ASSERT_EQ(w.size(), 2u);
        EXPECT_EQ(w[0].curve, camera_rw);
        EXPECT_EQ(w[0].path(), "camera.rotation.w");
        EXPECT_EQ(w[1].path(), "hand.left.joint.IndexTip.rotation.w");
        EXPECT_EQ(warning_name(w[0].code), "dropped_rotation_w");
    }
}

TEST(Warnings, DroppedRotationWNeedsSeveralKeysOnXYAndZ) {
    // One key everywhere is a still pose; W without keys is not "dropped after the first".
    model single = empty_model(shape::v11_compact);
    set_rotation(single, camera_rx, {{0, 0, 0, 1}});
    model w_empty = empty_model(shape::v11_compact);
    set_rotation(w_empty, camera_rx, {{0, 0, 0, 1}, {0, 0, 0, 1}});
    w_empty[camera_rw].keys.clear();
    model z_single = empty_model(shape::v11_compact);
    set_rotation(z_single, camera_rx, {{0, 0, 0, 1}, {0, 0, 0, 1}});
    z_single[camera_rw].keys.resize(1);
    z_single[camera_curve(pose_channel::rotation_z)].keys.resize(1);
    for (const model* m : {&single, &w_empty, &z_single}) {
        const report r = validate(view(write(*m)));
        ASSERT_TRUE(r.valid());
        EXPECT_TRUE(warnings_of(r, warning_code::dropped_rotation_w).empty());
    }
}

TEST(Warnings, NonUnitQuaternionIsReportedOnlyAtLevelFull) {
    model m = empty_model(shape::v10);
    const curve_id wrist_rx = joint_curve(side::right, joint::wrist, pose_channel::rotation_x);
    set_rotation(m, wrist_rx, {{0, 0, 0, 1}, {0, 0, 0, 2}, {1, 1, 1, 1}, {0, 0.6f, 0.8f, 0}});
    const bytes b = write(m);

    const report structure = validate_at(b, level::structure);
    ASSERT_TRUE(structure.valid());
    EXPECT_TRUE(warnings_of(structure, warning_code::non_unit_quaternion).empty());

    const report full = validate_at(b, level::full);
    ASSERT_TRUE(full.valid());
    const auto w = warnings_of(full, warning_code::non_unit_quaternion);
    ASSERT_EQ(w.size(), 1u) << "one warning per pose";
    EXPECT_EQ(w[0].path(), "hand.right.joint.Wrist.rotation.w");
    EXPECT_EQ(w[0].keyframe, 1);
    EXPECT_EQ(w[0].count, 2u);
    EXPECT_FLOAT_EQ(w[0].value, 2.0f);
}

TEST(Warnings, NonUnitToleranceIsOneHundredth) {
    model m = empty_model(shape::v11_full);
    set_rotation(m, camera_rx, {{0, 0, 0, 1.005f}, {0, 0, 0, 0.995f}, {0, 0, 0, 1.02f}});
    const report r = validate(view(write(m)));
    ASSERT_TRUE(r.valid());
    const auto w = warnings_of(r, warning_code::non_unit_quaternion);
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].keyframe, 2);
    EXPECT_EQ(w[0].count, 1u);
}

TEST(Warnings, NonUnitOnlyAtTimesWhereAllFourCurvesHaveAKey) {
    model m = empty_model(shape::v11_compact);
    set_rotation(m, camera_rx, {{0, 0, 0, 1}, {0, 0, 0, 1}});
    // Off-unit W keys at times where X has no key are not quaternions.
    m[camera_rw].keys = {{0.0f, 1.0f}, {0.5f, 5.0f}, {1.0f, 1.0f}, {1.5f, 5.0f}};
    const report r = validate(view(write(m)));
    ASSERT_TRUE(r.valid());
    EXPECT_TRUE(warnings_of(r, warning_code::non_unit_quaternion).empty());
}

TEST(Warnings, NoWarningsOnInvalidFiles) {
    model m = empty_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_x)].keys = {{-1.0f, 0.0f}};
    set_rotation(m, camera_rx, {{0, 0, 0, 1}, {0, 0, 0, 1}});
    m[camera_rw].keys.resize(1);
    const report baseline = validate(view(write(m)));
    ASSERT_TRUE(baseline.valid());
    ASSERT_EQ(baseline.warnings_found, 2u) << "negative_time and dropped_rotation_w";

    bytes trailing = write(m);
    trailing.push_back(std::byte{0});
    for (level lvl : {level::structure, level::full}) {
        const report r = validate_at(trailing, lvl);
        EXPECT_EQ(r.error.code, errc::trailing_bytes);
        EXPECT_TRUE(r.warnings().empty());
        EXPECT_EQ(r.warnings_found, 0u);
    }

    model content = m;
    content[gaze_curve(ray_channel::direction_x)].keys = {{0.0f, std::nanf("")}};
    const report r = validate_at(write(content), level::full);
    EXPECT_EQ(r.error.code, errc::non_finite);
    EXPECT_TRUE(r.warnings().empty());
    EXPECT_EQ(r.warnings_found, 0u);
}

TEST(Warnings, ReportKeepsTheFirst64ButCountsAll) {
    model m = empty_model(shape::v11_compact);
    for (std::size_t i = 0; i < 100; ++i) {
        m.curves[left_joint_first + i].keys = {{-static_cast<float>(i + 1), 0.0f}};
    }
    const report r = validate(view(write(m)));
    ASSERT_TRUE(r.valid());
    EXPECT_EQ(r.warnings_found, 100u);
    ASSERT_EQ(r.warnings().size(), report::max_warnings);
    EXPECT_EQ(report::max_warnings, 64u);
    for (std::size_t i = 0; i < r.warnings().size(); ++i) {
        EXPECT_EQ(r.warnings()[i].code, warning_code::negative_time);
        EXPECT_EQ(to_index(r.warnings()[i].curve), left_joint_first + i);
    }
}

TEST(Warnings, NamesAreStable) {
    EXPECT_EQ(warning_name(warning_code::negative_time), "negative_time");
    EXPECT_EQ(warning_name(warning_code::dropped_rotation_w), "dropped_rotation_w");
    EXPECT_EQ(warning_name(warning_code::non_unit_quaternion), "non_unit_quaternion");
}
