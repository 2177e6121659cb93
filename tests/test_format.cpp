// Specification of the format tables (FORMAT.md section 3): curve ids, paths, the order of
// curves in a file with any set of blocks, and path globs.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "support/builders.hpp"

using namespace inputanim;

namespace {

std::vector<block_flags> every_flag_combination() {
    std::vector<block_flags> out;
    for (int bits = 0; bits < 8; ++bits) {
        out.push_back(block_flags{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0});
    }
    return out;
}

bool block_present(block_flags f, block b) {
    switch (b) {
        case block::camera:
            return f.camera;
        case block::hands:
            return f.hands;
        case block::gaze:
            return f.gaze;
    }
    return false;
}

std::vector<std::string> paths_matching(std::string_view glob) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const std::string_view p = curve_path(curve_id(i));
        if (path_matches(glob, p)) out.emplace_back(p);
    }
    return out;
}

}  // namespace

TEST(CurvePaths, All395PathsAreDistinctAndNonEmpty) {
    std::set<std::string_view> seen;
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const std::string_view p = curve_path(curve_id(i));
        EXPECT_FALSE(p.empty()) << i;
        EXPECT_TRUE(seen.insert(p).second) << "duplicate path " << p;
    }
    EXPECT_EQ(seen.size(), 395u);
}

TEST(CurvePaths, PathsAreDottedWordsWithoutSpaces) {
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const std::string_view p = curve_path(curve_id(i));
        EXPECT_NE(p.front(), '.') << p;
        EXPECT_NE(p.back(), '.') << p;
        EXPECT_EQ(p.find(".."), std::string_view::npos) << p;
        for (char c : p) {
            const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            EXPECT_TRUE(letter || c == '.') << p;
        }
    }
}

TEST(CurvePaths, CameraBlockIsSevenPoseChannels) {
    const char* expected[] = {"camera.position.x", "camera.position.y", "camera.position.z",
                              "camera.rotation.x", "camera.rotation.y", "camera.rotation.z",
                              "camera.rotation.w"};
    for (std::size_t c = 0; c < 7; ++c) {
        EXPECT_EQ(curve_path(curve_id(c)), expected[c]);
        EXPECT_EQ(camera_curve(static_cast<pose_channel>(c)), curve_id(c));
        EXPECT_EQ(block_of(curve_id(c)), block::camera);
        EXPECT_EQ(kind_of(curve_id(c)), curve_kind::float_curve);
    }
}

TEST(CurvePaths, HandStatesAreTheFourBoolCurvesInFileOrder) {
    const char* expected[] = {"hand.left.tracked", "hand.right.tracked", "hand.left.pinching",
                              "hand.right.pinching"};
    for (std::size_t s = 0; s < 4; ++s) {
        const curve_id id = curve_id(7 + s);
        EXPECT_EQ(curve_path(id), expected[s]);
        EXPECT_EQ(hand_state_curve(static_cast<hand_state>(s)), id);
        EXPECT_EQ(block_of(id), block::hands);
        EXPECT_EQ(kind_of(id), curve_kind::bool_curve);
    }
}

TEST(CurvePaths, JointsRunLeftHandThenRightHandInMrtkOrder) {
    EXPECT_EQ(curve_path(curve_id(11)), "hand.left.joint.None.position.x");
    EXPECT_EQ(curve_path(curve_id(18)), "hand.left.joint.Wrist.position.x");
    EXPECT_EQ(curve_path(curve_id(199)), "hand.left.joint.PinkyTip.rotation.w");
    EXPECT_EQ(curve_path(curve_id(200)), "hand.right.joint.None.position.x");
    EXPECT_EQ(curve_path(curve_id(388)), "hand.right.joint.PinkyTip.rotation.w");
    EXPECT_EQ(curve_path(joint_curve(side::left, joint::index_tip, pose_channel::position_x)),
              "hand.left.joint.IndexTip.position.x");
    EXPECT_EQ(
        curve_path(joint_curve(side::right, joint::thumb_metacarpal, pose_channel::rotation_z)),
        "hand.right.joint.ThumbMetacarpalJoint.rotation.z");
    for (std::size_t j = 0; j < joint_count; ++j) {
        for (std::size_t c = 0; c < pose_channel_count; ++c) {
            const auto ch = static_cast<pose_channel>(c);
            const curve_id left = joint_curve(side::left, static_cast<joint>(j), ch);
            const curve_id right = joint_curve(side::right, static_cast<joint>(j), ch);
            EXPECT_EQ(to_index(left), 11 + j * 7 + c);
            EXPECT_EQ(to_index(right), 200 + j * 7 + c);
            const std::string suffix =
                std::string(joint_names[j]) + "." + std::string(curve_path(curve_id(c)).substr(7));
            EXPECT_EQ(curve_path(left), "hand.left.joint." + suffix);
            EXPECT_EQ(curve_path(right), "hand.right.joint." + suffix);
            EXPECT_EQ(block_of(left), block::hands);
            EXPECT_EQ(kind_of(right), curve_kind::float_curve);
        }
    }
}

TEST(CurvePaths, GazeIsOriginThenDirection) {
    const char* expected[] = {"gaze.origin.x",    "gaze.origin.y",    "gaze.origin.z",
                              "gaze.direction.x", "gaze.direction.y", "gaze.direction.z"};
    for (std::size_t c = 0; c < 6; ++c) {
        const curve_id id = curve_id(389 + c);
        EXPECT_EQ(curve_path(id), expected[c]);
        EXPECT_EQ(gaze_curve(static_cast<ray_channel>(c)), id);
        EXPECT_EQ(block_of(id), block::gaze);
        EXPECT_EQ(kind_of(id), curve_kind::float_curve);
    }
}

TEST(CurvePaths, JointNamesAreMrtkSpelling) {
    EXPECT_EQ(joint_names.size(), 27u);
    EXPECT_EQ(joint_names[0], "None");
    EXPECT_EQ(joint_names[3], "ThumbMetacarpalJoint");
    EXPECT_EQ(joint_names[9], "IndexMiddleJoint");
    EXPECT_EQ(joint_names[26], "PinkyTip");
}

TEST(CurvePaths, IdsOutsideTheTableHaveNoPath) {
    EXPECT_EQ(curve_path(curve_id(395)), "");
    EXPECT_EQ(curve_path(curve_id(0xffff)), "");
}

TEST(FindCurve, EveryPathFindsItsOwnId) {
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const auto found = find_curve(curve_path(curve_id(i)));
        ASSERT_TRUE(found.has_value()) << i;
        EXPECT_EQ(to_index(*found), i);
    }
}

TEST(FindCurve, UnknownOrInexactPathsFindNothing) {
    for (const char* p :
         {"", "camera", "camera.", "camera.position", "camera.position.w", "Camera.position.x",
          "camera.position.x ", " camera.position.x", "camera.position.xx", "hand.middle.tracked",
          "hand.left.joint.Thumb.position.x", "hand.left.joint.*.position.x", "gaze.direction.w",
          "markers"}) {
        EXPECT_FALSE(find_curve(p).has_value()) << p;
    }
}

TEST(CurveCount, CountsEveryBlockCombination) {
    EXPECT_EQ(curve_count({false, false, false}), 0u);
    EXPECT_EQ(curve_count({true, false, false}), 7u);
    EXPECT_EQ(curve_count({false, true, false}), 382u);
    EXPECT_EQ(curve_count({false, false, true}), 6u);
    EXPECT_EQ(curve_count({true, true, false}), 389u);
    EXPECT_EQ(curve_count({true, false, true}), 13u);
    EXPECT_EQ(curve_count({false, true, true}), 388u);
    EXPECT_EQ(curve_count({true, true, true}), 395u);
    EXPECT_EQ(v10_curve_count, curve_count({true, true, false}));
}

TEST(CurveAt, ListsExactlyThePresentBlocksInIdOrderForEveryFlagCombination) {
    for (const block_flags f : every_flag_combination()) {
        std::vector<std::size_t> expected;
        for (std::size_t i = 0; i < curve_id_count; ++i) {
            if (block_present(f, block_of(curve_id(i)))) expected.push_back(i);
        }
        ASSERT_EQ(curve_count(f), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            EXPECT_EQ(to_index(curve_at(f, i)), expected[i])
                << "flags " << f.camera << f.hands << f.gaze << " index " << i;
        }
    }
}

TEST(CurveAt, SkipsAbsentBlocks) {
    EXPECT_EQ(to_index(curve_at({false, true, true}, 0)), 7u);
    EXPECT_EQ(to_index(curve_at({false, true, true}, 382)), 389u);
    EXPECT_EQ(to_index(curve_at({true, false, true}, 7)), 389u);
    EXPECT_EQ(to_index(curve_at({false, false, true}, 5)), 394u);
    EXPECT_EQ(to_index(curve_at({true, true, false}, 388)), 388u);
}

TEST(PathMatches, StarStaysWithinOneComponent) {
    const std::vector<std::string> m = paths_matching("hand.left.joint.*.position.*");
    EXPECT_EQ(m.size(), 27u * 3u);
    for (const std::string& p : m) {
        EXPECT_EQ(p.rfind("hand.left.joint.", 0), 0u) << p;
        EXPECT_NE(p.find(".position."), std::string::npos) << p;
    }
    EXPECT_TRUE(
        path_matches("hand.left.joint.*.position.*", "hand.left.joint.IndexTip.position.z"));
    EXPECT_FALSE(
        path_matches("hand.left.joint.*.position.*", "hand.right.joint.IndexTip.position.z"));
    EXPECT_FALSE(path_matches("hand.left.joint.*", "hand.left.joint.Wrist.position.x"));
    EXPECT_FALSE(path_matches("*", "camera.position.x"));
    EXPECT_TRUE(path_matches("*.position.x", "camera.position.x"));
    EXPECT_EQ(paths_matching("*.position.x"), std::vector<std::string>{"camera.position.x"});
    EXPECT_EQ(paths_matching("hand.*.tracked").size(), 2u);
    EXPECT_TRUE(path_matches("camera.*", "camera."));
}

TEST(PathMatches, DoubleStarCrossesDots) {
    EXPECT_EQ(paths_matching("**").size(), 395u);
    EXPECT_EQ(paths_matching("hand.**").size(), 382u);
    EXPECT_EQ(paths_matching("**.position.x").size(), 1u + 54u);
    EXPECT_EQ(paths_matching("hand.right.**.rotation.w").size(), 27u);
    EXPECT_EQ(paths_matching("**z").size(), 2u * (1u + 54u + 1u));
    EXPECT_TRUE(path_matches("**", ""));
    EXPECT_TRUE(path_matches("camera**", "camera.rotation.w"));
}

TEST(PathMatches, QuestionMarkIsOneCharacterButNeverADot) {
    EXPECT_EQ(paths_matching("camera.rotation.?").size(), 4u);
    EXPECT_TRUE(path_matches("gaze.origin.?", "gaze.origin.y"));
    EXPECT_FALSE(path_matches("camera?position.x", "camera.position.x"));
    EXPECT_FALSE(path_matches("camera.position.??", "camera.position.x"));
    EXPECT_FALSE(path_matches("camera.position.x?", "camera.position.x"));
    EXPECT_TRUE(path_matches("hand.????.tracked", "hand.left.tracked"));
    EXPECT_FALSE(path_matches("hand.????.tracked", "hand.right.tracked"));
}

TEST(PathMatches, LiteralGlobsMatchOnlyThemselves) {
    EXPECT_EQ(paths_matching("hand.left.joint.IndexTip.position.x"),
              std::vector<std::string>{"hand.left.joint.IndexTip.position.x"});
    EXPECT_TRUE(paths_matching("camera.position").empty());
    EXPECT_TRUE(paths_matching("Camera.**").empty());
    EXPECT_TRUE(paths_matching("").empty());
    EXPECT_TRUE(path_matches("", ""));
    EXPECT_FALSE(path_matches("camera.position.x", "camera.position.xy"));
    EXPECT_FALSE(path_matches("camera.position.xy", "camera.position.x"));
}

TEST(PathMatches, ManyStarsStayCorrect) {
    EXPECT_TRUE(path_matches("*.*.*", "camera.position.x"));
    EXPECT_FALSE(path_matches("*.*.*.*", "camera.position.x"));
    EXPECT_TRUE(path_matches("***", "camera.position.x"));
    EXPECT_TRUE(path_matches("**.**.**.**.**.**", "hand.left.joint.Wrist.position.x"));
    EXPECT_FALSE(path_matches(std::string(200, '*') + "q", "hand.left.joint.Wrist.position.x"));
}
