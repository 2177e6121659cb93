// The `inputanim` command, run as a user runs it: exit statuses, stdout and stderr, the JSON
// Lines objects field by field, and the text of info and validate.
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

std::uint64_t keyframes_of(const model& m) {
    const block_flags blocks = m.minor == 0 ? block_flags{true, true, false} : m.blocks;
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < curve_count(blocks); ++i) n += m[curve_at(blocks, i)].keys.size();
    return n;
}

std::size_t unsorted_offset(const model& m) {
    return curve_offset(m, 0) + curve_header_size + 2 * compact_keyframe_size;
}

std::string negative_time_message(float time) {
    return warning{warning_code::negative_time, camera_curve(pose_channel::position_x), 0, 1, time}
        .message();
}

using Cli = cli_fixture;

// --- exit statuses and where output goes ------------------------------------------------------

TEST_F(Cli, ValidateExitsZeroWhenEveryFileIsValidAndWritesNothingOnStderr) {
    const std::string a = write_file("a.bin", without_warnings(small_model(shape::v10)));
    const std::string b = write_file("b.bin", without_warnings(small_model(shape::v11_full)));
    const run_result r = run({"validate", a, b});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, a + ": valid\n" + b + ": valid\n");
    EXPECT_EQ(r.err, "");
}

TEST_F(Cli, ValidateExitsOneWhenAnyFileIsInvalid) {
    const std::string good = write_file("good.bin", small_file(shape::v11_compact));
    const std::string bad = write_file("bad.bin", unsorted_model());
    const run_result r = run({"validate", good, bad});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(lines_of(r.out).size(), 3u) << "good.bin, its warning, bad.bin:\n" << r.out;
    EXPECT_EQ(r.err, "");
}

TEST_F(Cli, AnUnknownFlagIsAUsageErrorOnStderr) {
    const std::string f = write_file("f.bin", small_file(shape::v10));
    const run_result r = run({"validate", "--no-such-flag", f});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
}

TEST_F(Cli, AMissingFileListIsAUsageError) {
    for (const char* command : {"validate", "info"}) {
        const run_result r = run({command});
        EXPECT_EQ(r.status, 2) << command;
        EXPECT_EQ(r.out, "") << command;
        EXPECT_NE(r.err.find("FILE is required"), std::string::npos) << r.err;
    }
}

TEST_F(Cli, ALevelOtherThanStructureOrFullIsAUsageError) {
    const std::string f = write_file("f.bin", small_file(shape::v10));
    const run_result r = run({"validate", "--level", "deep", f});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("--level"), std::string::npos) << r.err;
}

TEST_F(Cli, EveryCommandThatTakesARateRefusesOneThatIsNotAPositiveNumberTheSameWay) {
    const std::string f = write_file("f.bin", small_file(shape::v11_compact));
    const std::vector<std::vector<std::string>> commands = {{"gen", "-o", path("g.bin")},
                                                            {"sample", f},
                                                            {"metrics", f},
                                                            {"export", f, path("e.glb")},
                                                            {"view", "--listen", "127.0.0.1:0", f}};
    for (const std::vector<std::string>& command : commands) {
        for (const std::string rate : {"0", "-1", "nan", "inf", "1e999", "fast"}) {
            std::vector<std::string> args = command;
            args.insert(args.end(), {"--rate", rate});
            const run_result r = run(args);
            EXPECT_EQ(r.status, 2) << command[0] << " " << rate;
            EXPECT_NE(r.err.find("--rate: '" + rate + "' is not a positive finite number"),
                      std::string::npos)
                << command[0] << ": " << r.err;
        }
    }
    // The viewer plays at most 1000 frames a second.
    const run_result fast = run({"view", "--listen", "127.0.0.1:0", "--rate", "2000", f});
    EXPECT_EQ(fast.status, 2);
    EXPECT_NE(fast.err.find("--rate: 2000 is above the largest accepted value 1000"),
              std::string::npos)
        << fast.err;
}

TEST_F(Cli, ALayoutOtherThanAutoCompactOrFullIsAUsageError) {
    const std::string f = write_file("f.bin", small_file(shape::v10));
    const run_result r = run({"info", "--layout", "packed", f});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("--layout"), std::string::npos) << r.err;
}

TEST_F(Cli, ALimitThatIsNotAPlainNonNegativeIntegerIsAUsageError) {
    const std::string f = write_file("f.bin", small_file(shape::v10));
    for (const char* value : {"-1", "ten", "0x10", "+5", "99999999999999999999999"}) {
        const run_result r = run({"validate", "--max-bytes", value, f});
        EXPECT_EQ(r.status, 2) << value;
        EXPECT_EQ(r.out, "") << value;
        EXPECT_NE(r.err.find("--max-bytes"), std::string::npos) << r.err;
    }
    // The 32-bit ceilings reject what does not fit in 32 bits.
    const run_result r = run({"validate", "--max-markers", "4294967296", f});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--max-markers"), std::string::npos) << r.err;
}

TEST_F(Cli, ALimitWithLeadingZerosIsDecimalNotOctal) {
    const bytes b = small_file(shape::v10);
    const std::string f = write_file("f.bin", b);
    const std::string exact = std::to_string(b.size());
    EXPECT_EQ(run({"validate", "--max-bytes", "0" + exact, f}).status, 0);
}

TEST_F(Cli, AnUnknownOrMissingSubcommandIsAUsageError) {
    const run_result unknown = run({"frobnicate"});
    EXPECT_EQ(unknown.status, 2);
    EXPECT_EQ(unknown.out, "");
    EXPECT_NE(unknown.err.find("frobnicate"), std::string::npos) << unknown.err;

    const run_result none = run({});
    EXPECT_EQ(none.status, 2);
    EXPECT_EQ(none.out, "");
    EXPECT_NE(none.err.find("subcommand is required"), std::string::npos) << none.err;
}

TEST_F(Cli, AMissingFileExitsThreeWithADiagnosticAndTheOtherFilesAreStillChecked) {
    const std::string missing = path("missing.bin");
    const std::string good = write_file("good.bin", small_file(shape::v11_compact));
    const run_result r = run({"validate", "--format", "json", missing, good});
    EXPECT_EQ(r.status, 3);
    EXPECT_EQ(r.err, "inputanim: " + missing + ": No such file or directory\n");
    const std::vector<json> objects = json_lines(r.out);
    ASSERT_EQ(objects.size(), 1u) << "a file that cannot be read gets no JSON line";
    EXPECT_EQ(objects[0]["path"], good);
}

TEST_F(Cli, ADirectoryCannotBeReadAndExitsThree) {
    const run_result r = run({"info", scratch_.path().string()});
    EXPECT_EQ(r.status, 3);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "inputanim: " + scratch_.path().string() + ": Is a directory\n");
}

TEST_F(Cli, AFileWithoutReadPermissionExitsThree) {
    if (geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
    const std::string f = write_file("secret.bin", small_file(shape::v10));
    ASSERT_EQ(chmod(f.c_str(), 0), 0);
    const run_result r = run({"validate", f});
    EXPECT_EQ(r.status, 3);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "inputanim: " + f + ": Permission denied\n");
}

TEST_F(Cli, AReadFailureWinsOverAnInvalidFile) {
    const std::string bad = write_file("bad.bin", unsorted_model());
    const run_result r = run({"validate", bad, path("missing.bin")});
    EXPECT_EQ(r.status, 3);
    EXPECT_EQ(lines_of(r.out).size(), 1u) << r.out;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
}

TEST_F(Cli, VersionPrintsTheProjectVersion) {
    const run_result r = run({"--version"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string("inputanim ") + INPUTANIM_VERSION + "\n");
    EXPECT_EQ(r.err, "");
}

TEST_F(Cli, HelpDescribesEverySubcommandAndOption) {
    const run_result top = run({"--help"});
    EXPECT_EQ(top.status, 0);
    for (const char* word : {"info", "validate", "--version", "Exit status"}) {
        EXPECT_NE(top.out.find(word), std::string::npos) << word;
    }
    const run_result validate_help = run({"validate", "--help"});
    EXPECT_EQ(validate_help.status, 0);
    for (const char* option :
         {"FILE", "--json", "--level", "--layout", "--max-bytes", "--max-keyframes-per-curve",
          "--max-total-keyframes", "--max-markers", "--max-marker-name-bytes"}) {
        EXPECT_NE(validate_help.out.find(option), std::string::npos) << option;
    }
    const run_result info_help = run({"info", "--help"});
    EXPECT_EQ(info_help.status, 0);
    EXPECT_NE(info_help.out.find("--level TEXT:{structure,full}=structure"), std::string::npos)
        << info_help.out;
}

// --- JSON Lines ---------------------------------------------------------------------------------

TEST_F(Cli, JsonOfAValidV10FileHasEveryField) {
    const model m = without_warnings(small_model(shape::v10));
    const bytes b = write(m);
    const std::string f = write_file("v10.bin", b);
    const run_result r = run({"validate", "--format", "json", f});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "");
    const std::vector<json> objects = json_lines(r.out);
    ASSERT_EQ(objects.size(), 1u);
    const json& j = objects[0];
    EXPECT_EQ(j["path"], f);
    EXPECT_EQ(j["valid"], true);
    EXPECT_EQ(j["bytes"], b.size());
    EXPECT_EQ(j["version"], "1.0");
    EXPECT_EQ(j["layout"], "full");
    EXPECT_EQ(j["has_camera"], true);
    EXPECT_EQ(j["has_hands"], true);
    EXPECT_EQ(j["has_gaze"], false);
    EXPECT_EQ(j["curves"], v10_curve_count);
    EXPECT_EQ(j["keyframes"], keyframes_of(m));
    EXPECT_EQ(j["markers"], 2);
    EXPECT_EQ(j["start"], 0.0);
    EXPECT_EQ(j["duration"], 0.75);
    EXPECT_EQ(j["warnings"], json::array());
    EXPECT_EQ(j["warnings_found"], 0);
    EXPECT_FALSE(j.contains("error"));
}

TEST_F(Cli, JsonOfAV11CompactFileWithoutMarkerListHasNullMarkers) {
    const model m = without_warnings(small_model(shape::v11_compact, false));
    const std::string f = write_file("compact.bin", m);
    const run_result r = run({"validate", "--json", f});
    EXPECT_EQ(r.status, 0);
    const json j = json::parse(r.out);
    EXPECT_EQ(j["valid"], true);
    EXPECT_EQ(j["version"], "1.1");
    EXPECT_EQ(j["layout"], "compact");
    EXPECT_EQ(j["has_camera"], true);
    EXPECT_EQ(j["has_hands"], true);
    EXPECT_EQ(j["has_gaze"], true);
    EXPECT_EQ(j["curves"], curve_id_count);
    EXPECT_EQ(j["keyframes"], keyframes_of(m));
    ASSERT_TRUE(j.contains("markers"));
    EXPECT_TRUE(j["markers"].is_null());
}

TEST_F(Cli, JsonOfAFileWithoutKeysHasNullStartAndDuration) {
    const std::string f = write_file("empty.bin", empty_model(shape::v11_compact));
    const run_result r = run({"info", "--json", f});
    EXPECT_EQ(r.status, 0);
    const json j = json::parse(r.out);
    EXPECT_EQ(j["valid"], true);
    EXPECT_EQ(j["bytes"], 4763) << "FORMAT.md section 8: all flags, every curve empty";
    EXPECT_EQ(j["keyframes"], 0);
    EXPECT_EQ(j["markers"], 0);
    ASSERT_TRUE(j.contains("start") && j.contains("duration"));
    EXPECT_TRUE(j["start"].is_null());
    EXPECT_TRUE(j["duration"].is_null());
}

TEST_F(Cli, JsonOfAFileWithOnlySomeBlocksSaysWhichItHas) {
    model m = empty_model(shape::v11_compact);
    m.blocks = block_flags{false, false, true};
    const std::string f = write_file("gaze.bin", m);
    const json j = json::parse(run({"info", "--json", f}).out);
    EXPECT_EQ(j["has_camera"], false);
    EXPECT_EQ(j["has_hands"], false);
    EXPECT_EQ(j["has_gaze"], true);
    EXPECT_EQ(j["curves"], ray_channel_count);
}

TEST_F(Cli, JsonOfAStructurallyInvalidFileNamesTheCurveButNoKeyframe) {
    const model m = small_model(shape::v11_compact);
    bytes b = write(m);
    const std::size_t wrap = curve_offset(m, hand_state_first);
    put_i32(b, wrap, 3);
    const std::string f = write_file("wrap.bin", b);
    const run_result r = run({"validate", "--format", "json", f});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "");
    const json j = json::parse(r.out);
    EXPECT_EQ(j["valid"], false);
    EXPECT_EQ(j["version"], "1.1");
    EXPECT_EQ(j["curves"], hand_state_first) << "the curves read before the error";
    ASSERT_TRUE(j.contains("error"));
    const json& e = j["error"];
    EXPECT_EQ(e["code"], "bad_wrap_mode");
    EXPECT_EQ(e["offset"], wrap);
    EXPECT_EQ(e["place"], "curve");
    EXPECT_EQ(e["curve"], "hand.left.tracked");
    EXPECT_TRUE(e["keyframe"].is_null());
    EXPECT_TRUE(e["marker"].is_null());
    EXPECT_TRUE(e["limit"].is_null());
    EXPECT_NE(e["message"].get<std::string>().find("wrap mode"), std::string::npos);
}

TEST_F(Cli, JsonOfAContentErrorNamesTheKeyframe) {
    const model m = unsorted_model();
    const std::string f = write_file("unsorted.bin", m);
    const run_result r = run({"validate", "--json", f});
    EXPECT_EQ(r.status, 1);
    const json j = json::parse(r.out);
    EXPECT_EQ(j["valid"], false);
    const json& e = j["error"];
    EXPECT_EQ(e["code"], "unsorted_keys");
    EXPECT_EQ(e["offset"], unsorted_offset(m));
    EXPECT_EQ(e["curve"], "camera.position.x");
    EXPECT_EQ(e["keyframe"], 2);
    EXPECT_EQ(e["message"], (error{errc::unsorted_keys, unsorted_offset(m), error_place::curve,
                                   camera_curve(pose_channel::position_x), 2}
                                 .message()));
}

TEST_F(Cli, JsonOfAFileWhoseHeaderCannotBeReadHasNullVersionAndBlocks) {
    bytes b = small_file(shape::v10);
    b[0] = std::byte{0};
    const std::string f = write_file("magic.bin", b);
    const json j = json::parse(run({"info", "--json", f}).out);
    EXPECT_EQ(j["valid"], false);
    EXPECT_EQ(j["bytes"], b.size());
    for (const char* field : {"version", "layout", "has_camera", "has_hands", "has_gaze", "markers",
                              "start", "duration"}) {
        ASSERT_TRUE(j.contains(field)) << field;
        EXPECT_TRUE(j[field].is_null()) << field;
    }
    EXPECT_EQ(j["curves"], 0);
    EXPECT_EQ(j["error"]["code"], "bad_magic");
    EXPECT_EQ(j["error"]["offset"], 0);
    EXPECT_EQ(j["error"]["place"], "header");
    EXPECT_TRUE(j["error"]["curve"].is_null());
    EXPECT_TRUE(j["error"]["keyframe"].is_null());
}

TEST_F(Cli, JsonListsWarningsWithCodeCurveAndMessage) {
    model m = without_warnings(small_model(shape::v11_compact));
    m[camera_curve(pose_channel::position_x)].keys[0].time = -0.5f;
    m[joint_curve(side::left, joint::wrist, pose_channel::rotation_w)].keys.resize(1);
    const std::string f = write_file("warnings.bin", m);
    const run_result r = run({"validate", "--json", f});
    EXPECT_EQ(r.status, 0) << "warnings never make a file invalid";
    const json j = json::parse(r.out);
    EXPECT_EQ(j["valid"], true);
    EXPECT_EQ(j["start"], -0.5);
    ASSERT_EQ(j["warnings"].size(), 2u) << j.dump();
    EXPECT_EQ(j["warnings_found"], 2);
    const json& negative = j["warnings"][0];
    EXPECT_EQ(negative["code"], "negative_time");
    EXPECT_EQ(negative["curve"], "camera.position.x");
    EXPECT_EQ(negative["keyframe"], 0);
    EXPECT_EQ(negative["message"], negative_time_message(-0.5f));
    const json& dropped = j["warnings"][1];
    EXPECT_EQ(dropped["code"], "dropped_rotation_w");
    EXPECT_EQ(dropped["curve"], "hand.left.joint.Wrist.rotation.w");
    EXPECT_NE(dropped["message"].get<std::string>().find("9831"), std::string::npos);
}

TEST_F(Cli, EachFileIsOneJsonLineInCommandLineOrder) {
    const std::string a = write_file("a.bin", small_file(shape::v10));
    const std::string b = write_file("b.bin", unsorted_model());
    const std::string c = write_file("c.bin", small_file(shape::v11_full));
    const std::vector<json> objects = json_lines(run({"validate", "--json", a, b, c}).out);
    ASSERT_EQ(objects.size(), 3u);
    EXPECT_EQ(objects[0]["path"], a);
    EXPECT_EQ(objects[1]["path"], b);
    EXPECT_EQ(objects[2]["path"], c);
    EXPECT_EQ(objects[1]["valid"], false);
}

TEST_F(Cli, InfoJsonIsTheSameObjectAsValidateJsonAtLevelStructure) {
    const std::string f = write_file("unsorted.bin", unsorted_model());
    const run_result info = run({"info", "--json", f});
    const run_result validate = run({"validate", "--json", "--level", "structure", f});
    EXPECT_EQ(info.status, 0);
    EXPECT_EQ(validate.status, 0);
    EXPECT_EQ(json::parse(info.out), json::parse(validate.out));
}

// --- levels, layouts and limits ----------------------------------------------------------------

TEST_F(Cli, LevelStructureSkipsKeyframeContentThatLevelFullRejects) {
    const std::string f = write_file("unsorted.bin", unsorted_model());
    EXPECT_EQ(run({"validate", "--level", "structure", f}).status, 0);
    EXPECT_EQ(run({"validate", "--level", "full", f}).status, 1);
    EXPECT_EQ(run({"validate", f}).status, 1) << "validate defaults to level full";
    EXPECT_EQ(run({"info", f}).status, 0) << "info defaults to level structure";
    EXPECT_EQ(run({"info", "--level", "full", f}).status, 1);
}

TEST_F(Cli, NonUnitQuaternionsAreReportedOnlyAtLevelFull) {
    // small_model's left wrist rotation has length 0.2 at each of its 4 keys.
    const std::string f = write_file("wrist.bin", small_file(shape::v11_compact));
    const json full = json::parse(run({"validate", "--json", f}).out);
    ASSERT_EQ(full["warnings"].size(), 1u) << full.dump();
    EXPECT_EQ(full["warnings"][0]["code"], "non_unit_quaternion");
    EXPECT_EQ(full["warnings"][0]["curve"], "hand.left.joint.Wrist.rotation.w");
    EXPECT_EQ(full["warnings"][0]["count"], 4);
    const json structure = json::parse(run({"validate", "--json", "--level", "structure", f}).out);
    EXPECT_EQ(structure["warnings"], json::array());
}

TEST_F(Cli, LayoutOptionForcesTheV11KeyframeLayout) {
    const std::string full = write_file("full.bin", small_file(shape::v11_full));
    EXPECT_EQ(json::parse(run({"validate", "--json", full}).out)["layout"], "full");
    const json forced = json::parse(run({"validate", "--json", "--layout", "full", full}).out);
    EXPECT_EQ(forced["valid"], true);
    EXPECT_EQ(forced["layout"], "full");
    const run_result wrong = run({"validate", "--json", "--layout", "compact", full});
    EXPECT_EQ(wrong.status, 1);
    EXPECT_EQ(json::parse(wrong.out)["valid"], false);

    const std::string compact = write_file("compact.bin", small_file(shape::v11_compact));
    EXPECT_EQ(run({"validate", "--layout", "full", compact}).status, 1);
    EXPECT_EQ(run({"validate", "--layout", "compact", compact}).status, 0);
}

TEST_F(Cli, LayoutOptionDoesNotApplyToV10Files) {
    const std::string f = write_file("v10.bin", small_file(shape::v10));
    const json j = json::parse(run({"info", "--json", "--layout", "compact", f}).out);
    EXPECT_EQ(j["valid"], true);
    EXPECT_EQ(j["layout"], "full");
}

TEST_F(Cli, MaxKeyframesPerCurveMakesALongerCurveLimitExceeded) {
    const model m = small_model(shape::v11_compact);
    const std::string f = write_file("keys.bin", m);
    const run_result r = run({"validate", "--json", "--max-keyframes-per-curve", "3", f});
    EXPECT_EQ(r.status, 1);
    const json e = json::parse(r.out)["error"];
    EXPECT_EQ(e["code"], "limit_exceeded");
    EXPECT_EQ(e["limit"], "max_keyframes_per_curve");
    EXPECT_EQ(e["offset"], curve_offset(m, 0) + 8) << "at the count";
    EXPECT_EQ(e["curve"], "camera.position.x");
    EXPECT_EQ(run({"validate", "--max-keyframes-per-curve", "4", f}).status, 0);
}

TEST_F(Cli, JobsSplitALargeFilesKeyframeChecksWithoutChangingTheReport) {
    // 70 s of every sample in full keyframes: about 37 MB, more than twice the 16 MiB a thread
    // must have to check. A NaN three quarters in, and a negative time, so that the report has
    // an error found late and a warning.
    const std::string f = path("big.bin");
    ASSERT_EQ(run({"gen", "--raw", "--seconds", "70", "--layout", "full", "-o", f}).status, 0);
    const std::string text = slurp(f);
    bytes b(text.size());
    std::memcpy(b.data(), text.data(), text.size());
    ASSERT_GT(b.size(), std::size_t{32} << 20);
    put_f32(b, b.size() / 4 * 3, std::nanf(""));
    write_file("big.bin", b);
    const run_result one = run({"validate", "--json", "--jobs", "1", f});
    EXPECT_EQ(one.status, 1);
    for (const char* jobs : {"2", "3"}) {
        const run_result more = run({"validate", "--json", "--jobs", jobs, f});
        EXPECT_EQ(more.status, 1);
        EXPECT_EQ(more.out, one.out) << jobs << " jobs";
    }
    EXPECT_EQ(run({"validate", "--jobs", "0", f}).status, 2);
    const run_result over = run({"validate", "--jobs", "257", f});
    EXPECT_EQ(over.status, 2);
    EXPECT_NE(over.err.find("256"), std::string::npos) << "names the ceiling: " << over.err;
    // A thread the system refuses leaves its parts to the threads that did start: the same
    // report, not an abort.
    bool ran = false;
    const run_result limited =
        run_with_thread_limit({"validate", "--json", "--jobs", "3", f}, 1, 54333, ran);
    if (ran) {
        EXPECT_EQ(limited.status, 1) << limited.err;
        EXPECT_EQ(limited.out, one.out);
    }
}

TEST_F(Cli, EveryLimitFlagReachesTheLibrary) {
    const model m = small_model(shape::v11_compact);
    const bytes b = write(m);
    const std::string f = write_file("limits.bin", b);
    struct limit_case {
        const char* flag;
        std::string value;
        const char* limit;
    };
    // The markers are "start" (5 bytes) and "grüß" (6 bytes).
    const limit_case cases[] = {
        {"--max-bytes", std::to_string(b.size() - 1), "max_bytes"},
        {"--max-total-keyframes", std::to_string(keyframes_of(m) - 1), "max_total_keyframes"},
        {"--max-markers", "1", "max_markers"},
        {"--max-marker-name-bytes", "5", "max_marker_name_bytes"},
    };
    for (const limit_case& c : cases) {
        const run_result r = run({"validate", "--json", c.flag, c.value, f});
        EXPECT_EQ(r.status, 1) << c.flag;
        const json j = json::parse(r.out);
        EXPECT_EQ(j["error"]["code"], "limit_exceeded") << c.flag;
        EXPECT_EQ(j["error"]["limit"], c.limit) << c.flag;
    }
    const run_result at_limits = run({"validate", "--max-bytes", std::to_string(b.size()),
                                      "--max-total-keyframes", std::to_string(keyframes_of(m)),
                                      "--max-markers", "2", "--max-marker-name-bytes", "6", f});
    EXPECT_EQ(at_limits.status, 0) << at_limits.out;
}

TEST_F(Cli, UploadLimitsApplyTheRecommendedCeilingsAndGivenFlagsWin) {
    model m = small_model(shape::v11_compact);
    (*m.markers)[0].name = std::string(1025, 'x');
    const std::string f = write_file("long-marker.bin", m);
    const run_result preset = run({"validate", "--json", "--upload-limits", f});
    EXPECT_EQ(preset.status, 1);
    EXPECT_EQ(json::parse(preset.out)["error"]["limit"], "max_marker_name_bytes");
    // Whichever side of --upload-limits a --max-* flag stands, it overrides that one limit.
    for (const auto& args : {std::vector<std::string>{"validate", "--upload-limits",
                                                      "--max-marker-name-bytes", "2000", f},
                             std::vector<std::string>{"validate", "--max-marker-name-bytes", "2000",
                                                      "--upload-limits", f}}) {
        EXPECT_EQ(run(args).status, 0);
    }
    EXPECT_EQ(run({"validate", "--upload-limits", write_file("plain.bin", small_model(shape::v10))})
                  .status,
              0);
}

// --- human output -------------------------------------------------------------------------------

TEST_F(Cli, ValidateTextNamesCodeOffsetCurveAndKeyframe) {
    const model m = unsorted_model();
    const std::string f = write_file("unsorted.bin", m);
    const run_result r = run({"validate", f});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, f + ": invalid: unsorted_keys at byte " + std::to_string(unsorted_offset(m)) +
                         ", curve camera.position.x keyframe 2: key time is not greater than "
                         "the previous key's\n");
}

TEST_F(Cli, ValidateTextIndentsWarningsBelowTheFileLine) {
    model m = without_warnings(small_model(shape::v11_compact));
    m[camera_curve(pose_channel::position_x)].keys[0].time = -0.5f;
    const std::string f = write_file("negative.bin", m);
    const std::vector<std::string> lines = lines_of(run({"validate", f}).out);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], f + ": valid");
    EXPECT_EQ(lines[1],
              "  warning: negative_time, curve camera.position.x: " + negative_time_message(-0.5f));
}

TEST_F(Cli, ValidateTextOfAMarkerListLimitNamesTheMarkerList) {
    const model m = small_model(shape::v10);
    const std::string f = write_file("markers.bin", m);
    const run_result r = run({"validate", "--max-markers", "1", f});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, f + ": invalid: limit_exceeded at byte " +
                         std::to_string(marker_list_offset(m)) +
                         ", marker list: a configured limit was passed (max_markers)\n");
}

TEST_F(Cli, InfoTextShowsTheKeyFacts) {
    const model m = small_model(shape::v11_compact);
    const bytes b = write(m);
    const std::string f = write_file("facts.bin", b);
    const run_result r = run({"info", f});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "");
    const std::string expected = f + ": valid (level structure)\n" +
                                 "  version    1.1\n"
                                 "  layout     compact\n"
                                 "  blocks     camera, hands, gaze\n"
                                 "  curves     395\n"
                                 "  keyframes  " +
                                 std::to_string(keyframes_of(m)) + "\n" +
                                 "  markers    2\n"
                                 "  start      0 s\n"
                                 "  duration   0.75 s\n"
                                 "  size       " +
                                 std::to_string(b.size()) + " bytes\n" + "  warnings   0\n";
    EXPECT_EQ(r.out, expected);
}

TEST_F(Cli, InfoTextSaysWhatAFileLacks) {
    const std::string f = write_file("bare.bin", empty_model(shape::v11_compact, false));
    const std::string out = run({"info", f}).out;
    EXPECT_NE(out.find("  markers    none (no marker list)\n"), std::string::npos) << out;
    EXPECT_NE(out.find("  start      - (no keyframes)\n"), std::string::npos) << out;
}

TEST_F(Cli, InfoTextOfAnInvalidFileEndsWithTheError) {
    const model m = unsorted_model();
    const std::string f = write_file("unsorted.bin", m);
    const run_result r = run({"info", "--level", "full", f});
    EXPECT_EQ(r.status, 1);
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.front(), f + ": invalid (level full)");
    EXPECT_EQ(lines.back(), "  error      unsorted_keys at byte " +
                                std::to_string(unsorted_offset(m)) +
                                ", curve camera.position.x keyframe 2: key time is not greater "
                                "than the previous key's");
}

TEST_F(Cli, InfoTextOfAFileWhoseHeaderCannotBeReadSaysSo) {
    bytes b = small_file(shape::v10);
    b[0] = std::byte{0};
    const std::string f = write_file("magic.bin", b);
    const run_result r = run({"info", f});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("  version    unknown (header not read)\n"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("  layout"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  error      bad_magic at byte 0, header: "), std::string::npos) << r.out;
}

TEST_F(Cli, InfoTextListsWarningsAtLevelFull) {
    const std::string f = write_file("wrist.bin", small_file(shape::v11_compact));
    const std::string out = run({"info", "--level", "full", f}).out;
    EXPECT_NE(out.find("  warnings   1\n    non_unit_quaternion, curve "
                       "hand.left.joint.Wrist.rotation.w: "),
              std::string::npos)
        << out;
}

TEST_F(Cli, InfoSeparatesFilesWithABlankLine) {
    const std::string a = write_file("a.bin", small_file(shape::v10));
    const std::string b = write_file("b.bin", small_file(shape::v11_full));
    const std::string out = run({"info", a, b}).out;
    EXPECT_NE(out.find(" bytes\n  warnings   0\n\n" + b + ": valid (level structure)\n"),
              std::string::npos)
        << out;
}

TEST_F(Cli, RealJuneRecordingIsValidAndMatchesItsReadme) {
    const std::optional<bytes> rec = june_recording("InputAnimation-20190607-120309.bin");
    if (!rec) GTEST_SKIP() << "recordings not available";
    const std::string f = write_file("june.bin", *rec);
    const run_result r = run({"validate", "--json", f});
    EXPECT_EQ(r.status, 0);
    const json j = json::parse(r.out);
    EXPECT_EQ(j["version"], "1.0");
    EXPECT_EQ(j["keyframes"], 45467);
    EXPECT_EQ(j["markers"], 0);
    EXPECT_EQ(j["start"].get<float>(), 41.246346f);
    EXPECT_EQ(j["duration"].get<float>(), 62.369381f);
}

}  // namespace

// --- a failed write of stdout ------------------------------------------------------------------

TEST_F(Cli, ValidateAndInfoReportAFailedWriteOfStdoutAndExitThree) {
    const std::string f = write_file("ok.bin", without_warnings(small_model(shape::v11_compact)));
    expect_failed_stdout_is_reported({"validate", f});
    expect_failed_stdout_is_reported({"validate", "--json", f});
    expect_failed_stdout_is_reported({"info", f});
    expect_failed_stdout_is_reported({"info", "--json", f});
}

TEST_F(Cli, AFailedWriteOfStdoutWinsOverAnInvalidFile) {
    const std::string f = write_file("unsorted.bin", unsorted_model());
    EXPECT_EQ(run({"validate", f}).status, 1);
    expect_failed_stdout_is_reported({"validate", f});
}

// --- names in human-readable text -------------------------------------------------------------

TEST_F(Cli, AFileNameCannotForgeALineOfValidatesOutput) {
    const std::string f =
        write_file("x.bin\nfake.bin: valid", without_warnings(small_model(shape::v11_compact)));
    const run_result r = run({"validate", f, path("missing\n.bin")});
    EXPECT_EQ(r.status, 3);
    ASSERT_EQ(lines_of(r.out).size(), 1u) << r.out;
    EXPECT_EQ(r.out, path("x.bin") + "\\nfake.bin: valid: valid\n");
    ASSERT_EQ(lines_of(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("missing\\n.bin: "), std::string::npos) << r.err;
    const run_result info = run({"info", f});
    EXPECT_EQ(info.out.substr(0, info.out.find('\n')),
              path("x.bin") + "\\nfake.bin: valid: valid (level structure)");
}

TEST_F(Cli, ControlCharactersAndBytesThatAreNotUtf8AreEscapedCStyle) {
    const bytes b = write(without_warnings(small_model(shape::v11_compact)));
    struct escape_case {
        std::string name;
        std::string shown;
    };
    // Line breaks and tabs by letter; other C0 controls, DEL, C1 controls (U+0080 to U+009F,
    // byte by byte) and bytes that are not UTF-8 as \xNN; a backslash doubled; valid UTF-8 kept.
    const std::vector<escape_case> cases = {
        {"tab\tcr\r", "tab\\tcr\\r"},
        {"esc\x1b[2Jbell\x07", "esc\\x1B[2Jbell\\x07"},
        {"del\x7f", "del\\x7F"},
        {"csi\xc2\x9b"
         "31m",
         "csi\\xC2\\x9B31m"},
        {"latin1 \xe9t\xe9", "latin1 \\xE9t\\xE9"},
        {"cut \xe2\x82", "cut \\xE2\\x82"},
        {"overlong \xc0\xaf", "overlong \\xC0\\xAF"},
        {"back\\slash", "back\\\\slash"},
        {"caf\xc3\xa9 \xe3\x83\x9e \xf0\x9f\x8e\xaf", "caf\xc3\xa9 \xe3\x83\x9e \xf0\x9f\x8e\xaf"},
    };
    for (const escape_case& c : cases) {
        const std::string f = write_file(c.name + ".bin", b);
        const run_result r = run({"validate", f});
        EXPECT_EQ(r.status, 0) << c.shown;
        EXPECT_EQ(r.out, path(c.shown + ".bin") + ": valid\n");
    }
}
