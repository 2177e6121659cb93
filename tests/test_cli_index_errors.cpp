// `inputanim index` refusing what would lose data or leave a wrong verdict: usage errors found
// before anything is opened, databases that are not its own, outputs that cannot be written.
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/index_cli.hpp"
#include "support/sqlite_database.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Runs `sql` on a new database file made the way another application makes its own.
void make_database(const std::string& file, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
    char* message = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK)
        << (message ? message : "");
    sqlite3_free(message);
    sqlite3_close(db);
}

// --- usage errors, found before anything is opened ---------------------------------------------

TEST_F(IndexCli, AnEmptyPathIsAUsageErrorAndChangesNothing) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 0);
    const std::string before = slurp(db);
    // `index --prune "$DIR"` with DIR unset.
    const run_result r = run({"index", "--sqlite", db, "--prune", ""});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("an empty name (an unset variable?)"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(db), before);
    EXPECT_EQ(database(db).paths().size(), 1u);
}

TEST_F(IndexCli, MoreJobsThanTheCeilingIsAUsageErrorNamingIt) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    for (const char* jobs : {"257", "100000"}) {
        const run_result r = run({"index", "--jobs", jobs, "--jsonl", "-", data()});
        EXPECT_EQ(r.status, 2) << jobs;
        EXPECT_NE(r.err.find("--jobs: " + std::string(jobs) +
                             " is above the largest accepted "
                             "value 256"),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(r.out, "") << "nothing indexed";
    }
    EXPECT_EQ(run({"index", "--jobs", "0", "--jsonl", "-", data()}).status, 2);
}

// --- the environment refusing threads ----------------------------------------------------------

TEST_F(IndexCli, WhenTheSystemRefusesEveryReadingThreadTheRunEndsWithAMessageNotAnAbort) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    bool ran = false;
    const run_result r =
        run_with_thread_limit({"index", "--jobs", "4", "--jsonl", "-", data()}, 1, 54331, ran);
    if (!ran) GTEST_SKIP() << "needs root to run the command as a user with a process limit";
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("inputanim: cannot start a thread to read files: Resource temporarily "
                         "unavailable"),
              std::string::npos)
        << r.err;
}

TEST_F(IndexCli, WhenTheSystemRefusesSomeThreadsTheRunGoesOnWithTheOthersAndSaysSo) {
    std::vector<std::string> files;
    for (int i = 0; i < 40; ++i) {
        files.push_back(
            write_file(in_data(std::to_string(i) + ".bin"), quiet_model(shape::v11_compact)));
    }
    bool ran = false;
    // The main thread and two workers.
    const run_result r =
        run_with_thread_limit({"index", "--jobs", "8", "--jsonl", "-", data()}, 3, 54332, ran);
    if (!ran) GTEST_SKIP() << "needs root to run the command as a user with a process limit";
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("inputanim: warning: 2 of 8 threads started (the system refused the "
                         "next: Resource temporarily unavailable)"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(json_lines(r.out).size(), files.size()) << "every file has its row";
}

TEST_F(IndexCli, WhenTheSystemRefusesTheDatabasesThreadTheMainThreadWritesEveryRowAndSaysSo) {
    for (int i = 0; i < 40; ++i) {
        write_file(in_data(std::to_string(i) + ".bin"), quiet_model(shape::v11_compact));
    }
    const std::string db = path("index.sqlite");
    bool ran = false;
    // The main thread and the two workers: the database's writer is the thread refused.
    const run_result r =
        run_with_thread_limit({"index", "--jobs", "2", "--sqlite", db, data()}, 3, 54334, ran);
    if (!ran) GTEST_SKIP() << "needs root to run the command as a user with a process limit";
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("inputanim: warning: the database is written by the main thread (the "
                         "system refused a thread of its own: Resource temporarily unavailable)"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(database(db).query("SELECT count(*) AS n FROM recordings")[0]["n"], 40);
}

TEST_F(IndexCli, AnEmptyOutputNameIsAUsageError) {
    for (const char* output : {"--jsonl", "--sqlite"}) {
        const run_result r = run({"index", output, "", data()});
        EXPECT_EQ(r.status, 2) << output;
        EXPECT_NE(r.err.find("an empty name"), std::string::npos) << r.err;
    }
}

TEST_F(IndexCli, JsonLinesOverTheDatabaseOrItsJournalIsRefusedBeforeAnythingIsOpened) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 0);
    const std::string before = slurp(db);
    fs::create_symlink(db, path("alias.sqlite"));
    for (const std::string& jsonl :
         {db, path("./index.sqlite"), path("data/../index.sqlite"), path("alias.sqlite"),
          db + "-wal", db + "-shm", db + "-journal"}) {
        const run_result r = run({"index", "--sqlite", db, "--jsonl", jsonl, data()});
        EXPECT_EQ(r.status, 2) << jsonl;
        EXPECT_NE(r.err.find("--jsonl " + jsonl + " is the database"), std::string::npos) << r.err;
        EXPECT_EQ(slurp(db), before) << jsonl;
    }
    EXPECT_FALSE(fs::exists(db + "-journal")) << "not even created";
}

TEST_F(IndexCli, AnOutputThatIsAFileToIndexIsRefusedAndTheFileKept) {
    const std::string f = write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string before = slurp(f);
    fs::create_hard_link(f, path("hard.bin"));
    fs::create_symlink(f, path("soft.bin"));
    for (const std::string& out : {f, path("hard.bin"), path("soft.bin"), path("data/./a.bin")}) {
        for (const char* option : {"--jsonl", "--sqlite"}) {
            const run_result r = run({"index", option, out, f});
            EXPECT_EQ(r.status, 2) << option << ' ' << out;
            EXPECT_NE(r.err.find(": not written: it is the input file itself"), std::string::npos)
                << r.err;
            EXPECT_EQ(slurp(f), before) << option << ' ' << out;
        }
    }
    EXPECT_FALSE(fs::exists(f + "-journal"));
    EXPECT_FALSE(fs::exists(f + "-wal"));
}

// --- databases that are not an inputanim index
// ----------------------------------------------------

TEST_F(IndexCli, ADatabaseOfAnotherApplicationIsRefusedWithoutChangingAByte) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string app = path("app.db");
    make_database(app,
                  "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
                  "INSERT INTO users (name) VALUES ('ada');");
    const std::string before = slurp(app);
    const run_result r = run({"index", "--sqlite", app, data()});
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find("inputanim: " + app + ": not an inputanim index"), std::string::npos)
        << r.err;
    EXPECT_EQ(slurp(app), before);
    EXPECT_FALSE(fs::exists(app + "-wal")) << "its journal mode was not changed";
    const std::vector<json> tables =
        database(app).query("SELECT name FROM sqlite_schema WHERE type = 'table'");
    ASSERT_EQ(tables.size(), 1u);
    EXPECT_EQ(tables[0]["name"], "users");
}

TEST_F(IndexCli, AnEmptyDatabaseOrWithOnlyAnotherVersionIsTreatedByItsStamp) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    // An empty file and a database without tables become indexes.
    const std::string empty = write_file("empty.db", bytes{});
    EXPECT_EQ(run({"index", "--sqlite", empty, data()}).status, 0);
    EXPECT_EQ(database(empty).paths().size(), 1u);
    const std::string blank = path("blank.db");
    make_database(blank, "PRAGMA user_version = 0;");
    EXPECT_EQ(run({"index", "--sqlite", blank, data()}).status, 0);

    // An index of schema 1 (inputanim before verdicts carried their options) and a database
    // that only carries some user_version are left as they are.
    const std::string old = path("old.db");
    make_database(old,
                  "CREATE TABLE recordings (path TEXT PRIMARY KEY);"
                  "PRAGMA user_version = 1;");
    const std::string other = path("other.db");
    make_database(other, "PRAGMA user_version = 7; PRAGMA application_id = 42;");
    for (const std::string& file : {old, other}) {
        const std::string before = slurp(file);
        const run_result r = run({"index", "--sqlite", file, data()});
        EXPECT_EQ(r.status, 3) << file;
        EXPECT_EQ(slurp(file), before) << file;
    }
    const run_result r = run({"index", "--sqlite", old, data()});
    EXPECT_NE(r.err.find("an inputanim index of schema 1"), std::string::npos) << r.err;
}

// --- shards and merging
// -----------------------------------------------------------------------------

TEST_F(IndexCli, AShardIsKOfNWithKBelowN) {
    for (const char* shard : {"3/3", "1/0", "a/b", "-1/2", "1", "1/2/3", " 1/2", "1/"}) {
        const run_result r = run({"index", "--shard", shard, "--jsonl", "-", data()});
        EXPECT_EQ(r.status, 2) << shard;
        EXPECT_NE(r.err.find("K/N with 0 <= K < N"), std::string::npos) << r.err;
    }
}

TEST_F(IndexCli, AShardOutOfRangeIsToldItsRealBounds) {
    const std::pair<const char*, const char*> cases[] = {
        {"0/0", "N is out of range (1 to 4294967295)"},
        {"0/4294967296", "N is out of range (1 to 4294967295)"},
        {"0/99999999999999999999", "N is out of range (1 to 4294967295)"},
        {"3/3", "K is out of range (0 to 2)"},
        {"4294967295/7", "K is out of range (0 to 6)"},
        {"1/x", "two whole numbers with a / between them"},
    };
    for (const auto& [shard, why] : cases) {
        const run_result r = run({"index", "--shard", shard, "--jsonl", "-", data()});
        EXPECT_EQ(r.status, 2) << shard;
        EXPECT_NE(r.err.find("1 <= N <= 4294967295, not " + std::string(shard) + ": " + why),
                  std::string::npos)
            << r.err;
    }
    EXPECT_EQ(run({"index", "--shard", "4294967294/4294967295", "--jsonl", "-", data()}).status, 0);
}

TEST_F(IndexCli, MergeRefusesAnInputThatIsNotAnIndexAndLeavesTheOutputAsItWas) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string out = path("out.db");
    const std::string shard = path("shard.db");
    ASSERT_EQ(run({"index", "--sqlite", out, data()}).status, 0);
    ASSERT_EQ(run({"index", "--sqlite", shard, in_data("a.bin")}).status, 0);
    const std::string app = path("app.db");
    make_database(app, "CREATE TABLE recordings (path TEXT);");
    const std::string before = slurp(app);

    // Not an index: invalid input (1); missing: unreadable (3).
    for (const auto& [input, status] : {std::pair{app, 1}, std::pair{path("missing.db"), 3}}) {
        const run_result r = run({"index", "merge", out, shard, input});
        EXPECT_EQ(r.status, status) << input;
        EXPECT_NE(r.err.find(input), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(path("missing.db"))) << "not created";
    EXPECT_EQ(slurp(app), before);
    const run_result itself = run({"index", "merge", out, out});
    EXPECT_EQ(itself.status, 2) << "into itself";
    EXPECT_NE(itself.err.find(": not written: it is the input file itself"), std::string::npos)
        << itself.err;
    EXPECT_EQ(run({"index", "merge", out}).status, 2) << "nothing to merge";
    EXPECT_EQ(database(out).query("SELECT count(*) AS n FROM recordings")[0]["n"], 1);
}

TEST_F(IndexCli, MergeRefusesShardsThatAreNotOneWholeAndWritesNothing) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    write_file(in_data("b.bin"), quiet_model(shape::v10));
    const auto shard = [&](const std::string& kn, const std::string& name) {
        const std::string db = path(name);
        EXPECT_EQ(run({"index", "--shard", kn, "--sqlite", db, data()}).status, 0) << kn;
        return db;
    };
    const std::string s0 = shard("0/4", "s0.db");
    const std::string s2 = shard("2/4", "s2.db");
    const std::string out = path("out.db");
    const auto refused = [&](const std::vector<std::string>& inputs, const std::string& says) {
        std::vector<std::string> args = {"index", "merge", out};
        args.insert(args.end(), inputs.begin(), inputs.end());
        const run_result r = run(args);
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("nothing was merged into " + out), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out));
    };
    refused({s0, s2}, "2 of 4 shards are missing: 1, 3");
    refused({s2}, "3 of 4 shards are missing: 0-1, 3");
    // The same shard number of another total.
    const std::string other = shard("2/5", "other.db");
    refused({s0, other}, "s0.db holds shard 0/4 and " + other + " holds shard 2/5");
    // A shard whose run could not list one of its PATHs is not complete.
    const std::string cut = path("cut.db");
    EXPECT_EQ(run({"index", "--invalid-ok", "--shard", "1/4", "--sqlite", cut, data(),
                   in_data("no-such-folder")})
                  .status,
              3);
    refused({s0, cut, s2, shard("3/4", "s3.db")},
            "shards whose run did not complete: " + cut + " (1/4)");
    // Of many shards the first gaps are named.
    refused({shard("5/100", "s5.db")}, "99 of 100 shards are missing: 0-4, 6-99");
}

TEST_F(IndexCli, MergeRefusesShardsMadeUnderDifferentOptionsNamingThem) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    write_file(in_data("b.bin"), quiet_model(shape::v10));
    const std::string s0 = path("s0.db");
    const std::string s1 = path("s1.db");
    const std::string out = path("out.db");
    ASSERT_EQ(run({"index", "--shard", "0/2", "--sqlite", s0, data()}).status, 0);
    ASSERT_EQ(run({"index", "--shard", "1/2", "--level", "full", "--max-markers", "5", "--sqlite",
                   s1, data()})
                  .status,
              0);
    const run_result r = run({"index", "merge", out, s0, s1});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find(s0 + " (shard 0/2) and " + s1 +
                         " (shard 1/2) were indexed under different options: "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("level \"structure\" and \"full\""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("limits.max_markers none and 5"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was merged into " + out), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
    // Run again under the first's options, the shard merges.
    ASSERT_EQ(run({"index", "--shard", "1/2", "--sqlite", s1, data()}).status, 0);
    EXPECT_EQ(run({"index", "merge", out, s0, s1}).status, 0);
}

TEST_F(IndexCli, TwoRunsStartedTogetherOnANewDatabaseBothIndexTheirFolders) {
    write_file(path("left/a.bin"), quiet_model(shape::v11_compact));
    write_file(path("right/b.bin"), quiet_model(shape::v10));
    for (int pair = 0; pair < 12; ++pair) {
        const std::string db = path("together-" + std::to_string(pair) + ".db");
        run_result left;
        run_result right;
        std::thread a([&] { left = run({"index", "--sqlite", db, path("left")}); });
        std::thread b([&] { right = run({"index", "--sqlite", db, path("right")}); });
        a.join();
        b.join();
        EXPECT_EQ(left.status, 0) << pair << ": " << left.err;
        EXPECT_EQ(right.status, 0) << pair << ": " << right.err;
        EXPECT_EQ(database(db).query("SELECT count(*) AS n FROM recordings")[0]["n"], 2) << pair;
    }
}

TEST_F(IndexCli, AShardsDatabaseTakesNoOtherShard) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string db = path("part.db");
    ASSERT_EQ(run({"index", "--shard", "0/3", "--sqlite", db, data()}).status, 0);
    const run_result r = run({"index", "--shard", "0/4", "--sqlite", db, data()});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("holds shard 0/3, not 0/4; index it into another file"), std::string::npos)
        << r.err;
}

TEST_F(IndexCli, AMergeGlobThatMatchesNothingIsAnError) {
    const run_result r = run({"index", "merge", path("out.db"), path("parts/part-*.db")});
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find("parts/part-*.db: matches no file"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("out.db")));
}

TEST_F(IndexCli, ProgressEveryNeedsProgress) {
    EXPECT_EQ(run({"index", "--progress-every", "10", "--jsonl", "-", data()}).status, 2);
    EXPECT_EQ(run({"index", "--progress", "--progress-every", "0", "--jsonl", "-", data()}).status,
              2);
}

TEST_F(IndexCli, AnIndexWhosePragmasAreRightButColumnsAreNotIsRefusedUntouched) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string out = path("out.db");
    ASSERT_EQ(run({"index", "--sqlite", out, data()}).status, 0);
    // The same schema and pragmas, with columns 2 and 3 of table recordings swapped: copied by
    // position, its rows would put sizes in `valid`.
    std::string sql;
    for (const json& row :
         database(out).query("SELECT sql FROM sqlite_schema WHERE sql NOT NULL")) {
        sql += row["sql"].get<std::string>() + ";\n";
    }
    std::vector<std::string> lines = lines_of(sql);
    const auto line_of = [&](const std::string& column) {
        return std::find_if(lines.begin(), lines.end(), [&](const std::string& line) {
            return line.find_first_not_of(' ') == line.find(column + " ");
        });
    };
    ASSERT_NE(line_of("valid"), lines.end()) << sql;
    ASSERT_NE(line_of("bytes"), lines.end()) << sql;
    std::iter_swap(line_of("valid"), line_of("bytes"));
    sql.clear();
    for (const std::string& line : lines) sql += line + "\n";
    const std::string forged = path("forged.db");
    make_database(forged, sql +
                              "INSERT INTO recordings (path, valid, bytes, checked_with, report, "
                              "indexed_at) VALUES ('x.bin', 1, 1234, '{}', '{}', 0);"
                              "PRAGMA application_id = 1229024888; PRAGMA user_version = 4;");
    const std::string forged_before = slurp(forged);
    const std::string out_before = slurp(out);

    const run_result merged = run({"index", "merge", out, forged});
    EXPECT_EQ(merged.status, 1) << merged.err;
    EXPECT_NE(merged.err.find("inputanim: " + forged +
                              ": not an inputanim index of schema 4 (table recordings column 2 "
                              "is bytes INTEGER, not valid INTEGER NOT NULL)"),
              std::string::npos)
        << merged.err;
    EXPECT_EQ(slurp(forged), forged_before);
    EXPECT_EQ(slurp(out), out_before);
    EXPECT_EQ(database(out).paths(), std::vector<std::string>{in_data("a.bin")});

    // As the database of a run, it is not an index either.
    const run_result indexed = run({"index", "--sqlite", forged, data()});
    EXPECT_EQ(indexed.status, 3) << indexed.err;
    EXPECT_NE(indexed.err.find("not an inputanim index: its pragmas say schema 4, but table "
                               "recordings column 2 is bytes INTEGER"),
              std::string::npos)
        << indexed.err;
    EXPECT_EQ(slurp(forged), forged_before);
    EXPECT_FALSE(fs::exists(forged + "-wal"));
}

TEST_F(IndexCli, AMergeIntoANewOutputThatFailsLeavesNoOutput) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string shard = path("shard.db");
    ASSERT_EQ(run({"index", "--sqlite", shard, data()}).status, 0);
    const std::string app = path("app.db");
    make_database(app, "CREATE TABLE users (id INTEGER PRIMARY KEY);");
    const std::string out = path("new.db");

    EXPECT_EQ(run({"index", "merge", out, shard, app}).status, 1);
    EXPECT_FALSE(fs::exists(out)) << "the first input merged is not left behind";
    ASSERT_EQ(run({"index", "merge", out, shard}).status, 0);
    EXPECT_EQ(database(out).paths(), std::vector<std::string>{in_data("a.bin")});
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path(""))) {
        if (e.is_regular_file()) names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"app.db", "new.db", "shard.db"}))
        << "no temporary file, no journal";
}

TEST_F(IndexCli, ADatabaseThatIsNotARegularFileIsRefusedBeforeSQLiteOpensIt) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string shard = path("shard.db");
    ASSERT_EQ(run({"index", "--sqlite", shard, data()}).status, 0);
    const std::string fifo = path("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    fs::create_symlink("/dev/null", path("null-link"));
    std::vector<std::pair<std::string, std::string>> targets = {
        {"/dev/null", "a character device"},
        {path("null-link"), "a character device"},
        {fifo, "a FIFO"},
        {path(""), "a directory"}};
    // A device node of its own (as root), so that a journal beside it would show.
    const std::string node = path("null-node");
    if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        targets.emplace_back(node, "a character device");
    }
    for (const auto& [target, what] : targets) {
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"index", "--sqlite", target, data()},
              std::vector<std::string>{"index", "merge", target, shard}}) {
            const run_result r = run(args);
            EXPECT_EQ(r.status, 2) << args[1] << " " << target << ": " << r.err;
            EXPECT_NE(r.err.find("inputanim: " + target + ": not a database file: " + what),
                      std::string::npos)
                << r.err;
        }
    }
    for (const std::string& name : {fifo, node, path("null-link")}) {
        for (const char* suffix : {"-journal", "-wal", "-shm"}) {
            EXPECT_FALSE(fs::exists(name + suffix)) << name + suffix;
        }
    }
    EXPECT_TRUE(fs::is_fifo(fifo));
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// --- outputs that cannot be written
// ---------------------------------------------------------------

TEST_F(IndexCli, ForceAndPruneNeedADatabase) {
    for (const char* flag : {"--force", "--prune"}) {
        const run_result r = run({"index", flag, "--jsonl", "-", data()});
        EXPECT_EQ(r.status, 2) << flag;
        EXPECT_NE(r.err.find("--sqlite"), std::string::npos) << r.err;
    }
}

TEST_F(IndexCli, WithoutAnOutputOrAPathItIsAUsageError) {
    const run_result no_output = run({"index", data()});
    EXPECT_EQ(no_output.status, 2);
    EXPECT_EQ(no_output.err, "inputanim index: give --jsonl FILE and/or --sqlite FILE\n");
    const run_result no_path = run({"index", "--jsonl", "-"});
    EXPECT_EQ(no_path.status, 2);
    EXPECT_NE(no_path.err.find("PATH is required"), std::string::npos) << no_path.err;
    EXPECT_EQ(run({"index", "--level", "deep", "--jsonl", "-", data()}).status, 2);
}

TEST_F(IndexCli, AnOutputThatCannotBeOpenedOrWrittenExitsThree) {
    write_file(in_data("valid.bin"), quiet_model(shape::v11_compact));
    const std::string no_folder = path("missing/rows.jsonl");
    const run_result jsonl = run({"index", "--jsonl", no_folder, data()});
    EXPECT_EQ(jsonl.status, 3);
    EXPECT_EQ(lines_of(jsonl.err).at(0),
              "inputanim: " + no_folder + ": cannot write: No such file or directory");

    if (fs::exists("/dev/full")) {
        const run_result full = run({"index", "--jsonl", "/dev/full", data()});
        EXPECT_EQ(full.status, 3);
        EXPECT_NE(full.err.find("/dev/full: cannot write: No space left on device"),
                  std::string::npos)
            << full.err;
    }

    const std::string text = write_file("not-a-database", text_bytes(std::string(600, 'x')));
    const run_result not_db = run({"index", "--sqlite", text, data()});
    EXPECT_EQ(not_db.status, 3);
    EXPECT_NE(not_db.err.find("inputanim: " + text + ": file is not a database"), std::string::npos)
        << not_db.err;

    const run_result no_db_folder = run({"index", "--sqlite", path("missing/x.sqlite"), data()});
    EXPECT_EQ(no_db_folder.status, 3);
    EXPECT_NE(no_db_folder.err.find("unable to open database file"), std::string::npos)
        << no_db_folder.err;
}

TEST_F(IndexCli, EveryRunEndsWithTheTotalsLine) {
    const run_result empty = run({"index", "--jsonl", "-", data()});
    EXPECT_EQ(empty.status, 0) << "nothing to index is not an error";
    EXPECT_EQ(totals_of(empty.err).files, 0);
    const run_result failed = run({"index", "--jsonl", path("missing/rows.jsonl"), data()});
    EXPECT_EQ(failed.status, 3);
    EXPECT_EQ(totals_of(failed.err).files, 0);
}

}  // namespace
