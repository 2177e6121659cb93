// The CSV importer (import.hpp): the table `inputanim sample` prints, back into keys. Every row is
// a key of every column's curve: MRTK's linear key for a float curve, a step for a bool curve.
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "inputanim/import.hpp"

using namespace inputanim;

namespace {

import_result import_text(std::string_view text, model& m, const import_options& o = {}) {
    return import_model(std::as_bytes(std::span(text.data(), text.size())), import_format::csv, m,
                        o);
}

}  // namespace

TEST(ImportCsv, EveryRowIsALinearKeyOfEveryFloatColumn) {
    model m;
    const import_result r = import_text(
        "t,camera.position.x,camera.rotation.w\n0,1.5,1\n0.016666668,1.25,0.99999994\n", m);
    ASSERT_FALSE(r.error) << r.error.message() << ": " << r.detail;
    EXPECT_TRUE(r.warnings.empty());
    const curve& x = m[camera_curve(pose_channel::position_x)];
    ASSERT_EQ(x.keys.size(), 2u);
    EXPECT_EQ(x.keys[0], (keyframe{0.0f, 1.5f}));
    EXPECT_EQ(x.keys[1], (keyframe{0.016666668f, 1.25f}));
    EXPECT_EQ(m[camera_curve(pose_channel::rotation_w)].keys[1].value, 0.99999994f);
    EXPECT_EQ(x.pre_wrap, 8);
    EXPECT_EQ(x.post_wrap, 8);
    EXPECT_EQ(m.major, 1);
    EXPECT_EQ(m.minor, 1);
    EXPECT_EQ(m.layout, layout::compact);
}

TEST(ImportCsv, TheBlocksAreThoseOfTheColumns) {
    model m;
    ASSERT_FALSE(import_text("t,gaze.direction.z\n0,1\n", m).error);
    EXPECT_EQ(m.blocks, (block_flags{false, false, true}));
    ASSERT_FALSE(import_text("t,hand.right.tracked,camera.position.y\n0,1,2\n", m).error);
    EXPECT_EQ(m.blocks, (block_flags{true, true, false}));
}

TEST(ImportCsv, BoolColumnsBecomeStepKeys) {
    model m;
    ASSERT_FALSE(import_text("t,hand.left.pinching\n0,0\n0.5,1\n1,0\n", m).error);
    const curve& pinch = m[hand_state_curve(hand_state::left_pinching)];
    ASSERT_EQ(pinch.keys.size(), 3u);
    EXPECT_EQ(pinch.keys[1].time, 0.5f);
    EXPECT_EQ(pinch.keys[1].value, 1.0f);
}

TEST(ImportCsv, CurvesMissingFromTheTableHaveNoKeys) {
    model m;
    ASSERT_FALSE(import_text("t,camera.position.x\n0,1\n1,2\n", m).error);
    EXPECT_EQ(m[camera_curve(pose_channel::position_x)].keys.size(), 2u);
    EXPECT_TRUE(m[camera_curve(pose_channel::position_y)].keys.empty());
}

TEST(ImportCsv, ColumnsMayComeInAnyOrder) {
    model m;
    ASSERT_FALSE(import_text("t,camera.position.z,camera.position.x\n0,3,1\n", m).error);
    EXPECT_EQ(m[camera_curve(pose_channel::position_x)].keys.at(0).value, 1.0f);
    EXPECT_EQ(m[camera_curve(pose_channel::position_z)].keys.at(0).value, 3.0f);
}

TEST(ImportCsv, WindowsLineEndingsAndAMissingLastLineEndAreRead) {
    model m;
    ASSERT_FALSE(import_text("t,camera.position.x\r\n0,1\r\n1,2", m).error);
    const curve& x = m[camera_curve(pose_channel::position_x)];
    ASSERT_EQ(x.keys.size(), 2u);
    EXPECT_EQ(x.keys[1], (keyframe{1.0f, 2.0f}));
}

TEST(ImportCsv, AHeaderWithoutRowsGivesCurvesWithoutKeys) {
    model m;
    ASSERT_FALSE(import_text("t,camera.position.x\n", m).error);
    EXPECT_TRUE(m[camera_curve(pose_channel::position_x)].keys.empty());
    EXPECT_EQ(m.markers, std::vector<marker>{});
}

TEST(ImportCsv, ShortestFloatTextReadsBackToTheSameFloat) {
    model m;
    ASSERT_FALSE(import_text("t,camera.position.x\n1e-45,-3.4028235e+38\n", m).error);
    const keyframe& k = m[camera_curve(pose_channel::position_x)].keys.at(0);
    EXPECT_EQ(k.time, 1e-45f);
    EXPECT_EQ(k.value, -3.4028235e+38f);
}
