// `inputanim convert`, run as a user runs it: every readable input (plain, gzip, standard input)
// to every layout, OUT replaced only once complete, the warnings, and the exit statuses.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "inputanim/generate.hpp"
#include "support/cli_fixture.hpp"
#include "support/generated.hpp"
#include "support/gzip_bytes.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

class ConvertCli : public cli_fixture {
  protected:
    bytes read_file(const std::string& name) const {
        const std::string text = slurp(path(name));
        bytes b(text.size());
        for (std::size_t i = 0; i < text.size(); ++i) b[i] = static_cast<std::byte>(text[i]);
        return b;
    }
    model read_back(const std::string& name) const {
        model m;
        EXPECT_FALSE(read_model(view(read_file(name)), m));
        return m;
    }
    run_result shell(const std::string& line) const {
        return run_process({"/bin/sh", "-c", line}, {std::filesystem::path(path("")), false});
    }
    bool has(const std::string& name) const { return std::filesystem::exists(path(name)); }
};

}  // namespace

TEST_F(ConvertCli, WithoutOptionsAVersion11CompactFileIsCopiedByteForByte) {
    const bytes source = generated(1, layout::compact);
    const std::string in = write_file("in.bin", source);
    const run_result r = run({"convert", in, path("out.bin")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(read_file("out.bin"), source);
}

TEST_F(ConvertCli, ACopyIsWrittenThroughAFifoAndToStandardOutputAsTheSourcesBytes) {
    // The copy by copy_file_range is into the temporary file only; elsewhere it is read and
    // written.
    const bytes source = generated(1, layout::compact);
    const std::string in = write_file("in.bin", source);
    const run_result out = shell(std::string(INPUTANIM_CLI) + " convert '" + in + "' - > '" +
                                 path("stdout.bin") + "'");
    ASSERT_EQ(out.status, 0) << out.err;
    EXPECT_EQ(read_file("stdout.bin"), source);
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    const run_result through = shell("cat '" + path("fifo") + "' > '" + path("from_fifo.bin") +
                                     "' & " + std::string(INPUTANIM_CLI) + " convert '" + in +
                                     "' '" + path("fifo") + "'; status=$?; wait; exit $status");
    ASSERT_EQ(through.status, 0) << through.err;
    EXPECT_EQ(read_file("from_fifo.bin"), source);
}

TEST_F(ConvertCli, ConvertsBetweenEveryLayoutAndBackToTheSameBytes) {
    const bytes source = generated(0, layout::full);
    write_file("v10.bin", source);
    ASSERT_EQ(run({"convert", path("v10.bin"), path("compact.bin")}).status, 0);
    ASSERT_EQ(run({"convert", path("compact.bin"), path("full.bin"), "--layout", "full"}).status,
              0);
    ASSERT_EQ(run({"convert", path("full.bin"), path("back.bin"), "--to", "1.0"}).status, 0);
    EXPECT_EQ(read_back("compact.bin").layout, layout::compact);
    EXPECT_EQ(read_back("full.bin").layout, layout::full);
    EXPECT_EQ(read_file("back.bin"), source);
    // Between the layouts every key is kept as MRTK plays it.
    const run_result same = run({"diff", path("v10.bin"), path("full.bin"), "--keys"});
    EXPECT_EQ(same.status, 0) << same.out << same.err;
}

TEST_F(ConvertCli, ReadsGzipAndStandardInputAndWritesStandardOutput) {
    const bytes source = generated(1, layout::compact);
    write_file("in.bin", source);
    write_file("in.bin.gz", gzip_compress(view(source)));
    ASSERT_EQ(run({"convert", path("in.bin.gz"), path("from_gzip.bin")}).status, 0);
    EXPECT_EQ(read_file("from_gzip.bin"), source);
    const run_result piped = shell(std::string(INPUTANIM_CLI) + " convert - - < '" +
                                   path("in.bin") + "' > '" + path("from_stdin.bin") + "'");
    ASSERT_EQ(piped.status, 0) << piped.err;
    EXPECT_EQ(read_file("from_stdin.bin"), source);
}

TEST_F(ConvertCli, TheWindowAndTheShiftApplyToKeysAndMarkers) {
    model m;
    m[camera_curve(pose_channel::position_x)].keys = {{0.0f, 0.0f}, {1.0f, 10.0f}, {2.0f, 0.0f}};
    m.markers = std::vector<marker>{{0.2f, "early"}, {1.2f, "inside"}};
    const std::string in = write_file("in.bin", m);
    const run_result r = run(
        {"convert", in, path("out.bin"), "--from", "0.5", "--to-time", "1.5", "--shift-to-zero"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("warning: 1 markers outside the window left out"), std::string::npos)
        << r.err;
    const model out = read_back("out.bin");
    const std::vector<keyframe>& x = out[camera_curve(pose_channel::position_x)].keys;
    ASSERT_EQ(x.size(), 3u);
    EXPECT_EQ(x[0].time, 0.0f);
    EXPECT_EQ(x[0].value, 5.0f);
    EXPECT_EQ(x[2].time, 1.0f);
    ASSERT_EQ(out.markers->size(), 1u);
    EXPECT_EQ((*out.markers)[0].name, "inside");
}

TEST_F(ConvertCli, ThinningARawRecordingMakesItSmallerAndValid) {
    generate_options g;
    g.seconds = 3;
    g.raw = true;
    const std::string in = write_file("raw.bin", write(generated_model(g)));
    const run_result r = run({"convert", in, path("thin.bin"), "--thin"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_LT(std::filesystem::file_size(path("thin.bin")) * 4,
              std::filesystem::file_size(path("raw.bin")));
    EXPECT_EQ(run({"validate", path("thin.bin")}).status, 0);
    // The motion moved by no more than MRTK's tolerances.
    const run_result same =
        run({"diff", in, path("thin.bin"), "--position", "0.001", "--angle", "0.02"});
    EXPECT_EQ(same.status, 0) << same.out << same.err;
}

TEST_F(ConvertCli, WarnsOfWhatTheTargetCannotHold) {
    const std::string in = write_file("full.bin", small_model(shape::v11_full));
    const run_result to_v10 = run({"convert", in, path("v10.bin"), "--to", "1.0"});
    ASSERT_EQ(to_v10.status, 0) << to_v10.err;
    EXPECT_NE(to_v10.err.find("warning: version 1.0 has no eye gaze: 6 gaze curves (24 keys) left "
                              "out"),
              std::string::npos)
        << to_v10.err;
    const run_result to_compact = run({"convert", in, path("compact.bin")});
    ASSERT_EQ(to_compact.status, 0) << to_compact.err;
    EXPECT_NE(to_compact.err.find("warning: 20 curves (80 keys) have tangents or weights the "
                                  "compact layout cannot hold"),
              std::string::npos)
        << to_compact.err;
}

TEST_F(ConvertCli, RefusesToWriteOverItsInput) {
    const bytes source = generated(1, layout::compact);
    const std::string in = write_file("in.bin", source);
    std::filesystem::create_hard_link(in, path("link.bin"));
    for (const std::string& out : {in, path("link.bin"), path("./in.bin")}) {
        const run_result r = run({"convert", in, out});
        EXPECT_EQ(r.status, 2) << out;
        EXPECT_NE(r.err.find("is the input file itself"), std::string::npos) << r.err;
    }
    EXPECT_EQ(read_file("in.bin"), source);
}

TEST_F(ConvertCli, AnInvalidInputIsRefusedWithValidatesMessage) {
    bytes cut = generated(1, layout::compact);
    cut.resize(cut.size() / 2);
    const std::string in = write_file("cut.bin", cut);
    const run_result r = run({"convert", in, path("out.bin")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(": invalid: truncated at byte "), std::string::npos) << r.err;
    EXPECT_FALSE(has("out.bin"));
}

TEST_F(ConvertCli, ContentErrorsAreRefusedUnlessLevelStructureIsAsked) {
    model m;
    m[camera_curve(pose_channel::position_x)].keys = {{1.0f, 0.0f}, {0.5f, 1.0f}};
    const std::string in = write_file("unsorted.bin", m);
    const run_result refused = run({"convert", in, path("out.bin")});
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.err.find("unsorted_keys"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("(--level structure converts it anyway)"), std::string::npos);
    EXPECT_FALSE(has("out.bin"));
    const run_result forced = run({"convert", in, path("out.bin"), "--level", "structure"});
    EXPECT_EQ(forced.status, 0) << forced.err;
    EXPECT_EQ(read_file("out.bin"), write(m));
}

TEST_F(ConvertCli, ACopyRefusedByTheCheckBesideItLeavesNoFileAndTheOutputAsItWas) {
    // A compact source converted to itself at level full is copied while its content is checked:
    // the copy goes to a temporary file, which the refusal removes.
    model m;
    m[camera_curve(pose_channel::position_x)].keys = {{1.0f, 0.0f}, {0.5f, 1.0f}};
    const std::string in = write_file("unsorted.bin", m);
    const bytes before(1000, std::byte{7});
    write_file("out.bin", before);
    const run_result refused = run({"convert", in, path("out.bin")});
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.err.find("unsorted_keys"), std::string::npos) << refused.err;
    EXPECT_EQ(read_file("out.bin"), before);
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path(""))) {
        names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"out.bin", "unsorted.bin"}));
    // An output that cannot be written is still second to a source the check refuses.
    const run_result both = run({"convert", in, path("absent/out.bin")});
    EXPECT_EQ(both.status, 1);
    EXPECT_NE(both.err.find("unsorted_keys"), std::string::npos) << both.err;
}

TEST_F(ConvertCli, UsageErrorsExit2BeforeAnythingIsRead) {
    const std::string in = write_file("in.bin", generated(1, layout::compact));
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"convert", in, path("o.bin"), "--to", "1.0", "--layout",
                                   "compact"},
          {"convert", in, path("o.bin"), "--from", "2", "--to-time", "1"},
          {"convert", in, path("o.bin"), "--from", "1e39"},
          {"convert", in, path("o.bin"), "--to", "1.2"},
          {"convert", in}}) {
        const run_result r = run(args);
        EXPECT_EQ(r.status, 2) << args.back() << ": " << r.err;
    }
    EXPECT_FALSE(has("o.bin"));
}

TEST_F(ConvertCli, AMissingInputExits3) {
    const run_result r = run({"convert", path("absent.bin"), path("out.bin")});
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
}

TEST_F(ConvertCli, AFailedWriteExits3AndLeavesNoFileBehind) {
    const std::string in = write_file("in.bin", generated(1, layout::compact));
    expect_failed_stdout_is_reported({"convert", in, "-"});
    const run_result device = run({"convert", in, "/dev/full"});
    EXPECT_EQ(device.status, 3);
    EXPECT_NE(device.err.find("/dev/full: cannot write: No space left on device"),
              std::string::npos)
        << device.err;
    const run_result no_folder = run({"convert", in, path("absent/out.bin")});
    EXPECT_EQ(no_folder.status, 3);
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path(""))) {
        names.push_back(e.path().filename().string());
    }
    EXPECT_EQ(names, std::vector<std::string>{"in.bin"});
}

TEST_F(ConvertCli, AnExistingOutputIsReplacedWhole) {
    const bytes source = generated(1, layout::compact);
    const std::string in = write_file("in.bin", source);
    write_file("out.bin", bytes(10'000'000, std::byte{7}));
    ASSERT_EQ(run({"convert", in, path("out.bin")}).status, 0);
    EXPECT_EQ(read_file("out.bin"), source);
}

TEST_F(ConvertCli, AShiftThatWouldPassTheLargestFloatIsRefusedAndWritesNothing) {
    model m = empty_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_x)].keys = {keyframe{-3e38f, 0.0f}};
    m[camera_curve(pose_channel::position_y)].keys = {keyframe{3e38f, 0.0f}};
    const std::string in = write_file("far.bin", m);
    const run_result r = run({"convert", in, path("out.bin"), "--shift-to-zero"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("inputanim: " + in +
                         ": cannot convert: shifted to start at 0, some key or marker time would "
                         "pass the largest float time"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(has("out.bin"));
    const run_result to_stdout = run({"convert", in, "-", "--shift-to-zero"});
    EXPECT_EQ(to_stdout.status, 1);
    EXPECT_EQ(to_stdout.out, "") << "refused before the first byte";

    // A window nearer the start fits.
    ASSERT_EQ(run({"convert", in, path("out.bin"), "--shift-to-zero", "--to-time", "0"}).status, 0);
    EXPECT_TRUE(validate(view(read_file("out.bin")), {level::full}).valid());
}

// gzip and standard input, converted without a window, shift or thinning, are converted as they
// arrive: a recording far larger than --max-bytes converts, and the output is the plain file's.
TEST_F(ConvertCli, GzipAndStandardInputConvertAsTheyArriveNotHeldWhole) {
    generate_options g;
    g.seconds = 3;
    g.raw = true;
    g.markers = 3;
    g.blocks = {true, true, true};
    const bytes source = write(generated_model(g));
    ASSERT_GT(source.size(), 500'000u);
    const std::string plain = write_file("in.bin", source);
    const std::string gz = write_file("in.bin.gz", gzip_compress(view(source)));
    const std::string held = "--max-bytes=200000";
    for (const std::vector<std::string>& target :
         {std::vector<std::string>{}, {"--layout", "full"}, {"--to", "1.0"}}) {
        std::vector<std::string> args = {"convert", plain, path("expected.bin")};
        args.insert(args.end(), target.begin(), target.end());
        ASSERT_EQ(run(args).status, 0);
        const bytes expected = read_file("expected.bin");
        args = {"convert", gz, path("from_gzip.bin"), held};
        args.insert(args.end(), target.begin(), target.end());
        const run_result from_gzip = run(args);
        ASSERT_EQ(from_gzip.status, 0) << from_gzip.err;
        EXPECT_EQ(read_file("from_gzip.bin"), expected);
        std::string flags;
        for (const std::string& t : target) flags += " " + t;
        for (const std::string& in : {plain, gz}) {
            const run_result piped =
                shell(std::string(INPUTANIM_CLI) + " convert - - " + held + flags + " < '" + in +
                      "' > '" + path("from_stdin.bin") + "'");
            ASSERT_EQ(piped.status, 0) << piped.err;
            EXPECT_EQ(read_file("from_stdin.bin"), expected) << in;
        }
    }
    // A window is cut from the recording held whole, so --max-bytes applies to it.
    const run_result window = run({"convert", gz, path("window.bin"), held, "--from", "1"});
    EXPECT_EQ(window.status, 1);
    EXPECT_NE(window.err.find("invalid: limit_exceeded at byte 200000"), std::string::npos)
        << window.err;
}

// A file without the magic is a 2019 layout only if its whole walk says so: such a source is held
// whole, up to --max-bytes, and converted once it has all arrived.
TEST_F(ConvertCli, AGzip2019RecordingIsHeldWholeUpToMaxBytes) {
    const bytes v10 = write(small_model(shape::v10));
    const bytes june(v10.begin() + 16, v10.end());
    const std::string gz = write_file("june.bin.gz", gzip_compress(view(june)));
    const std::string plain = write_file("june.bin", june);
    ASSERT_EQ(run({"convert", plain, path("expected.bin")}).status, 0);
    ASSERT_EQ(run({"convert", gz, path("out.bin")}).status, 0);
    EXPECT_EQ(read_file("out.bin"), read_file("expected.bin"));
    const run_result small =
        run({"convert", gz, path("small.bin"), "--max-bytes", std::to_string(june.size() - 1)});
    EXPECT_EQ(small.status, 1);
    EXPECT_NE(small.err.find("invalid: limit_exceeded"), std::string::npos) << small.err;
    EXPECT_FALSE(has("small.bin"));
}

// What is found wrong part way through a source converted as it arrives: the verdict is
// validate's, and OUT is not left behind.
TEST_F(ConvertCli, ASourceFoundInvalidAsItArrivesLeavesNoOutputBehind) {
    generate_options g;
    g.seconds = 6;
    g.raw = true;
    g.blocks = {true, true, true};
    model m = generated_model(g);
    // The last curve's keys out of order: found only after most of the file was converted.
    std::vector<keyframe>& last = m[gaze_curve(ray_channel::direction_z)].keys;
    ASSERT_GT(last.size(), 2u);
    std::swap(last[last.size() - 1].time, last[last.size() - 2].time);
    const bytes unsorted = write(m);
    const std::string gz = write_file("unsorted.bin.gz", gzip_compress(view(unsorted)));
    const run_result refused = run({"convert", gz, path("out.bin")});
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.err.find("invalid: unsorted_keys at byte "), std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("(--level structure converts it anyway)"), std::string::npos);
    EXPECT_FALSE(has("out.bin"));
    const run_result forced = run({"convert", gz, path("out.bin"), "--level", "structure"});
    EXPECT_EQ(forced.status, 0) << forced.err;
    EXPECT_EQ(read_file("out.bin"), unsorted);

    bytes cut = write(generated_model(g));
    cut.resize(cut.size() - 100);
    const std::string cut_gz = write_file("cut.bin.gz", gzip_compress(view(cut)));
    const run_result truncated = run({"convert", cut_gz, path("cut_out.bin")});
    EXPECT_EQ(truncated.status, 1);
    EXPECT_NE(truncated.err.find("invalid: truncated at byte "), std::string::npos)
        << truncated.err;
    EXPECT_FALSE(has("cut_out.bin"));

    // A gzip stream damaged after the recording's first bytes.
    bytes damaged = gzip_compress(view(write(generated_model(g))));
    damaged.resize(damaged.size() - 4);
    const std::string damaged_gz = write_file("damaged.bin.gz", damaged);
    const run_result bad = run({"convert", damaged_gz, path("damaged_out.bin")});
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("invalid: bad_compression"), std::string::npos) << bad.err;
    EXPECT_FALSE(has("damaged_out.bin"));
}

TEST_F(ConvertCli, AnOutputThatFailsWhileASourceArrivesExits3) {
    const std::string gz =
        write_file("in.bin.gz", gzip_compress(view(generated(1, layout::compact))));
    expect_failed_stdout_is_reported({"convert", gz, "-", "--layout", "full"});
    const run_result device = run({"convert", gz, "/dev/full"});
    EXPECT_EQ(device.status, 3);
    EXPECT_NE(device.err.find("/dev/full: cannot write: No space left on device"),
              std::string::npos)
        << device.err;
    const run_result no_folder = run({"convert", gz, path("absent/out.bin")});
    EXPECT_EQ(no_folder.status, 3) << no_folder.err;
    const run_result folder = run({"convert", gz, path("")});
    EXPECT_EQ(folder.status, 2) << folder.err;
}
