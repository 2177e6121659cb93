// The index database (tools/index/sqlite_store.hpp), called directly: rows written to a
// temporary database and read back with SQLite. What a new database's tables are (their text is
// what older databases are migrated to, byte for byte), what a recording's, an unreadable file's
// and an archive member's row holds, and how a row is replaced, found and removed. The command's
// tests (test_cli_index*) run `inputanim index --sqlite` over real folders.
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "index/sqlite_store.hpp"
#include "inputanim/inputanim.hpp"
#include "report/report_json.hpp"
#include "support/builders.hpp"
#include "support/run_process.hpp"
#include "support/sqlite_database.hpp"

using namespace inputanim;
using namespace inputanim::records;
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

    const nlohmann::json options = options_json({});

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
    EXPECT_EQ(row["checked_with"], options.dump());
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
    EXPECT_EQ(known->options, options.dump());
    EXPECT_TRUE(known->valid);
    EXPECT_EQ(known->report, json_line("a.bin", {{"valid", true}}));
    EXPECT_FALSE(store.lookup("b.bin"));
    store.remove("a.bin");
    store.finish();
    EXPECT_FALSE(store.lookup("a.bin"));
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
