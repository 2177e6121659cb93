// `inputanim diff A B`, run as a user runs it: the exit statuses (0 same, 1 differ, 2 usage, 3 a
// side that cannot be read or is not sound), the text report's first differences, the JSON report,
// and each side read through the front door (gzip, standard input).
#include <string>
#include <vector>

#include "inputanim/generate.hpp"
#include "support/cli_fixture.hpp"
#include "support/generated.hpp"
#include "support/gzip_bytes.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

class DiffCli : public cli_fixture {
  protected:
    // 6 s kept whole (a key on every 60 Hz grid point) with 3 markers; both hands tracked at 3 s.
    model take() const {
        generate_options g;
        g.seconds = 6;
        g.raw = true;
        g.markers = 3;
        return generated_model(g);
    }
    run_result shell(const std::string& line) const {
        return run_process({"/bin/sh", "-c", line}, {std::filesystem::path(path("")), false});
    }
};

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_F(DiffCli, TheSameRecordingExits0AndSaysSo) {
    const std::string a = write_file("a.bin", take());
    const run_result r = run({"diff", a, a});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_TRUE(contains(r.out, "same within tolerance\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "left hand: 54 poses, 54 identical, 0 past tolerance\n")) << r.out;
}

TEST_F(DiffCli, AMovedJointExits1AndIsTheFirstDifferenceWithItsTimeAndSize) {
    const model m = take();
    model b = m;
    for (keyframe& k :
         b[joint_curve(side::left, joint::index_tip, pose_channel::position_x)].keys) {
        if (k.time >= 3.0f) k.value += 0.002f;
    }
    const run_result r = run({"diff", write_file("a.bin", m), write_file("b.bin", b)});
    ASSERT_EQ(r.status, 1) << r.err;
    EXPECT_TRUE(contains(r.out,
                         "motion: hand.left.joint.IndexTip.position differs from 3.000 s "
                         "by 2.000 mm (tolerance 1.000 mm"))
        << r.out;
    EXPECT_TRUE(r.out.ends_with("differ\n")) << r.out;
    // A looser tolerance takes it in.
    EXPECT_EQ(run({"diff", path("a.bin"), path("b.bin"), "--position", "0.0021"}).status, 0);
}

TEST_F(DiffCli, TheJsonReportHoldsEveryPoseAndTheDifferences) {
    const model m = take();
    model b = m;
    (*b.markers)[1].name = "renamed";
    for (const std::vector<std::string>& format :
         {std::vector<std::string>{"--format", "json"}, std::vector<std::string>{"--json"}}) {
        std::vector<std::string> args = {"diff", write_file("a.bin", m), write_file("b.bin", b)};
        args.insert(args.end(), format.begin(), format.end());
        const run_result r = run(args);
        ASSERT_EQ(r.status, 1) << r.err;
        EXPECT_EQ(r.err, "");
        const nlohmann::json j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["same"], false);
        EXPECT_EQ(j["a"]["path"], path("a.bin"));
        EXPECT_EQ(j["a"]["version"], "1.1");
        EXPECT_EQ(j["grid"]["rows"], 361);
        EXPECT_EQ(j["grid"]["rate"], 60.0);
        EXPECT_EQ(j["tolerance"]["position"], 0.001);
        EXPECT_EQ(j["motion"].size(), 112u);
        EXPECT_EQ(j["motion"][0]["name"], "camera.position");
        EXPECT_EQ(j["motion"][0]["first_exceeded"], nullptr);
        EXPECT_EQ(j["markers"]["count"], 1);
        EXPECT_EQ(j["markers"]["differences"][0]["change"], "renamed");
        EXPECT_EQ(j["markers"]["differences"][0]["b"]["name"], "renamed");
        EXPECT_EQ(j["state"]["count"], 0);
        EXPECT_EQ(j["keys"], nullptr);
        EXPECT_EQ(j["structure"]["blocks_differ"], false);
        EXPECT_EQ(j["grid"]["offset"], 0.0);
        EXPECT_EQ(j["alignment"], nullptr);
    }
}

TEST_F(DiffCli, KeysComparesTheKeysBitForBit) {
    const bytes source = generated(1, layout::compact);
    write_file("compact.bin", source);
    ASSERT_EQ(run({"convert", path("compact.bin"), path("full.bin"), "--layout", "full"}).status,
              0);
    EXPECT_EQ(run({"diff", path("compact.bin"), path("full.bin"), "--keys"}).status, 0);
    generate_options g;
    g.seconds = 2;
    g.raw = true;
    write_file("raw.bin", write(generated_model(g)));
    ASSERT_EQ(run({"convert", path("raw.bin"), path("thin.bin"), "--thin"}).status, 0);
    EXPECT_EQ(run({"diff", path("raw.bin"), path("thin.bin")}).status, 0);
    const run_result keys = run({"diff", path("raw.bin"), path("thin.bin"), "--keys"});
    EXPECT_EQ(keys.status, 1);
    EXPECT_TRUE(contains(keys.out, "keys: camera.position.x count: A 121 B ")) << keys.out;
}

TEST_F(DiffCli, EachSideIsReadThroughTheFrontDoor) {
    const bytes source = write(take());
    write_file("a.bin", source);
    write_file("a.bin.gz", gzip_compress(view(source)));
    EXPECT_EQ(run({"diff", path("a.bin"), path("a.bin.gz")}).status, 0);
    const run_result piped = shell(std::string(INPUTANIM_CLI) + " diff - '" + path("a.bin") +
                                   "' < '" + path("a.bin.gz") + "'");
    EXPECT_EQ(piped.status, 0) << piped.err;
}

TEST_F(DiffCli, ASideThatCannotBeReadOrIsNotSoundExits3AndComparesNothing) {
    const std::string a = write_file("a.bin", take());
    const run_result missing = run({"diff", a, path("missing.bin")});
    EXPECT_EQ(missing.status, 3);
    EXPECT_EQ(missing.out, "");
    bytes cut = write(take());
    cut.resize(cut.size() / 2);
    const run_result broken = run({"diff", write_file("cut.bin", cut), a});
    EXPECT_EQ(broken.status, 3);
    EXPECT_EQ(broken.out, "");
    EXPECT_TRUE(contains(broken.err, "cut.bin")) << broken.err;
}

TEST_F(DiffCli, UsageErrorsExit2BeforeAnythingIsRead) {
    const std::string a = write_file("a.bin", take());
    for (const std::vector<std::string>& args : {std::vector<std::string>{"diff", a},
                                                 {"diff", a, a, "--position", "-1"},
                                                 {"diff", a, a, "--angle", "181"},
                                                 {"diff", a, a, "--time", "nan"},
                                                 {"diff", a, a, "--rate", "0"},
                                                 {"diff", a, a, "--format", "xml"},
                                                 {"diff", a, a, "--from", "2", "--until", "1"},
                                                 {"diff", a, a, "--offset", "nan"},
                                                 {"diff", a, a, "--align", "--offset", "1"}}) {
        const run_result r = run(args);
        EXPECT_EQ(r.status, 2) << args.back() << r.err;
        EXPECT_EQ(r.out, "");
    }
    const run_result rows = run({"diff", a, a, "--max-rows", "100"});
    EXPECT_EQ(rows.status, 2);
    EXPECT_TRUE(contains(rows.err, "--max-rows")) << rows.err;
}

TEST_F(DiffCli, ATakeStartedLaterIsFoundByAlignAndThenTheSame) {
    generate_options g;
    g.seconds = 20;
    g.markers = 3;
    const model a = generated_model(g);
    model b = a;
    for (curve& c : b.curves) {
        for (keyframe& k : c.keys) k.time += 0.4f;
    }
    for (marker& m : *b.markers) m.time += 0.4f;
    write_file("a.bin", a);
    write_file("b.bin", b);
    EXPECT_EQ(run({"diff", path("a.bin"), path("b.bin")}).status, 1);

    const run_result text = run({"diff", path("a.bin"), path("b.bin"), "--align"});
    ASSERT_EQ(text.status, 0) << text.err << text.out;
    EXPECT_TRUE(contains(text.out, "aligned: B's motion is 0.400 s later than A's (correlation "))
        << text.out;
    EXPECT_TRUE(text.out.ends_with("same within tolerance\n")) << text.out;

    const run_result json = run({"diff", path("b.bin"), path("a.bin"), "--align", "--json"});
    ASSERT_EQ(json.status, 0) << json.err;
    const nlohmann::json j = nlohmann::json::parse(json.out);
    EXPECT_NEAR(j["alignment"]["offset"].get<double>(), -0.4, 1.0 / 60.0);
    EXPECT_GT(j["alignment"]["confidence"].get<double>(), 0.99);
    EXPECT_GT(j["alignment"]["overlap"].get<double>(), 19.0);
    EXPECT_EQ(j["grid"]["offset"], j["alignment"]["offset"]);

    // A known offset, without estimating.
    const run_result known = run({"diff", path("a.bin"), path("b.bin"), "--offset", "0.4"});
    EXPECT_EQ(known.status, 0) << known.out;
    EXPECT_TRUE(contains(known.out, "offset: B compared 0.400 s after each time of A"))
        << known.out;
}

TEST_F(DiffCli, TakesThatCannotBeAlignedExit3WithTheReasonAndCompareNothing) {
    generate_options g;
    g.seconds = 20;
    const model a = generated_model(g);
    g.seed = 2;
    write_file("a.bin", a);
    write_file("other.bin", generated_model(g));
    model still = a;
    for (const pose_channel ch :
         {pose_channel::position_x, pose_channel::position_y, pose_channel::position_z,
          pose_channel::rotation_x, pose_channel::rotation_y, pose_channel::rotation_z}) {
        still[camera_curve(ch)].keys = {{.time = 0.0f, .value = 0.0f}};
    }
    still[camera_curve(pose_channel::rotation_w)].keys = {{.time = 0.0f, .value = 1.0f}};
    write_file("still.bin", still);

    const run_result unrelated = run({"diff", path("a.bin"), path("other.bin"), "--align"});
    EXPECT_EQ(unrelated.status, 3);
    EXPECT_EQ(unrelated.out, "");
    EXPECT_TRUE(contains(unrelated.err, "cannot align")) << unrelated.err;
    EXPECT_TRUE(contains(unrelated.err, "correlation below 0.5")) << unrelated.err;

    const run_result flat = run({"diff", path("a.bin"), path("still.bin"), "--align"});
    EXPECT_EQ(flat.status, 3);
    EXPECT_EQ(flat.out, "");
    EXPECT_TRUE(contains(flat.err, "too short or too flat")) << flat.err;
    EXPECT_TRUE(contains(flat.err, "--offset")) << flat.err;
}
