// Poses, gaze rays and hand states at a time, as MRTK playback reads them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Keys at t = 0 and t = 1 (compact: linear) for the 7 curves of a pose starting at `first`.
void set_pose_keys(model& m, curve_id first, const pose& at0, const pose& at1) {
    const float v0[] = {at0.position.x, at0.position.y, at0.position.z, at0.rotation.x,
                        at0.rotation.y, at0.rotation.z, at0.rotation.w};
    const float v1[] = {at1.position.x, at1.position.y, at1.position.z, at1.rotation.x,
                        at1.rotation.y, at1.rotation.z, at1.rotation.w};
    for (std::size_t i = 0; i < pose_channel_count; ++i) {
        m[curve_id(to_index(first) + i)].keys = {{0.0f, v0[i]}, {1.0f, v1[i]}};
    }
}

// From the identity to a half turn about y: halfway, the components are (0, 0.5, 0, 0.5).
const pose from_pose{{1.0f, 2.0f, 3.0f}, {0.0f, 0.0f, 0.0f, 1.0f}};
const pose to_pose{{3.0f, 2.0f, -1.0f}, {0.0f, 1.0f, 0.0f, 0.0f}};
const pose halfway{{2.0f, 2.0f, 1.0f}, {0.0f, 0.5f, 0.0f, 0.5f}};

model posed_model(shape s) {
    model m = empty_model(s);
    set_pose_keys(m, camera_curve(pose_channel::position_x), from_pose, to_pose);
    set_pose_keys(m, joint_curve(side::right, joint::index_tip, pose_channel::position_x), to_pose,
                  from_pose);
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}, {0.5f, 0.0f}};
    m[hand_state_curve(hand_state::right_tracked)].keys = {{0.0f, 0.0f}, {0.25f, 1.0f}};
    m[hand_state_curve(hand_state::right_pinching)].keys = {{0.75f, 1.0f}};
    if (s != shape::v10) {
        for (std::size_t i = 0; i < ray_channel_count; ++i) {
            m[gaze_curve(static_cast<ray_channel>(i))].keys = {{0.0f, 0.0f},
                                                               {1.0f, static_cast<float>(i + 1)}};
        }
    }
    return m;
}

}  // namespace

TEST(Poses, TheCameraPoseEvaluatesEachComponentWithoutNormalizing) {
    for (shape s : all_shapes) {
        const opened o(posed_model(s));
        ASSERT_FALSE(o.error) << shape_name(s);
        EXPECT_EQ(camera_pose(o.rec, 0.0f), from_pose) << shape_name(s);
        EXPECT_EQ(camera_pose(o.rec, 0.5f), halfway) << shape_name(s);
        EXPECT_EQ(camera_pose(o.rec, 7.0f), to_pose) << shape_name(s);
    }
}

TEST(Poses, RotationsAreNormalizedOnRequest) {
    const opened o(posed_model(shape::v11_compact));
    const auto p = camera_pose(o.rec, 0.5f, rotation::normalized);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->position, halfway.position);
    const float h = static_cast<float>(std::sqrt(0.5));
    EXPECT_FLOAT_EQ(p->rotation.x, 0.0f);
    EXPECT_FLOAT_EQ(p->rotation.y, h);
    EXPECT_FLOAT_EQ(p->rotation.z, 0.0f);
    EXPECT_FLOAT_EQ(p->rotation.w, h);
}

TEST(Poses, AnyJointOfEitherHand) {
    const opened o(posed_model(shape::v10));
    EXPECT_EQ(joint_pose(o.rec, side::right, joint::index_tip, 0.0f), to_pose);
    EXPECT_EQ(joint_pose(o.rec, side::right, joint::index_tip, 0.5f), halfway);
    EXPECT_EQ(joint_pose(o.rec, side::right, joint::index_tip, 1.0f), from_pose);
}

TEST(Poses, AJointWhoseCurvesHaveNoKeysHasNoPose) {
    const opened o(posed_model(shape::v11_compact));
    EXPECT_FALSE(joint_pose(o.rec, side::left, joint::index_tip, 0.5f));
    EXPECT_FALSE(joint_pose(o.rec, side::right, joint::wrist, 0.5f));
}

TEST(Poses, ACurveWithoutKeysAmongCurvesWithKeysReadsZero) {
    model m = posed_model(shape::v11_compact);
    m[camera_curve(pose_channel::rotation_w)].keys.clear();
    const opened o(m);
    const auto p = camera_pose(o.rec, 0.5f);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->rotation, (quat{0.0f, 0.5f, 0.0f, 0.0f}));
}

TEST(Poses, TheGazeRay) {
    const opened o(posed_model(shape::v11_full));
    EXPECT_EQ(gaze_ray(o.rec, 0.5f), (ray{{0.5f, 1.0f, 1.5f}, {2.0f, 2.5f, 3.0f}}));
    EXPECT_EQ(gaze_ray(o.rec, -1.0f), (ray{{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}}));
}

TEST(Poses, HandStatesAreStepsReadAsValueAboveOneHalf) {
    const opened o(posed_model(shape::v11_compact));
    EXPECT_EQ(hand_tracked(o.rec, side::left, 0.49f), true);
    EXPECT_EQ(hand_tracked(o.rec, side::left, 0.5f), false);
    EXPECT_EQ(hand_tracked(o.rec, side::right, 0.2f), false);
    EXPECT_EQ(hand_tracked(o.rec, side::right, 0.25f), true);
    EXPECT_EQ(hand_pinching(o.rec, side::right, 0.0f), true);  // one key: held everywhere
    EXPECT_FALSE(hand_pinching(o.rec, side::left, 0.0f));      // no keys: no state
}

TEST(Poses, AbsentBlocksGiveNothing) {
    const opened v10(posed_model(shape::v10));
    EXPECT_FALSE(gaze_ray(v10.rec, 0.5f));

    model m = posed_model(shape::v11_compact);
    m.blocks = {false, false, true};
    const opened gaze_only(m);
    ASSERT_FALSE(gaze_only.error);
    EXPECT_FALSE(camera_pose(gaze_only.rec, 0.5f));
    EXPECT_FALSE(joint_pose(gaze_only.rec, side::right, joint::index_tip, 0.5f));
    EXPECT_FALSE(hand_tracked(gaze_only.rec, side::left, 0.0f));
    EXPECT_FALSE(hand_pinching(gaze_only.rec, side::right, 1.0f));
    EXPECT_TRUE(gaze_ray(gaze_only.rec, 0.5f));
}

TEST(Poses, NormalizingScalesToUnitLength) {
    const quat q = normalized({0.0f, 3.0f, 0.0f, 4.0f});
    EXPECT_FLOAT_EQ(q.x, 0.0f);
    EXPECT_FLOAT_EQ(q.y, 0.6f);
    EXPECT_FLOAT_EQ(q.z, 0.0f);
    EXPECT_FLOAT_EQ(q.w, 0.8f);
    // Components near the float limit would overflow a float sum of squares.
    const quat big = normalized({3e38f, 0.0f, 0.0f, 3e38f});
    EXPECT_FLOAT_EQ(big.x, static_cast<float>(std::sqrt(0.5)));
}

TEST(Poses, NormalizingAZeroOrNonFiniteQuaternionGivesTheIdentity) {
    // The None joint of the 2019 editor recording has zero quaternions.
    EXPECT_EQ(normalized({0.0f, 0.0f, 0.0f, 0.0f}), quat{});
    EXPECT_EQ(normalized({std::numeric_limits<float>::infinity(), 0.0f, 0.0f, 1.0f}), quat{});
    EXPECT_EQ(normalized({std::numeric_limits<float>::quiet_NaN(), 0.0f, 0.0f, 1.0f}), quat{});
}
