// The .anim importer (inputanim/import.hpp, docs/IMPORT.md): `export --format anim` then import
// gives back every curve the clip carries and the markers bit for bit, for every version and
// layout; a clip as Unity re-saves and edits it imports as edited; what Unity would play but the
// import leaves out, or reads otherwise, is in the warnings.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "inputanim/export.hpp"
#include "inputanim/import.hpp"
#include "support/anim_text.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

bool is_none_joint(curve_id id) {
    const std::size_t i = to_index(id);
    return i >= left_joint_first && i < gaze_first &&
           (i - left_joint_first) % (joint_count * pose_channel_count) < pose_channel_count;
}

// Every curve the clip carries equal bit for bit (time, value, tangents, weights, weighted mode;
// a bool key's time and value), the wrap modes, the None joint empty, the markers.
void expect_same_recording(const model& want, const model& got) {
    EXPECT_EQ(got.blocks, want.blocks);
    for (std::size_t i = 0; i < curve_count(want.blocks); ++i) {
        const curve_id id = curve_at(want.blocks, i);
        const curve& w = want[id];
        const curve& g = got[id];
        SCOPED_TRACE(std::string(curve_path(id)));
        if (is_none_joint(id)) {
            EXPECT_TRUE(g.keys.empty());
            continue;
        }
        EXPECT_EQ(g.pre_wrap, w.pre_wrap);
        EXPECT_EQ(g.post_wrap, w.post_wrap);
        ASSERT_EQ(g.keys.size(), w.keys.size());
        for (std::size_t k = 0; k < w.keys.size(); ++k) {
            const keyframe& a = w.keys[k];
            const keyframe& b = g.keys[k];
            EXPECT_EQ(std::bit_cast<std::uint32_t>(b.time), std::bit_cast<std::uint32_t>(a.time));
            EXPECT_EQ(std::bit_cast<std::uint32_t>(b.value), std::bit_cast<std::uint32_t>(a.value));
            if (kind_of(id) == curve_kind::bool_curve) continue;
            EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "key " << k;
        }
    }
    ASSERT_TRUE(got.markers.has_value());
    const std::vector<marker> none;
    const std::vector<marker>& want_markers = want.markers ? *want.markers : none;
    ASSERT_EQ(got.markers->size(), want_markers.size());
    for (std::size_t i = 0; i < want_markers.size(); ++i) {
        EXPECT_EQ(std::bit_cast<std::uint32_t>((*got.markers)[i].time),
                  std::bit_cast<std::uint32_t>(want_markers[i].time));
        EXPECT_EQ((*got.markers)[i].name, want_markers[i].name);
    }
}

// The model of `file` as read, exported, imported: the import's model and result.
struct round_trip {
    model want;
    model got;
    import_result result;
};

round_trip through_anim(const bytes& file) {
    round_trip r;
    EXPECT_FALSE(read_model(view(file), r.want));
    const std::string text = exported_anim(file);
    r.result = import_model(as_bytes(text), import_format::anim, r.got);
    EXPECT_FALSE(r.result.error) << r.result.error.message() << ": " << r.result.detail;
    return r;
}

}  // namespace

TEST(ImportAnim, GeneratedRecordingsOfEveryLayoutComeBackBitForBit) {
    struct shape_case {
        int minor;
        layout lay;
        bool gaze;
        int markers;
    };
    for (const shape_case c :
         {shape_case{0, layout::full, false, 3}, shape_case{0, layout::full, false, 0},
          shape_case{1, layout::compact, true, 3}, shape_case{1, layout::compact, true, 0},
          shape_case{1, layout::compact, false, 3}, shape_case{1, layout::full, true, 3},
          shape_case{1, layout::full, false, 0}}) {
        SCOPED_TRACE("v1." + std::to_string(c.minor) + " " + std::string(layout_name(c.lay)) +
                     (c.gaze ? " with gaze, " : " without gaze, ") + std::to_string(c.markers) +
                     " markers");
        generate_options g;
        g.seconds = 0.5;
        g.minor = c.minor;
        g.layout = c.lay;
        g.blocks.gaze = c.gaze;
        g.markers = c.markers;
        const round_trip r = through_anim(write(generated_model(g)));
        expect_same_recording(r.want, r.got);
        EXPECT_TRUE(r.result.warnings.empty());
        // MRTK's own keys are linear: the import writes them compact, as v1.1 files are.
        EXPECT_EQ(r.got.layout, layout::compact);
        EXPECT_EQ(r.got.minor, 1);
        if (c.minor == 1) {
            // Nothing the file holds is lost: written again in the compact layout, it is the file
            // (a full file of linear keys is the compact one in other words).
            model want = r.want;
            want.layout = layout::compact;
            EXPECT_TRUE(write(r.got) == write(want));
        }
    }
}

TEST(ImportAnim, TangentsWeightsAndWeightedModesComeBackBitForBit) {
    for (const shape s : all_shapes) {
        for (const bool with_markers : {true, false}) {
            SCOPED_TRACE(std::string(shape_name(s)) + (with_markers ? " with" : " without") +
                         " markers");
            const round_trip r = through_anim(small_file(s, with_markers));
            expect_same_recording(r.want, r.got);
            if (s == shape::v10) continue;
            // A full file's keys have tangents and weights: the import keeps the full layout.
            EXPECT_EQ(r.got.layout, r.want.layout);
            model want = r.want;
            if (!with_markers) want.markers = std::vector<marker>{};
            EXPECT_TRUE(write(r.got) == write(want));
        }
    }
}

TEST(ImportAnim, WrapModesComeBackAsMrtkWritesThemWhereUnityClamps) {
    model m = empty_model(shape::v11_full);
    const std::pair<std::int32_t, std::int32_t> cases[] = {{2, 4}, {4, 2}, {8, 8}, {0, 1}};
    // Loop is Unity's Repeat and comes back Loop, PingPong likewise; every other mode is Unity's
    // Clamp, which comes back as ClampForever (8), MRTK's.
    const std::pair<std::int32_t, std::int32_t> back[] = {{2, 4}, {4, 2}, {8, 8}, {8, 8}};
    for (std::size_t i = 0; i < std::size(cases); ++i) {
        curve& c = m[curve_id(static_cast<std::uint16_t>(i))];
        c.pre_wrap = cases[i].first;
        c.post_wrap = cases[i].second;
        c.keys = {{0.0f, 1.0f}};
    }
    const std::string text = exported_anim(write(m));
    model got;
    ASSERT_FALSE(import_model(as_bytes(text), import_format::anim, got).error);
    for (std::size_t i = 0; i < std::size(cases); ++i) {
        const curve& c = got[curve_id(static_cast<std::uint16_t>(i))];
        EXPECT_EQ(c.pre_wrap, back[i].first) << i;
        EXPECT_EQ(c.post_wrap, back[i].second) << i;
    }
}

TEST(ImportAnim, TheNoneJointExportLeavesOutComesBackWithNoKeys) {
    model m = empty_model(shape::v11_compact);
    m[joint_curve(side::left, joint::none, pose_channel::position_x)].keys = {{0.0f, 1.0f}};
    m[joint_curve(side::left, joint::wrist, pose_channel::position_x)].keys = {{0.0f, 2.0f}};
    const std::string text = exported_anim(write(m));
    EXPECT_EQ(text.find("LeftHand/None"), std::string::npos);
    model got;
    const import_result r = import_model(as_bytes(text), import_format::anim, got);
    ASSERT_FALSE(r.error) << r.detail;
    EXPECT_TRUE(got[joint_curve(side::left, joint::none, pose_channel::position_x)].keys.empty());
    EXPECT_EQ(got[joint_curve(side::left, joint::wrist, pose_channel::position_x)].keys,
              (std::vector<keyframe>{{0.0f, 2.0f}}));
    EXPECT_TRUE(r.warnings.empty());
}

TEST(ImportAnim, TheBlocksAreThoseWhoseCurvesTheClipBinds) {
    for (const block_flags blocks :
         {block_flags{true, false, false}, block_flags{false, true, false},
          block_flags{false, false, true}, block_flags{true, false, true},
          block_flags{false, false, false}}) {
        model m = empty_model(shape::v11_compact);
        m.blocks = blocks;
        const std::string text = exported_anim(write(m));
        model got;
        const import_result r = import_model(as_bytes(text), import_format::anim, got);
        ASSERT_FALSE(r.error) << r.detail;
        EXPECT_EQ(got.blocks, blocks);
        EXPECT_TRUE(r.warnings.empty());
    }
}

TEST(ImportAnim, MarkerNamesComeBackAsTheyAre) {
    model m = empty_model(shape::v11_compact);
    m.markers =
        std::vector<marker>{{-0.5f, ""},
                            {0.0f, "tap \"here\" \\ now"},
                            {0.1f, "line\nbreak\ttab\x01\x7f"},
                            {0.2f, "caf\xc3\xa9 \xe2\x80\xa8 \xef\xbb\xbf \xf0\x9f\x8e\xaf"},
                            {0.3f, "null"},
                            {0.3f, "- [a, {b: c}] # not a comment"}};
    const std::string text = exported_anim(write(m));
    model got;
    ASSERT_FALSE(import_model(as_bytes(text), import_format::anim, got).error);
    EXPECT_EQ(got.markers, m.markers);
}

TEST(ImportAnim, AClipEditedInUnityImportsAsEdited) {
    model m = empty_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_y)].keys = {{0.0f, 1.0f}, {1.0f, 2.0f}, {2.0f, 3.0f}};
    m[camera_curve(pose_channel::position_x)].keys = {{0.0f, 5.0f}, {1.0f, 6.0f}};
    std::string text = exported_anim(write(m));
    // Unity keeps keys in order; the text of position.y's keys is found by their values.
    const auto key_text = [](const std::string& t, const std::string& value) {
        return "        time: " + t + "\n        value: " + value + "\n";
    };
    // Move the key at 1 s to 1.5 s, delete the one at 2 s, and add one at 3 s with tangents.
    replace_once(text, key_text("1", "2"), key_text("1.5", "2"));
    const std::string third = key_block(text, "2");
    replace_once(text, third,
                 "      - serializedVersion: 3\n        time: 3\n        value: 4\n"
                 "        inSlope: 0.5\n        outSlope: -0.5\n        tangentMode: 0\n"
                 "        weightedMode: 1\n        inWeight: 0.25\n        outWeight: 0.75\n");
    model got;
    const import_result r = import_model(as_bytes(text), import_format::anim, got);
    ASSERT_FALSE(r.error) << r.detail;
    EXPECT_EQ(got[camera_curve(pose_channel::position_y)].keys,
              (std::vector<keyframe>{
                  {0.0f, 1.0f}, {1.5f, 2.0f}, {3.0f, 4.0f, 0.5f, -0.5f, 0.25f, 0.75f, 1}}));
    EXPECT_EQ(got[camera_curve(pose_channel::position_x)].keys,
              m[camera_curve(pose_channel::position_x)].keys);
    // A key with tangents is not MRTK's linear key: the full layout keeps it.
    EXPECT_EQ(got.layout, layout::full);
    EXPECT_TRUE(r.warnings.empty());
}

TEST(ImportAnim, ReadsAClipAsUnitySavesIt) {
    // Fields in another order, fields export does not write, keys of serializedVersion 2 (no
    // weights: unweighted, Unity's 1/3), `path:` with no value for the root, a runtime vector
    // curve with its editor curves beside it, YAML's own spellings of numbers, flow style.
    const std::string text = R"(%YAML 1.1
%TAG !u! tag:unity3d.com,2011:
--- !u!74 &7400000
AnimationClip:
  m_ObjectHideFlags: 0
  m_Name: Edited
  serializedVersion: 6
  m_PositionCurves:
  - curve:
      serializedVersion: 2
      m_Curve:
      - serializedVersion: 3
        time: 0
        value: {x: 1, y: 2, z: 3}
        inSlope: {x: 0, y: 0, z: 0}
        outSlope: {x: 0, y: 0, z: 0}
        tangentMode: 0
        weightedMode: 0
        inWeight: {x: 0.33333334, y: 0.33333334, z: 0.33333334}
        outWeight: {x: 0.33333334, y: 0.33333334, z: 0.33333334}
      m_PreInfinity: 2
      m_PostInfinity: 2
      m_RotationOrder: 4
    path: Camera
  m_FloatCurves:
  - path:
    attribute: LeftHandPinching
    classID: 95
    script: {fileID: 0}
    curve:
      m_Curve:
      - {time: 0, value: 0, inSlope: Infinity, outSlope: Infinity, tangentMode: 103}
      - {time: 0.5, value: 1, inSlope: Infinity, outSlope: Infinity, tangentMode: 103}
      serializedVersion: 2
  m_PPtrCurves: []
  m_SampleRate: 30
  m_ClipBindingConstant:
    genericBindings:
    - serializedVersion: 2
      path: 2351183424
      attribute: 1
      script: {fileID: 0}
      typeID: 4
      customType: 0
      isPPtrCurve: 0
    pptrCurveMapping: []
  m_EditorCurves:
  - curve:
      serializedVersion: 2
      m_Curve:
      - serializedVersion: 2
        time: +0.25
        value: 1
        inSlope: .inf
        outSlope: -.Inf
        tangentMode: 0
      m_PreInfinity: 1
      m_PostInfinity: 0
      m_RotationOrder: 4
    attribute: m_LocalPosition.x
    path: Camera
    classID: 4
    script: {fileID: 0}
  m_EulerEditorCurves: []
  m_HasGenericRootTransform: 0
  m_Events:
  - time: 0.125
    functionName: OnInputAnimationMarker
    data: plain name
    objectReferenceParameter: {fileID: 0}
    floatParameter: 0
    intParameter: 0
    messageOptions: 0
)";
    model got;
    const import_result r = import_model(as_bytes(text), import_format::anim, got);
    ASSERT_FALSE(r.error) << r.detail;
    EXPECT_EQ(got.blocks, (block_flags{true, true, false}));
    const float inf = std::numeric_limits<float>::infinity();
    const float third = 1.0f / 3.0f;
    const curve& x = got[camera_curve(pose_channel::position_x)];
    EXPECT_EQ(x.keys, (std::vector<keyframe>{{0.25f, 1.0f, inf, -inf, third, third, 0}}));
    EXPECT_EQ(x.pre_wrap, 2);
    EXPECT_EQ(x.post_wrap, 4);
    EXPECT_EQ(got[hand_state_curve(hand_state::left_pinching)].keys,
              (std::vector<keyframe>{{0.0f, 0.0f}, {0.5f, 1.0f}}));
    EXPECT_EQ(got.markers, (std::vector<marker>{{0.125f, "plain name"}}));
    EXPECT_EQ(got.layout, layout::full);
    // The camera's vector curve has its editor curves; the other camera curves and the hands'
    // are not bound.
    ASSERT_EQ(r.warnings.size(), 1u);
    // 6 of the camera's, and of the hands' the 4 states and 26 joints' 7 curves each but the
    // left pinching.
    EXPECT_EQ(r.warnings[0], std::to_string(6 + 4 + 2 * 26 * 7 - 1) +
                                 " curves of the clip's blocks are not bound (the first "
                                 "camera.position.y): imported with no keys");
}

TEST(ImportAnim, ReportsWhatUnityWouldPlayButTheImportLeavesOutOrReadsOtherwise) {
    model m = empty_model(shape::v11_compact);
    m.blocks = {true, false, false};
    for (std::size_t i = 0; i < pose_channel_count; ++i) {
        m[curve_id(static_cast<std::uint16_t>(i))].keys = {{0.0f, 1.0f}};
    }
    m.markers = std::vector<marker>{{0.5f, "kept"}};
    std::string text = exported_anim(write(m));
    // A binding that names no curve, one bound twice, a weighted mode Unity does not define, an
    // infinity mode it does not define, an event for another function, a vector curve with no
    // editor curves, scale curves.
    const std::string editor = "  m_EditorCurves:\n";
    const std::string entry = [&] {
        const std::size_t at = text.find(editor) + editor.size();
        const std::size_t end = text.find("  - curve:", at + 1);
        return text.substr(at, end - at);
    }();
    std::string unbound = entry;
    replace_once(unbound, "path: Camera", "path: Head");
    std::string odd = entry;
    replace_once(odd, "weightedMode: 3", "weightedMode: 7");
    replace_once(odd, "m_PreInfinity: 2", "m_PreInfinity: 5");
    replace_once(odd, "m_LocalPosition.x", "m_LocalPosition.y");
    replace_once(text, editor + entry, editor + entry + unbound + entry);
    const std::string y_entry = [&] {
        const std::size_t at = text.find(
            "      m_PreInfinity: 2\n      m_PostInfinity: 2\n"
            "      m_RotationOrder: 4\n    attribute: "
            "m_LocalPosition.y");
        const std::size_t start = text.rfind("  - curve:", at);
        const std::size_t end = text.find("  - curve:", at);
        return text.substr(start, end - start);
    }();
    replace_once(text, y_entry, odd);
    replace_once(
        text, "  m_ScaleCurves: []\n",
        "  m_ScaleCurves:\n  - curve: {}\n    path: Camera\n  - curve: {}\n    path: Gaze\n");
    replace_once(text, "  m_PositionCurves: []\n",
                 "  m_PositionCurves:\n  - curve: {}\n    path: Camera\n  - curve: {}\n"
                 "    path: LeftHand/Wrist\n");
    replace_once(text, "    functionName: OnInputAnimationMarker\n",
                 "    functionName: OnInputAnimationMarker\n    data: \"kept\"\n"
                 "    objectReferenceParameter: {fileID: 0}\n  - time: 0.75\n"
                 "    functionName: PlaySound\n");
    model got;
    const import_result r = import_model(as_bytes(text), import_format::anim, got);
    ASSERT_FALSE(r.error) << r.detail;
    EXPECT_EQ(got[camera_curve(pose_channel::position_x)].keys,
              (std::vector<keyframe>{{0.0f, 1.0f}}));
    EXPECT_EQ(got[camera_curve(pose_channel::position_y)].keys,
              (std::vector<keyframe>{{0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0}}));
    EXPECT_EQ(got[camera_curve(pose_channel::position_y)].pre_wrap, 8);
    EXPECT_EQ(got.markers, (std::vector<marker>{{0.5f, "kept"}}));
    std::string all;
    for (const std::string& w : r.warnings) all += w + "\n";
    EXPECT_NE(all.find("path 'Head' attribute 'm_LocalPosition.x' classID 4 binds no curve of "
                       "the recording; not imported"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("camera.position.x is bound twice in m_EditorCurves; the first is imported"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("camera.position.y: 1 keys with a weightedMode outside 0-3, imported as "
                       "None (0)"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("camera.position.y: an infinity mode 5 Unity does not define, imported as "
                       "Clamp (wrap mode 8)"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("an event calling 'PlaySound', not OnInputAnimationMarker: not a marker, "
                       "not imported"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("m_PositionCurves: path 'LeftHand/Wrist' has a vector curve and no "
                       "per-component curves in m_EditorCurves; not imported"),
              std::string::npos)
        << all;
    EXPECT_EQ(all.find("m_PositionCurves: path 'Camera'"), std::string::npos) << all;
    EXPECT_NE(all.find("m_ScaleCurves: 2 curves not imported"), std::string::npos) << all;
    EXPECT_EQ(r.warnings.size(), 7u) << all;
}
