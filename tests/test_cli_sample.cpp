// `inputanim sample`, run as a user runs it: the CSV and JSON grids, the curve selection, the
// numbers as the shortest text of the float32 that evaluate returns, and the exit statuses.
#include <charconv>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputanim/generate.hpp"
#include "support/cli_fixture.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

using SampleCli = cli_fixture;

// camera.position.x rises linearly from 0 at t=0 to 1 at t=1; camera.position.y holds 2.
model linear_model() {
    model m;
    m[camera_curve(pose_channel::position_x)].keys = {{0.0f, 0.0f}, {1.0f, 1.0f}};
    m[camera_curve(pose_channel::position_y)].keys = {{0.0f, 2.0f}};
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 0.0f}, {0.5f, 1.0f}};
    return m;
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t comma; (comma = line.find(',', start)) != std::string::npos;
         start = comma + 1) {
        fields.push_back(line.substr(start, comma - start));
    }
    fields.push_back(line.substr(start));
    return fields;
}

float as_float(const std::string& text) {
    float v = 0.0f;
    std::from_chars(text.data(), text.data() + text.size(), v);
    return v;
}

}  // namespace

TEST_F(SampleCli, CsvHasAHeaderAndOneRowPerStepFromTheFirstKeyToTheDurationInclusive) {
    const std::string f = write_file("lin.bin", linear_model());
    const run_result r = run({"sample", f, "--rate", "4", "--curve", "camera.position.x", "--curve",
                              "camera.position.y"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 6u);
    EXPECT_EQ(lines[0], "t,camera.position.x,camera.position.y");
    EXPECT_EQ(lines[1], "0,0,2");
    EXPECT_EQ(lines[3], "0.5,0.5,2");
    EXPECT_EQ(lines[5], "1,1,2");
}

TEST_F(SampleCli, EveryValueReadsBackAsWhatEvaluateReturns) {
    generate_options g;
    g.seconds = 2;
    const bytes b = write(generated_model(g));
    const std::string f = write_file("gen.bin", b);
    const run_result r =
        run({"sample", f, "--rate", "30", "--curve", "hand.right.joint.*.position.*"});
    ASSERT_EQ(r.status, 0) << r.err;
    recording rec;
    ASSERT_FALSE(rec.open(view(b)));
    const std::vector<std::string> lines = lines_of(r.out);
    const std::vector<std::string> header = split(lines.at(0));
    ASSERT_EQ(header.size(), 1 + 27 * 3u);
    for (std::size_t row = 1; row < lines.size(); row += 7) {
        const std::vector<std::string> fields = split(lines[row]);
        const float t = as_float(fields[0]);
        for (std::size_t c = 1; c < header.size(); ++c) {
            EXPECT_EQ(as_float(fields[c]), evaluate(*rec.find(header[c]), t))
                << header[c] << " at " << t;
        }
    }
}

TEST_F(SampleCli, FromAndToBoundTheGridAndBoolCurvesStep) {
    const std::string f = write_file("lin.bin", linear_model());
    const run_result r = run({"sample", f, "--rate", "10", "--from", "0.3", "--to", "0.6",
                              "--curve", "hand.left.tracked"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 5u);
    EXPECT_EQ(lines[1], "0.3,0");
    EXPECT_EQ(lines[3], "0.5,1");
    EXPECT_EQ(lines[4], "0.6,1");
}

TEST_F(SampleCli, JsonHoldsTheCurvesAndTheRows) {
    const std::string f = write_file("lin.bin", linear_model());
    const run_result r =
        run({"sample", f, "--rate", "2", "--curve", "camera.position.x", "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["curves"], json::array({"camera.position.x"}));
    EXPECT_EQ(doc["rows"], json::parse("[[0,0],[0.5,0.5],[1,1]]"));
}

TEST_F(SampleCli, WithoutCurveEveryCurveOfTheFileIsAColumn) {
    const std::string f = write_file("lin.bin", linear_model());
    const run_result r = run({"sample", f, "--rate", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(split(lines_of(r.out).at(0)).size(), 1 + curve_id_count);
}

TEST_F(SampleCli, ExitStatuses) {
    const std::string f = write_file("lin.bin", linear_model());
    const run_result no_curve = run({"sample", f, "--rate", "1", "--curve", "no.such.curve"});
    EXPECT_EQ(no_curve.status, 2);
    EXPECT_NE(no_curve.err.find("--curve 'no.such.curve' matches no curve path"), std::string::npos)
        << no_curve.err;
    EXPECT_EQ(run({"sample", f, "--rate", "0"}).status, 2);
    EXPECT_EQ(run({"sample", f}).status, 2) << "--rate is required";
    EXPECT_EQ(run({"sample", f, "--rate", "1", "--format", "xml"}).status, 2);
    EXPECT_EQ(run({"sample", path("missing.bin"), "--rate", "1"}).status, 3);
    bytes broken = write(linear_model());
    put_i32(broken, 19, 3);  // camera.position.x pre-wrap mode 3
    const run_result invalid = run({"sample", write_file("bad.bin", broken), "--rate", "1"});
    EXPECT_EQ(invalid.status, 1);
    EXPECT_NE(invalid.err.find("bad_wrap_mode"), std::string::npos) << invalid.err;
}

TEST_F(SampleCli, AnInstantFarFromZeroIsOneRowAndEndsAtOnce) {
    const std::string f = write_file("lin.bin", linear_model());
    // 1e30 + 1/60 == 1e30 in double: a grid that steps from point to point never ends there.
    for (const std::string t : {"1e30", "1e20", "-3e38"}) {
        const run_result r =
            run({"sample", f, "--rate", "60", "--from", t, "--to", t, "--curve", "camera.**"});
        ASSERT_EQ(r.status, 0) << t << r.err;
        const std::vector<std::string> lines = lines_of(r.out);
        ASSERT_EQ(lines.size(), 2u) << t;
        EXPECT_EQ(as_float(split(lines[1])[0]), std::stof(t)) << t;
    }
}

TEST_F(SampleCli, PointsThatShareAFloatTimeAreOneRow) {
    const std::string f = write_file("lin.bin", linear_model());
    // Above 2^24 floats are 2 apart: the 41 points from 2^24 to 2^24 + 10 at 4 Hz have 6
    // distinct times, 2^24, 2^24 + 2, ..., 2^24 + 10.
    const run_result r = run({"sample", f, "--rate", "4", "--from", "16777216", "--to", "16777226",
                              "--curve", "camera.position.x"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 7u);
    for (std::size_t i = 1; i < lines.size(); ++i) {
        EXPECT_EQ(as_float(split(lines[i])[0]), 16777216.0f + 2.0f * static_cast<float>(i - 1));
    }
}

TEST_F(SampleCli, MoreRowsThanMaxRowsIsRefusedBeforeAnythingIsWritten) {
    const std::string f = write_file("lin.bin", linear_model());
    // 1e12 rows a second over 1 s: refused at once by the default ceiling, 10,000,000.
    const run_result huge = run({"sample", f, "--rate", "1e12"});
    EXPECT_EQ(huge.status, 2);
    EXPECT_EQ(huge.out, "");
    EXPECT_NE(huge.err.find("more than 10000000 rows (--max-rows 10000000)"), std::string::npos)
        << huge.err;
    EXPECT_NE(huge.err.find("1000000000001 grid points"), std::string::npos) << huge.err;
    // 0, 0.25, ..., 1: five rows.
    const run_result five = run({"sample", f, "--rate", "4", "--max-rows", "4"});
    EXPECT_EQ(five.status, 2);
    EXPECT_EQ(five.out, "");
    EXPECT_NE(five.err.find("more than 4 rows (--max-rows 4)"), std::string::npos) << five.err;
    const run_result allowed = run({"sample", f, "--rate", "4", "--max-rows", "5"});
    EXPECT_EQ(allowed.status, 0) << allowed.err;
    EXPECT_EQ(lines_of(allowed.out).size(), 6u);
    EXPECT_EQ(run({"sample", f, "--rate", "4", "--max-rows=-1"}).status, 2);
}

TEST_F(SampleCli, FromAfterToIsAUsageError) {
    const std::string f = write_file("lin.bin", linear_model());
    const run_result both = run({"sample", f, "--rate", "1", "--from", "5", "--to", "1"});
    EXPECT_EQ(both.status, 2);
    EXPECT_EQ(both.out, "");
    EXPECT_NE(both.err.find("--from 5 is after --to 1"), std::string::npos) << both.err;
    // The recording's last key time is 1.
    const run_result past_end = run({"sample", f, "--rate", "1", "--from", "5"});
    EXPECT_EQ(past_end.status, 2);
    EXPECT_EQ(past_end.out, "");
    EXPECT_NE(past_end.err.find("--from 5 is after the recording's last key time 1"),
              std::string::npos)
        << past_end.err;
    const run_result before_start = run({"sample", f, "--rate", "1", "--to=-1"});
    EXPECT_EQ(before_start.status, 2);
    EXPECT_NE(before_start.err.find("--to -1 is before the recording's first key time 0"),
              std::string::npos)
        << before_start.err;
}

TEST_F(SampleCli, ATimeOutsideTheFloatRangeIsAUsageErrorWithAReadableMessage) {
    const std::string f = write_file("lin.bin", linear_model());
    const run_result r = run({"sample", f, "--rate", "1", "--from", "1e39", "--until", "2e39"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--from 1e+39 is not a time a recording can hold"), std::string::npos)
        << r.err;
    EXPECT_LT(r.err.size(), 200u) << r.err;
}

TEST_F(SampleCli, AFileThatFailsLevelFullIsRefusedUnlessLevelStructureIsGiven) {
    const std::string f = write_file("unsorted.bin", unsorted_model());
    const run_result full = run({"sample", f, "--rate", "10"});
    EXPECT_EQ(full.status, 1);
    EXPECT_EQ(full.out, "");
    // The validate-style message: code, offset, curve path and keyframe.
    EXPECT_NE(full.err.find(f + ": invalid: unsorted_keys at byte "), std::string::npos)
        << full.err;
    EXPECT_NE(full.err.find(", curve camera.position.x keyframe 2: "), std::string::npos)
        << full.err;
    EXPECT_NE(full.err.find("--level structure"), std::string::npos) << full.err;
    const run_result structure = run({"sample", f, "--rate", "10", "--level", "structure"});
    EXPECT_EQ(structure.status, 0) << structure.err;
    EXPECT_GT(lines_of(structure.out).size(), 1u);
}

TEST_F(SampleCli, FileProblemsExitOneWithReadableMessages) {
    const std::string empty = write_file("empty.bin", model{});
    const run_result no_keys = run({"sample", empty, "--rate", "1"});
    EXPECT_EQ(no_keys.status, 1);
    EXPECT_NE(no_keys.err.find(empty + ": the recording has no keyframes"), std::string::npos)
        << no_keys.err;
    EXPECT_EQ(no_keys.err.find("no_keys"), std::string::npos) << no_keys.err;
    EXPECT_EQ(run({"sample", empty, "--rate", "1", "--from", "0", "--to", "1"}).status, 0);
    // A v1.0 file has no gaze curves: the glob names real curves this file lacks.
    const std::string v10 = write_file("v10.bin", without_warnings(small_model(shape::v10)));
    const run_result no_gaze = run({"sample", v10, "--rate", "1", "--curve", "gaze.**"});
    EXPECT_EQ(no_gaze.status, 1);
    EXPECT_NE(no_gaze.err.find("no curve of the recording matches --curve 'gaze.**'"),
              std::string::npos)
        << no_gaze.err;
}

TEST_F(SampleCli, AFailedWriteOfStdoutExitsThree) {
    const std::string f = write_file("lin.bin", linear_model());
    expect_failed_stdout_is_reported({"sample", f, "--rate", "100"});
    expect_failed_stdout_is_reported({"sample", f, "--rate", "100", "--format", "json"});
}

TEST_F(SampleCli, AFileNameIsEscapedInMessages) {
    const std::string f = write_file("a\nfake: valid\n.bin", model{});
    const run_result r = run({"sample", f, "--rate", "1"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << r.err;
    EXPECT_NE(r.err.find("a\\nfake: valid\\n.bin: the recording has no keyframes"),
              std::string::npos)
        << r.err;
}

TEST_F(SampleCli, BadNumbersAreUsageErrorsWithShortMessages) {
    const std::string f = write_file("lin.bin", linear_model());
    const run_result tiny = run({"sample", f, "--rate", "1e-310"});
    EXPECT_EQ(tiny.status, 2);
    EXPECT_NE(tiny.err.find("--rate 1e-310 is too small"), std::string::npos) << tiny.err;
    for (const std::vector<std::string>& args : {std::vector<std::string>{"--rate", "inf"},
                                                 {"--rate=-60"},
                                                 {"--rate", "x"},
                                                 {"--rate", "1", "--max-bytes=-5"},
                                                 {"--rate", "1", "--max-bytes", "0"}}) {
        std::vector<std::string> all = {"sample", f};
        all.insert(all.end(), args.begin(), args.end());
        const run_result r = run(all);
        EXPECT_EQ(r.status, 2) << args.back();
        EXPECT_LT(r.err.size(), 200u) << r.err;
        EXPECT_EQ(r.err.find("0000000000"), std::string::npos) << r.err;
    }
}
