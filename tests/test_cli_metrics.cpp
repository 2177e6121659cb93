// `inputanim metrics`, run as a user runs it: one JSON object (or CSV row) of metrics per file
// equal to the library's, the event tables, the options reaching measure(), and the exit
// statuses.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputanim/generate.hpp"
#include "support/cli_fixture.hpp"
#include "support/generated.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

using MetricsCli = cli_fixture;

float at(int i) {
    return static_cast<float>(i / 60.0);
}

bytes generated_seconds(int seconds, int minor = 1, std::uint64_t seed = 1) {
    generate_options g;
    g.seconds = seconds;
    g.minor = minor;
    g.seed = seed;
    return write(generated_model(g));
}

recording_metrics measured(const bytes& b, const metrics_options& options = {}) {
    recording rec;
    EXPECT_FALSE(rec.open(view(b)));
    recording_metrics m;
    EXPECT_FALSE(measure(rec, options, m));
    return m;
}

// The left hand tracked over samples [15, 30) and [45, 90) of 0 .. 2 s, pinching over [60, 72);
// the palm moving 0.5 m/s.
model tracking_model() {
    model m;
    m[hand_state_curve(hand_state::left_tracked)].keys = {
        {0.0f, 0.0f}, {at(15), 1.0f}, {at(30), 0.0f}, {at(45), 1.0f}, {at(90), 0.0f}};
    m[hand_state_curve(hand_state::left_pinching)].keys = {
        {0.0f, 0.0f}, {at(60), 1.0f}, {at(72), 0.0f}};
    m[joint_curve(side::left, joint::palm, pose_channel::position_x)].keys = {{0.0f, 0.0f},
                                                                              {2.0f, 1.0f}};
    m[joint_curve(side::left, joint::index_tip, pose_channel::position_y)].keys = {{0.0f, 0.0f},
                                                                                   {2.0f, 4.0f}};
    return m;
}

// Gaze straight ahead (+z) until sample 60, 20 degrees to the right (+x) from 61 to 120.
model gaze_model() {
    model m;
    const auto s = static_cast<float>(std::sin(20.0 * std::numbers::pi / 180.0));
    const auto c = static_cast<float>(std::cos(20.0 * std::numbers::pi / 180.0));
    m[gaze_curve(ray_channel::direction_x)].keys = {
        {0.0f, 0.0f}, {at(60), 0.0f}, {at(61), s}, {at(120), s}};
    m[gaze_curve(ray_channel::direction_z)].keys = {
        {0.0f, 1.0f}, {at(60), 1.0f}, {at(61), c}, {at(120), c}};
    m[gaze_curve(ray_channel::origin_y)].keys = {{0.0f, 1.5f}};
    return m;
}

// The left hand tracked throughout and pinching over every other sample: `pinches` pinch events
// of one sample each, over 2 x pinches samples at 60 per second (8 bytes a key: 800,000 pinches
// make a 13 MB file).
model flipping_pinches(std::uint64_t pinches) {
    model m;
    m[hand_state_curve(hand_state::left_tracked)].keys = {{0.0f, 1.0f}};
    std::vector<keyframe>& keys = m[hand_state_curve(hand_state::left_pinching)].keys;
    for (std::uint64_t k = 0; k < 2 * pinches; ++k) {
        keys.push_back(
            {static_cast<float>(static_cast<double>(k) / 60.0), k % 2 == 0 ? 1.0f : 0.0f});
    }
    return m;
}

// AddressSanitizer keeps freed memory in a quarantine of up to 256 MiB to catch late uses: the
// peak RSS of a command that allocates and frees a little per event would measure that, not what
// the command keeps. While this lives, the commands run keep 1 MiB of it (a build without the
// sanitizer ignores the variable).
class small_quarantine {
  public:
    small_quarantine() {
        const char* options = std::getenv("ASAN_OPTIONS");
        if (options != nullptr) saved_ = options;
        const std::string more = saved_ ? *saved_ + ":" : "";
        ::setenv("ASAN_OPTIONS", (more + "quarantine_size_mb=1").c_str(), 1);
    }
    ~small_quarantine() {
        if (saved_) {
            ::setenv("ASAN_OPTIONS", saved_->c_str(), 1);
        } else {
            ::unsetenv("ASAN_OPTIONS");
        }
    }
    small_quarantine(const small_quarantine&) = delete;
    small_quarantine& operator=(const small_quarantine&) = delete;

  private:
    std::optional<std::string> saved_;
};

// A hand's event as the tables list it: hand, event ("tracked", "gap" or "pinch"), start and end
// sample.
using hand_row = std::tuple<std::string, std::string, std::uint64_t, std::uint64_t>;

// The hands' events in the order measure() sends them.
struct hand_events_sink final : metrics_sink {
    std::vector<hand_row> tracking;
    std::vector<hand_row> pinches;
    static std::string name(side s) { return s == side::left ? "left" : "right"; }
    void tracked(side s, const grid_interval& g) override {
        tracking.emplace_back(name(s), "tracked", g.start_sample, g.end_sample);
    }
    void gap(side s, const grid_interval& g) override {
        tracking.emplace_back(name(s), "gap", g.start_sample, g.end_sample);
    }
    void pinch(side s, const grid_interval& g) override {
        pinches.emplace_back(name(s), "pinch", g.start_sample, g.end_sample);
    }
};

// The shortest text that reads back as `v`, as the command writes numbers.
std::string number_text(double v) {
    char text[32];
    const auto r = std::to_chars(text, text + sizeof text, v);
    return std::string(text, r.ptr);
}

void expect_number(const json& j, double expected) {
    ASSERT_TRUE(j.is_number()) << j;
    EXPECT_EQ(j.get<double>(), expected);
}

void expect_optional(const json& j, const std::optional<double>& expected) {
    if (!expected) {
        EXPECT_TRUE(j.is_null()) << j;
        return;
    }
    expect_number(j, *expected);
}

}  // namespace

TEST_F(MetricsCli, OneJsonObjectPerFileHoldsTheLibrarysMetrics) {
    const bytes a = generated_seconds(20);
    const bytes b = generated_seconds(10, 0, 3);
    const std::string fa = write_file("a.bin", a);
    const std::string fb = write_file("b.bin", b);
    const run_result r = run({"metrics", fa, fb});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0]["path"], fa);
    EXPECT_EQ(lines[1]["path"], fb);
    const recording_metrics m = measured(a);
    const json& j = lines[0];
    EXPECT_EQ(j["samples"], 1201);
    expect_number(j["start"], 0.0);
    expect_number(j["end"], 20.0);
    EXPECT_EQ(j["nonfinite_samples"], 0);
    for (const side s : {side::left, side::right}) {
        const json& h = j["hands"][s == side::left ? "left" : "right"];
        const hand_metrics& e = *m.hands[s == side::left ? 0 : 1];
        EXPECT_EQ(h["tracked_samples"], e.tracked_samples);
        expect_number(h["coverage"], e.coverage);
        EXPECT_EQ(h["gaps"], e.gaps);
        expect_number(h["gap_time"], e.gap_time);
        expect_optional(h["longest_gap"], e.longest_gap);
        EXPECT_EQ(h["pinches"], e.pinches);
        expect_number(h["pinch_time"], e.pinch_time);
        expect_number(h["path_length"], e.motion.path_length);
        expect_number(h["motion_time"], e.motion.time);
        expect_optional(h["mean_speed"], e.motion.mean_speed);
        expect_optional(h["peak_speed"], e.motion.peak_speed);
        EXPECT_EQ(h.size(), 11u) << h;
    }
    expect_number(j["head"]["path_length"], m.head->motion.path_length);
    expect_number(j["head"]["motion_time"], m.head->motion.time);
    expect_optional(j["head"]["mean_speed"], m.head->motion.mean_speed);
    expect_optional(j["head"]["peak_speed"], m.head->motion.peak_speed);
    expect_number(j["head"]["rotation"], m.head->rotation);
    expect_optional(j["head"]["peak_angular_speed"], m.head->peak_angular_speed);
    EXPECT_EQ(j["gaze"]["samples"], m.gaze->samples);
    EXPECT_EQ(j["gaze"]["fixations"], m.gaze->fixations);
    EXPECT_GT(m.gaze->fixations, 10u);
    expect_number(j["gaze"]["fixation_time"], m.gaze->fixation_time);
    expect_optional(j["gaze"]["mean_fixation_duration"], m.gaze->mean_fixation_duration);
    expect_optional(j["gaze"]["longest_fixation"], m.gaze->longest_fixation);
    EXPECT_EQ(j["gaze"]["saccades"], m.gaze->saccades);
    expect_optional(j["gaze"]["mean_saccade_amplitude"], m.gaze->mean_saccade_amplitude);
    EXPECT_EQ(j["measured_with"],
              json::parse(R"({"rate":60,"joint":"Palm","fixation_velocity":30,"merge_gap":0.075,
                              "merge_angle":0.5,"min_fixation":0.1,"level":"full"})"));
    // A v1.0 file has no gaze: null, not zero.
    EXPECT_TRUE(lines[1]["gaze"].is_null()) << lines[1];
    EXPECT_TRUE(lines[1]["head"].is_object());
}

TEST_F(MetricsCli, EveryParameterHasAFlag) {
    const bytes a = generated_seconds(10);
    const std::string f = write_file("a.bin", a);
    const recording_metrics defaults = measured(a);
    struct flag {
        std::string name;
        std::string value;
        void (*set)(metrics_options&);
    };
    const flag flags[] = {
        {"--rate", "30", [](metrics_options& m) { m.rate = 30; }},
        {"--joint", "IndexTip", [](metrics_options& m) { m.joint = joint::index_tip; }},
        {"--fixation-velocity", "100", [](metrics_options& m) { m.fixation_velocity = 100; }},
        {"--merge-angle", "20", [](metrics_options& m) { m.merge_angle = 20; }},
        {"--min-fixation", "0.3", [](metrics_options& m) { m.min_fixation = 0.3; }}};
    for (const flag& fl : flags) {
        metrics_options options;
        fl.set(options);
        const recording_metrics m = measured(a, options);
        const run_result r = run({"metrics", f, fl.name, fl.value});
        ASSERT_EQ(r.status, 0) << r.err;
        const json j = json::parse(r.out);
        EXPECT_EQ(j["samples"], m.samples) << fl.name;
        expect_number(j["hands"]["left"]["path_length"], m.hands[0]->motion.path_length);
        expect_number(j["gaze"]["fixation_time"], m.gaze->fixation_time);
        EXPECT_EQ(j["gaze"]["fixations"], m.gaze->fixations) << fl.name;
        // Each flag changes what is measured.
        EXPECT_TRUE(m.samples != defaults.samples ||
                    m.hands[0]->motion.path_length != defaults.hands[0]->motion.path_length ||
                    m.gaze->fixation_time != defaults.gaze->fixation_time)
            << fl.name;
    }
    // The generated gaze never has two fixations within 0.5 degrees, so --merge-gap is seen on
    // a 20-degree jump whose fixations are 2 samples (33 ms) apart.
    const std::string g = write_file("g.bin", gaze_model());
    const auto fixations = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {"metrics", g, "--merge-angle", "30"});
        return json::parse(run(args).out)["gaze"]["fixations"];
    };
    EXPECT_EQ(fixations({}), 1);
    EXPECT_EQ(fixations({"--merge-gap", "0.03"}), 2);
    const run_result all = run({"metrics", f, "--rate", "30", "--joint", "IndexTip",
                                "--fixation-velocity", "50", "--merge-gap", "0.2", "--merge-angle",
                                "2", "--min-fixation", "0.05", "--level", "structure"});
    ASSERT_EQ(all.status, 0) << all.err;
    EXPECT_EQ(json::parse(all.out)["measured_with"],
              json::parse(R"({"rate":30,"joint":"IndexTip","fixation_velocity":50,"merge_gap":0.2,
                              "merge_angle":2,"min_fixation":0.05,"level":"structure"})"));
}

TEST_F(MetricsCli, CsvIsAHeaderAndOneRowPerFileWithEmptyFieldsForNull) {
    const std::string f = write_file("t.bin", tracking_model());
    const std::string v10 = write_file("v10.bin", without_warnings(small_model(shape::v10)));
    const run_result r = run({"metrics", "--csv", f, v10});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0],
              "path,samples,start,end,nonfinite_samples,"
              "left_tracked_samples,left_coverage,left_gaps,left_gap_time,left_longest_gap,"
              "left_pinches,left_pinch_time,left_path_length,left_motion_time,left_mean_speed,"
              "left_peak_speed,"
              "right_tracked_samples,right_coverage,right_gaps,right_gap_time,right_longest_gap,"
              "right_pinches,right_pinch_time,right_path_length,right_motion_time,"
              "right_mean_speed,right_peak_speed,"
              "head_path_length,head_motion_time,head_mean_speed,head_peak_speed,head_rotation,"
              "head_peak_angular_speed,"
              "gaze_samples,gaze_fixations,gaze_fixation_time,gaze_mean_fixation_duration,"
              "gaze_longest_fixation,gaze_saccades,gaze_mean_saccade_amplitude");
    const recording_metrics m = measured(write(tracking_model()));
    const hand_metrics& left = *m.hands[0];
    // No right hand, head or gaze keys: 11 + 6 + 7 empty fields.
    EXPECT_EQ(lines[1], f + ",121,0,2,0,60," + number_text(60.0 / 121.0) + ",1,0.25,0.25,1,0.2," +
                            number_text(left.motion.path_length) + "," +
                            number_text(left.motion.time) + "," +
                            number_text(*left.motion.mean_speed) + "," +
                            number_text(*left.motion.peak_speed) + std::string(24, ','));
    EXPECT_EQ(lines[2].substr(lines[2].size() - 7), std::string(7, ','));
}

TEST_F(MetricsCli, TrackingEventsAreATableByHandThenTime) {
    const std::string f = write_file("t.bin", tracking_model());
    const run_result r = run({"metrics", "--csv", "--events", "tracking", f});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "path,hand,event,start,end,duration,start_sample,end_sample\n" + f +
                         ",left,tracked,0.25,0.5,0.25,15,30\n" + f +
                         ",left,gap,0.5,0.75,0.25,30,45\n" + f +
                         ",left,tracked,0.75,1.5,0.75,45,90\n");
}

TEST_F(MetricsCli, PinchEventsAsJsonLines) {
    const std::string f = write_file("t.bin", tracking_model());
    const run_result r = run({"metrics", "--events", "pinch", f, f});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::vector<json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 2u) << "one pinch in each of the two files";
    EXPECT_EQ(lines[0], json::parse(R"({"path":")" + f + R"(","hand":"left","start":1.0,
        "end":1.2,"duration":0.2,"start_sample":60,"end_sample":72})"));
}

TEST_F(MetricsCli, FixationAndSaccadeEvents) {
    const std::string f = write_file("g.bin", gaze_model());
    const run_result csv = run({"metrics", "--csv", "--events", "fixations", f});
    ASSERT_EQ(csv.status, 0) << csv.err;
    const std::vector<std::string> lines = lines_of(csv.out);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0],
              "path,start,end,duration,start_sample,end_sample,direction_x,direction_y,"
              "direction_z,origin_x,origin_y,origin_z");
    EXPECT_EQ(lines[1], f + ",0,1,1,0,60,0,0,1,0,1.5,0");
    const std::string second = f + ",1.0333333,2,0.9666666666666667,62,120,";
    EXPECT_EQ(lines[2].substr(0, second.size()), second);
    const run_result json_fixations = run({"metrics", "--events", "fixations", f});
    const std::vector<json> objects = json_lines(json_fixations.out);
    ASSERT_EQ(objects.size(), 2u);
    EXPECT_EQ(objects[0]["direction"], json::parse("[0.0,0.0,1.0]"));
    EXPECT_EQ(objects[0]["origin"], json::parse("[0.0,1.5,0.0]"));
    const run_result saccades = run({"metrics", "--csv", "--events", "saccades", f});
    const std::vector<std::string> rows = lines_of(saccades.out);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0], "path,start,end,duration,start_sample,end_sample,amplitude");
    const std::string saccade = f + ",1,1.0333333,0.03333333333333333,60,62,";
    EXPECT_EQ(rows[1].substr(0, saccade.size()), saccade);
    EXPECT_NEAR(std::stod(rows[1].substr(rows[1].rfind(',') + 1)), 20.0, 1e-4);
}

TEST_F(MetricsCli, ARecordingWithoutKeysHasNoSamplesAndNullMetrics) {
    const std::string f = write_file("empty.bin", model{});
    const run_result r = run({"metrics", f});
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["samples"], 0);
    EXPECT_TRUE(j["start"].is_null());
    EXPECT_TRUE(j["hands"]["left"].is_null());
    EXPECT_TRUE(j["head"].is_null());
    EXPECT_TRUE(j["gaze"].is_null());
}

TEST_F(MetricsCli, ExitStatusesAndMessages) {
    const std::string f = write_file("t.bin", tracking_model());
    const run_result missing = run({"metrics", path("missing.bin"), f});
    EXPECT_EQ(missing.status, 3);
    EXPECT_NE(missing.err.find("missing.bin: No such file or directory"), std::string::npos)
        << missing.err;
    EXPECT_EQ(json_lines(missing.out).size(), 1u) << "the other file is still measured";

    const std::string unsorted = write_file("unsorted.bin", unsorted_model());
    const run_result invalid = run({"metrics", unsorted});
    EXPECT_EQ(invalid.status, 1);
    EXPECT_EQ(invalid.out, "");
    EXPECT_NE(invalid.err.find(unsorted + ": invalid: unsorted_keys at byte "), std::string::npos)
        << invalid.err;
    EXPECT_NE(invalid.err.find("(--level structure measures it anyway)"), std::string::npos)
        << invalid.err;
    EXPECT_EQ(run({"metrics", unsorted, "--level", "structure"}).status, 0);
    EXPECT_EQ(run({"metrics", unsorted, path("missing.bin")}).status, 3) << "3 wins over 1";

    const run_result too_long = run({"metrics", f, "--max-rows", "120"});
    EXPECT_EQ(too_long.status, 1);
    EXPECT_NE(too_long.err.find(f + ": more than 120 samples (--max-rows 120)"), std::string::npos)
        << too_long.err;
    EXPECT_EQ(run({"metrics", f, "--max-rows", "121"}).status, 0);
}

TEST_F(MetricsCli, BadOptionsAreUsageErrors) {
    const std::string f = write_file("t.bin", tracking_model());
    const run_result tiny = run({"metrics", f, "--rate", "1e-310"});
    EXPECT_EQ(tiny.status, 2);
    EXPECT_NE(tiny.err.find("--rate 1e-310 is too small"), std::string::npos) << tiny.err;
    for (const std::vector<std::string>& args : {std::vector<std::string>{"--rate", "0"},
                                                 {"--rate", "inf"},
                                                 {"--joint", "palm"},
                                                 {"--fixation-velocity=-1"},
                                                 {"--merge-gap", "inf"},
                                                 {"--merge-angle", "x"},
                                                 {"--min-fixation", "nan"},
                                                 {"--events", "blinks"},
                                                 {"--json", "--csv"},
                                                 {"--max-rows=-1"}}) {
        std::vector<std::string> all = {"metrics", f};
        all.insert(all.end(), args.begin(), args.end());
        const run_result r = run(all);
        EXPECT_EQ(r.status, 2) << args.front();
        EXPECT_EQ(r.out, "") << args.front();
    }
    EXPECT_EQ(run({"metrics"}).status, 2) << "FILE is required";
}

TEST_F(MetricsCli, AFailedWriteOfStdoutExitsThree) {
    const std::string f = write_file("t.bin", tracking_model());
    expect_failed_stdout_is_reported({"metrics", f});
    expect_failed_stdout_is_reported({"metrics", "--csv", "--events", "tracking", f});
}

TEST_F(MetricsCli, APathIsACsvFieldAndAJsonString) {
    const std::string f = write_file("a,\"b\".bin", tracking_model());
    const run_result csv = run({"metrics", "--csv", "--events", "pinch", f});
    ASSERT_EQ(csv.status, 0) << csv.err;
    const std::string quoted = "\"" + path("a,\"\"b\"\".bin") + "\"";
    EXPECT_EQ(lines_of(csv.out).at(1).substr(0, quoted.size()), quoted);
    const run_result j = run({"metrics", "--events", "pinch", f});
    EXPECT_EQ(json::parse(j.out)["path"], f);
}

TEST_F(MetricsCli, EventsAreWrittenAsFoundInMemoryThatDoesNotGrowWithTheirNumber) {
    // Kept until the file's end, 100,000 events would take about 60 MiB more than the metrics
    // alone here (with the sanitizers); 864,000 in a Release build, 465 MiB against 19 MiB.
    constexpr std::uint64_t pinches = 100'000;
    const std::string f = write_file("pinches.bin", flipping_pinches(pinches));
    const small_quarantine quarantine;
    // The output goes to a file that this process then reads a line at a time: a spawned child's
    // peak RSS starts at its parent's peak, which holding the output would raise.
    const auto measured = [&](const std::string& options) {
        const std::string line = "exec '" + std::string(INPUTANIM_CLI) + "' metrics " + options +
                                 " '" + f + "' > '" + path("out.txt") + "'";
        return run_process({"/bin/sh", "-c", line}, {scratch_.path(), false});
    };
    const run_result plain = measured("");
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(json::parse(slurp(path("out.txt")))["hands"]["left"]["pinches"], pinches);
    for (const bool csv : {false, true}) {
        const run_result r = measured(csv ? "--events pinch --csv" : "--events pinch");
        ASSERT_EQ(r.status, 0) << r.err;
        std::ifstream out(path("out.txt"));
        std::uint64_t lines = 0;
        std::string line;
        std::string last;
        while (std::getline(out, line)) {
            ++lines;
            last.swap(line);
        }
        EXPECT_EQ(lines, pinches + (csv ? 1 : 0));
        EXPECT_EQ(last, csv ? f + ",left,3333.3,3333.3167,0.016666666666666666,199998,199999"
                            : R"({"duration":0.016666666666666666,"end":3333.3167,)"
                              R"("end_sample":199999,"hand":"left","path":")" +
                                  f + R"(","start":3333.3,"start_sample":199998})");
        EXPECT_LE(r.peak_rss_kib - plain.peak_rss_kib, 16 * 1024)
            << (csv ? "CSV: " : "JSON Lines: ") << r.peak_rss_kib << " KiB against "
            << plain.peak_rss_kib << " KiB for the metrics";
    }
}

TEST_F(MetricsCli, HandEventsAreListedByHandThenTimeThoughMeasureInterleavesTheHands) {
    const bytes b = generated_seconds(60);
    const std::string f = write_file("g.bin", b);
    recording rec;
    ASSERT_FALSE(rec.open(view(b)));
    recording_metrics m;
    hand_events_sink sent;
    ASSERT_FALSE(measure(rec, {}, m, &sent));
    for (const auto& [kind, events] :
         {std::pair{"tracking", sent.tracking}, std::pair{"pinch", sent.pinches}}) {
        // The table's order: by hand, then start.
        std::vector<hand_row> listed = events;
        std::stable_sort(listed.begin(), listed.end(), [](const hand_row& a, const hand_row& b) {
            return std::tie(std::get<0>(a), std::get<2>(a)) <
                   std::tie(std::get<0>(b), std::get<2>(b));
        });
        ASSERT_NE(listed, events) << kind << ": the library sends both hands' events in turn";
        const run_result r = run({"metrics", "--events", kind, f});
        ASSERT_EQ(r.status, 0) << r.err;
        std::vector<hand_row> printed;
        for (const json& j : json_lines(r.out)) {
            printed.emplace_back(j["hand"], j.value("event", "pinch"), j["start_sample"],
                                 j["end_sample"]);
        }
        EXPECT_EQ(printed, listed) << kind;
    }
}
