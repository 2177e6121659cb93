// `inputanim import` of Unity clips, run as a user runs it: `export` to .anim then `import` gives
// back the very file for every version and layout; what the clip holds that the import leaves
// out is a warning on standard error; a refused clip is exit 1, says why, and writes nothing.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

class ImportAnimCli : public cli_fixture {
  protected:
    // `inputanim gen` with `args` into in.bin, exported as in.anim.
    void exported(std::vector<std::string> args) const {
        args.insert(args.begin(), {"gen", "-o", path("in.bin"), "--seconds", "0.5"});
        run_result r = run(args);
        ASSERT_EQ(r.status, 0) << r.err;
        r = run({"export", path("in.bin"), path("in.anim")});
        ASSERT_EQ(r.status, 0) << r.err;
    }
    // Imports `text` as bad.anim over an out.bin that holds "before": refused with exit 1 and
    // `message` on standard error, and out.bin as it was.
    void expect_refused(const std::string& text, const std::string& message,
                        std::vector<std::string> flags = {}) const {
        write_text("bad.anim", text);
        write_text("out.bin", "before");
        std::vector<std::string> args = {"import", path("bad.anim"), path("out.bin")};
        args.insert(args.end(), flags.begin(), flags.end());
        const run_result r = run(args);
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        EXPECT_EQ(read_text("out.bin"), "before");
    }
};

}  // namespace

TEST_F(ImportAnimCli, ExportThenImportGivesTheFileBack) {
    const std::vector<std::vector<std::string>> recordings = {
        {"--version", "1.0"},
        {"--markers", "3"},
        {"--layout", "full"},
        {"--no-gaze"},
        {"--no-camera", "--no-hands", "--markers", "2"}};
    const std::vector<std::vector<std::string>> flags = {
        {"--version", "1.0"}, {}, {"--layout", "full"}, {}, {}};
    for (std::size_t i = 0; i < recordings.size(); ++i) {
        SCOPED_TRACE(::testing::PrintToString(recordings[i]));
        exported(recordings[i]);
        std::vector<std::string> args = {"import", path("in.anim"), path("out.bin")};
        args.insert(args.end(), flags[i].begin(), flags[i].end());
        const run_result r = run(args);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        // The same bytes: every curve, key and marker, the version, layout and blocks.
        EXPECT_TRUE(read_text("out.bin") == read_text("in.bin"));
        // And diff finds every key the same, bit for bit.
        const run_result d = run({"diff", path("in.bin"), path("out.bin"), "--keys"});
        EXPECT_EQ(d.status, 0) << d.out << d.err;
    }
}

TEST_F(ImportAnimCli, WhatTheImportLeavesOutIsAWarning) {
    exported({"--no-hands", "--no-gaze", "--markers", "1"});
    std::string text = read_text("in.anim");
    const std::string from = "    functionName: OnInputAnimationMarker\n";
    text.replace(text.find(from), from.size(), "    functionName: PlaySound\n");
    write_text("edited.anim", text);
    const run_result r = run({"import", path("edited.anim"), path("out.bin")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("warning: line "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("an event calling 'PlaySound', not OnInputAnimationMarker: not a marker, "
                         "not imported"),
              std::string::npos)
        << r.err;
    EXPECT_NE(run({"info", path("out.bin")}).out.find("markers    0"), std::string::npos)
        << run({"info", path("out.bin")}).out;
}

TEST_F(ImportAnimCli, ARefusedClipSaysWhyAndWritesNothing) {
    exported({"--no-hands", "--no-gaze", "--markers", "2"});
    const std::string clip = read_text("in.anim");
    expect_refused(std::string("\0\0\0\0", 4), "cannot import: a Unity file serialised as binary");
    expect_refused("AnimationClip:\n  m_Events: [\n", "cannot import: the input is not YAML");
    expect_refused("a: 1\n", "cannot import: the YAML is not a Unity AnimationClip");
    expect_refused(std::string(100, '[') + std::string(100, ']'),
                   "cannot import: the YAML is nested too deep");
    // Eight levels of ten aliases: 10^8 nodes in some 300 bytes.
    std::string bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int level = 1; level <= 8; ++level) {
        const std::string previous = "*l" + std::to_string(level - 1) + ", ";
        std::string list;
        for (int i = 0; i < 10; ++i) list += previous;
        bomb += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [" +
                list.substr(0, list.size() - 2) + "]\n";
    }
    expect_refused(bomb, "cannot import: the YAML holds, or its aliases expand to, too many nodes");
    expect_refused("a: !python/object x\n",
                   "cannot import: a YAML tag that is neither YAML's nor Unity's");
    expect_refused(clip, "more than --max-markers 1", {"--max-markers", "1"});
    // The first key of camera.position.x, the first curve, moved after the second.
    std::string backwards = clip;
    const std::string first = "        time: 0\n";
    ASSERT_NE(backwards.find(first), std::string::npos);
    backwards.replace(backwards.find(first), first.size(), "        time: 100\n");
    expect_refused(backwards,
                   "cannot import: a curve's key times do not increase: camera.position.x key 1");
}

TEST_F(ImportAnimCli, TheDefaultIsCompactAndSaysWhatOnlyFullKeeps) {
    exported({"--no-hands", "--no-gaze"});
    std::string text = read_text("in.anim");
    const std::string from = "outSlope: 0\n";
    text.replace(text.find(from), from.size(), "outSlope: 2.5\n");
    write_text("curved.anim", text);
    run_result r = run({"import", path("curved.anim"), path("compact.bin")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("1 curves (1 keys) have tangents or weights the compact layout cannot "
                         "hold"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--layout full keeps their tangents and weights"), std::string::npos)
        << r.err;
    EXPECT_NE(run({"info", path("compact.bin")}).out.find("layout     compact"), std::string::npos);
    r = run({"import", path("curved.anim"), path("full.bin"), "--layout", "full"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(run({"dump", path("full.bin"), "--curve", "camera.position.x"})
                  .out.find("\"out_tangent\":2.5"),
              std::string::npos);
}
