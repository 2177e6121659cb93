// What the .anim importer refuses (inputanim/import.hpp), each with its import_error: a binary
// file, text that is not YAML or not a clip, YAML nested too deep or whose aliases expand to too
// many nodes (refused before yaml-cpp's parser recurses into them, so no input overflows the
// stack), tags neither YAML's nor Unity's, the limits, and keys the validator refuses.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "inputanim/import.hpp"
#include "support/anim_text.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// camera.position.x with keys at 0, 1 and 2 s, the left hand tracked from 0.5 s, two markers.
std::string small_clip() {
    model m = empty_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_x)].keys = {{0.0f, 1.0f}, {1.0f, 2.0f}, {2.0f, 3.0f}};
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 0.0f}, {0.5f, 1.0f}};
    m.markers = std::vector<marker>{{0.25f, "start"}, {0.75f, "stop"}};
    return exported_anim(write(m));
}

import_result import_text(std::string_view text, const import_options& options = {}) {
    model m;
    return import_model(as_bytes(text), import_format::anim, m, options);
}

void expect_refused(std::string_view text, import_error code, std::string_view detail_part,
                    const import_options& options = {}) {
    const import_result r = import_text(text, options);
    EXPECT_EQ(r.error, make_error_code(code)) << r.error.message() << ": " << r.detail << "\n"
                                              << text.substr(0, 200);
    EXPECT_NE(r.detail.find(detail_part), std::string::npos) << r.detail;
    EXPECT_TRUE(r.warnings.empty());
}

std::string repeated(std::string_view s, std::size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

}  // namespace

TEST(ImportAnimErrors, TheSmallClipTheseTestsBreakImports) {
    const import_result r = import_text(small_clip());
    EXPECT_FALSE(r.error) << r.detail;
}

TEST(ImportAnimErrors, ABinarySerialisedClipIsRefusedBeforeParsing) {
    // Unity's serialised-file header (format 22: sizes and offsets as big-endian integers whose
    // high bytes are 0), then the editor's version.
    std::string binary("\0\0\0\0\0\0\0\0\0\0\0\x16\0\0\0\0", 16);
    binary += "2021.3.4f1";
    binary += '\0';
    expect_refused(binary, import_error::binary_clip, "Force Text");
    // A NUL byte anywhere: YAML allows none.
    std::string text = small_clip();
    text.insert(text.find("m_Events"), 1, '\0');
    expect_refused(text, import_error::binary_clip, "a NUL byte at offset");
}

TEST(ImportAnimErrors, TextThatIsNotYamlIsBadYaml) {
    std::string unclosed = small_clip();
    replace_once(unclosed, "  m_Events:\n", "  m_Events: [\n");
    expect_refused(unclosed, import_error::bad_yaml, "line");
    expect_refused("AnimationClip:\n  m_Name: {a: 1\n", import_error::bad_yaml, "");
    expect_refused("AnimationClip:\n  m_Events: *undefined\n", import_error::bad_yaml, "anchor");
    expect_refused("AnimationClip:\n  a: 1\n b: 2\n", import_error::bad_yaml, "");
}

TEST(ImportAnimErrors, YamlThatHoldsNoClipIsNotAClip) {
    expect_refused("", import_error::not_a_clip, "no AnimationClip");
    expect_refused("a: 1\n", import_error::not_a_clip, "no AnimationClip");
    expect_refused("- AnimationClip\n", import_error::not_a_clip, "no AnimationClip");
    expect_refused("--- !u!1 &1\nGameObject:\n  m_Name: x\n", import_error::not_a_clip,
                   "no AnimationClip");
    expect_refused("AnimationClip: 3\n", import_error::not_a_clip,
                   "'3' where the clip has a mapping");
    expect_refused("AnimationClip:\n  m_EditorCurves: 5\n", import_error::not_a_clip,
                   "'5' where the clip has a list");
    expect_refused("AnimationClip:\n  m_EditorCurves: {a: 1}\n", import_error::not_a_clip,
                   "a mapping where the clip has a list");
}

TEST(ImportAnimErrors, ACurveOrKeyOrEventThatLacksAFieldIsNotAClip) {
    const std::string clip = small_clip();
    std::string no_keys = clip;
    replace_once(no_keys, "      m_Curve:\n", "      m_Keys:\n");
    expect_refused(no_keys, import_error::not_a_clip, "a curve without its curve: m_Curve");
    std::string no_path = clip;
    replace_once(no_path, "    path: Camera\n", "");
    expect_refused(no_path, import_error::not_a_clip, "without attribute, path or classID");
    std::string no_class = clip;
    replace_once(no_class, "    classID: 4\n", "");
    expect_refused(no_class, import_error::not_a_clip, "m_EditorCurves[0] (line");
    std::string no_time = clip;
    replace_once(no_time, "        time: 1\n", "");
    expect_refused(no_time, import_error::not_a_clip, "a key without time, value, inSlope");
    std::string no_function = clip;
    replace_once(no_function, "    functionName: OnInputAnimationMarker\n", "");
    expect_refused(no_function, import_error::not_a_clip, "an event without time or functionName");
}

TEST(ImportAnimErrors, AFieldThatIsNotANumberOrNotAScalarIsNotAClip) {
    const std::string clip = small_clip();
    std::string word = clip;
    replace_once(word, "        time: 1\n", "        time: one\n");
    expect_refused(word, import_error::not_a_clip, "time: 'one' is not a number");
    std::string trailing = clip;
    replace_once(trailing, "        value: 2\n", "        value: 2.0.0\n");
    expect_refused(trailing, import_error::not_a_clip, "value: '2.0.0' is not a number");
    std::string mode = clip;
    replace_once(mode, "        weightedMode: 3\n", "        weightedMode: 1.5\n");
    expect_refused(mode, import_error::not_a_clip, "weightedMode: '1.5' is not an integer");
    std::string vector_value = clip;
    replace_once(vector_value, "        value: 2\n", "        value: {x: 1, y: 2, z: 3}\n");
    expect_refused(vector_value, import_error::not_a_clip,
                   "the field 'value' is a mapping, not a scalar");
    std::string listed = clip;
    replace_once(listed, "    path: Camera\n", "    path: [Camera]\n");
    expect_refused(listed, import_error::not_a_clip, "the field 'path' is a list, not a scalar");
    // An alias is read where a scalar is; one to a mapping where keys are read is refused.
    std::string alias = clip;
    replace_once(alias, "  m_Name: InputAnimation\n", "  m_Name: &keys [1, 2]\n");
    replace_once(alias, "      m_Curve:\n      - serializedVersion: 3\n",
                 "      m_Curve:\n      - *keys\n      - serializedVersion: 3\n");
    expect_refused(alias, import_error::not_a_clip, "an alias to a mapping or list");
}

TEST(ImportAnimErrors, ABillionLaughsIsRefusedByItsCountBeforeAnythingExpands) {
    std::string bomb = "AnimationClip:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    char previous = 'a';
    for (char c = 'b'; c <= 'j'; ++c) {
        bomb += std::string("  ") + c + ": &" + c + " [" +
                repeated(std::string("*") + previous + ", ", 8) + "*" + previous + "]\n";
        previous = c;
    }
    const auto start = std::chrono::steady_clock::now();
    expect_refused(bomb, import_error::yaml_too_many_nodes, "aliases expanded");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    // The ceiling is twice the input's bytes and 4,096: a few aliases are read.
    std::string few = small_clip();
    replace_once(few, "  m_Name: InputAnimation\n", "  m_Name: &n InputAnimation\n  m_Other: *n\n");
    EXPECT_FALSE(import_text(few).error);
}

TEST(ImportAnimErrors, AliasesRepeatingMoreTextThanTheCeilingAreRefused) {
    // A scalar of 10,000 bytes repeated 30 times: 300,000 bytes read from some 10,100, more than
    // twice the input and 4,096. Each is a single node: the node count alone would not see it.
    std::string text = "AnimationClip:\n  a: &s " + std::string(10'000, 'x') + "\n  b: [" +
                       repeated("*s, ", 29) + "*s]\n";
    expect_refused(text, import_error::yaml_too_many_nodes, "aliases repeating more than");
}

TEST(ImportAnimErrors, AnAliasInsideTheNodeItNamesIsRefused) {
    expect_refused("AnimationClip:\n  a: &a [1, *a]\n", import_error::yaml_too_many_nodes,
                   "expands without end");
}

TEST(ImportAnimErrors, NestingDeeperThan64LevelsIsRefusedAsItOpens) {
    // 64 levels are read (the document's list is the first); the 65th is refused.
    expect_refused(repeated("[", 64) + repeated("]", 64), import_error::not_a_clip,
                   "no AnimationClip");
    expect_refused(repeated("[", 65) + repeated("]", 65), import_error::yaml_too_deep,
                   "nested deeper than 64 levels");
    // Ten thousand levels in flow style, a million in block style: refused at the 65th, before
    // yaml-cpp's parser, which recurses per level, goes deeper.
    const auto start = std::chrono::steady_clock::now();
    expect_refused(repeated("[", 10'000), import_error::yaml_too_deep, "line 1");
    expect_refused(repeated("- ", 1'000'000) + "x\n", import_error::yaml_too_deep, "line 1");
    std::string indented;
    for (int i = 0; i < 2000; ++i) indented += std::string(i, ' ') + "a:\n";
    expect_refused(indented, import_error::yaml_too_deep, "nested deeper than 64 levels");
    std::string clip_deep = small_clip();
    replace_once(clip_deep, "  m_Name: InputAnimation\n",
                 "  m_Name: " + repeated("{a: ", 100) + "1" + repeated("}", 100) + "\n");
    expect_refused(clip_deep, import_error::yaml_too_deep, "nested deeper than 64 levels");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(ImportAnimErrors, AFlowCollectionYamlCppWouldReadWholeBeforeItsFirstNodeIsRefused) {
    // yaml-cpp's scanner reads a flow collection to its end before handing over its first node,
    // keeping a token for each indicator: past 65,536 indicators read ahead, the input is
    // refused as it is read, in chunks of 4 KiB.
    const auto start = std::chrono::steady_clock::now();
    expect_refused(repeated("[", 1'000'000), import_error::yaml_too_many_nodes,
                   "a flow collection too large to read");
    expect_refused("[" + repeated("a, ", 100'000) + "a]\n", import_error::yaml_too_many_nodes,
                   "more than 65536 YAML indicators");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    // As many indicators in a clip's block structure or in its small flow collections, each
    // node handed over as it is read, and in a long scalar, are read.
    std::string clip = small_clip();
    replace_once(clip, "  m_Name: InputAnimation\n",
                 "  m_Name: {a: 1}\n  m_Other:\n" + repeated("  - {x: 0, y: 0, z: 0}\n", 20'000) +
                     "  m_Long: \"" + repeated("a, b: [c] ", 10'000) + "\"\n");
    const import_result r = import_text(clip);
    EXPECT_FALSE(r.error) << r.detail;
}

TEST(ImportAnimErrors, AnAliasThatWouldNestTooDeepIsRefused) {
    // An anchor 40 levels deep is fine where it stands; named 30 levels down it would be 70.
    const std::string deep = repeated("[", 40) + repeated("]", 40);
    const std::string text =
        "- &deep " + deep + "\n- " + repeated("[", 29) + "*deep" + repeated("]", 29) + "\n";
    expect_refused(text, import_error::yaml_too_deep, "nested deeper than 64 levels");
}

TEST(ImportAnimErrors, ATagNeitherYamlsNorUnitysIsUnknown) {
    const std::string clip = small_clip();
    std::string custom = clip;
    replace_once(custom, "  m_Name: InputAnimation\n", "  m_Name: !custom InputAnimation\n");
    expect_refused(custom, import_error::unknown_tag, "the tag '!custom'");
    std::string python = clip;
    replace_once(python, "  m_Name: InputAnimation\n",
                 "  m_Name: !!python/object/apply:os.system [ls]\n");
    expect_refused(python, import_error::unknown_tag, "tag:yaml.org,2002:python/object/apply");
    std::string verbatim = clip;
    replace_once(verbatim, "--- !u!74 &7400000\n", "--- !<tag:example.com,2000:clip> &7400000\n");
    expect_refused(verbatim, import_error::unknown_tag, "tag:example.com,2000:clip");
    std::string not_a_class = clip;
    replace_once(not_a_class, "--- !u!74 &7400000\n", "--- !u!clip &7400000\n");
    expect_refused(not_a_class, import_error::unknown_tag, "tag:unity3d.com,2011:clip");
    // YAML's own tags and Unity's are read.
    std::string known = clip;
    replace_once(known, "  m_Name: InputAnimation\n", "  m_Name: !!str InputAnimation\n");
    EXPECT_FALSE(import_text(known).error);
}

TEST(ImportAnimErrors, AnInputLargerThanMaxBytesIsRefusedBeforeParsing) {
    import_options o;
    o.limits.max_bytes = 100;
    // Not even YAML: the size is all that is read.
    expect_refused(std::string(101, '['), import_error::too_large, "more than --max-bytes 100", o);
    o.limits.max_bytes = small_clip().size() - 1;
    expect_refused(small_clip(), import_error::too_large, "--max-bytes", o);
}

TEST(ImportAnimErrors, TheLimitsAreTakenBeforeKeysAndMarkersAreKept) {
    const std::string clip = small_clip();
    import_options per_curve;
    per_curve.limits.max_keyframes_per_curve = 2;
    expect_refused(clip, import_error::limit_exceeded,
                   "3 keys, more than --max-keyframes-per-curve 2", per_curve);
    import_options total;
    total.limits.max_total_keyframes = 4;
    expect_refused(clip, import_error::limit_exceeded, "more than --max-total-keyframes 4", total);
    import_options markers;
    markers.limits.max_markers = 1;
    expect_refused(clip, import_error::limit_exceeded, "2 markers, more than --max-markers 1",
                   markers);
    import_options name;
    name.limits.max_marker_name_bytes = 4;
    expect_refused(clip, import_error::limit_exceeded,
                   "a marker name of 5 bytes, more than --max-marker-name-bytes 4", name);
}

TEST(ImportAnimErrors, KeysTheValidatorRefusesAreRefused) {
    const std::string clip = small_clip();
    std::string backwards = clip;
    replace_once(backwards, "        time: 2\n", "        time: 0.5\n");
    expect_refused(backwards, import_error::unsorted_keys, "camera.position.x key 2");
    std::string nan_time = clip;
    replace_once(nan_time, "        time: 1\n", "        time: NaN\n");
    expect_refused(nan_time, import_error::not_finite, "camera.position.x key 1");
    std::string infinite = clip;
    replace_once(infinite, "        value: 2\n", "        value: -Infinity\n");
    expect_refused(infinite, import_error::not_finite, "camera.position.x key 1");
    std::string overflow = clip;
    replace_once(overflow, "        value: 2\n", "        value: 1e39\n");
    expect_refused(overflow, import_error::not_finite, "camera.position.x key 1");
    // A bool curve is in m_FloatCurves and m_EditorCurves: both say 0.5.
    std::string half = clip;
    for (int copy = 0; copy < 2; ++copy) {
        replace_once(half, "        time: 0.5\n        value: 1\n",
                     "        time: 0.5\n        value: 0.5\n");
    }
    expect_refused(half, import_error::bad_field, "hand.left.tracked key 1");
    // A marker name that is not UTF-8 (a byte 0xe9 alone, raw in the text).
    std::string latin1 = clip;
    replace_once(latin1, "    data: \"start\"\n", "    data: \"caf\xe9\"\n");
    expect_refused(latin1, import_error::bad_field, "marker 0");
}
