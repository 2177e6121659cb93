// `inputanim sample`, run as a user runs it: the CSV and JSON grids, the curve selection, the
// numbers as the shortest text of the float32 that evaluate returns, and the exit statuses.
#include <charconv>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputanim/generate.hpp"
#include "support/cli_fixture.hpp"

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
    const bytes b = write(generate(g));
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
    EXPECT_EQ(run({"sample", f, "--rate", "1", "--curve", "no.such.curve"}).status, 2);
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
