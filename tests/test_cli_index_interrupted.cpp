// `inputanim index --sqlite` killed (SIGKILL) at random moments over a mixed folder tree (with a
// tar of 600 recordings in it), 20 times with changing options, and files changing between
// rounds: the database left behind always passes `PRAGMA integrity_check`, every row holds the
// verdict that a fresh one-file validation gives under the options the row records, and an
// archive the database holds as walked whole has the rows of all its members. No run leaves a torn
// row or a stale verdict; a run killed before its schema was written leaves an empty database that
// the next run indexes into. The moments of the kills come from a fresh seed each run
// (support/seed.hpp).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/archives.hpp"
#include "support/index_cli.hpp"
#include "support/seed.hpp"
#include "support/sqlite_database.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Starts `inputanim ARGS...` in the background; returns its pid.
pid_t start(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {INPUTANIM_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    return start_process(argv);
}

// The command-line options that give the options a row records (its "checked_with").
std::vector<std::string> options_of(const json& checked_with) {
    std::vector<std::string> args = {"--level", checked_with["level"], "--layout",
                                     checked_with["layout"]};
    for (const auto& [name, value] : checked_with["limits"].items()) {
        if (value.is_null()) continue;
        std::string flag = "--" + name;
        for (char& c : flag) c = c == '_' ? '-' : c;
        args.push_back(flag);
        args.push_back(std::to_string(value.get<std::uint64_t>()));
    }
    return args;
}

class IndexInterrupted : public IndexCli {
  protected:
    // Every row of `db` against `validate --json` of its file under the row's options.
    void expect_rows_are_fresh_verdicts(const std::string& db) {
        database d(db);
        ASSERT_EQ(d.integrity(), "ok");
        std::map<std::string, std::vector<json>> by_options;
        for (const json& row : d.query("SELECT path, valid, error_code, checked_with, report "
                                       "FROM recordings")) {
            json report = json::parse(row["report"].get<std::string>());
            // A member's place in its archive is the index's; validate names the member alone.
            for (const char* field :
                 {"archive", "member", "member_ordinal", "member_offset", "member_size"}) {
                report.erase(field);
            }
            EXPECT_EQ(report["valid"].get<bool>(), row["valid"] == 1) << row.dump();
            if (row["error_code"].is_string()) {
                EXPECT_EQ(report["error"]["code"], row["error_code"]) << row.dump();
            }
            by_options[row["checked_with"].get<std::string>()].push_back(report);
        }
        for (const auto& [options, reports] : by_options) {
            std::vector<std::string> args = {"validate", "--json"};
            const std::vector<std::string> flags = options_of(json::parse(options));
            args.insert(args.end(), flags.begin(), flags.end());
            for (const json& r : reports) args.push_back(r["path"]);
            const std::map<std::string, json> fresh = by_path(json_lines(run(args).out));
            for (const json& r : reports) {
                const auto it = fresh.find(r["path"]);
                if (it == fresh.end()) {
                    // validate reports a file it cannot open on stderr: so must the row.
                    EXPECT_EQ(r["error"]["code"], "unreadable") << r.dump();
                    continue;
                }
                EXPECT_EQ(r, it->second) << "a stale or torn verdict";
            }
        }
        for (const json& archive : d.query("SELECT path FROM archives")) {
            EXPECT_EQ(d.query("SELECT count(*) AS n FROM recordings WHERE archive = ?1",
                              archive["path"].get<std::string>())[0]["n"],
                      archive_members)
                << "an archive held as walked whole lacks rows";
        }
    }

    static constexpr int archive_members = 600;
};

TEST_F(IndexInterrupted, AKilledRunLeavesASoundDatabaseOfTrueVerdicts) {
    // More files than one transaction holds (500 changes), so that kills land between commits.
    ASSERT_EQ(run({"gen", "--count", "700", "--seconds", "0.5", "--dir", in_data("gen")}).status,
              0);
    const mixed_paths mixed = make_mixed_folder();
    {
        ASSERT_EQ(run({"gen", "--count", std::to_string(archive_members), "--seconds", "0.5",
                       "--seed", "5000", "--dir", path("members")})
                      .status,
                  0);
        std::vector<archive_entry_spec> members;
        for (const fs::directory_entry& e : fs::directory_iterator(path("members"))) {
            const std::string text = slurp(e.path());
            members.push_back(
                {e.path().filename().string(),
                 bytes(reinterpret_cast<const std::byte*>(text.data()),
                       reinterpret_cast<const std::byte*>(text.data()) + text.size())});
        }
        write_file(in_data("takes.tar"), make_archive(members, "ustar"));
    }
    std::vector<std::string> unsorted;
    for (int i = 0; i < 20; ++i) {
        unsorted.push_back(
            write_file(in_data("unsorted/" + std::to_string(i) + ".bin"), unsorted_model()));
    }
    const std::string db = path("index.sqlite");

    // How long a whole run takes here, so that kills fall anywhere inside one.
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(run({"index", "--sqlite", path("timing.sqlite"), "--level", "full", data()}).status,
              3);
    const auto whole = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - t0);

    const std::uint32_t seed = fresh_test_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 random(seed);
    const std::vector<std::vector<std::string>> option_sets = {
        {},
        {"--level", "full"},
        {"--level", "full", "--max-bytes", "20000"},
        {"--layout", "compact", "--max-markers", "2"},
    };
    const auto index_args = [&] {
        std::vector<std::string> args = {"index", "--sqlite", db, "--prune"};
        const auto& options = option_sets[random() % option_sets.size()];
        args.insert(args.end(), options.begin(), options.end());
        args.push_back(data());
        return args;
    };
    for (int round = 0; round < 12; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        if (round % 4 == 3) {
            // Files change, and a run finishes: a verdict left stale would show. (A row may
            // describe an older content only until a run reaches its file, so files change only
            // before a run that is let finish.)
            for (int i = 0; i < 3; ++i) {
                const std::string& changed = unsorted[random() % unsorted.size()];
                write_file(changed,
                           random() % 2 ? bad_wrap_file() : write(quiet_model(shape::v10)));
                fs::last_write_time(changed,
                                    fs::last_write_time(changed) + std::chrono::seconds(round + i));
            }
            EXPECT_EQ(run(index_args()).status, 3);
            expect_rows_are_fresh_verdicts(db);
        }
        const pid_t pid = start(index_args());
        ASSERT_GT(pid, 0);
        std::this_thread::sleep_for(std::chrono::microseconds(random() % whole.count()));
        kill(pid, SIGKILL);
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        if (!fs::exists(db)) continue;  // killed before it created the file
        if (database(db).schema_objects() == 0) {
            // Killed after SQLite created the file and before the schema's transaction
            // committed (a schema is never half there): an empty database, which the next run
            // takes as new and indexes every file into.
            EXPECT_EQ(database(db).integrity(), "ok");
            const run_result next = run(index_args());
            EXPECT_EQ(next.status, 3) << next.err;
            EXPECT_EQ(database(db).paths().size(), 700u + 7u + archive_members + unsorted.size())
                << next.err;
        }
        expect_rows_are_fresh_verdicts(db);
    }
    // And a run left to finish still finds every file.
    const run_result last = run({"index", "--sqlite", db, data()});
    EXPECT_EQ(last.status, 3) << mixed.dangling << " is unreadable";
    expect_rows_are_fresh_verdicts(db);
    EXPECT_EQ(database(db).paths().size(), 700u + 7u + archive_members + unsorted.size());
}

}  // namespace
