// The index database (tools/index/sqlite_store.hpp), called directly: rows written to a
// temporary database and read back with SQLite. What a new database's tables are (their text is
// what older databases are migrated to, byte for byte), what a recording's, an unreadable file's
// and an archive member's row holds (every column of each kind of row, the values index_table's
// sources give), and how a row is replaced, found and removed. The command's tests
// (test_cli_index*) run `inputanim index --sqlite` over real folders.
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "index/index_row.hpp"
#include "index/sqlite_store.hpp"
#include "inputanim/inputanim.hpp"
#include "report/report_json.hpp"
#include "support/builders.hpp"
#include "support/run_process.hpp"
#include "support/sqlite_database.hpp"

using namespace inputanim;
using namespace inputanim::tools;
using namespace inputanim::testing;

namespace {

// The text of table recordings in a new database, as SQLite keeps it, line by line: the
// names of the columns each schema added are aligned.
const std::vector<std::string> recordings_lines = {
    "CREATE TABLE recordings (",
    "    path           TEXT NOT NULL,",
    "    valid          INTEGER NOT NULL,",
    "    bytes          INTEGER,",
    "    version        TEXT,",
    "    layout         TEXT,",
    "    has_camera     INTEGER,",
    "    has_hands      INTEGER,",
    "    has_gaze       INTEGER,",
    "    curves         INTEGER,",
    "    keyframes      INTEGER,",
    "    markers        INTEGER,",
    "    start          REAL,",
    "    duration       REAL,",
    "    warnings_found INTEGER,",
    "    error_code     TEXT,",
    "    error_offset   INTEGER,",
    "    error_place    TEXT,",
    "    error_curve    TEXT,",
    "    error_keyframe INTEGER,",
    "    error_marker   INTEGER,",
    "    error_limit    TEXT,",
    "    error_message  TEXT,",
    "    size           INTEGER,",
    "    mtime          INTEGER,",
    "    inode          INTEGER,",
    "    checked_with   TEXT NOT NULL,",
    "    report         TEXT NOT NULL,",
    "    indexed_at     INTEGER NOT NULL,",
    "    left_path_length       REAL,",
    "    right_path_length      REAL,",
    "    left_pinches           INTEGER,",
    "    right_pinches          INTEGER,",
    "    left_coverage          REAL,",
    "    right_coverage         REAL,",
    "    fixations              INTEGER,",
    "    mean_fixation_duration REAL,",
    "    archive        TEXT,",
    "    member         TEXT,",
    "    member_ordinal INTEGER NOT NULL DEFAULT -1,",
    "    member_offset  INTEGER,",
    "    member_size    INTEGER,",
    "    PRIMARY KEY (path, member_ordinal)",
    ")",
};

constexpr std::int64_t indexed_at = 1'700'000'000'000'000'000;

// A checked recording's result, as the index's readers hand it on.
file_result recording_result(const std::string& path, const bytes& file) {
    file_result r;
    r.path = path;
    r.rep = validate(view(file));
    r.bytes = file.size();
    r.stamp = file_stamp{file.size(), 1'600'000'000'000'000'000, 42};
    return r;
}

// Every column of table recordings, NULL: a row's columns before those its kind has are set.
nlohmann::json null_columns() {
    nlohmann::json row = nlohmann::json::object();
    for (const index_table_column& c : index_table) {
        if (!c.sql.empty()) row[std::string(c.name)] = nullptr;
    }
    return row;
}

// The line a row is written with in these tests.
std::string line_of(const file_result& r) {
    return json_line(r.path, {{"valid", r.rep.valid()}});
}

// The columns of a recording's row that its summary gives: the header's fields, the counts, the
// times as the line spells them.
void put_summary(nlohmann::json& row, const file_result& r, const char* version, const char* layout,
                 int has_gaze) {
    const summary& s = r.rep.summary;
    row["valid"] = r.rep.valid() ? 1 : 0;
    row["bytes"] = r.bytes;
    row["version"] = version;
    row["layout"] = layout;
    row["has_camera"] = 1;
    row["has_hands"] = 1;
    row["has_gaze"] = has_gaze;
    row["curves"] = s.curves;
    row["keyframes"] = s.keyframes;
    row["markers"] = 2;
    row["start"] = json_number(*s.start);
    row["duration"] = json_number(*s.duration);
    row["warnings_found"] = r.rep.warnings_found;
}

void put_stamp(nlohmann::json& row, const file_result& r) {
    row["size"] = r.stamp->size;
    row["mtime"] = r.stamp->mtime_ns;
    row["inode"] = r.stamp->inode;
}

// A hand's metrics as table recordings keeps them.
struct hand_columns {
    double path_length = 0;
    std::uint64_t pinches = 0;
    double coverage = 0;
};

// A recording measured with one hand, `hand` (0 left, 1 right), and gaze (without fixations).
file_result measured(const std::string& path, const bytes& file, std::size_t hand,
                     const hand_columns& columns) {
    file_result r = recording_result(path, file);
    r.metrics.emplace();
    hand_metrics& h = r.metrics->hands[hand].emplace();
    h.motion.path_length = columns.path_length;
    h.pinches = columns.pinches;
    h.coverage = columns.coverage;
    r.metrics->gaze.emplace();
    return r;
}

class SqliteStore : public ::testing::Test {
  protected:
    std::string file() const { return (folder_.path() / "index.sqlite").string(); }

    // Writes `rows` to the database as one run does, under the default options.
    void write(const std::vector<file_result>& rows) {
        sqlite_store store(file(), false);
        for (const file_result& r : rows) {
            store.put(r, options, json_line(r.path, {{"valid", r.rep.valid()}}), indexed_at);
        }
        store.finish();
    }

    const std::string options = options_json({}).dump();

  private:
    scratch_folder folder_;
};

}  // namespace

TEST_F(SqliteStore, ANewDatabaseHasTheTablesOfThisSchemaByTheirText) {
    write({});
    database db(file());
    const std::string sql =
        db.query("SELECT sql FROM sqlite_schema WHERE name = 'recordings'")[0]["sql"];
    EXPECT_EQ(lines_of(sql), recordings_lines);
    EXPECT_EQ(db.query("PRAGMA user_version")[0]["user_version"], 4);
    EXPECT_EQ(db.query("PRAGMA application_id")[0]["application_id"], 0x49416e78);
    std::vector<std::string> tables;
    for (const nlohmann::json& t :
         db.query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")) {
        tables.push_back(t["name"]);
    }
    EXPECT_EQ(tables, (std::vector<std::string>{"archives", "recordings", "warnings"}));
    EXPECT_EQ(db.integrity(), "ok");
}

TEST_F(SqliteStore, ARecordingsRowHoldsItsSummaryStampOptionsAndLine) {
    const bytes file_bytes = small_file(shape::v11_full);
    const file_result r = recording_result("takes/a.bin", file_bytes);
    write({r});
    database db(file());
    const nlohmann::json row = db.row("takes/a.bin");
    EXPECT_EQ(row["valid"], 1);
    EXPECT_EQ(row["bytes"], file_bytes.size());
    EXPECT_EQ(row["version"], "1.1");
    EXPECT_EQ(row["layout"], "full");
    EXPECT_EQ(row["has_camera"], 1);
    EXPECT_EQ(row["markers"], 2);
    // Its warnings, a row each in table warnings.
    EXPECT_EQ(row["warnings_found"], r.rep.warnings_found);
    EXPECT_EQ(db.query("SELECT code FROM warnings WHERE path = ?1", "takes/a.bin").size(),
              r.rep.warnings().size());
    EXPECT_TRUE(row["error_code"].is_null());
    EXPECT_EQ(row["size"], file_bytes.size());
    EXPECT_EQ(row["mtime"], r.stamp->mtime_ns);
    EXPECT_EQ(row["inode"], 42);
    EXPECT_EQ(row["checked_with"], options);
    EXPECT_EQ(row["report"], json_line("takes/a.bin", {{"valid", true}}));
    EXPECT_EQ(row["indexed_at"], indexed_at);
    // A file, not a member of an archive; measured by no --metrics.
    EXPECT_EQ(row["member_ordinal"], -1);
    EXPECT_TRUE(row["archive"].is_null());
    EXPECT_TRUE(row["fixations"].is_null());
}

TEST_F(SqliteStore, AnInvalidRecordingsRowHoldsItsErrorAColumnAField) {
    const bytes whole = small_file(shape::v10);
    const file_result r = recording_result("cut.bin", bytes(whole.begin(), whole.begin() + 40));
    ASSERT_FALSE(r.rep.valid());
    write({r});
    database db(file());
    const nlohmann::json row = db.row("cut.bin");
    const nlohmann::json e = error_json(r.rep.error);
    EXPECT_EQ(row["valid"], 0);
    EXPECT_EQ(row["error_code"], e["code"]);
    EXPECT_EQ(row["error_offset"], e["offset"]);
    EXPECT_EQ(row["error_place"], e["place"]);
    EXPECT_EQ(row["error_message"], e["message"]);
}

TEST_F(SqliteStore, AnUnreadableFilesRowHasItsReasonAndNoStampSoTheNextRunReadsItAgain) {
    file_result r;
    r.path = "locked.bin";
    r.outcome = file_outcome::unreadable;
    r.failure = std::make_error_code(std::errc::permission_denied);
    r.failure_code = "unreadable";
    write({r});
    database db(file());
    const nlohmann::json row = db.row("locked.bin");
    EXPECT_EQ(row["valid"], 0);
    EXPECT_EQ(row["error_code"], "unreadable");
    EXPECT_EQ(row["error_message"], r.failure.message());
    EXPECT_TRUE(row["size"].is_null());
    EXPECT_TRUE(row["mtime"].is_null());
}

TEST_F(SqliteStore, ANameThatIsNotUtf8IsKeptAsABlobOfItsBytes) {
    write({recording_result("a\xff.bin", small_file(shape::v10))});
    database db(file());
    const std::vector<nlohmann::json> rows = db.query("SELECT path FROM recordings");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["path"], (nlohmann::json{{"blob", "61ff2e62696e"}}));
}

TEST_F(SqliteStore, APathWrittenAgainReplacesItsRow) {
    const bytes whole = small_file(shape::v10);
    write({recording_result("a.bin", bytes(whole.begin(), whole.begin() + 40))});
    write({recording_result("a.bin", whole)});
    database db(file());
    EXPECT_EQ(db.paths(), (std::vector<std::string>{"a.bin"}));
    EXPECT_EQ(db.row("a.bin")["valid"], 1);
}

TEST_F(SqliteStore, AStoredFileIsFoundWithItsStampOptionsAndVerdictAndRemovedByItsPath) {
    const file_result r = recording_result("a.bin", small_file(shape::v11_compact));
    write({r});
    sqlite_store store(file(), false);
    const std::optional<known_file> known = store.lookup("a.bin");
    ASSERT_TRUE(known);
    EXPECT_EQ(known->stamp, r.stamp);
    EXPECT_EQ(known->options, options);
    EXPECT_TRUE(known->valid);
    EXPECT_EQ(known->report, json_line("a.bin", {{"valid", true}}));
    EXPECT_FALSE(store.lookup("b.bin"));
    store.remove("a.bin");
    store.finish();
    EXPECT_FALSE(store.lookup("a.bin"));
}

TEST_F(SqliteStore, ANewDatabaseHoldsOnlyTheRowsOfTheRunThatOpenedIt) {
    sqlite_store store(file(), false);
    EXPECT_TRUE(store.holds_only_this_runs_rows());
    store.put(recording_result("a.bin", small_file(shape::v10)), options, "{}", indexed_at);
    EXPECT_TRUE(store.holds_only_this_runs_rows());
    store.finish();
}

TEST_F(SqliteStore, ADatabaseThatHeldARowOrAnArchiveWhenOpenedHoldsRowsOfOtherRuns) {
    write({recording_result("a.bin", small_file(shape::v10))});
    EXPECT_FALSE(sqlite_store(file(), false).holds_only_this_runs_rows());
    {
        sqlite_store store(file(), false);
        store.remove("a.bin");
        store.put_archive("takes.tar", "tar", 1, 1, file_stamp{10240, 5, 6}, options, indexed_at);
        store.finish();
    }
    EXPECT_FALSE(sqlite_store(file(), false).holds_only_this_runs_rows());
}

TEST_F(SqliteStore, APathNewToTheDatabaseGetsItsWarningsOnceAndAPathWrittenAgainHasThemReplaced) {
    const bytes file_bytes = small_file(shape::v11_full);
    file_result r = recording_result("a.bin", file_bytes);
    r.rep = validate(view(file_bytes), {level::full, layout_choice::automatic, {}});
    ASSERT_GT(r.rep.warnings().size(), 0u);
    const auto warnings_of_a = [&] {
        database db(file());
        return db.query("SELECT code FROM warnings WHERE path = ?1", "a.bin").size();
    };
    {
        sqlite_store store(file(), false);
        r.new_in_store = true;
        store.put(r, options, "{}", indexed_at);
        // Written again by the same run, so no longer new: its warnings are replaced.
        r.new_in_store = false;
        store.put(r, options, "{}", indexed_at);
        store.finish();
    }
    EXPECT_EQ(warnings_of_a(), r.rep.warnings().size());
    {
        // A database with another run's rows: a path said to be new (the database changed after
        // the file was handed over) has its warnings cleared all the same.
        sqlite_store store(file(), false);
        ASSERT_FALSE(store.holds_only_this_runs_rows());
        r.new_in_store = true;
        store.put(r, options, "{}", indexed_at);
        store.finish();
    }
    EXPECT_EQ(warnings_of_a(), r.rep.warnings().size());
}

TEST_F(SqliteStore, AnIndexMergedInBringsRowsOfAnotherRun) {
    write({recording_result("a.bin", small_file(shape::v10))});
    scratch_folder other;
    const std::string merged = (other.path() / "merged.sqlite").string();
    sqlite_store store(merged, false);
    ASSERT_TRUE(store.holds_only_this_runs_rows());
    store.merge(file());
    EXPECT_FALSE(store.holds_only_this_runs_rows());
    store.finish();
}

TEST_F(SqliteStore, AMembersRowIsPlacedInItsArchiveAndComesBackWithTheArchivesRows) {
    file_result m = recording_result("takes.tar/a.bin", small_file(shape::v10));
    m.stamp.reset();
    m.archive = "takes.tar";
    m.member = archive_member{};
    m.member->name = "a.bin";
    m.member->ordinal = 2;
    m.member->size = m.bytes;
    m.member->data_offset = 1536;
    m.ordinal = 2;
    {
        sqlite_store store(file(), false);
        store.put(m, options, json_line(m.path, {{"valid", true}}), indexed_at);
        store.put_archive("takes.tar", "tar", 3, 2, file_stamp{10240, 5, 6}, options, indexed_at);
        store.finish();
    }
    database db(file());
    const nlohmann::json row = db.row("takes.tar/a.bin");
    EXPECT_EQ(row["archive"], "takes.tar");
    EXPECT_EQ(row["member"], "a.bin");
    EXPECT_EQ(row["member_ordinal"], 2);
    EXPECT_EQ(row["member_offset"], 1536);
    EXPECT_EQ(row["member_size"], m.bytes);

    sqlite_store store(file(), false);
    const std::optional<known_file> archive = store.lookup_archive("takes.tar");
    ASSERT_TRUE(archive);
    EXPECT_EQ(archive->stamp, (file_stamp{10240, 5, 6}));
    EXPECT_EQ(archive->other, 2u);
    std::vector<std::string> members;
    store.for_each_archive_row("takes.tar",
                               [&](const stored_row& r) { members.push_back(r.path); });
    EXPECT_EQ(members, (std::vector<std::string>{"takes.tar/a.bin"}));
    // A member is no file of its own.
    EXPECT_FALSE(store.lookup("takes.tar/a.bin"));
}

TEST_F(SqliteStore, ADirectoryIsRefusedBeforeSqliteOpensIt) {
    const std::filesystem::path folder = std::filesystem::path(file()).parent_path() / "folder";
    std::filesystem::create_directory(folder);
    try {
        sqlite_store store(folder.string(), false);
        FAIL() << "a directory was opened as a database";
    } catch (const store_error& e) {
        EXPECT_EQ(e.kind(), store_error::fault::refused);
    }
}

TEST_F(SqliteStore, EveryColumnOfEachKindOfRowHoldsItsValueOrNull) {
    const bytes file_bytes = small_file(shape::v11_full);
    // A valid file.
    const file_result valid = recording_result("takes/a.bin", file_bytes);
    // An invalid one: keyframe 2 of a curve at the time of the one before.
    model m = small_model(shape::v11_compact);
    const curve_id wrist_py = joint_curve(side::left, joint::wrist, pose_channel::position_y);
    m[wrist_py].keys[2].time = m[wrist_py].keys[1].time;
    const file_result unsorted = recording_result("takes/unsorted.bin", inputanim::write(m));
    ASSERT_EQ(unsorted.rep.error.code, errc::unsorted_keys);
    // A file that could not be read: neither its stamp nor metrics are kept.
    file_result locked;
    locked.path = "takes/locked.bin";
    locked.outcome = file_outcome::unreadable;
    locked.failure = std::make_error_code(std::errc::permission_denied);
    locked.failure_code = "unreadable";
    locked.stamp = file_stamp{1, 2, 3};
    locked.metrics.emplace();
    locked.metrics->gaze.emplace();
    // Measured: the left hand and gaze with fixations; the right hand and gaze without any (no
    // mean duration).
    file_result left = measured("takes/left.bin", file_bytes, 0, {1.5, 3, 0.75});
    left.metrics->gaze->fixations = 7;
    left.metrics->gaze->mean_fixation_duration = 0.25;
    const file_result right = measured("takes/right.bin", file_bytes, 1, {2.5, 0, 1.0});
    // A member of a tar, held as it is, without a stamp of its own.
    file_result member = recording_result("takes.tar/a.bin", file_bytes);
    member.stamp.reset();
    member.archive = "takes.tar";
    member.member.emplace();
    member.member->name = "a.bin";
    member.member->ordinal = 2;
    member.member->size = member.bytes;
    member.member->data_offset = 1536;
    member.ordinal = 2;
    // A member of a zip, inflated, whose names are not UTF-8, invalid under a limit on marker
    // names.
    validate_options tight;
    tight.limits.max_marker_name_bytes = 1;
    file_result odd;
    odd.path = "odd\xff.zip/m\xfe.bin";
    odd.rep = validate(view(file_bytes), tight);
    odd.bytes = file_bytes.size();
    odd.archive = "odd\xff.zip";
    odd.member.emplace();
    odd.member->name = "m\xfe.bin";
    odd.member->size = 900;
    odd.ordinal = 0;
    ASSERT_EQ(odd.rep.error.code, errc::limit_exceeded);
    // The tar's walk stopped at its entry 3, where no header was read.
    file_result stopped;
    stopped.path = "takes.tar";
    stopped.archive = "takes.tar";
    stopped.ordinal = 3;
    stopped.rep.error = error{errc::archive_damaged, 10240};
    const std::vector<file_result> rows = {valid, unsorted, locked, left,
                                           right, member,   odd,    stopped};
    {
        sqlite_store store(file(), false);
        for (const file_result& r : rows) store.put(r, options, line_of(r), indexed_at);
        store.finish();
    }

    std::vector<nlohmann::json> expected;
    for (const file_result& r : rows) {
        nlohmann::json row = null_columns();
        row["path"] = r.path;
        row["checked_with"] = options;
        row["report"] = line_of(r);
        row["indexed_at"] = indexed_at;
        row["member_ordinal"] = r.ordinal;
        expected.push_back(row);
    }
    put_summary(expected[0], valid, "1.1", "full", 1);
    put_stamp(expected[0], valid);

    put_summary(expected[1], unsorted, "1.1", "compact", 1);
    put_stamp(expected[1], unsorted);
    const nlohmann::json e = error_json(unsorted.rep.error);
    expected[1]["error_code"] = "unsorted_keys";
    expected[1]["error_offset"] = unsorted.rep.error.offset;
    expected[1]["error_place"] = "curve";
    expected[1]["error_curve"] = curve_path(wrist_py);
    expected[1]["error_keyframe"] = 2;
    expected[1]["error_message"] = e["message"];

    expected[2]["valid"] = 0;
    expected[2]["error_code"] = "unreadable";
    expected[2]["error_message"] = locked.failure.message();

    put_summary(expected[3], left, "1.1", "full", 1);
    put_stamp(expected[3], left);
    expected[3]["left_path_length"] = 1.5;
    expected[3]["left_pinches"] = 3;
    expected[3]["left_coverage"] = 0.75;
    expected[3]["fixations"] = 7;
    expected[3]["mean_fixation_duration"] = 0.25;

    put_summary(expected[4], right, "1.1", "full", 1);
    put_stamp(expected[4], right);
    expected[4]["right_path_length"] = 2.5;
    expected[4]["right_pinches"] = 0;
    expected[4]["right_coverage"] = 1.0;
    expected[4]["fixations"] = 0;

    put_summary(expected[5], member, "1.1", "full", 1);
    expected[5]["archive"] = "takes.tar";
    expected[5]["member"] = "a.bin";
    expected[5]["member_offset"] = 1536;
    expected[5]["member_size"] = member.bytes;

    put_summary(expected[6], odd, "1.1", "full", 1);
    // Names that are not UTF-8: BLOBs of their bytes.
    expected[6]["path"] = {{"blob", "6f6464ff2e7a69702f6dfe2e62696e"}};
    expected[6]["archive"] = {{"blob", "6f6464ff2e7a6970"}};
    expected[6]["member"] = {{"blob", "6dfe2e62696e"}};
    expected[6]["member_size"] = 900;
    const nlohmann::json limit = error_json(odd.rep.error);
    expected[6]["error_code"] = "limit_exceeded";
    expected[6]["error_offset"] = odd.rep.error.offset;
    expected[6]["error_place"] = "markers";
    // The error's path (error::path()), as the line's "curve" has it.
    expected[6]["error_curve"] = "markers";
    expected[6]["error_marker"] = limit["marker"];
    expected[6]["error_limit"] = "max_marker_name_bytes";
    expected[6]["error_message"] = limit["message"];
    ASSERT_TRUE(limit["marker"].is_number()) << limit;

    // No header: no version, layout or blocks, and the counts of none.
    expected[7]["valid"] = 0;
    expected[7]["bytes"] = 0;
    expected[7]["curves"] = 0;
    expected[7]["keyframes"] = 0;
    expected[7]["warnings_found"] = 0;
    expected[7]["archive"] = "takes.tar";
    expected[7]["error_code"] = "archive_damaged";
    expected[7]["error_offset"] = 10240;
    expected[7]["error_place"] = "none";
    expected[7]["error_message"] = stopped.rep.error.message();

    database db(file());
    const std::vector<nlohmann::json> stored = db.query("SELECT * FROM recordings ORDER BY rowid");
    ASSERT_EQ(stored.size(), expected.size());
    for (std::size_t i = 0; i < stored.size(); ++i) {
        ASSERT_EQ(stored[i].size(), expected[i].size()) << rows[i].path;
        for (const auto& [name, value] : expected[i].items()) {
            // As text, so that a REAL 1.0 differs from an INTEGER 1.
            EXPECT_EQ(stored[i].at(name).dump(), value.dump()) << rows[i].path << " " << name;
        }
    }
}
