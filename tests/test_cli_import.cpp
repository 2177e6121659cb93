// `inputanim import`, run as a user runs it, with the CSV of `sample` (each importer's own round
// trips through the command are in test_cli_import_<format>.cpp): the format from IN's extension
// or --format, the version and layout asked for, the output written through the one output
// primitive, and nothing written for what is refused.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

class ImportCli : public cli_fixture {
  protected:
    // `inputanim gen` with `args`, into NAME.
    void generate(const std::string& name, std::vector<std::string> args) const {
        args.insert(args.begin(), {"gen", "-o", path(name), "--seconds", "1.5"});
        const run_result r = run(args);
        ASSERT_EQ(r.status, 0) << r.err;
    }
    // `inputanim sample FILE --rate 60 ARGS...`, its output.
    std::string sample(const std::string& name, std::vector<std::string> args = {}) const {
        args.insert(args.begin(), {"sample", path(name), "--rate", "60"});
        const run_result r = run(args);
        EXPECT_EQ(r.status, 0) << r.err;
        return r.out;
    }
};

}  // namespace

TEST_F(ImportCli, SampleThenImportThenSampleGivesTheSameNumbers) {
    const std::vector<std::vector<std::string>> recordings = {{"--version", "1.0"},
                                                              {},
                                                              {"--layout", "full"},
                                                              {"--no-gaze", "--markers", "3"},
                                                              {"--no-camera", "--no-hands"}};
    for (const std::vector<std::string>& how : recordings) {
        generate("in.bin", how);
        const std::string table = sample("in.bin");
        write_text("in.csv", table);
        const run_result r = run({"import", path("in.csv"), path("out.bin")});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(sample("out.bin"), table) << ::testing::PrintToString(how);
        // The motion, tracking and pinches are unchanged (the CSV holds no markers).
        const run_result d = run({"diff", path("in.bin"), path("out.bin"), "--json"});
        ASSERT_NE(d.status, 2) << d.err;
        const nlohmann::json j = nlohmann::json::parse(d.out);
        for (const nlohmann::json& pose : j["motion"]) {
            EXPECT_EQ(pose["max"], 0.0) << pose["name"] << ::testing::PrintToString(how);
        }
        EXPECT_EQ(j["state"]["count"], 0);
    }
}

TEST_F(ImportCli, ASampledSubsetComesBackAsThoseCurvesAlone) {
    generate("in.bin", {});
    const std::string table = sample("in.bin", {"--curve", "hand.right.joint.IndexTip.**"});
    write_text("tip.csv", table);
    ASSERT_EQ(run({"import", path("tip.csv"), path("tip.bin")}).status, 0);
    EXPECT_EQ(sample("tip.bin", {"--curve", "hand.right.joint.IndexTip.**"}), table);
    const run_result info = run({"info", "--json", path("tip.bin")});
    EXPECT_NE(info.out.find("\"has_camera\":false"), std::string::npos) << info.out;
    EXPECT_NE(info.out.find("\"has_hands\":true"), std::string::npos) << info.out;
}

TEST_F(ImportCli, TheVersionAndLayoutAreThoseAsked) {
    generate("in.bin", {});
    write_text("in.csv", sample("in.bin"));
    run_result r = run({"import", path("in.csv"), path("v10.bin"), "--version", "1.0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("warning: version 1.0 has no eye gaze"), std::string::npos) << r.err;
    EXPECT_NE(run({"info", path("v10.bin")}).out.find("version    1.0"), std::string::npos);
    ASSERT_EQ(run({"import", path("in.csv"), path("full.bin"), "--layout", "full"}).status, 0);
    EXPECT_NE(run({"info", path("full.bin")}).out.find("layout     full"), std::string::npos);
    r = run({"import", path("in.csv"), path("x.bin"), "--version", "1.0", "--layout", "compact"});
    EXPECT_EQ(r.status, 2);
    EXPECT_FALSE(std::filesystem::exists(path("x.bin")));
}

TEST_F(ImportCli, ThinKeepsFewerKeysAsConvertThinDoes) {
    generate("in.bin", {"--raw"});
    write_text("in.csv", sample("in.bin"));
    ASSERT_EQ(run({"import", path("in.csv"), path("all.bin")}).status, 0);
    ASSERT_EQ(run({"import", path("in.csv"), path("thin.bin"), "--thin"}).status, 0);
    ASSERT_EQ(run({"convert", path("all.bin"), path("converted.bin"), "--thin"}).status, 0);
    EXPECT_LT(std::filesystem::file_size(path("thin.bin")),
              std::filesystem::file_size(path("all.bin")));
    EXPECT_EQ(read_text("thin.bin"), read_text("converted.bin"));
    // The thinned import plays the recording within MRTK's tolerances.
    const run_result d =
        run({"diff", path("in.bin"), path("thin.bin"), "--position", "0.001", "--angle", "0.02"});
    EXPECT_EQ(d.status, 0) << d.out << d.err;
}

TEST_F(ImportCli, StandardInAndOutNeedTheFormatSaid) {
    generate("in.bin", {});
    write_text("in.csv", sample("in.bin"));
    ASSERT_EQ(run({"import", path("in.csv"), path("a.bin")}).status, 0);
    run_result r = run({"import", "-", path("b.bin")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("give --format anim, gltf, glb or csv"), std::string::npos) << r.err;
    const std::string line = "'" + std::string(INPUTANIM_CLI) + "' import - - --format csv < '" +
                             path("in.csv") + "' > '" + path("b.bin") + "'";
    r = run_process({"/bin/sh", "-c", line}, {path("")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_text("b.bin"), read_text("a.bin"));
}

TEST_F(ImportCli, AGzipInputIsInflated) {
    generate("in.bin", {});
    write_text("in.csv", sample("in.bin"));
    ASSERT_EQ(run({"import", path("in.csv"), path("a.bin")}).status, 0);
    ASSERT_EQ(run_process({"/bin/gzip", "-k", path("in.csv")}, {path("")}).status, 0);
    const run_result r = run({"import", path("in.csv.gz"), path("b.bin"), "--format", "csv"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_text("b.bin"), read_text("a.bin"));
}

TEST_F(ImportCli, AnInWithoutAKnownExtensionNeedsFormat) {
    write_text("in.txt", "t,camera.position.x\n0,1\n");
    const run_result r = run({"import", path("in.txt"), path("out.bin")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("cannot tell the format of"), std::string::npos) << r.err;
    EXPECT_EQ(run({"import", path("in.txt"), path("out.bin"), "--format", "csv"}).status, 0);
}

TEST_F(ImportCli, ARefusedImportSaysWhereAndLeavesOutAsItWas) {
    write_text("bad.csv", "t,camera.position.x\n0,1\n1,one\n");
    write_text("out.bin", "before");
    const run_result r = run({"import", path("bad.csv"), path("out.bin")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("cannot import: a CSV field is not a number: line 3: 'one' in column "
                         "camera.position.x is not a number"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(read_text("out.bin"), "before");
}

TEST_F(ImportCli, TheCeilingsAreTheLimitFlags) {
    write_text("in.csv", "t,camera.position.x\n0,1\n1,2\n2,3\n");
    run_result r = run({"import", path("in.csv"), path("out.bin"), "--max-bytes", "10"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("limit_exceeded"), std::string::npos) << r.err;
    r = run({"import", path("in.csv"), path("out.bin"), "--max-keyframes-per-curve", "2"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("more than --max-keyframes-per-curve 2"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("out.bin")));
}

TEST_F(ImportCli, TheOutputIsNeverTheInput) {
    write_text("in.csv", "t,camera.position.x\n0,1\n");
    const run_result r = run({"import", path("in.csv"), path("in.csv"), "--format", "csv"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("it is the input file itself"), std::string::npos) << r.err;
    EXPECT_EQ(read_text("in.csv"), "t,camera.position.x\n0,1\n");
}

TEST_F(ImportCli, AFailedOutputIsExitThree) {
    write_text("in.csv", "t,camera.position.x\n0,1\n");
    const run_result r = run({"import", path("in.csv"), "/dev/full"});
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
}
