// `inputanim index`, run as a user runs it: which files of a folder tree become rows, the JSON
// Lines and the SQLite database it writes (opened and queried here), re-indexing, pruning,
// threads, the progress line and the exit statuses.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/gzip_bytes.hpp"
#include "support/index_cli.hpp"
#include "support/sqlite_database.hpp"

using namespace inputanim;
using namespace inputanim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Every row of a database's recordings table in path order, without the time it was indexed
// (which differs between runs).
std::vector<json> recording_rows(const std::string& db) {
    std::vector<json> rows = database(db).query("SELECT * FROM recordings ORDER BY path");
    for (json& row : rows) row.erase("indexed_at");
    return rows;
}

// --- which files become rows --------------------------------------------------------------------

TEST_F(IndexCli, AMixedFolderGivesARowPerRecordingDamagedOrUnreadableFileAndSkipsOtherFiles) {
    const mixed_paths p = make_mixed_folder();
    ASSERT_EQ(mkfifo(in_data("pipe").c_str(), 0644), 0) << "a FIFO must never be opened";
    const run_result r = run({"index", "--jsonl", "-", data()});
    EXPECT_EQ(r.status, 3) << "some recordings are invalid, one is unreadable\n" << r.err;

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

    json dangling = rows.at(p.dangling);
    EXPECT_EQ(dangling["checked_with"]["level"], "structure");
    dangling.erase("checked_with");
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

TEST_F(IndexCli, FilesWithoutTheMagicAreRowsOnlyWhenWhollyA2019Layout) {
    const model m = small_model(shape::v10);
    write_bytes(in_data("june.bin"), write_2019(m, edition::june_2019));
    write_bytes(in_data("may.bin"), write_2019(m, edition::may_2019));
    const bytes may = write_2019(m, edition::may_2019, full_keyframe_size);
    write_bytes(in_data("may.bin.gz"), gzip_compress(view(may)));
    // Begins like a 2019 file (two wrap modes) but is cut short: some other file.
    const bytes june = write_2019(m, edition::june_2019);
    write_bytes(in_data("cut.bin"), bytes(june.begin(), june.begin() + 100));
    write_bytes(in_data("cut.bin.gz"), gzip_compress(view(bytes(june.begin(), june.end() - 1))));
    const run_result r = run({"index", "--jsonl", "-", data()});
    EXPECT_EQ(r.status, 0) << r.err;
    const std::map<std::string, json> rows = by_path(json_lines(r.out));
    ASSERT_EQ(rows.size(), 3u) << r.out;
    EXPECT_EQ(rows.at(in_data("june.bin"))["version"], "2019-06");
    EXPECT_EQ(rows.at(in_data("may.bin"))["version"], "2019-05");
    EXPECT_EQ(rows.at(in_data("may.bin.gz"))["version"], "2019-05");
    EXPECT_EQ(rows.at(in_data("may.bin"))["markers"], nullptr);
    EXPECT_NE(r.err.find("3 recordings, 0 invalid, 0 unreadable, 2 other"), std::string::npos)
        << r.err;
}

TEST_F(IndexCli, AFileOfNulBytesIsNeverA2019RecordingWhateverItsLength) {
    // 389 curve headers of wrap modes 0 (Unity's Default) and no keys, then an empty marker
    // list: 4,672 NUL bytes are a sound June 2019 file. Such files are what a crash leaves of a
    // file whose pages were never written, or a preallocated placeholder.
    const std::size_t june = 389 * 12 + 4;
    for (const std::size_t n : {std::size_t{8}, june - 4, june, june + 1, std::size_t{65536}}) {
        const bytes zeros(n, std::byte{0});
        write_bytes(in_data("zeros-" + std::to_string(n) + ".bin"), zeros);
        write_bytes(in_data("zeros-" + std::to_string(n) + ".bin.gz"), gzip_compress(view(zeros)));
    }
    const std::string sound = in_data("zeros-" + std::to_string(june) + ".bin");
    ASSERT_EQ(run({"validate", "--layout", "2019-06", sound}).status, 0);
    // With a keyframe it is a recording again.
    write_bytes(in_data("keys.bin"), write_2019(small_model(shape::v10), edition::june_2019));
    const run_result r = run({"index", "--jsonl", "-", data()});
    EXPECT_EQ(r.status, 0) << r.err;
    const std::map<std::string, json> rows = by_path(json_lines(r.out));
    ASSERT_EQ(rows.size(), 1u) << r.out;
    EXPECT_EQ(rows.at(in_data("keys.bin"))["version"], "2019-06");
    EXPECT_NE(r.err.find("1 recordings, 0 invalid, 0 unreadable, 10 other"), std::string::npos)
        << r.err;
    // Named on the command line, such a file is indexed as any named file is, by its reading.
    const run_result one = run({"index", "--jsonl", "-", sound});
    EXPECT_EQ(json::parse(one.out)["path"], sound) << one.out;
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
    EXPECT_EQ(r.status, 3);
    const json j = json::parse(r.out);
    EXPECT_EQ(j["error"]["code"], "unreadable");
    EXPECT_EQ(j["error"]["message"], "Permission denied");
    EXPECT_EQ(totals_of(r.err).unreadable, 1);
}

TEST_F(IndexCli, AMissingPathIsReportedAndTheOthersAreStillIndexed) {
    const std::string valid = write_file(in_data("valid.bin"), quiet_model(shape::v11_compact));
    const std::string missing = path("no-such-folder");
    const run_result r = run({"index", "--jsonl", "-", missing, data()});
    EXPECT_EQ(r.status, 3);
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
    EXPECT_EQ(one.status, 3);
    EXPECT_EQ(four.status, 3);
    EXPECT_EQ(json_lines(one.out).size(), 47u);
    EXPECT_EQ(one.out, four.out) << "rows come out in walk order whatever the thread count";

    const std::string db1 = path("one.sqlite");
    const std::string db4 = path("four.sqlite");
    EXPECT_EQ(run({"index", "--jobs", "1", "--sqlite", db1, data()}).status, 3);
    EXPECT_EQ(run({"index", "--jobs", "4", "--sqlite", db4, data()}).status, 3);
    const std::vector<json> a = recording_rows(db1);
    const std::vector<json> b = recording_rows(db4);
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
        // 3 when some file was cut under the read (io_error), 1 when one was read half.
        EXPECT_TRUE(r.status == 0 || r.status == 1 || r.status == 3) << r.status << r.err;
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
    EXPECT_EQ(v["inode"], st.st_ino);
    EXPECT_EQ(json::parse(v["checked_with"].get<std::string>()), jv["checked_with"]);
    EXPECT_EQ(json::parse(v["report"].get<std::string>()), jv)
        << "the row keeps its JSON Lines object whole";
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
    EXPECT_EQ(run({"index", "--sqlite", db, data()}).status, 3);

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
    ASSERT_EQ(written.size(), 3u) << "every recording of the walk is listed, read again or not";
    EXPECT_EQ(by_path(written).at(b)["warnings_found"], 1);

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

TEST_F(IndexCli, ANewDatabaseKeepsEachFilesStampAsStatGivesIt) {
    const std::string a = write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 0);
    struct stat st {};
    ASSERT_EQ(::stat(a.c_str(), &st), 0);
    const json row = database(db).row(a);
    EXPECT_EQ(row["size"], st.st_size);
    EXPECT_EQ(row["mtime"], std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec);
    EXPECT_EQ(row["inode"], st.st_ino);
}

// The second walk finds the same paths: the database then holds the first walk's rows, and its
// rows replace them, warnings and all.
TEST_F(IndexCli, AFolderNamedTwiceIntoANewDatabaseKeepsOneRowAndOneSetOfWarningsPerFile) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string b = write_file(in_data("b.bin"), warning_model());
    const std::string db = path("index.sqlite");
    const run_result r = run({"index", "--sqlite", db, "--jsonl", "-", data(), data()});
    EXPECT_EQ(r.status, 0) << r.err;
    const totals t = totals_of(r.err);
    EXPECT_EQ(t.files, 4);
    EXPECT_EQ(t.recordings, 4);
    EXPECT_EQ(json_lines(r.out).size(), 4u);
    database d(db);
    EXPECT_EQ(d.query("SELECT * FROM recordings").size(), 2u);
    EXPECT_EQ(d.row(b)["warnings_found"], 1);
    EXPECT_EQ(d.query("SELECT * FROM warnings").size(), 1u);
}

TEST_F(IndexCli, AnUnreadableFileIsReadAgainByTheNextRun) {
    fs::create_symlink(in_data("nowhere"), in_data("gone.bin"));
    const std::string db = path("index.sqlite");
    EXPECT_EQ(run({"index", "--sqlite", db, data()}).status, 3);
    const run_result again = run({"index", "--sqlite", db, data()});
    EXPECT_EQ(again.status, 3);
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

// --- pruning: only under PATHs walked whole ------------------------------------------------------

TEST_F(IndexCli, PruneKeepsEveryRowOfAPathThatIsMissingForTheMoment) {
    const std::string gone = write_file(in_data("gone.bin"), quiet_model(shape::v11_compact));
    const std::string kept = write_file(in_data("kept.bin"), quiet_model(shape::v11_compact));
    const std::string drive = path("drive");
    const std::string on_drive = write_file(drive + "/take.bin", quiet_model(shape::v10));
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, data(), drive}).status, 0);

    // The drive is unmounted (renamed away) and a file under data is deleted.
    fs::rename(drive, path("drive.away"));
    fs::remove(gone);
    const run_result r = run({"index", "--sqlite", db, "--prune", data(), drive});
    EXPECT_EQ(r.status, 3) << "a PATH that could not be read\n" << r.err;
    EXPECT_EQ(lines_of(r.err).at(0), "inputanim: " + drive + ": No such file or directory");
    EXPECT_EQ(totals_of(r.err).pruned, 1) << "the walked PATH is pruned";
    EXPECT_EQ(database(db).paths(), (std::vector<std::string>{kept, on_drive}));
}

TEST_F(IndexCli, PruneKeepsTheRowOfAFileNamedOnTheCommandLineThatIsGone) {
    const std::string named = write_file("named.bin", quiet_model(shape::v10));
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, named}).status, 0);
    fs::remove(named);
    const run_result r = run({"index", "--sqlite", db, "--prune", named});
    EXPECT_EQ(r.status, 3);
    EXPECT_EQ(totals_of(r.err).pruned, 0);
    EXPECT_EQ(database(db).paths(), std::vector<std::string>{named});
}

TEST_F(IndexCli, PruneKeepsEveryRowOfAPathWithAFolderThatCannotBeListed) {
    // Root lists any folder; the command is run as `nobody` then (setpriv, util-linux).
    std::vector<std::string> as_user;
    if (geteuid() == 0) {
        if (!fs::exists("/usr/bin/setpriv"))
            GTEST_SKIP() << "root lists folders whatever their mode";
        as_user = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
    }
    const std::string locked = in_data("locked");
    const std::string inside = write_file(locked + "/x.bin", quiet_model(shape::v11_compact));
    const std::string outside = write_file(in_data("y.bin"), quiet_model(shape::v11_compact));
    const std::string gone = write_file(in_data("z.bin"), quiet_model(shape::v11_compact));
    const std::string db = path("index.sqlite");
    const auto index = [&](std::vector<std::string> args) {
        std::vector<std::string> argv = as_user;
        argv.push_back(INPUTANIM_CLI);
        argv.insert(argv.end(), args.begin(), args.end());
        return run_process(argv, {scratch_.path()});
    };
    for (const std::string& folder : {path(""), data()}) fs::permissions(folder, fs::perms::all);
    EXPECT_EQ(index({"index", "--sqlite", db, data()}).status, 0);

    fs::remove(gone);
    ASSERT_EQ(chmod(locked.c_str(), 0), 0);
    const run_result r = index({"index", "--sqlite", db, "--prune", data()});
    ASSERT_EQ(chmod(locked.c_str(), 0755), 0);
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(lines_of(r.err).at(0), "inputanim: " + locked + ": Permission denied");
    EXPECT_EQ(totals_of(r.err).pruned, 0) << "a PATH not walked whole prunes nothing";
    EXPECT_EQ(database(db).paths(), (std::vector<std::string>{inside, outside, gone}));
}

// --- verdicts carry their options
// ------------------------------------------------------------------

TEST_F(IndexCli, EveryRowRecordsTheOptionsThatProducedIt) {
    const std::string f = write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string db = path("index.sqlite");
    const run_result r = run({"index", "--sqlite", db, "--jsonl", "-", "--level", "full",
                              "--layout", "compact", "--max-markers", "10", data()});
    ASSERT_EQ(r.status, 0) << r.err;
    const json expected = {{"level", "full"},
                           {"layout", "compact"},
                           {"limits",
                            {{"max_bytes", nullptr},
                             {"max_keyframes_per_curve", nullptr},
                             {"max_total_keyframes", nullptr},
                             {"max_markers", 10},
                             {"max_marker_name_bytes", nullptr}}},
                           {"rules", rules_version}};
    EXPECT_EQ(json::parse(r.out)["checked_with"], expected);
    EXPECT_EQ(json::parse(database(db).row(f)["checked_with"].get<std::string>()), expected);
    const run_result v =
        run({"validate", "--json", "--layout", "compact", "--max-markers", "10", f});
    EXPECT_EQ(json::parse(v.out)["checked_with"], expected) << "validate says the same";
}

TEST_F(IndexCli, AStoredVerdictIsReusedOnlyUnderTheSameOptions) {
    const std::string f = write_file(in_data("unsorted.bin"), unsorted_model());
    const std::string db = path("index.sqlite");
    const auto index = [&](std::vector<std::string> options) {
        std::vector<std::string> args = {"index", "--sqlite", db};
        args.insert(args.end(), options.begin(), options.end());
        args.push_back(data());
        return run(args);
    };
    const run_result structure = index({});
    EXPECT_EQ(structure.status, 0);
    EXPECT_EQ(database(db).row(f)["valid"], 1) << "sound at level structure";

    const run_result full = index({"--level", "full"});
    EXPECT_EQ(full.status, 1) << "the verdict of level structure is not reused for level full";
    EXPECT_EQ(totals_of(full.err).unchanged, 0);
    EXPECT_EQ(database(db).row(f)["error_code"], "unsorted_keys");

    const run_result again = index({"--level", "full"});
    EXPECT_EQ(again.status, 1);
    EXPECT_EQ(totals_of(again.err).unchanged, 1) << "same file, same options: not read again";

    const run_result limited = index({"--level", "full", "--max-bytes", "100"});
    EXPECT_EQ(totals_of(limited.err).unchanged, 0);
    EXPECT_EQ(database(db).row(f)["error_limit"], "max_bytes");

    const run_result layout = index({"--level", "full", "--layout", "compact"});
    EXPECT_EQ(totals_of(layout.err).unchanged, 0);
    EXPECT_EQ(database(db).row(f)["error_code"], "unsorted_keys");
}

TEST_F(IndexCli, AFileReplacedByOneOfTheSameSizeAndMtimeIsReadAgain) {
    const std::string f = write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string db = path("index.sqlite");
    ASSERT_EQ(run({"index", "--sqlite", db, data()}).status, 0);

    // As `cp -p` or rsync do: a new file with the old one's size and mtime moved into its place.
    const std::string copy = write_file("copy.bin", bad_wrap_file());
    ASSERT_EQ(fs::file_size(copy), fs::file_size(f));
    fs::last_write_time(copy, fs::last_write_time(f));
    fs::rename(copy, f);
    const run_result r = run({"index", "--sqlite", db, data()});
    EXPECT_EQ(r.status, 1) << "another inode: read again";
    EXPECT_EQ(totals_of(r.err).unchanged, 0);
    EXPECT_EQ(database(db).row(f)["error_code"], "bad_wrap_mode");
}

TEST_F(IndexCli, JsonLinesListEveryRecordingOfTheWalkWhenTheDatabaseSkipsItsFile) {
    write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    write_file(in_data("b.bin"), warning_model());
    write_file(in_data("c.bin"), bad_wrap_file());
    const std::string db = path("index.sqlite");
    const run_result first = run({"index", "--sqlite", db, "--jsonl", path("1.jsonl"), data()});
    const run_result second = run({"index", "--sqlite", db, "--jsonl", path("2.jsonl"), data()});
    EXPECT_EQ(first.status, 1);
    EXPECT_EQ(second.status, 1);
    EXPECT_EQ(totals_of(second.err).unchanged, 3);
    EXPECT_EQ(json_lines(slurp(path("2.jsonl"))).size(), 3u);
    EXPECT_EQ(slurp(path("2.jsonl")), slurp(path("1.jsonl")));
}

TEST_F(IndexCli, AStoredReportIsPrintedAsOneJsonLineWhateverTheDatabaseHolds) {
    const std::string a = write_file(in_data("a.bin"), quiet_model(shape::v11_compact));
    const std::string b = write_file(in_data("b.bin"), warning_model());
    const std::string db = path("index.sqlite");
    const run_result first = run({"index", "--sqlite", db, "--jsonl", "-", data()});
    ASSERT_EQ(first.status, 0) << first.err;
    const std::map<std::string, json> fresh = by_path(json_lines(first.out));
    {
        database d(db);
        // As another tool may store it (a shard merged in): pretty-printed, over many lines.
        d.query("UPDATE recordings SET report = ?1 WHERE path LIKE '%/a.bin'", fresh.at(a).dump(2));
        // Text with a raw line break is no JSON object: pasted, it would forge a second row.
        d.query("UPDATE recordings SET report = ?1 WHERE path LIKE '%/b.bin'",
                "{\"path\": \"b.bin\"}\n{\"path\": \"forged.bin\", \"valid\": true}");
    }
    const run_result second = run({"index", "--sqlite", db, "--jsonl", "-", data()});
    EXPECT_EQ(second.status, 0) << second.err;
    const std::vector<std::string> lines = lines_of(second.out);
    ASSERT_EQ(lines.size(), 2u) << second.out;
    const std::map<std::string, json> printed = by_path(json_lines(second.out));
    EXPECT_EQ(printed.at(a), fresh.at(a)) << "the stored object, on one line";
    EXPECT_EQ(printed.at(b), fresh.at(b)) << "read again: its stored text was no verdict";
    EXPECT_EQ(totals_of(second.err).unchanged, 1);
}

// --- file names
// -----------------------------------------------------------------------------------

TEST_F(IndexCli, NamesThatAreNotUtf8StayDistinctInJsonLinesAndSqlite) {
    // Latin-1 names: "caf\xe9" and "caf\xe8" are not UTF-8, "café" is.
    const std::string e_acute = write_file(in_data("caf\xe9.bin"), quiet_model(shape::v11_compact));
    const std::string e_grave = write_file(in_data("caf\xe8.bin"), warning_model());
    const std::string utf8 = write_file(in_data("caf\xc3\xa9.bin"), quiet_model(shape::v10));
    const std::string db = path("index.sqlite");
    const run_result r = run({"index", "--sqlite", db, "--jsonl", "-", data()});
    ASSERT_EQ(r.status, 0) << r.err;

    const std::vector<json> lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 3u) << "valid JSON whatever the bytes";
    std::map<std::string, json> by_bytes;
    const auto hex = [](const std::string& s) {
        std::string out;
        for (const unsigned char c : s) {
            out += "0123456789abcdef"[c >> 4];
            out += "0123456789abcdef"[c & 0xf];
        }
        return out;
    };
    for (const json& j : lines) {
        by_bytes[j.contains("path_bytes") ? j["path_bytes"].get<std::string>()
                                          : hex(j["path"].get<std::string>())] = j;
    }
    ASSERT_EQ(by_bytes.size(), 3u) << "two names never merge";
    EXPECT_EQ(by_bytes.at(hex(e_acute))["path"], in_data("caf\xef\xbf\xbd.bin"))
        << "readable, the stray byte as U+FFFD";
    EXPECT_EQ(by_bytes.at(hex(e_grave))["warnings_found"], 1);
    EXPECT_EQ(by_bytes.at(hex(utf8))["path"], utf8);
    EXPECT_FALSE(by_bytes.at(hex(utf8)).contains("path_bytes"));

    database d(db);
    const std::vector<json> rows = d.query("SELECT typeof(path) AS type, path FROM recordings");
    std::multiset<std::string> types;
    for (const json& row : rows) types.insert(row["type"].get<std::string>());
    EXPECT_EQ(types, (std::multiset<std::string>{"blob", "blob", "text"}));
    EXPECT_EQ(d.query("SELECT count(*) AS n FROM recordings WHERE path = CAST(?1 AS BLOB)",
                      e_grave)[0]["n"],
              1)
        << "the exact bytes";
    EXPECT_EQ(d.query("SELECT count(*) AS n FROM warnings WHERE path = CAST(?1 AS BLOB)",
                      e_grave)[0]["n"],
              1);
    if (fs::exists("/usr/bin/python3")) {
        // Python's sqlite3 fails on TEXT that is not UTF-8; a BLOB comes back as bytes.
        const run_result py = run_process(
            {"/usr/bin/python3", "-c",
             "import sqlite3, sys\n"
             "rows = sqlite3.connect(sys.argv[1]).execute('SELECT path FROM "
             "recordings').fetchall()\n"
             "print(sorted(p if isinstance(p, bytes) else p.encode() for (p,) in rows))",
             db},
            {scratch_.path()});
        EXPECT_EQ(py.status, 0) << py.err;
        EXPECT_NE(py.out.find("caf\\xe9.bin"), std::string::npos) << py.out;
    }

    const run_result again = run({"index", "--sqlite", db, "--prune", data()});
    EXPECT_EQ(totals_of(again.err).unchanged, 3) << "found again by their bytes";
    fs::remove(e_acute);
    const run_result pruned = run({"index", "--sqlite", db, "--prune", data()});
    EXPECT_EQ(totals_of(pruned.err).pruned, 1);
    EXPECT_EQ(d.query("SELECT path FROM recordings").size(), 2u);
}

// --- shards: one archive over many machines ------------------------------------------------------

TEST_F(IndexCli, ShardsCoverEveryFileOnceAndMergedEqualOneRun) {
    ASSERT_EQ(run({"gen", "--count", "30", "--seconds", "1", "--dir", in_data("gen")}).status, 0);
    make_mixed_folder();
    const run_result one =
        run({"index", "--sqlite", path("one.db"), "--jsonl", path("one.jsonl"), data()});
    EXPECT_EQ(one.status, 3);
    std::multiset<std::string> shard_lines;
    int files = 0;
    std::vector<std::string> merge = {"index", "merge", path("merged.db")};
    for (int k = 0; k < 3; ++k) {
        const std::string db = path("shard" + std::to_string(k) + ".db");
        const std::string jsonl = path("shard" + std::to_string(k) + ".jsonl");
        const run_result r = run({"index", "--shard", std::to_string(k) + "/3", "--sqlite", db,
                                  "--jsonl", jsonl, data()});
        EXPECT_NE(r.status, 2) << r.err;
        files += totals_of(r.err).files;
        for (const std::string& line : lines_of(slurp(jsonl))) shard_lines.insert(line);
        EXPECT_LT(lines_of(slurp(jsonl)).size(), 37u) << "a shard takes a part";
        merge.push_back(db);
    }
    EXPECT_EQ(files, totals_of(one.err).files) << "every file is in exactly one shard";
    const std::vector<std::string> one_lines = lines_of(slurp(path("one.jsonl")));
    EXPECT_EQ(shard_lines, std::multiset<std::string>(one_lines.begin(), one_lines.end()));

    const run_result merged = run(merge);
    ASSERT_EQ(merged.status, 0) << merged.err;
    EXPECT_EQ(recording_rows(path("merged.db")), recording_rows(path("one.db")));
    const std::string warnings = "SELECT * FROM warnings ORDER BY path, code, curve";
    EXPECT_EQ(database(path("merged.db")).query(warnings),
              database(path("one.db")).query(warnings));

    // Merging again changes nothing; a later shard's row replaces an earlier one.
    ASSERT_EQ(run(merge).status, 0);
    EXPECT_EQ(recording_rows(path("merged.db")), recording_rows(path("one.db")));
}

TEST_F(IndexCli, WithInvalidOkARunExitsZeroOnceEveryFileHasItsRow) {
    const mixed_paths p = make_mixed_folder();
    const run_result plain = run({"index", "--sqlite", path("plain.db"), data()});
    EXPECT_EQ(plain.status, 3) << "an unreadable file wins over invalid ones";
    const run_result ok = run({"index", "--invalid-ok", "--sqlite", path("ok.db"), data()});
    EXPECT_EQ(ok.status, 0) << ok.err;
    const totals t = totals_of(ok.err);
    EXPECT_GT(t.invalid, 0);
    EXPECT_EQ(t.unreadable, 1);
    EXPECT_EQ(database(path("ok.db")).paths(), database(path("plain.db")).paths());
    EXPECT_EQ(database(path("ok.db")).row(p.bad_wrap)["valid"], 0);
    write_file(in_data("only.bin"), bad_wrap_file());
    EXPECT_EQ(run({"index", "--invalid-ok", "--jsonl", "-", in_data("only.bin")}).status, 0);
}

TEST_F(IndexCli, AShardsDatabaseClaimsItsShardAndIsCompleteOnceItsRunIs) {
    make_mixed_folder();
    const std::string db = path("part-1.db");
    ASSERT_EQ(run({"index", "--invalid-ok", "--shard", "1/3", "--sqlite", db, data()}).status, 0);
    EXPECT_EQ(database(db).query("SELECT shard, shards, complete FROM shard"),
              (std::vector<json>{{{"shard", 1}, {"shards", 3}, {"complete", 1}}}));
    // The same shard again: still one claim.
    ASSERT_EQ(run({"index", "--invalid-ok", "--shard", "1/3", "--sqlite", db, data()}).status, 0);
    EXPECT_EQ(database(db).query("SELECT count(*) AS n FROM shard")[0]["n"], 1);
    // A database without --shard claims nothing.
    ASSERT_EQ(run({"index", "--sqlite", path("all.db"), data()}).status, 3);
    EXPECT_TRUE(database(path("all.db"))
                    .query("SELECT name FROM sqlite_schema WHERE name = "
                           "'shard'")
                    .empty());
}

TEST_F(IndexCli, MergeTakesTheShardsOfAGlobAndEqualsOneRun) {
    ASSERT_EQ(run({"gen", "--count", "12", "--seconds", "1", "--dir", in_data("gen")}).status, 0);
    make_mixed_folder();
    ASSERT_EQ(run({"index", "--sqlite", path("one.db"), data()}).status, 3);
    fs::create_directories(path("parts"));
    for (int k = 0; k < 3; ++k) {
        const std::string db = path("parts/part-" + std::to_string(k) + ".db");
        const run_result r = run(
            {"index", "--invalid-ok", "--shard", std::to_string(k) + "/3", "--sqlite", db, data()});
        ASSERT_EQ(r.status, 0) << r.err;
    }
    const run_result merged = run({"index", "merge", path("merged.db"), path("parts/part-*.db")});
    ASSERT_EQ(merged.status, 0) << merged.err;
    EXPECT_EQ(recording_rows(path("merged.db")), recording_rows(path("one.db")));
    // A name that is a file is that file, even with glob characters in it.
    fs::copy_file(path("parts/part-0.db"), path("parts/part-[0].db"));
    EXPECT_EQ(run({"index", "merge", path("zero.db"), path("parts/part-[0].db")}).status, 1)
        << "shards 1 and 2 are missing";
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

TEST_F(IndexCli, WithProgressALogGetsWholeLinesOfTheCounts) {
    for (int i = 0; i < 5; ++i) {
        write_file(in_data("r" + std::to_string(i) + ".bin"), quiet_model(shape::v11_compact));
    }
    const run_result r = run(
        {"index", "--progress", "--progress-every", "2", "--jsonl", path("rows.jsonl"), data()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("\x1b["), std::string::npos) << r.err;
    const std::vector<std::string> lines = lines_of(r.err);
    ASSERT_EQ(lines.size(), 3u) << r.err;
    static const std::regex counts(R"(inputanim index: [24]/5\+? files  \d+ files/s( +ETA \S+)?)");
    EXPECT_TRUE(std::regex_match(lines[0], counts)) << lines[0];
    EXPECT_TRUE(std::regex_match(lines[1], counts)) << lines[1];
    EXPECT_EQ(totals_of(r.err).files, 5);
    // Without N, a line every 10 s: none in a run this short.
    EXPECT_EQ(lines_of(run({"index", "--progress", "--jsonl", "-", data()}).err).size(), 1u);
}

}  // namespace
