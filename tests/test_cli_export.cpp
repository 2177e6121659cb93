// `inputanim export`, run as a user runs it: the format from OUT's extension or --to, the output
// written through the one output primitive, and the exit statuses of what is refused.
#include <filesystem>
#include <limits>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

using ExportCli = cli_fixture;

// A hands-only recording keyed at 0 and 5e4 s: 60 Hz makes a .glb of 4.6 GB.
model hands_over_a_long_time() {
    model m;
    m.blocks = {false, true, false};
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}, {5e4f, 1.0f}};
    return m;
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

// --- an output that is the input ------------------------------------------------------------

TEST_F(ExportCli, AnOutputThatIsTheInputIsRefusedAndTheInputKept) {
    const std::string in = write_file("take.bin", small_model(shape::v11_compact));
    const std::string before = read_text(in);
    std::filesystem::create_hard_link(in, path("hard.bin"));
    std::filesystem::create_symlink(in, path("soft.anim"));
    for (const std::string& out : {in, path("hard.bin"), path("soft.anim"), path("./take.bin")}) {
        for (const char* format : {"glb", "gltf", "anim"}) {
            const run_result r = run({"export", in, out, "--to", format});
            EXPECT_EQ(r.status, 2) << out << ' ' << format;
            EXPECT_NE(r.err.find(": not written: it is the input file itself"), std::string::npos)
                << r.err;
            EXPECT_EQ(read_text(in), before) << out << ' ' << format;
        }
    }
    // The input open on a descriptor, named by /proc/self/fd, and standard output appended to it.
    const std::string cli = "'" + std::string(INPUTANIM_CLI) + "'";
    for (const std::string& line :
         {"exec 5<'" + in + "'; " + cli + " export '" + in + "' /proc/self/fd/5 --to glb",
          cli + " export '" + in + "' - --to glb >> '" + in + "'",
          cli + " export - '" + in + "' --to glb < '" + in + "'"}) {
        const run_result r = run_process({"/bin/sh", "-c", line}, {path("")});
        EXPECT_EQ(r.status, 2) << line;
        EXPECT_NE(r.err.find("it is the input file itself"), std::string::npos) << r.err;
        EXPECT_EQ(read_text(in), before) << line;
    }
}

// --- what is refused before the first byte, and said exactly ------------------------------

TEST_F(ExportCli, TheSizeARefusalSaysIsTheSizeOfTheFileTheExportWrites) {
    const std::string in = write_file("in.bin", small_model(shape::v11_full));
    for (const char* format : {"glb", "gltf", "anim"}) {
        const std::string out = path(std::string("whole.") + format);
        ASSERT_EQ(run({"export", in, out}).status, 0);
        const std::uintmax_t size = std::filesystem::file_size(out);
        const run_result refused = run({"export", in, path(std::string("cut.") + format),
                                        "--max-output-bytes", std::to_string(size - 1)});
        EXPECT_EQ(refused.status, 2) << format;
        EXPECT_NE(
            refused.err.find("the export would be " + std::to_string(size) +
                             " bytes, more than --max-output-bytes " + std::to_string(size - 1)),
            std::string::npos)
            << refused.err;
        EXPECT_EQ(run({"export", in, path(std::string("exact.") + format), "--max-output-bytes",
                       std::to_string(size)})
                      .status,
                  0)
            << format;
    }
}

TEST_F(ExportCli, ARateThatMakesTooManyGridPointsIsSaidAsSuch) {
    const std::string in = write_file("in.bin", small_model(shape::v11_compact));
    const run_result r = run({"export", in, path("out.glb"), "--rate", "1e300"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--rate 1e+300 makes 2^52 grid points or more"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("would be"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("out.glb")));
}

TEST_F(ExportCli, AGlbOverFourGibibytesIsRefusedBeforeAnythingIsBuilt) {
    const std::string in = write_file("long.bin", hands_over_a_long_time());
    const run_result r = run({"export", in, path("out.glb"), "--max-output-bytes", "100000000000"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("a .glb holds at most 4294967295 bytes"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("out.glb")));
    // Refused from its plan: nothing of the 4.6 GB was held.
    EXPECT_LT(r.peak_rss_kib, 256 * 1024) << r.peak_rss_kib;
}

TEST_F(ExportCli, ARefusalHoldsNothingTheSizeOfTheExport) {
    // Two million markers: their JSON alone would be about 60 MB.
    model m = small_model(shape::v11_compact, false);
    m.markers.emplace();
    for (int i = 0; i < 2'000'000; ++i) m.markers->push_back({i * 1e-6f, "m"});
    const std::string in = write_file("markers.bin", m);
    const run_result r = run({"export", in, path("out.glb"), "--max-output-bytes", "100000"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("more than --max-output-bytes 100000"), std::string::npos) << r.err;
    // Measured against validate of the same file, which reads all of it and builds nothing (the
    // sanitizers' own memory is in both).
    const run_result checked = run({"validate", in});
    ASSERT_EQ(checked.status, 0) << checked.err;
    EXPECT_LT(r.peak_rss_kib, checked.peak_rss_kib + 32 * 1024)
        << "export refused at " << r.peak_rss_kib << " KiB, validate " << checked.peak_rss_kib;
}

TEST_F(ExportCli, TimesThatOverflowOnceShiftedToZeroAreRefusedNamingThem) {
    model m;
    m.blocks = {true, false, false};
    m[camera_curve(pose_channel::position_x)].keys = {{-3e38f, 0.0f}, {3e38f, 1.0f}};
    const std::string in = write_file("far.bin", m);
    const run_result r = run({"export", in, path("out.glb"), "--rate", "1e-38"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("shifted to start at 0 (by 3e+38 s), the grid's times from -3e+38 to "
                         "3e+38 s would pass the largest float time"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("out.glb")));
    // The same from the options alone, on an ordinary recording.
    const std::string plain = write_file("plain.bin", small_model(shape::v11_compact));
    const run_result window = run({"export", plain, path("w.glb"), "--from", "-3e38", "--to-time",
                                   "3e38", "--rate", "1e-38"});
    EXPECT_EQ(window.status, 1);
    EXPECT_NE(window.err.find("would pass the largest float time"), std::string::npos)
        << window.err;
}

TEST_F(ExportCli, ANumberGltfCannotHoldIsRefusedAndTheUnityClipKeepsIt) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    model values = small_model(shape::v11_compact, false);
    values[camera_curve(pose_channel::position_y)].keys = {{0.0f, 1.0f}, {0.5f, nan}, {1.0f, 2.0f}};
    model markers = small_model(shape::v11_compact, false);
    markers.markers =
        std::vector<marker>{{0.25f, "ok"}, {std::numeric_limits<float>::infinity(), "x"}};
    for (const auto& [name, m, said] :
         {std::tuple{"values.bin", values,
                     std::string("camera.position.y is NaN at 0.016666668 s")},
          std::tuple{"markers.bin", markers, std::string("marker 1's time is infinity")}}) {
        const std::string in = write_file(name, m);
        for (const char* format : {"glb", "gltf"}) {
            const run_result r =
                run({"export", in, path("out"), "--to", format, "--level", "structure"});
            EXPECT_EQ(r.status, 1) << name << ' ' << format;
            EXPECT_NE(r.err.find("cannot export to glTF: " + said), std::string::npos) << r.err;
            EXPECT_FALSE(std::filesystem::exists(path("out")));
        }
        EXPECT_EQ(run({"export", in, path("kept.anim"), "--level", "structure"}).status, 0);
    }
    EXPECT_NE(read_text(path("kept.anim")).find("time: Infinity"), std::string::npos);
}
