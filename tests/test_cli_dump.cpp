// `inputanim dump`, run as a user runs it: the JSON document and the CSV tables field by field
// against the model that was written, curve selection by glob, number formatting and the exit
// statuses.
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

block_flags blocks_of(const model& m) {
    return m.minor == 0 ? block_flags{true, true, false} : m.blocks;
}

bool has_full_keys(const model& m, curve_id id) {
    return kind_of(id) == curve_kind::float_curve && (m.minor == 0 || m.layout == layout::full);
}

// Checks the document's curves (those in `ids`, in that order) and markers against the model.
void expect_document(const json& doc, const model& m, const std::vector<curve_id>& ids) {
    ASSERT_EQ(doc["curves"].size(), ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const curve_id id = ids[i];
        const curve& expected = m[id];
        const json& c = doc["curves"][i];
        SCOPED_TRACE(curve_path(id));
        EXPECT_EQ(c.size(), 5u) << c.dump();
        EXPECT_EQ(c["path"], curve_path(id));
        EXPECT_EQ(c["kind"], kind_of(id) == curve_kind::bool_curve ? "bool" : "float");
        EXPECT_EQ(c["pre_wrap"], expected.pre_wrap);
        EXPECT_EQ(c["post_wrap"], expected.post_wrap);
        ASSERT_EQ(c["keys"].size(), expected.keys.size());
        for (std::size_t k = 0; k < expected.keys.size(); ++k) {
            const json& key = c["keys"][k];
            const keyframe& e = expected.keys[k];
            EXPECT_EQ(key["time"].get<float>(), e.time);
            EXPECT_EQ(key["value"].get<float>(), e.value);
            if (has_full_keys(m, id)) {
                EXPECT_EQ(key.size(), 7u) << key.dump();
                EXPECT_EQ(key["in_tangent"].get<float>(), e.in_tangent);
                EXPECT_EQ(key["out_tangent"].get<float>(), e.out_tangent);
                EXPECT_EQ(key["in_weight"].get<float>(), e.in_weight);
                EXPECT_EQ(key["out_weight"].get<float>(), e.out_weight);
                EXPECT_EQ(key["weighted_mode"], e.weighted_mode);
            } else {
                EXPECT_EQ(key.size(), 2u) << "no tangents in compact and bool keys: " << key.dump();
            }
        }
    }
    const std::vector<marker> markers = m.markers.value_or(std::vector<marker>{});
    ASSERT_EQ(doc["markers"].size(), markers.size());
    for (std::size_t i = 0; i < markers.size(); ++i) {
        EXPECT_EQ(doc["markers"][i].size(), 2u);
        EXPECT_EQ(doc["markers"][i]["time"].get<float>(), markers[i].time);
        EXPECT_EQ(doc["markers"][i]["name"], markers[i].name);
    }
}

std::vector<curve_id> all_curves(const model& m) {
    std::vector<curve_id> ids;
    for (std::size_t i = 0; i < curve_count(blocks_of(m)); ++i) {
        ids.push_back(curve_at(blocks_of(m), i));
    }
    return ids;
}

std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, ',')) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    return fields;
}

class DumpCli : public cli_fixture {
  protected:
    json dump_json(const std::vector<std::string>& args) const {
        std::vector<std::string> all = {"dump"};
        all.insert(all.end(), args.begin(), args.end());
        const run_result r = run(all);
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        return json::parse(r.out);
    }
};

// --- JSON ---------------------------------------------------------------------------------------

TEST_F(DumpCli, JsonOfACompactFileHoldsEveryCurveKeyAndMarker) {
    const model m = small_model(shape::v11_compact);
    const std::string f = write_file("compact.bin", m);
    const json doc = dump_json({f});
    EXPECT_EQ(doc.size(), 5u) << "path, version, layout, curves, markers";
    EXPECT_EQ(doc["path"], f);
    EXPECT_EQ(doc["version"], "1.1");
    EXPECT_EQ(doc["layout"], "compact");
    expect_document(doc, m, all_curves(m));
}

TEST_F(DumpCli, JsonOfAFullFileHasTangentsWeightsAndModes) {
    const model m = small_model(shape::v11_full);
    const json doc = dump_json({write_file("full.bin", m)});
    EXPECT_EQ(doc["version"], "1.1");
    EXPECT_EQ(doc["layout"], "full");
    expect_document(doc, m, all_curves(m));
}

TEST_F(DumpCli, JsonOfAV10FileHasItsCurvesInFileOrder) {
    const model m = small_model(shape::v10);
    const json doc = dump_json({write_file("v10.bin", m)});
    EXPECT_EQ(doc["version"], "1.0");
    EXPECT_EQ(doc["layout"], "full");
    EXPECT_EQ(doc["curves"].size(), v10_curve_count);
    expect_document(doc, m, all_curves(m));
}

TEST_F(DumpCli, JsonShowsWrapModesAsStored) {
    model m = small_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_y)].pre_wrap = 2;
    m[camera_curve(pose_channel::position_y)].post_wrap = 4;
    const json doc = dump_json({"--curve", "camera.position.y", write_file("wrap.bin", m)});
    ASSERT_EQ(doc["curves"].size(), 1u);
    EXPECT_EQ(doc["curves"][0]["pre_wrap"], 2);
    EXPECT_EQ(doc["curves"][0]["post_wrap"], 4);
}

TEST_F(DumpCli, AFileWithoutMarkerListHasNoMarkers) {
    const model m = small_model(shape::v11_compact, false);
    const std::string f = write_file("bare.bin", m);
    EXPECT_EQ(dump_json({f})["markers"], json::array());
    const run_result csv = run({"dump", "--format", "csv", "--markers", f});
    EXPECT_EQ(csv.status, 0);
    EXPECT_EQ(csv.out, "index,time,name\n");
}

TEST_F(DumpCli, FloatsArePrintedAsTheShortestTextOfTheFloat32) {
    model m = small_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_x)].keys[1].value = 0.1f;
    m[camera_curve(pose_channel::position_x)].keys[2].value = 1e-7f;
    const std::string f = write_file("short.bin", m);
    const run_result r = run({"dump", "--curve", "camera.position.x", f});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("{\"time\":0.25,\"value\":0.1}"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("{\"time\":0.5,\"value\":1e-07}"), std::string::npos) << r.out;
    const run_result csv = run({"dump", "--format", "csv", "--curve", "camera.position.x", f});
    EXPECT_NE(csv.out.find("\ncamera.position.x,1,0.25,0.1,,,,,\n"), std::string::npos) << csv.out;
}

TEST_F(DumpCli, NonFiniteNumbersAreNullInJsonAndNanOrInfInCsv) {
    // Content errors (level full) do not stop a dump: it shows what the file holds.
    model m = small_model(shape::v11_full);
    keyframe& k = m[camera_curve(pose_channel::position_x)].keys[1];
    k.value = std::numeric_limits<float>::quiet_NaN();
    k.in_tangent = std::numeric_limits<float>::infinity();
    k.out_tangent = -std::numeric_limits<float>::infinity();
    const std::string f = write_file("nan.bin", m);
    const json doc = dump_json({"--curve", "camera.position.x", f});
    const json& key = doc["curves"][0]["keys"][1];
    EXPECT_TRUE(key["value"].is_null());
    EXPECT_TRUE(key["in_tangent"].is_null());
    EXPECT_TRUE(key["out_tangent"].is_null());
    EXPECT_EQ(key["time"], 0.25);

    const run_result csv = run({"dump", "--format", "csv", "--curve", "camera.position.x", f});
    EXPECT_EQ(csv.status, 0);
    EXPECT_EQ(lines_of(csv.out).at(2), "camera.position.x,1,0.25,nan,inf,-inf,0.33333334,0.5,1");
}

TEST_F(DumpCli, MarkerNamesThatAreNotUtf8AreReplacedInJson) {
    model m = small_model(shape::v11_compact);
    m.markers = std::vector<marker>{{1.5f, "bad \xff byte"}};
    const json doc = dump_json({write_file("utf8.bin", m)});
    EXPECT_EQ(doc["markers"][0]["name"], "bad \xef\xbf\xbd byte");
}

// --- CSV ----------------------------------------------------------------------------------------

TEST_F(DumpCli, CsvHasOneRowPerKeyframeWithEmptyTangentsForCompactAndBoolKeys) {
    const model m = small_model(shape::v11_compact);
    const run_result r = run({"dump", "--format", "csv", write_file("compact.bin", m)});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "");
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0],
              "curve,index,time,value,in_tangent,out_tangent,in_weight,out_weight,weighted_mode");
    std::size_t keys = 0;
    for (const curve_id id : all_curves(m)) keys += m[id].keys.size();
    ASSERT_EQ(lines.size(), keys + 1);
    EXPECT_EQ(lines[1], "camera.position.x,0,0,0,,,,,");
    EXPECT_EQ(lines[4], "camera.position.x,3,0.75,3,,,,,");
    EXPECT_NE(r.out.find("\nhand.left.tracked,1,0.5,0,,,,,\n"), std::string::npos) << r.out;
    for (const std::string& line : lines) EXPECT_EQ(split_csv_line(line).size(), 9u) << line;
}

TEST_F(DumpCli, CsvOfFullKeysHasEveryField) {
    const model m = small_model(shape::v11_full);
    const run_result r = run({"dump", "--format", "csv", "--curve", "camera.position.y", "--curve",
                              "hand.left.tracked", write_file("full.bin", m)});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out,
              "curve,index,time,value,in_tangent,out_tangent,in_weight,out_weight,weighted_mode\n"
              "camera.position.y,0,0,1,0,-0.25,0.33333334,0.5,0\n"
              "camera.position.y,1,0.25,2,0.5,-0.25,0.33333334,0.5,1\n"
              "camera.position.y,2,0.5,3,1,-0.25,0.33333334,0.5,2\n"
              "camera.position.y,3,0.75,4,1.5,-0.25,0.33333334,0.5,3\n"
              "hand.left.tracked,0,0,1,,,,,\n"
              "hand.left.tracked,1,0.5,0,,,,,\n");
}

TEST_F(DumpCli, CsvMarkersAreTheirOwnTableWithQuotedNames) {
    model m = small_model(shape::v10);
    m.markers->push_back({2.0f, "take \"two\", left"});
    const run_result r = run({"dump", "--format", "csv", "--markers", write_file("m.bin", m)});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out,
              "index,time,name\n"
              "0,0.25,start\n"
              "1,0.5,gr\xc3\xbc\xc3\x9f\n"
              "2,2,\"take \"\"two\"\", left\"\n");
}

// --- selecting curves ---------------------------------------------------------------------------

TEST_F(DumpCli, GlobsSelectCurvesInFileOrder) {
    const model m = small_model(shape::v11_full);
    const std::string f = write_file("full.bin", m);
    const auto paths_of = [](const json& doc) {
        std::vector<std::string> paths;
        for (const json& c : doc["curves"]) paths.push_back(c["path"]);
        return paths;
    };
    EXPECT_EQ(
        paths_of(dump_json({"--curve", "camera.position.*", f})),
        (std::vector<std::string>{"camera.position.x", "camera.position.y", "camera.position.z"}));
    // Given in the other order, printed in file order; a curve matched twice is printed once.
    EXPECT_EQ(
        paths_of(dump_json({"--curve", "gaze.origin.?", "--curve", "hand.*.tracked", "--curve",
                            "hand.left.*", f})),
        (std::vector<std::string>{"hand.left.tracked", "hand.right.tracked", "hand.left.pinching",
                                  "gaze.origin.x", "gaze.origin.y", "gaze.origin.z"}));
    const json wrists = dump_json({"--curve", "**.Wrist.rotation.w", f});
    expect_document(wrists, m,
                    {joint_curve(side::left, joint::wrist, pose_channel::rotation_w),
                     joint_curve(side::right, joint::wrist, pose_channel::rotation_w)});
}

TEST_F(DumpCli, AGlobThatMatchesNoCurveIsAUsageError) {
    const std::string v10 = write_file("v10.bin", small_model(shape::v10));
    const run_result absent = run({"dump", "--curve", "camera.*.x", "--curve", "gaze.**", v10});
    EXPECT_EQ(absent.status, 2);
    EXPECT_EQ(absent.out, "");
    EXPECT_EQ(absent.err, "inputanim dump: --curve 'gaze.**' matches no curve of " + v10 + "\n");

    const run_result typo = run({"dump", "--curve", "camera.pos", v10});
    EXPECT_EQ(typo.status, 2);
    EXPECT_EQ(typo.err,
              "inputanim dump: --curve 'camera.pos' matches no curve path (such as "
              "camera.position.x)\n");
}

TEST_F(DumpCli, RealJuneRecordingDumpsEveryKeyOfACurve) {
    const std::optional<bytes> b = june_recording("InputAnimation-20190607-120309.bin");
    if (!b) GTEST_SKIP() << "recordings not available";
    recording rec;
    ASSERT_FALSE(rec.open(view(*b)));
    const curve_view* wrist = rec.joint(side::right, joint::wrist, pose_channel::position_x);
    ASSERT_NE(wrist, nullptr);
    const std::string f = write_file("june.bin", *b);
    const run_result r = run({"dump", "--format", "csv", "--curve", std::string(wrist->path()), f});
    EXPECT_EQ(r.status, 0);
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), wrist->size() + 1);
    const std::vector<std::string> last = split_csv_line(lines.back());
    ASSERT_EQ(last.size(), 9u);
    EXPECT_EQ(std::stof(last[2]), wrist->keys.back().time());
    EXPECT_EQ(std::stof(last[3]), wrist->keys.back().value());
    EXPECT_EQ(last[8], "3") << "MRTK writes weighted mode Both";
}

// --- exit statuses -------------------------------------------------------------------------------

TEST_F(DumpCli, AStructurallyInvalidFileExitsOneWithTheErrorOnStderr) {
    const model m = small_model(shape::v11_compact);
    bytes b = write(m);
    const std::size_t wrap = curve_offset(m, hand_state_first);
    put_i32(b, wrap, 3);
    const std::string f = write_file("wrap.bin", b);
    const run_result r = run({"dump", f});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "inputanim: " + f + ": invalid: bad_wrap_mode at byte " +
                         std::to_string(wrap) +
                         ", curve hand.left.tracked: wrap mode is not one of 0, 1, 2, 4, 8\n");

    const run_result empty = run({"dump", write_file("empty.bin", bytes{})});
    EXPECT_EQ(empty.status, 1);
    EXPECT_NE(empty.err.find(": invalid: truncated at byte 0"), std::string::npos) << empty.err;
}

TEST_F(DumpCli, TheLayoutOptionForcesTheKeyframeLayout) {
    const std::string f = write_file("compact.bin", small_model(shape::v11_compact));
    const run_result r = run({"dump", "--layout", "full", f});
    EXPECT_EQ(r.status, 1) << "compact keys read as full ones do not fit";
    EXPECT_EQ(dump_json({"--layout", "compact", f})["layout"], "compact");
}

TEST_F(DumpCli, AFileThatCannotBeReadExitsThree) {
    const std::string missing = path("missing.bin");
    const run_result r = run({"dump", missing});
    EXPECT_EQ(r.status, 3);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "inputanim: " + missing + ": No such file or directory\n");
    const run_result folder = run({"dump", scratch_.path().string()});
    EXPECT_EQ(folder.status, 3);
    EXPECT_EQ(folder.err, "inputanim: " + scratch_.path().string() + ": Is a directory\n");
}

TEST_F(DumpCli, BadOptionsAreUsageErrors) {
    const std::string f = write_file("f.bin", small_model(shape::v11_compact));
    const run_result markers_json = run({"dump", "--markers", f});
    EXPECT_EQ(markers_json.status, 2);
    EXPECT_EQ(markers_json.err,
              "inputanim dump: --markers needs --format csv (the JSON document always holds the "
              "markers)\n");
    const run_result markers_curve =
        run({"dump", "--format", "csv", "--markers", "--curve", "camera.**", f});
    EXPECT_EQ(markers_curve.status, 2);
    EXPECT_NE(markers_curve.err.find("--curve excludes --markers"), std::string::npos)
        << markers_curve.err;
    const run_result format = run({"dump", "--format", "xml", f});
    EXPECT_EQ(format.status, 2);
    EXPECT_NE(format.err.find("--format"), std::string::npos) << format.err;
    const run_result no_file = run({"dump"});
    EXPECT_EQ(no_file.status, 2);
    EXPECT_NE(no_file.err.find("FILE is required"), std::string::npos) << no_file.err;
    for (const run_result& r : {markers_json, markers_curve, format, no_file}) {
        EXPECT_EQ(r.out, "");
    }
}

}  // namespace

TEST_F(DumpCli, AFailedWriteOfStdoutExitsThree) {
    const std::string f = write_file("small.bin", small_model(shape::v11_full));
    expect_failed_stdout_is_reported({"dump", f});
    expect_failed_stdout_is_reported({"dump", f, "--format", "csv"});
    expect_failed_stdout_is_reported({"dump", f, "--format", "csv", "--markers"});
}
