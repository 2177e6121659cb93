// `inputanim index`, run as a user runs it: which files of a folder tree become rows, the JSON
// Lines and the SQLite database it writes (opened and queried here), re-indexing, pruning,
// threads, the progress line and the exit statuses.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_fixture.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

model quiet_model(shape s) {
    return without_warnings(small_model(s));
}

// Valid, with one warning at every level: a negative first key time.
model warning_model() {
    model m = quiet_model(shape::v11_compact);
    m[camera_curve(pose_channel::position_x)].keys[0].time = -0.5f;
    return m;
}

// Invalid at level structure: the first bool curve's pre-wrap mode is 3.
bytes bad_wrap_file() {
    const model m = quiet_model(shape::v11_compact);
    bytes b = write(m);
    put_i32(b, curve_offset(m, hand_state_first), 3);
    return b;
}

bytes text_bytes(const std::string& text) {
    bytes b;
    for (const char c : text) b.push_back(static_cast<std::byte>(c));
    return b;
}

std::map<std::string, json> by_path(const std::vector<json>& objects) {
    std::map<std::string, json> m;
    for (const json& j : objects) m[j["path"].get<std::string>()] = j;
    return m;
}

// The counts of the line `index` ends with.
struct totals {
    int files = -1;
    int recordings = -1;
    int invalid = -1;
    int unreadable = -1;
    int other = -1;
    int unchanged = -1;
    int pruned = -1;
};

totals totals_of(const std::string& err) {
    static const std::regex line(
        R"(inputanim index: (\d+) files, (\d+) recordings, (\d+) invalid, (\d+) unreadable, )"
        R"((\d+) other, (\d+) unchanged(?:, (\d+) pruned)?, \d+\.\d\d s \(\d+ files/s\)\n$)");
    std::smatch m;
    totals t;
    EXPECT_TRUE(std::regex_search(err, m, line)) << "no totals line at the end of:\n" << err;
    if (m.empty()) return t;
    t.files = std::stoi(m[1]);
    t.recordings = std::stoi(m[2]);
    t.invalid = std::stoi(m[3]);
    t.unreadable = std::stoi(m[4]);
    t.other = std::stoi(m[5]);
    t.unchanged = std::stoi(m[6]);
    if (m[7].matched) t.pruned = std::stoi(m[7]);
    return t;
}

// A SQLite database opened read-only; rows come back as JSON objects (column name to value, with
// SQLite's own types: null, integer, real, text).
class database {
  public:
    explicit database(const std::string& file) {
        EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK)
            << file;
    }
    ~database() { sqlite3_close(db_); }
    database(const database&) = delete;
    database& operator=(const database&) = delete;

    std::vector<json> query(const std::string& sql, const std::string& parameter = {}) {
        std::vector<json> rows;
        sqlite3_stmt* s = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK)
            << sqlite3_errmsg(db_);
        if (!parameter.empty()) sqlite3_bind_text(s, 1, parameter.c_str(), -1, SQLITE_TRANSIENT);
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            json row = json::object();
            for (int i = 0; i < sqlite3_column_count(s); ++i) {
                const std::string name = sqlite3_column_name(s, i);
                switch (sqlite3_column_type(s, i)) {
                    case SQLITE_INTEGER:
                        row[name] = sqlite3_column_int64(s, i);
                        break;
                    case SQLITE_FLOAT:
                        row[name] = sqlite3_column_double(s, i);
                        break;
                    case SQLITE_TEXT:
                        row[name] = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
                        break;
                    default:
                        row[name] = nullptr;
                }
            }
            rows.push_back(row);
        }
        EXPECT_EQ(rc, SQLITE_DONE) << sqlite3_errmsg(db_);
        sqlite3_finalize(s);
        return rows;
    }

    json row(const std::string& path) {
        const std::vector<json> rows = query("SELECT * FROM recordings WHERE path = ?1", path);
        EXPECT_EQ(rows.size(), 1u) << "one row for " << path;
        return rows.empty() ? json() : rows[0];
    }

    std::vector<std::string> paths() {
        std::vector<std::string> result;
        for (const json& r : query("SELECT path FROM recordings ORDER BY path")) {
            result.push_back(r["path"]);
        }
        return result;
    }

  private:
    sqlite3* db_ = nullptr;
};

class IndexCli : public cli_fixture {
  protected:
    void SetUp() override { fs::create_directories(data()); }

    // The folder that is indexed; stdout, stderr and outputs live beside it.
    std::string data() const { return path("data"); }
    std::string in_data(const std::string& name) const { return path("data/" + name); }

    // A folder with one file of every kind index meets. Returns the paths of the rows expected.
    struct mixed_paths {
        std::string valid, warned, bad_wrap, empty, magic_prefix, dangling, text, tiny_text, nested;
    };
    mixed_paths make_mixed_folder() const {
        mixed_paths p;
        p.valid = write_file(in_data("valid.bin"), quiet_model(shape::v11_compact));
        p.warned = write_file(in_data("warned.dat"), warning_model());
        p.bad_wrap = write_file(in_data("bad-wrap.bin"), bad_wrap_file());
        p.empty = write_file(in_data("empty.bin"), bytes{});
        // A file cut short inside the magic is a damaged recording, not some other file.
        p.magic_prefix = write_file(in_data("cut.bin"), bytes{std::byte{0xc6}, std::byte{0x42}});
        p.dangling = in_data("dangling.bin");
        fs::create_symlink(in_data("no-such-target.bin"), p.dangling);
        p.text = write_file(in_data("notes.bin"), text_bytes("notes about the session\n"));
        p.tiny_text = write_file(in_data("x.txt"), text_bytes("ok"));
        p.nested = write_file(in_data("a/b/c/deep"), quiet_model(shape::v10));
        return p;
    }
};

// --- which files become rows --------------------------------------------------------------------

TEST_F(IndexCli, AMixedFolderGivesARowPerRecordingDamagedOrUnreadableFileAndSkipsOtherFiles) {
    const mixed_paths p = make_mixed_folder();
    ASSERT_EQ(mkfifo(in_data("pipe").c_str(), 0644), 0) << "a FIFO must never be opened";
    const run_result r = run({"index", "--jsonl", "-", data()});
    EXPECT_EQ(r.status, 1) << "some recordings are invalid or unreadable\n" << r.err;

    const std::map<std::string, json> rows = by_path(json_lines(r.out));
    std::vector<std::string> row_paths;
    for (const auto& [file, object] : rows) row_paths.push_back(file);
    std::vector<std::string> expected = {p.valid,        p.warned,   p.bad_wrap, p.empty,
                                         p.magic_prefix, p.dangling, p.nested};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(row_paths, expected);

    EXPECT_EQ(rows.at(p.valid)["valid"], true);
    EXPECT_EQ(rows.at(p.warned)["valid"], true) << "found by content, not by extension";
    EXPECT_EQ(rows.at(p.nested)["version"], "1.0") << "found in a nested folder";
    EXPECT_EQ(rows.at(p.bad_wrap)["error"]["code"], "bad_wrap_mode");
    for (const std::string& short_file : {p.empty, p.magic_prefix}) {
        const json& j = rows.at(short_file);
        EXPECT_EQ(j["valid"], false) << short_file;
        EXPECT_EQ(j["error"]["code"], "truncated") << short_file;
    }
    EXPECT_EQ(rows.at(p.empty)["error"]["offset"], 0);
    EXPECT_EQ(rows.at(p.empty)["bytes"], 0);
    EXPECT_EQ(rows.at(p.magic_prefix)["error"]["offset"], 0);

    const json& dangling = rows.at(p.dangling);
    EXPECT_EQ(
        dangling,
        (json{{"path", p.dangling},
              {"valid", false},
              {"error", {{"code", "unreadable"}, {"message", "No such file or directory"}}}}));

    const totals t = totals_of(r.err);
    EXPECT_EQ(t.files, 10) << "every file but the folders; a FIFO is a file";
    EXPECT_EQ(t.recordings, 6);
    EXPECT_EQ(t.invalid, 3);
    EXPECT_EQ(t.unreadable, 1);
    EXPECT_EQ(t.other, 3) << "the two text files and the FIFO";
    EXPECT_EQ(t.unchanged, 0);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << "stderr is not a terminal: only the totals\n" << r.err;
}

TEST_F(IndexCli, EachJsonLineIsTheObjectOfInfoJson) {
    const std::string valid = write_file(in_data("valid.bin"), quiet_model(shape::v11_full));
    const std::string warned = write_file(in_data("warned.bin"), warning_model());
    const std::string bad = write_file(in_data("bad.bin"), bad_wrap_file());
    const std::string v10 = write_file(in_data("v10.bin"), quiet_model(shape::v10));
    const run_result r = run({"index", "--jsonl", "-", data()});
    EXPECT_EQ(r.status, 1);
    const std::map<std::string, json> rows = by_path(json_lines(r.out));
    ASSERT_EQ(rows.size(), 4u) << r.out;
    for (const std::string& f : {valid, warned, bad, v10}) {
        const run_result info = run({"info", "--json", f});
        EXPECT_EQ(rows.at(f), json::parse(info.out)) << f;
    }
    EXPECT_EQ(rows.at(warned)["warnings"][0]["code"], "negative_time");
}

TEST_F(IndexCli, LevelFullChecksEveryKeyframe) {
    const std::string f = write_file(in_data("unsorted.bin"), unsorted_model());
    const run_result structure = run({"index", "--jsonl", "-", data()});
    EXPECT_EQ(structure.status, 0) << "the default level is structure";
    EXPECT_EQ(json::parse(structure.out)["valid"], true);

    const run_result full = run({"index", "--level", "full", "--jsonl", "-", data()});
    EXPECT_EQ(full.status, 1);
    const json j = json::parse(full.out);
    EXPECT_EQ(j["error"]["code"], "unsorted_keys");
    EXPECT_EQ(j, json::parse(run({"info", "--level", "full", "--json", f}).out));
}

TEST_F(IndexCli, AFileNamedOnTheCommandLineIsIndexedWhateverItHolds) {
    const std::string text = write_file("readme.txt", text_bytes("just some text here"));
    const std::string valid = write_file("one.bin", quiet_model(shape::v11_compact));
    const run_result r = run({"index", "--jsonl", "-", text, valid});
    EXPECT_EQ(r.status, 1);
    const std::vector<json> objects = json_lines(r.out);
    ASSERT_EQ(objects.size(), 2u);
    EXPECT_EQ(objects[0]["path"], text);
    EXPECT_EQ(objects[0]["error"]["code"], "bad_magic");
    EXPECT_EQ(objects[1]["path"], valid);
    EXPECT_EQ(objects[1]["valid"], true);
}

TEST_F(IndexCli, LinksToFilesAreFollowedAndLinksToFoldersAreNot) {
    const std::string valid = write_file(in_data("valid.bin"), quiet_model(shape::v11_compact));
    fs::create_symlink(valid, in_data("alias.bin"));
    // Following this one would walk the folder again and again.
    fs::create_directory_symlink(data(), in_data("loop"));
    const run_result r = run({"index", "--jsonl", "-", data()});
    EXPECT_EQ(r.status, 0) << r.err;
    const std::map<std::string, json> rows = by_path(json_lines(r.out));
    ASSERT_EQ(rows.size(), 2u) << r.out;
    EXPECT_EQ(rows.at(in_data("alias.bin"))["valid"], true);
    EXPECT_EQ(rows.at(valid)["valid"], true);
    EXPECT_EQ(totals_of(r.err).files, 2);
}

TEST_F(IndexCli, AFileWithoutReadPermissionIsAnUnreadableRow) {
    if (geteuid() == 0)
        GTEST_SKIP() << "root reads files whatever their mode (see the dangling "
                        "link in the mixed folder test)";
    const std::string f = write_file(in_data("secret.bin"), quiet_model(shape::v11_compact));
    ASSERT_EQ(chmod(f.c_str(), 0), 0);
    const run_result r = run({"index", "--jsonl", "-", data()});
    EXPECT_EQ(r.status, 1);
    const json j = json::parse(r.out);
    EXPECT_EQ(j["error"]["code"], "unreadable");
    EXPECT_EQ(j["error"]["message"], "Permission denied");
    EXPECT_EQ(totals_of(r.err).unreadable, 1);
}

TEST_F(IndexCli, AMissingPathIsReportedAndTheOthersAreStillIndexed) {
    const std::string valid = write_file(in_data("valid.bin"), quiet_model(shape::v11_compact));
    const std::string missing = path("no-such-folder");
    const run_result r = run({"index", "--jsonl", "-", missing, data()});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(json::parse(r.out)["path"], valid);
    const std::vector<std::string> lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 2u) << r.err;
    EXPECT_EQ(lines[0], "inputanim: " + missing + ": No such file or directory");
}

// --- threads and output order --------------------------------------------------------------------

TEST_F(IndexCli, OneAndFourThreadsWriteTheSameRowsInTheSameOrder) {
    ASSERT_EQ(run({"gen", "--count", "40", "--seconds", "1", "--dir", in_data("gen")}).status, 0);
    make_mixed_folder();
    const run_result one = run({"index", "--jobs", "1", "--jsonl", "-", data()});
    const run_result four = run({"index", "--jobs", "4", "--jsonl", "-", data()});
    EXPECT_EQ(one.status, 1);
    EXPECT_EQ(four.status, 1);
    EXPECT_EQ(json_lines(one.out).size(), 47u);
    EXPECT_EQ(one.out, four.out) << "rows come out in walk order whatever the thread count";

    const std::string db1 = path("one.sqlite");
    const std::string db4 = path("four.sqlite");
    EXPECT_EQ(run({"index", "--jobs", "1", "--sqlite", db1, data()}).status, 1);
    EXPECT_EQ(run({"index", "--jobs", "4", "--sqlite", db4, data()}).status, 1);
    const std::string rows =
        "SELECT * FROM recordings ORDER BY path";  // indexed_at differs between runs
    std::vector<json> a = database(db1).query(rows);
    std::vector<json> b = database(db4).query(rows);
    for (json& row : a) row.erase("indexed_at");
    for (json& row : b) row.erase("indexed_at");
    EXPECT_EQ(a.size(), 47u);
    EXPECT_EQ(a, b);
}

TEST_F(IndexCli, FilesCutAndRestoredWhileTheyAreReadStillGetARowEach) {
    // Another process cuts files to half and writes them back whole, over and over, while index
    // reads them 8 at a time: a page that vanishes under a batch is an io_error for its file, and
    // the batch's other files are read again one by one; a file read while it changes gets
    // whatever verdict the bytes it saw deserve. Whatever the timing, the process lives and every
    // file gets a row.
    ASSERT_EQ(run({"gen", "--count", "64", "--seconds", "2", "--dir", in_data("gen")}).status, 0);
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(in_data("gen"))) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<std::string> contents;
    for (const fs::path& f : files) contents.push_back(slurp(f));

    std::atomic<bool> stop{false};
    std::jthread cutter([&] {
        for (std::size_t i = 0; !stop.load(); i = (i + 1) % files.size()) {
            const std::string& whole = contents[i];
            fs::resize_file(files[i], whole.size() / 2);
            std::ofstream(files[i], std::ios::binary)
                .write(whole.data(), static_cast<std::streamsize>(whole.size()));
        }
    });
    for (int round = 0; round < 5; ++round) {
        const run_result r = run({"index", "--jobs", "2", "--jsonl", "-", in_data("gen")});
        EXPECT_TRUE(r.status == 0 || r.status == 1) << r.status << r.err;
        const std::vector<json> rows = json_lines(r.out);
        ASSERT_EQ(rows.size(), files.size());
        for (const json& row : rows) {
            if (row["valid"] == true) continue;
            EXPECT_FALSE(row["error"]["code"].get<std::string>().empty()) << row.dump();
        }
    }
    stop = true;
}

TEST_F(IndexCli, JobsMustBeAPositiveCount) {
    write_file(in_data("valid.bin"), quiet_model(shape::v11_compact));
    for (const char* jobs : {"0", "-1", "many"}) {
        const run_result r = run({"index", "--jobs", jobs, "--jsonl", "-", data()});
        EXPECT_EQ(r.status, 2) << jobs;
        EXPECT_EQ(r.out, "") << jobs;
        EXPECT_NE(r.err.find("--jobs"), std::string::npos) << r.err;
    }
}

// --- the SQLite database -------------------------------------------------------------------------

TEST_F(IndexCli, TheDatabaseHasAColumnPerSummaryFieldMatchingTheJson) {
    const model m = quiet_model(shape::v11_compact);
    const std::string valid = write_file(in_data("valid.bin"), m);
    const std::string bad = write_file(in_data("bad.bin"), bad_wrap_file());
    const std::string db = path("index.sqlite");
    const auto before = std::chrono::system_clock::now();
    const run_result r = run({"index", "--sqlite", db, "--jsonl", path("rows.jsonl"), data()});
    const auto after = std::chrono::system_clock::now();
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "") << "--jsonl FILE writes nothing on stdout";
    const std::map<std::string, json> objects = by_path(json_lines(slurp(path("rows.jsonl"))));

    database d(db);
    const json v = d.row(valid);
    const json& jv = objects.at(valid);
    EXPECT_EQ(v["valid"], 1);
    for (const char* same : {"bytes", "version", "layout", "curves", "keyframes", "markers",
                             "start", "duration", "warnings_found"}) {
        EXPECT_EQ(v[same], jv[same]) << same;
    }
    EXPECT_EQ(v["has_camera"], 1);
    EXPECT_EQ(v["has_hands"], 1);
    EXPECT_EQ(v["has_gaze"], 1);
    for (const char* absent : {"error_code", "error_offset", "error_place", "error_curve",
                               "error_keyframe", "error_marker", "error_limit", "error_message"}) {
        EXPECT_TRUE(v[absent].is_null()) << absent;
    }
    struct stat st {};
    ASSERT_EQ(stat(valid.c_str(), &st), 0);
    EXPECT_EQ(v["size"], st.st_size);
    EXPECT_EQ(v["mtime"], std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec);
    const auto ns = [](auto t) {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
    };
    EXPECT_GE(v["indexed_at"].get<std::int64_t>(), ns(before));
    EXPECT_LE(v["indexed_at"].get<std::int64_t>(), ns(after));

    const json b = d.row(bad);
    const json& e = objects.at(bad)["error"];
    EXPECT_EQ(b["valid"], 0);
    EXPECT_EQ(b["error_code"], "bad_wrap_mode");
    EXPECT_EQ(b["error_offset"], e["offset"]);
    EXPECT_EQ(b["error_place"], "curve");
    EXPECT_EQ(b["error_curve"], "hand.left.tracked");
    EXPECT_TRUE(b["error_keyframe"].is_null());
    EXPECT_TRUE(b["error_marker"].is_null());
    EXPECT_TRUE(b["error_limit"].is_null());
    EXPECT_EQ(b["error_message"], e["message"]);
    EXPECT_EQ(b["curves"], hand_state_first);
}

TEST_F(IndexCli, TheDatabaseKeepsWarningsAndUnreadableFilesAndUsesWal) {
    const std::string warned = write_file(in_data("warned.bin"), warning_model());
    const std::string dangling = in_data("gone.bin");
    fs::create_symlink(in_data("nowhere"), dangling);
    const std::string db = path("index.sqlite");
    EXPECT_EQ(run({"index", "--sqlite", db, data()}).status, 1);

    database d(db);
    const std::vector<json> warnings = d.query("SELECT * FROM warnings");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0]["path"], warned);
    EXPECT_EQ(warnings[0]["code"], "negative_time");
    EXPECT_EQ(warnings[0]["curve"], "camera.position.x");
    EXPECT_EQ(warnings[0]["keyframe"], 0);
    EXPECT_EQ(warnings[0]["count"], 1);
    EXPECT_EQ(warnings[0]["message"], (warning{warning_code::negative_time,
                                               camera_curve(pose_channel::position_x), 0, 1, -0.5f}
                                           .message()));
    EXPECT_EQ(d.row(warned)["warnings_found"], 1);

    const json u = d.row(dangling);
    EXPECT_EQ(u["valid"], 0);
    EXPECT_EQ(u["error_code"], "unreadable");
    EXPECT_EQ(u["error_message"], "No such file or directory");
    for (const char* absent : {"bytes", "version", "size", "mtime"}) {
        EXPECT_TRUE(u[absent].is_null()) << absent;
    }
    EXPECT_EQ(d.query("PRAGMA journal_mode")[0]["journal_mode"], "wal");

    // Deleting a recording deletes its warnings.
    d.query("PRAGMA foreign_keys = ON");
    d.query("DELETE FROM recordings WHERE path = ?1", warned);
    EXPECT_TRUE(d.query("SELECT * FROM warnings").empty());
}

TEST_F(IndexCli, ReindexingSkipsUnchangedFilesWithoutReadingThem) {
    const std::string a = write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string b = write_file(in_data("b.bin"), quiet_model(shape::v10));
    const std::string bad = write_file(in_data("bad.bin"), bad_wrap_file());
    const std::string db = path("index.sqlite");
    const run_result first = run({"index", "--sqlite", db, data()});
    EXPECT_EQ(first.status, 1);
    EXPECT_EQ(totals_of(first.err).unchanged, 0);
    const json a1 = database(db).row(a);
    const json b1 = database(db).row(b);

    // b changes: new content, size and mtime.
    write_file(b, warning_model());
    fs::last_write_time(b, fs::last_write_time(b) + std::chrono::seconds(2));
    const run_result second = run({"index", "--sqlite", db, "--jsonl", "-", data()});
    EXPECT_EQ(second.status, 1) << "the unchanged invalid file still counts";
    const totals t = totals_of(second.err);
    EXPECT_EQ(t.files, 3);
    EXPECT_EQ(t.recordings, 3);
    EXPECT_EQ(t.invalid, 1);
    EXPECT_EQ(t.unchanged, 2);
    const std::vector<json> written = json_lines(second.out);
    ASSERT_EQ(written.size(), 1u) << "only the changed file is read and written";
    EXPECT_EQ(written[0]["path"], b);

    database d(db);
    EXPECT_EQ(d.row(a), a1) << "the unchanged row is left as it was";
    const json b2 = d.row(b);
    EXPECT_GT(b2["indexed_at"], b1["indexed_at"]);
    EXPECT_EQ(b2["version"], "1.1");
    EXPECT_EQ(b2["warnings_found"], 1);
    EXPECT_EQ(d.query("SELECT * FROM warnings").size(), 1u);

    const run_result forced = run({"index", "--sqlite", db, "--force", data()});
    EXPECT_EQ(totals_of(forced.err).unchanged, 0);
    EXPECT_GT(database(db).row(a)["indexed_at"], a1["indexed_at"]);
    EXPECT_EQ(database(db).query("SELECT * FROM recordings").size(), 3u);
}

TEST_F(IndexCli, AnUnreadableFileIsReadAgainByTheNextRun) {
    fs::create_symlink(in_data("nowhere"), in_data("gone.bin"));
    const std::string db = path("index.sqlite");
    EXPECT_EQ(run({"index", "--sqlite", db, data()}).status, 1);
    const run_result again = run({"index", "--sqlite", db, data()});
    EXPECT_EQ(again.status, 1);
    EXPECT_EQ(totals_of(again.err).unchanged, 0);
    EXPECT_EQ(totals_of(again.err).unreadable, 1);
}

TEST_F(IndexCli, PruneDeletesTheRowsOfFilesThatAreGoneUnderTheGivenPathsOnly) {
    const std::string kept = write_file(in_data("kept.bin"), quiet_model(shape::v11_compact));
    const std::string gone = write_file(in_data("sub/gone.bin"), warning_model());
    const std::string named = write_file("named.bin", quiet_model(shape::v10));
    // A folder whose name starts like the indexed one: not inside it.
    const std::string sibling = write_file(data() + "2/other.bin", quiet_model(shape::v10));
    const std::string db = path("index.sqlite");
    EXPECT_EQ(run({"index", "--sqlite", db, data(), data() + "2", named}).status, 0);
    ASSERT_EQ(database(db).paths().size(), 4u);

    fs::remove(gone);
    fs::remove(sibling);
    const run_result keep = run({"index", "--sqlite", db, data()});
    EXPECT_EQ(keep.status, 0);
    EXPECT_EQ(database(db).paths().size(), 4u) << "without --prune rows stay";

    const run_result pruned = run({"index", "--sqlite", db, "--prune", data()});
    EXPECT_EQ(pruned.status, 0) << pruned.err;
    EXPECT_EQ(totals_of(pruned.err).pruned, 1);
    EXPECT_EQ(totals_of(pruned.err).unchanged, 1);
    std::vector<std::string> expected = {kept, named, sibling};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(database(db).paths(), expected);
    EXPECT_TRUE(database(db).query("SELECT * FROM warnings").empty())
        << "the warnings of a pruned row go with it";

    // A file named on the command line that is gone is reported, and pruned.
    fs::remove(named);
    const run_result named_gone = run({"index", "--sqlite", db, "--prune", named});
    EXPECT_EQ(named_gone.status, 1);
    EXPECT_EQ(totals_of(named_gone.err).pruned, 1);
    EXPECT_EQ(database(db).paths().size(), 2u);
}

TEST_F(IndexCli, PruneAlsoDeletesTheRowOfAFileThatIsNoLongerARecording) {
    const std::string f = write_file(in_data("f.bin"), quiet_model(shape::v11_compact));
    const std::string db = path("index.sqlite");
    EXPECT_EQ(run({"index", "--sqlite", db, data()}).status, 0);
    write_file(f, text_bytes("overwritten with text"));
    const run_result r = run({"index", "--sqlite", db, "--prune", data()});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(totals_of(r.err).other, 1);
    EXPECT_TRUE(database(db).paths().empty());
}

TEST_F(IndexCli, AFolderThatCannotBeListedIsReportedAndPruneKeepsItsRows) {
    if (geteuid() == 0) GTEST_SKIP() << "root lists folders whatever their mode";
    const std::string locked = in_data("locked");
    const std::string inside = write_file(locked + "/x.bin", quiet_model(shape::v11_compact));
    const std::string outside = write_file(in_data("y.bin"), quiet_model(shape::v11_compact));
    const std::string db = path("index.sqlite");
    EXPECT_EQ(run({"index", "--sqlite", db, data()}).status, 0);

    ASSERT_EQ(chmod(locked.c_str(), 0), 0);
    const run_result r = run({"index", "--sqlite", db, "--prune", data()});
    ASSERT_EQ(chmod(locked.c_str(), 0755), 0);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(lines_of(r.err).at(0), "inputanim: " + locked + ": Permission denied");
    EXPECT_EQ(totals_of(r.err).pruned, 0);
    EXPECT_EQ(database(db).paths(), (std::vector<std::string>{inside, outside}));
}

TEST_F(IndexCli, ForceAndPruneNeedADatabase) {
    for (const char* flag : {"--force", "--prune"}) {
        const run_result r = run({"index", flag, "--jsonl", "-", data()});
        EXPECT_EQ(r.status, 2) << flag;
        EXPECT_NE(r.err.find("--sqlite"), std::string::npos) << r.err;
    }
}

// --- usage and output failures ------------------------------------------------------------------

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
    EXPECT_EQ(lines_of(jsonl.err).at(0), "inputanim: " + no_folder + ": No such file or directory");

    if (fs::exists("/dev/full")) {
        const run_result full = run({"index", "--jsonl", "/dev/full", data()});
        EXPECT_EQ(full.status, 3);
        EXPECT_NE(full.err.find("/dev/full: No space left on device"), std::string::npos)
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

// --- progress ------------------------------------------------------------------------------------

TEST_F(IndexCli, AProgressLineIsDrawnOnlyWhenStderrIsATerminal) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    write_file(in_data("b.bin"), quiet_model(shape::v10));
    const run_result file = run({"index", "--jsonl", path("rows.jsonl"), data()});
    EXPECT_EQ(file.status, 0);
    EXPECT_EQ(file.err.find('\r'), std::string::npos) << file.err;
    EXPECT_EQ(file.err.find("\x1b["), std::string::npos) << file.err;
    EXPECT_EQ(lines_of(file.err).size(), 1u) << file.err;

    const run_result terminal = run({"index", "--jsonl", path("rows.jsonl"), data()}, true);
    EXPECT_EQ(terminal.status, 0);
    // The first file is drawn at once: with a bar once the walk is over, else with a '+' since
    // more files may come.
    static const std::regex frame(R"(\r(\[[#.]{24}\] )?\d+/\d+\+? files  \d+ files/s)");
    EXPECT_TRUE(std::regex_search(terminal.err, frame)) << terminal.err;
    EXPECT_NE(terminal.err.find(" files/s"), std::string::npos) << terminal.err;
    // The line is erased before the totals.
    EXPECT_NE(terminal.err.find("\r\x1b[Kinputanim index: 2 files, 2 recordings"),
              std::string::npos)
        << terminal.err;
}

}  // namespace
