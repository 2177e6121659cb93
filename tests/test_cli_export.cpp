// `inputanim export`, run as a user runs it: the format from OUT's extension or --to, the output
// written through the one output primitive, and the exit statuses of what is refused.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

using ExportCli = cli_fixture;

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_F(ExportCli, TheFormatFollowsTheExtension) {
    const std::string f = write_file("in.bin", small_model(shape::v11_compact));
    for (const auto& [name, start] :
         {std::pair{"out.glb", std::string("glTF")}, std::pair{"out.gltf", std::string("{")},
          std::pair{"out.anim", std::string("%YAML 1.1\n")}}) {
        const run_result r = run({"export", f, path(name)});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(read_text(path(name)).substr(0, start.size()), start) << name;
    }
}

TEST_F(ExportCli, ToNamesTheFormatWhateverTheExtension) {
    const std::string f = write_file("in.bin", small_model(shape::v11_compact));
    ASSERT_EQ(run({"export", f, path("out.bin"), "--to", "gltf"}).status, 0);
    const json gl = json::parse(read_text(path("out.bin")));
    EXPECT_EQ(gl["asset"]["version"], "2.0");
    EXPECT_EQ(gl["animations"][0]["name"], "recording");
    EXPECT_EQ(gl["nodes"][0]["name"], "recording");
}

TEST_F(ExportCli, StandardInputAndStandardOutputGiveTheFileExport) {
    const std::string f = write_file("in.bin", small_model(shape::v11_full));
    ASSERT_EQ(run({"export", f, path("a.glb")}).status, 0);
    const std::string line = "'" + std::string(INPUTANIM_CLI) + "' export - - --to glb < '" + f +
                             "' > '" + path("b.glb") + "'";
    const run_result r = run_process({"/bin/sh", "-c", line}, {path("")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_text(path("b.glb")), read_text(path("a.glb")));
}

TEST_F(ExportCli, AnOutWithoutAKnownExtensionNeedsTo) {
    const std::string f = write_file("in.bin", small_model(shape::v11_compact));
    const run_result r = run({"export", f, path("out.obj")});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("give --to glb, gltf or anim"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("out.obj")));
}

TEST_F(ExportCli, AnExportOverTheCeilingIsAUsageErrorAndWritesNothing) {
    const std::string f = write_file("in.bin", small_model(shape::v11_compact));
    const run_result r = run({"export", f, path("out.glb"), "--max-output-bytes", "100"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("more than --max-output-bytes 100"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("out.glb")));
}

TEST_F(ExportCli, AWindowIsForGltfOnly) {
    const std::string f = write_file("in.bin", small_model(shape::v11_compact));
    const run_result r = run({"export", f, path("out.anim"), "--from", "0.1"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("apply to glTF only"), std::string::npos) << r.err;
    EXPECT_EQ(run({"export", f, path("out.glb"), "--from", "1e6"}).status, 2);
    EXPECT_EQ(run({"export", f, path("out.glb"), "--from", "0.5", "--to-time", "0.2"}).status, 2);
    EXPECT_FALSE(std::filesystem::exists(path("out.glb")));
}

TEST_F(ExportCli, AnInvalidRecordingIsRefusedUnlessLevelStructure) {
    const std::string f = write_file("bad.bin", unsorted_model());
    const run_result r = run({"export", f, path("out.glb")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("--level structure exports it anyway"), std::string::npos) << r.err;
    EXPECT_EQ(run({"export", f, path("out.glb"), "--level", "structure"}).status, 0);
    EXPECT_EQ(
        run({"export", write_file("junk.bin", bytes(40, std::byte{7})), path("j.glb")}).status, 1);
}

TEST_F(ExportCli, AnOutputThatCannotBeWrittenIsExitThree) {
    const std::string f = write_file("in.bin", small_model(shape::v11_compact));
    const run_result r = run({"export", f, path("missing/out.glb")});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(run({"export", path("absent.bin"), path("out.glb")}).status, 3);
}
