// `inputanim gen`, run as a user runs it: deterministic per seed, valid at level full, the
// options reach the file, and the exit statuses.
#include <filesystem>
#include <string>

#include "support/cli_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

using GenCli = cli_fixture;

report validate_file(const std::string& file, level lvl = level::full) {
    const std::string text = slurp(file);
    const auto* p = reinterpret_cast<const std::byte*>(text.data());
    return validate(std::span<const std::byte>(p, text.size()), {lvl});
}

}  // namespace

TEST_F(GenCli, TheSameSeedWritesTheSameBytesAndAnotherSeedOthers) {
    ASSERT_EQ(run({"gen", "-o", path("a.bin"), "--seconds", "3", "--seed", "7"}).status, 0);
    ASSERT_EQ(run({"gen", "-o", path("b.bin"), "--seconds", "3", "--seed", "7"}).status, 0);
    ASSERT_EQ(run({"gen", "-o", path("c.bin"), "--seconds", "3", "--seed", "8"}).status, 0);
    EXPECT_EQ(slurp(path("a.bin")), slurp(path("b.bin")));
    EXPECT_NE(slurp(path("a.bin")), slurp(path("c.bin")));
}

TEST_F(GenCli, OutputIsValidAtLevelFullForEveryVersionAndLayout) {
    const std::vector<std::vector<std::string>> variants = {
        {"--seconds", "2", "--version", "1.0"},
        {"--seconds", "2", "--version", "1.1", "--layout", "compact"},
        {"--seconds", "2", "--version", "1.1", "--layout", "full"},
        {"--seconds", "2", "--no-camera", "--no-gaze"},
        {"--seconds", "1", "--raw"}};
    for (std::size_t i = 0; i < variants.size(); ++i) {
        std::vector<std::string> args = {"gen", "-o", path("v" + std::to_string(i) + ".bin")};
        args.insert(args.end(), variants[i].begin(), variants[i].end());
        const run_result r = run(args);
        ASSERT_EQ(r.status, 0) << r.err;
        const report rep = validate_file(path("v" + std::to_string(i) + ".bin"));
        EXPECT_TRUE(rep.valid()) << rep.error.message();
        EXPECT_EQ(rep.warnings_found, 0u);
    }
}

TEST_F(GenCli, OptionsReachTheFile) {
    ASSERT_EQ(run({"gen", "-o", path("o.bin"), "--version", "1.1", "--layout", "full", "--no-hands",
                   "--markers", "3", "--seconds", "4"})
                  .status,
              0);
    const report rep = validate_file(path("o.bin"));
    ASSERT_TRUE(rep.valid());
    EXPECT_EQ(rep.summary.minor, 1);
    EXPECT_EQ(rep.summary.layout, layout::full);
    EXPECT_EQ(rep.summary.blocks, (block_flags{true, false, true}));
    EXPECT_EQ(rep.summary.markers, 3u);
    ASSERT_TRUE(rep.summary.duration);
    EXPECT_NEAR(*rep.summary.duration, 4.0f, 0.05f);
}

TEST_F(GenCli, RawKeepsEverySampleWhileThinningDropsMost) {
    ASSERT_EQ(run({"gen", "-o", path("raw.bin"), "--raw", "--seconds", "2"}).status, 0);
    ASSERT_EQ(run({"gen", "-o", path("thin.bin"), "--seconds", "2"}).status, 0);
    const report raw = validate_file(path("raw.bin"));
    const report thin = validate_file(path("thin.bin"));
    EXPECT_GT(raw.summary.keyframes, 2 * thin.summary.keyframes);
}

TEST_F(GenCli, CountWritesThatManyDifferentRecordingsIntoTheFolder) {
    const run_result r = run({"gen", "--count", "3", "--dir", path("set"), "--seconds", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> contents;
    for (const auto& e : std::filesystem::directory_iterator(path("set"))) {
        EXPECT_TRUE(e.path().filename().string().starts_with("InputAnimation-"));
        EXPECT_EQ(e.path().extension(), ".bin");
        EXPECT_TRUE(validate_file(e.path().string()).valid());
        contents.push_back(slurp(e.path()));
    }
    ASSERT_EQ(contents.size(), 3u);
    EXPECT_NE(contents[0], contents[1]);
    EXPECT_NE(contents[1], contents[2]);
}

TEST_F(GenCli, UsageErrorsExitTwo) {
    EXPECT_EQ(run({"gen"}).status, 2) << "neither -o nor --count";
    EXPECT_EQ(run({"gen", "-o", path("x.bin"), "--count", "2", "--dir", path("d")}).status, 2);
    EXPECT_EQ(run({"gen", "--count", "2"}).status, 2) << "--count needs --dir";
    EXPECT_EQ(run({"gen", "-o", path("x.bin"), "--version", "2.0"}).status, 2);
    EXPECT_EQ(run({"gen", "-o", path("x.bin"), "--seconds", "-1"}).status, 2);
    EXPECT_EQ(run({"gen", "-o", path("x.bin"), "--rate", "0"}).status, 2);
}

TEST_F(GenCli, AnUnwritableOutputExitsThree) {
    const run_result r = run({"gen", "-o", path("no/such/folder/x.bin")});
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
}

TEST_F(GenCli, CeilingsBoundMarkersCountAndSeconds) {
    const std::string out = path("x.bin");
    const run_result markers = run({"gen", "-o", out, "--markers", "10000001"});
    EXPECT_EQ(markers.status, 2);
    EXPECT_NE(markers.err.find("10000001 is above the largest accepted value 10000000"),
              std::string::npos)
        << markers.err;
    const run_result count = run({"gen", "--count", "100001", "--dir", path("d")});
    EXPECT_EQ(count.status, 2);
    EXPECT_NE(count.err.find("100001 is above the largest accepted value 100000"),
              std::string::npos)
        << count.err;
    EXPECT_EQ(run({"gen", "--count", "0", "--dir", path("d")}).status, 2);
    const run_result seconds = run({"gen", "-o", out, "--seconds", "86401"});
    EXPECT_EQ(seconds.status, 2);
    EXPECT_NE(seconds.err.find("86401 is above the largest accepted value 86400"),
              std::string::npos)
        << seconds.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << "nothing is written for a refused option";
    // At the ceilings themselves the options are accepted (a short recording keeps it quick).
    ASSERT_EQ(run({"gen", "-o", out, "--seconds", "0.5", "--markers", "10000"}).status, 0);
    EXPECT_EQ(validate_file(out).summary.markers, 10000u);
}

TEST_F(GenCli, RangeMessagesPrintShortNumbers) {
    // CLI11's own range check prints a double's every digit (309 of them for 1e308).
    for (const std::string value : {"1e308", "-1", "1e999", "-1e999"}) {
        const run_result r = run({"gen", "-o", path("x.bin"), "--seconds=" + value});
        EXPECT_EQ(r.status, 2) << value;
        EXPECT_LT(r.err.size(), 200u) << r.err;
        EXPECT_EQ(r.err.find("0000000000"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(value), std::string::npos) << r.err;
    }
    const run_result nan = run({"gen", "-o", path("x.bin"), "--seconds", "nan"});
    EXPECT_EQ(nan.status, 2);
    EXPECT_NE(nan.err.find("'nan' is not a decimal number"), std::string::npos) << nan.err;
    const run_result negative = run({"gen", "-o", path("x.bin"), "--markers=-5"});
    EXPECT_EQ(negative.status, 2);
    EXPECT_NE(negative.err.find("'-5' is not a non-negative decimal integer"), std::string::npos)
        << negative.err;
}

TEST_F(GenCli, AFullDeviceIsAFailedWriteThatExitsThree) {
    const run_result r = run({"gen", "-o", "/dev/full", "--seconds", "1"});
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find("inputanim: /dev/full: cannot write: No space left on device"),
              std::string::npos)
        << r.err;
}
