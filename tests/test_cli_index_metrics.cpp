// `inputanim index --metrics`: each valid recording's row carries the metrics `inputanim metrics`
// prints for it (JSON Lines) and their summary columns (SQLite); a row is reused only by a run
// with the same metrics options; an index of schema 2 gains the columns.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputanim/generate.hpp"
#include "support/generated.hpp"
#include "support/index_cli.hpp"
#include "support/sqlite_database.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;

namespace {

bytes generated_seconds(int seconds, bool gaze = true, std::uint64_t seed = 1) {
    generate_options g;
    g.seconds = seconds;
    g.seed = seed;
    g.blocks.gaze = gaze;
    return write(generated_model(g));
}

class IndexMetrics : public IndexCli {
  protected:
    // What `inputanim metrics` prints for the file, without what only it says (path, level).
    json metrics_of(const std::string& file) const {
        const run_result r = run({"metrics", "--level", "structure", file});
        EXPECT_EQ(r.status, 0) << r.err;
        json m = json::parse(r.out);
        m.erase("path");
        m["measured_with"].erase("level");
        return m;
    }
};

TEST_F(IndexMetrics, EachValidRecordingCarriesTheMetricsOfTheMetricsCommand) {
    const std::string a = write_file(in_data("a.bin"), generated_seconds(20));
    const std::string b = write_file(in_data("b.bin"), generated_seconds(5, false, 2));
    const std::string bad = write_file(in_data("bad.bin"), bad_wrap_file());
    const run_result r = run({"index", "--metrics", "--jsonl", "-", data()});
    EXPECT_EQ(r.status, 1) << r.err;
    const auto rows = by_path(json_lines(r.out));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows.at(a)["metrics"], metrics_of(a));
    EXPECT_EQ(rows.at(b)["metrics"], metrics_of(b));
    EXPECT_TRUE(rows.at(b)["metrics"]["gaze"].is_null()) << "no gaze curves: no gaze metrics";
    EXPECT_TRUE(rows.at(bad)["metrics"].is_null()) << "an invalid file is not measured";
    EXPECT_FALSE(rows.at(bad).contains("metrics_error"));
    EXPECT_EQ(rows.at(a)["metrics"]["measured_with"], json({{"rate", 60.0},
                                                            {"joint", "Palm"},
                                                            {"fixation_velocity", 30.0},
                                                            {"merge_gap", 0.075},
                                                            {"merge_angle", 0.5},
                                                            {"min_fixation", 0.1}}));
}

TEST_F(IndexMetrics, WithoutTheFlagRowsHaveNoMetrics) {
    write_file(in_data("a.bin"), generated_seconds(3));
    const run_result r = run({"index", "--jsonl", "-", data()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(json::parse(r.out).contains("metrics"));
}

TEST_F(IndexMetrics, TheDatabaseHasTheSummaryColumns) {
    const std::string a = write_file(in_data("a.bin"), generated_seconds(20));
    const std::string b = write_file(in_data("b.bin"), generated_seconds(5, false, 2));
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--metrics", "--sqlite", db, data()}).status, 0);
    database d(db);
    for (const std::string& file : {a, b}) {
        const json m = metrics_of(file);
        const json row = d.row(file);
        for (const char* hand : {"left", "right"}) {
            const json& h = m["hands"][hand];
            EXPECT_EQ(row[std::string(hand) + "_path_length"], h["path_length"]) << file;
            EXPECT_EQ(row[std::string(hand) + "_pinches"], h["pinches"]) << file;
            EXPECT_EQ(row[std::string(hand) + "_coverage"], h["coverage"]) << file;
        }
        if (m["gaze"].is_null()) {
            EXPECT_TRUE(row["fixations"].is_null());
            EXPECT_TRUE(row["mean_fixation_duration"].is_null());
        } else {
            EXPECT_EQ(row["fixations"], m["gaze"]["fixations"]);
            EXPECT_EQ(row["mean_fixation_duration"], m["gaze"]["mean_fixation_duration"]);
        }
    }
    EXPECT_GT(d.row(a)["fixations"].get<int>(), 0);
}

TEST_F(IndexMetrics, ARowIsReusedOnlyByARunThatAsksForTheSameMetrics) {
    const std::string a = write_file(in_data("a.bin"), generated_seconds(5));
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 0);
    EXPECT_TRUE(database(db).row(a)["left_pinches"].is_null());

    const run_result with = run({"index", "--metrics", "--sqlite", db, "--jsonl", "-", data()});
    EXPECT_EQ(totals_of(with.err).unchanged, 0) << "a row without metrics is not reused";
    EXPECT_FALSE(database(db).row(a)["left_pinches"].is_null());
    const json measured = json::parse(with.out);

    const run_result again = run({"index", "--metrics", "--sqlite", db, "--jsonl", "-", data()});
    EXPECT_EQ(totals_of(again.err).unchanged, 1);
    EXPECT_EQ(json::parse(again.out), measured) << "the stored row, metrics included";

    const run_result without = run({"index", "--sqlite", db, "--jsonl", "-", data()});
    EXPECT_EQ(totals_of(without.err).unchanged, 0);
    EXPECT_FALSE(json::parse(without.out).contains("metrics"));
    EXPECT_TRUE(database(db).row(a)["left_pinches"].is_null()) << "the row is this run's";
}

TEST_F(IndexMetrics, AGzipFileIsMeasuredAndStandardInputSaysWhyNot) {
    const bytes b = generated_seconds(5);
    const std::string plain = write_file(path("plain.bin"), b);
    const std::string gz = in_data("a.bin.gz");
    ASSERT_EQ(std::system(("gzip -c " + plain + " > " + gz).c_str()), 0);
    const run_result r = run({"index", "--metrics", "--jsonl", "-", data()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["metrics"], metrics_of(plain));

    const run_result in = run_process(
        {"/bin/sh", "-c",
         "cat '" + plain + "' | exec '" + INPUTANIM_CLI + "' index --metrics --jsonl - -"},
        {scratch_.path(), false});
    ASSERT_EQ(in.status, 0) << in.err;
    const json row = json::parse(in.out);
    EXPECT_TRUE(row["metrics"].is_null());
    EXPECT_EQ(row["metrics_error"]["code"], "not_measured");
    EXPECT_NE(row["metrics_error"]["message"].get<std::string>().find("standard input"),
              std::string::npos);
}

TEST_F(IndexMetrics, AnIndexOfSchemaTwoGainsTheColumnsAndKeepsItsRows) {
    const std::string a = write_file(in_data("a.bin"), generated_seconds(5));
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 0);
    const json before = database(db).row(a);
    {
        // The index as inputanim wrote it before --metrics: schema 2, without the columns.
        database d(db);
        d.make_schema_3();
        for (const char* column :
             {"left_path_length", "right_path_length", "left_pinches", "right_pinches",
              "left_coverage", "right_coverage", "fixations", "mean_fixation_duration"}) {
            d.query(std::string("ALTER TABLE recordings DROP COLUMN ") + column);
        }
        d.query("PRAGMA user_version = 2");
    }
    const run_result r = run({"index", "--sqlite", db, data()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(totals_of(r.err).unchanged, 1) << "its rows are still good";
    database d(db);
    EXPECT_EQ(d.query("PRAGMA user_version")[0]["user_version"], 4);
    EXPECT_EQ(d.row(a), before);
    ASSERT_EQ(run({"index", "--metrics", "--sqlite", db, data()}).status, 0);
    EXPECT_FALSE(database(db).row(a)["left_path_length"].is_null());
}

}  // namespace
