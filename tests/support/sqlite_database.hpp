// Opens a SQLite database that a test of `inputanim index` made and reads it back. Tests that
// include it link SQLite (tests/cli_index.cmake).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace inputanim::testing {

// A SQLite database opened by a test; rows come back as JSON objects (column name to value, with
// SQLite's own types: null, integer, real, text, and a BLOB as {"blob": its bytes in hex}).
class database {
  public:
    explicit database(const std::string& file) {
        EXPECT_EQ(sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK)
            << file;
    }
    ~database() { sqlite3_close(db_); }
    database(const database&) = delete;
    database& operator=(const database&) = delete;

    std::vector<nlohmann::json> query(const std::string& sql, const std::string& parameter = {}) {
        std::vector<nlohmann::json> rows;
        sqlite3_stmt* s = nullptr;
        EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK)
            << sqlite3_errmsg(db_);
        if (!parameter.empty()) sqlite3_bind_text(s, 1, parameter.c_str(), -1, SQLITE_TRANSIENT);
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            nlohmann::json row = nlohmann::json::object();
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
                        row[name] =
                            std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, i)),
                                        static_cast<std::size_t>(sqlite3_column_bytes(s, i)));
                        break;
                    case SQLITE_BLOB:
                        row[name] = nlohmann::json{
                            {"blob", hex(sqlite3_column_blob(s, i), sqlite3_column_bytes(s, i))}};
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

    nlohmann::json row(const std::string& path) {
        const std::vector<nlohmann::json> rows =
            query("SELECT * FROM recordings WHERE path = ?1", path);
        EXPECT_EQ(rows.size(), 1u) << "one row for " << path;
        return rows.empty() ? nlohmann::json() : rows[0];
    }

    std::vector<std::string> paths() {
        std::vector<std::string> result;
        for (const nlohmann::json& r : query("SELECT path FROM recordings ORDER BY path")) {
            result.push_back(r["path"]);
        }
        return result;
    }

    // How many tables, indexes, views and triggers the database holds: 0 for a new file.
    std::int64_t schema_objects() {
        const std::vector<nlohmann::json> rows = query("SELECT count(*) AS n FROM sqlite_schema");
        return rows.size() == 1 ? rows[0]["n"].get<std::int64_t>() : -1;
    }

    // Makes this database (of the current schema) one of schema 3, as inputanim wrote it before
    // archives: its tables made again as they were then, every row of a file kept.
    void make_schema_3() {
        query("PRAGMA foreign_keys = OFF");
        for (const char* sql :
             {"ALTER TABLE recordings RENAME TO recordings_now",
              "ALTER TABLE warnings RENAME TO warnings_now", "DROP TABLE archives",
              "DROP INDEX recordings_by_archive", "DROP INDEX warnings_by_path"}) {
            query(sql);
        }
        query(R"sql(CREATE TABLE recordings (
    path           TEXT PRIMARY KEY NOT NULL,
    valid          INTEGER NOT NULL,
    bytes          INTEGER,
    version        TEXT,
    layout         TEXT,
    has_camera     INTEGER,
    has_hands      INTEGER,
    has_gaze       INTEGER,
    curves         INTEGER,
    keyframes      INTEGER,
    markers        INTEGER,
    start          REAL,
    duration       REAL,
    warnings_found INTEGER,
    error_code     TEXT,
    error_offset   INTEGER,
    error_place    TEXT,
    error_curve    TEXT,
    error_keyframe INTEGER,
    error_marker   INTEGER,
    error_limit    TEXT,
    error_message  TEXT,
    size           INTEGER,
    mtime          INTEGER,
    inode          INTEGER,
    checked_with   TEXT NOT NULL,
    report         TEXT NOT NULL,
    indexed_at     INTEGER NOT NULL,
    left_path_length       REAL,
    right_path_length      REAL,
    left_pinches           INTEGER,
    right_pinches          INTEGER,
    left_coverage          REAL,
    right_coverage         REAL,
    fixations              INTEGER,
    mean_fixation_duration REAL
))sql");
        query(R"sql(CREATE TABLE warnings (
    path     TEXT NOT NULL REFERENCES recordings(path) ON DELETE CASCADE,
    code     TEXT NOT NULL,
    curve    TEXT NOT NULL,
    keyframe INTEGER,
    count    INTEGER NOT NULL,
    message  TEXT NOT NULL
))sql");
        query("CREATE INDEX warnings_by_path ON warnings(path)");
        std::string columns;
        for (const nlohmann::json& c : query("SELECT name FROM pragma_table_info('recordings')")) {
            columns += (columns.empty() ? "" : ", ") + c["name"].get<std::string>();
        }
        query("INSERT INTO recordings SELECT " + columns +
              " FROM recordings_now WHERE member_ordinal = -1 AND archive IS NULL");
        query(
            "INSERT INTO warnings SELECT path, code, curve, keyframe, count, message FROM "
            "warnings_now WHERE member_ordinal = -1");
        query("DROP TABLE warnings_now");
        query("DROP TABLE recordings_now");
        query("PRAGMA user_version = 3");
    }

    // The result of `PRAGMA integrity_check`: "ok" for a sound file.
    std::string integrity() {
        const std::vector<nlohmann::json> rows = query("PRAGMA integrity_check");
        return rows.size() == 1 ? rows[0]["integrity_check"].get<std::string>() : "no answer";
    }

  private:
    static std::string hex(const void* data, int size) {
        static constexpr char digits[] = "0123456789abcdef";
        std::string out;
        const auto* b = static_cast<const unsigned char*>(data);
        for (int i = 0; i < size; ++i) {
            out += digits[b[i] >> 4];
            out += digits[b[i] & 0xf];
        }
        return out;
    }

    sqlite3* db_ = nullptr;
};

}  // namespace inputanim::testing
