#include "index/sqlite_store.hpp"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>

#include "index/index_row.hpp"
#include "os/output_file.hpp"
#include "os/text.hpp"

namespace inputanim::tools {

namespace {

// Bumped when the tables change. A database of schema 2 or 3 is migrated (schema_change): its
// tables are rebuilt with the columns added since, at their end, so that its rows line up with a
// new database's; any other version is refused, not altered.
constexpr int schema_version = 4;
// PRAGMA application_id of an inputanim index ("IAnx"): how a database is known to be one.
constexpr std::int64_t application_id = 0x49416e78;

// Table recordings, named `name`. A row is a file (member_ordinal -1), a member of an archive
// (archive, member, its ordinal from 0) or an archive whose walk stopped (archive set, member
// NULL, member_ordinal the place of the entry it could not read): (path, member_ordinal) is the
// key, as members of one name have a row each.
std::string recordings_table(std::string_view name) {
    std::string text = "CREATE TABLE " + std::string(name) + " (\n";
    for (const index_table_column& c : index_table) {
        if (c.sql.empty()) continue;
        // The names of the columns one schema added are aligned, one space past the longest.
        std::size_t width = 0;
        for (const index_table_column& other : index_table) {
            if (!other.sql.empty() && other.since == c.since) {
                width = std::max(width, other.name.size());
            }
        }
        text += "    " + std::string(c.name) + std::string(width + 1 - c.name.size(), ' ') +
                std::string(c.sql) + ",\n";
    }
    return text + "    PRIMARY KEY (path, member_ordinal)\n);\n";
}

std::string warnings_table(std::string_view name) {
    return "CREATE TABLE " + std::string(name) + R"sql( (
    path     TEXT NOT NULL,
    code     TEXT NOT NULL,
    curve    TEXT NOT NULL,
    keyframe INTEGER,
    count    INTEGER NOT NULL,
    message  TEXT NOT NULL,
    member_ordinal INTEGER NOT NULL DEFAULT -1,
    FOREIGN KEY (path, member_ordinal) REFERENCES recordings(path, member_ordinal)
        ON DELETE CASCADE
);
)sql";
}

// An archive walked whole: its stamp and the options its members' rows were made under, so that
// a run finds it unchanged and hands on their rows without reading it. Written after its last
// member's row, so that a run killed inside an archive leaves none and the next reads it again.
constexpr const char* archives_table = R"sql(
CREATE TABLE archives (
    path         TEXT PRIMARY KEY NOT NULL,
    format       TEXT NOT NULL,
    entries      INTEGER NOT NULL,
    other        INTEGER NOT NULL,
    size         INTEGER NOT NULL,
    mtime        INTEGER NOT NULL,
    inode        INTEGER NOT NULL,
    checked_with TEXT NOT NULL,
    indexed_at   INTEGER NOT NULL
);
)sql";

constexpr const char* schema_indexes = R"sql(
CREATE INDEX recordings_by_archive ON recordings(archive, member_ordinal);
CREATE INDEX warnings_by_path ON warnings(path, member_ordinal);
)sql";

std::string schema() {
    return recordings_table("recordings") + warnings_table("warnings") + archives_table +
           schema_indexes;
}

// The columns of table recordings that schema `since` added.
constexpr std::size_t columns_since(int since) {
    std::size_t n = 0;
    for (const index_table_column& c : index_table) n += !c.sql.empty() && c.since == since;
    return n;
}

// Schema 2 to 3: the columns of index --metrics.
std::string add_metrics_columns() {
    std::string sql;
    for (const index_table_column& c : index_table) {
        if (c.sql.empty() || c.since != 3) continue;
        sql += "ALTER TABLE recordings ADD COLUMN " + std::string(c.name) + " " +
               std::string(c.sql) + ";\n";
    }
    return sql;
}

// Schema 3 to 4: the key gains member_ordinal, so the tables are made again and their rows
// copied (every one a file: -1), and table archives is added.
std::string add_archive_columns() {
    return recordings_table("recordings_v4") +
           "INSERT INTO recordings_v4 SELECT *, NULL, NULL, -1, NULL, NULL FROM recordings;\n" +
           warnings_table("warnings_v4") +
           "INSERT INTO warnings_v4 SELECT *, -1 FROM warnings;\n"
           "DROP TABLE warnings;\nDROP TABLE recordings;\n"
           "ALTER TABLE recordings_v4 RENAME TO recordings;\n"
           "ALTER TABLE warnings_v4 RENAME TO warnings;\n" +
           archives_table + schema_indexes;
}

// The columns schema 2 lacks: those of table recordings before the archive columns.
constexpr std::size_t metrics_column_count = columns_since(3);
// The columns schema 3 lacks: the last ones of tables recordings and warnings.
constexpr std::size_t archive_column_count = columns_since(4);
constexpr std::size_t archive_warning_column_count = 1;

// How long a run waits for another that holds the database's write lock (one batch of changes,
// or the schema being made) before it gives up.
constexpr int busy_timeout_ms = 30'000;

// INSERT ... ON CONFLICT (path, member_ordinal) DO UPDATE SET every other column.
std::string upsert_sql() {
    std::string names, values, updates;
    int i = 0;
    for (const index_table_column& c : index_table) {
        if (c.sql.empty()) continue;
        const std::string name(c.name);
        names += (i ? ", " : "") + name;
        values += (i ? ", ?" : "?") + std::to_string(i + 1);
        ++i;
        if (name == "path" || name == "member_ordinal") continue;
        updates += (updates.empty() ? "" : ", ") + name + " = excluded." + name;
    }
    return "INSERT INTO recordings (" + names + ") VALUES (" + values +
           ") ON CONFLICT (path, member_ordinal) DO UPDATE SET " + updates;
}

// One column as PRAGMA table_info describes it.
struct column_info {
    std::string name;
    std::string type;
    bool not_null = false;
    int primary_key = 0;
    friend bool operator==(const column_info&, const column_info&) = default;
};

std::string column_text(const column_info& c) {
    std::string text = c.name + " " + c.type;
    if (c.primary_key != 0) text += " PRIMARY KEY";
    if (c.not_null) text += " NOT NULL";
    return text;
}

// The columns of `table` in the attached database `schema_name`, in order (none when there is no
// such table). Throws store_error.
std::vector<column_info> columns_of(sqlite3* db, const std::string& schema_name,
                                    const char* table) {
    const std::string sql = "PRAGMA " + schema_name + ".table_info(" + table + ")";
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
        throw store_error(sqlite3_errmsg(db));
    }
    std::vector<column_info> columns;
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const auto text = [&](int i) {
            const unsigned char* t = sqlite3_column_text(s, i);
            return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
        };
        columns.push_back(
            {text(1), text(2), sqlite3_column_int(s, 3) != 0, sqlite3_column_int(s, 5)});
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) throw store_error(sqlite3_errmsg(db));
    return columns;
}

// The tables of `schema` (the one definition), read back from a database in memory.
struct schema_tables {
    std::vector<column_info> recordings;
    std::vector<column_info> warnings;
    std::vector<column_info> archives;
};

schema_tables read_schema_tables() {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        sqlite3_close_v2(db);
        throw store_error("out of memory");
    }
    try {
        if (sqlite3_exec(db, schema().c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
            throw store_error(sqlite3_errmsg(db));
        }
        schema_tables t{columns_of(db, "main", "recordings"), columns_of(db, "main", "warnings"),
                        columns_of(db, "main", "archives")};
        sqlite3_close_v2(db);
        return t;
    } catch (...) {
        sqlite3_close_v2(db);
        throw;
    }
}

const schema_tables& expected_tables() {
    static const schema_tables tables = read_schema_tables();
    return tables;
}

// Empty when `found` are the columns `expected`; else the first difference.
std::string columns_problem(const char* table, const std::vector<column_info>& found,
                            const std::vector<column_info>& expected) {
    const std::string name = std::string("table ") + table;
    if (found.empty()) return "no " + name;
    for (std::size_t i = 0; i < std::max(found.size(), expected.size()); ++i) {
        if (i < found.size() && i < expected.size() && found[i] == expected[i]) continue;
        const std::string place = name + " column " + std::to_string(i + 1) + " is ";
        if (i >= expected.size()) return place + column_text(found[i]) + ", one too many";
        if (i >= found.size()) return place + "missing, not " + column_text(expected[i]);
        return place + column_text(found[i]) + ", not " + column_text(expected[i]);
    }
    return {};
}

// The stamp in columns first, first + 1, first + 2 (size, mtime, inode) of the current row; none
// when one is NULL.
std::optional<file_stamp> stamp_columns(sqlite3_stmt* s, int first) {
    for (int i = first; i < first + 3; ++i) {
        if (sqlite3_column_type(s, i) == SQLITE_NULL) return std::nullopt;
    }
    return file_stamp{static_cast<std::uint64_t>(sqlite3_column_int64(s, first)),
                      sqlite3_column_int64(s, first + 1),
                      static_cast<std::uint64_t>(sqlite3_column_int64(s, first + 2))};
}

// Column `i` of the current row as bytes, whether TEXT or BLOB.
std::string column_bytes(sqlite3_stmt* s, int i) {
    const void* data = sqlite3_column_type(s, i) == SQLITE_BLOB ? sqlite3_column_blob(s, i)
                                                                : sqlite3_column_text(s, i);
    const int size = sqlite3_column_bytes(s, i);
    return size > 0 ? std::string(static_cast<const char*>(data), static_cast<std::size_t>(size))
                    : std::string();
}

// The paths inside directory `prefix` (which ends with '/') sort from `prefix` up to, not
// including, the same text with the final '/' replaced by the next character, '0'.
std::string after_directory(std::string_view prefix) {
    std::string upper(prefix);
    upper.back() = static_cast<char>('/' + 1);
    return upper;
}

std::int64_t as_int(std::uint64_t v) {
    return static_cast<std::int64_t>(v);
}

}  // namespace

// --- statement ---------------------------------------------------------------------------------

sqlite_store::statement::statement(sqlite3* db, std::string_view sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                           &stmt_, nullptr) != SQLITE_OK) {
        throw store_error(sqlite3_errmsg(db));
    }
}

sqlite_store::statement::statement(statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

sqlite_store::statement& sqlite_store::statement::operator=(statement&& other) noexcept {
    std::swap(db_, other.db_);
    std::swap(stmt_, other.stmt_);
    return *this;
}

sqlite_store::statement::~statement() {
    sqlite3_finalize(stmt_);
}

sqlite_store::statement& sqlite_store::statement::bind(int i, std::string_view text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
}

sqlite_store::statement& sqlite_store::statement::bind_path(int i, std::string_view path) {
    if (valid_utf8(path)) return bind(i, path);
    sqlite3_bind_blob(stmt_, i, path.data(), static_cast<int>(path.size()), SQLITE_TRANSIENT);
    return *this;
}

sqlite_store::statement& sqlite_store::statement::bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
}

sqlite_store::statement& sqlite_store::statement::bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
}

bool sqlite_store::statement::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    const std::string message = sqlite3_errmsg(db_);
    sqlite3_reset(stmt_);
    throw store_error(message);
}

void sqlite_store::statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

// --- store -------------------------------------------------------------------------------------

sqlite_store::sqlite_store(const std::string& file, bool track_seen,
                           std::span<const std::string> inputs)
    : track_seen_(track_seen) {
    // SQLite would write its journal beside a device node, and fail on a FIFO only after that.
    if (const std::optional<output_failure> problem = database_target_problem(file, inputs)) {
        throw store_error(problem->reason, problem->refused ? store_error::fault::refused
                                                            : store_error::fault::failed);
    }
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
        const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close_v2(db_);
        db_ = nullptr;
        throw store_error(message);
    }
    try {
        sqlite3_busy_timeout(db_, busy_timeout_ms);
        settle_schema();
        // WAL: readers see the last committed batch while a run writes the next one.
        use_wal();
        exec("PRAGMA synchronous = NORMAL");
        exec("PRAGMA foreign_keys = ON");
        if (track_seen_) {
            // BLOB paths sort after every TEXT one, so a folder's rows are two ranges.
            exec("CREATE TEMP TABLE seen (path TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID");
            insert_seen_ = statement(db_, "INSERT OR IGNORE INTO temp.seen (path) VALUES (?1)");
            const auto unseen = [this](const char* table, const char* where) {
                return statement(db_, std::string("SELECT DISTINCT path FROM ") + table +
                                          " WHERE " + where +
                                          " AND path NOT IN (SELECT path FROM temp.seen)");
            };
            for (const char* table : {"recordings", "archives"}) {
                const bool archives = table == std::string_view("archives");
                unseen_in_dir_[archives] = unseen(table, "path >= ?1 AND path < ?2");
                unseen_in_dir_bytes_[archives] =
                    unseen(table, "path >= CAST(?1 AS BLOB) AND path < CAST(?2 AS BLOB)");
                unseen_file_[archives] = unseen(table, "path = ?1");
            }
        }
        // A file's own row: not an archive's (whose walk stopped) of the same path.
        lookup_ =
            statement(db_,
                      "SELECT size, mtime, inode, checked_with, valid, report FROM "
                      "recordings WHERE path = ?1 AND member_ordinal = -1 AND archive IS NULL");
        lookup_archive_ = statement(
            db_, "SELECT size, mtime, inode, checked_with, other FROM archives WHERE path = ?1");
        archive_rows_ = statement(db_,
                                  "SELECT member_ordinal, path, valid, report, member IS NULL "
                                  "FROM recordings WHERE archive = ?1 AND member_ordinal > ?2 "
                                  "ORDER BY member_ordinal LIMIT 1000");
        upsert_ = statement(db_, upsert_sql());
        clear_warnings_ =
            statement(db_, "DELETE FROM warnings WHERE path = ?1 AND member_ordinal = ?2");
        insert_warning_ =
            statement(db_,
                      "INSERT INTO warnings (path, member_ordinal, code, curve, "
                      "keyframe, count, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        delete_ = statement(db_, "DELETE FROM recordings WHERE path = ?1");
        delete_archive_rows_ = statement(db_,
                                         "DELETE FROM recordings WHERE archive = ?1 OR "
                                         "(path = ?1 AND member_ordinal = -1)");
        delete_archive_ = statement(db_, "DELETE FROM archives WHERE path = ?1");
        insert_archive_ = statement(
            db_,
            "INSERT OR REPLACE INTO archives (path, format, entries, other, size, mtime, "
            "inode, checked_with, indexed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        exec("BEGIN IMMEDIATE");
        in_transaction_ = true;
        batch_began_ = std::chrono::steady_clock::now();
        data_version_ = read_data_version();
        statement any_row(db_,
                          "SELECT EXISTS (SELECT 1 FROM recordings) OR "
                          "EXISTS (SELECT 1 FROM archives)");
        only_this_runs_rows_ = any_row.step() && sqlite3_column_int(any_row.get(), 0) == 0;
    } catch (...) {
        // Nothing of a refused database was changed: its transaction is given up.
        if (in_transaction_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close_v2(db_);
        throw;
    }
}

void sqlite_store::settle_schema() {
    // The write lock first (SQLite's busy handler waits for another run's), then the check and
    // the change under it: a run that starts beside another on a new file finds the schema the
    // other made, instead of making it a second time.
    exec("BEGIN IMMEDIATE");
    in_transaction_ = true;
    const int found = check_identity();
    if (found != schema_version) {
        if (found == 0) exec(schema().c_str());
        if (found == 2) exec(add_metrics_columns().c_str());
        if (found == 2 || found == 3) exec(add_archive_columns().c_str());
        exec(("PRAGMA application_id = " + std::to_string(application_id)).c_str());
        exec(("PRAGMA user_version = " + std::to_string(schema_version)).c_str());
    }
    exec("COMMIT");
    in_transaction_ = false;
}

sqlite_store::identity sqlite_store::read_identity(const std::string& schema_name) {
    const auto read_int = [this](const std::string& sql) {
        statement s(db_, sql);
        return s.step() ? sqlite3_column_int64(s.get(), 0) : std::int64_t{0};
    };
    return {read_int("PRAGMA " + schema_name + ".application_id"),
            read_int("PRAGMA " + schema_name + ".user_version"),
            read_int("SELECT count(*) FROM " + schema_name + ".sqlite_schema")};
}

std::string sqlite_store::tables_problem(const std::string& schema_name, int version) {
    const schema_tables& expected = expected_tables();
    // An older schema's tables: this one's without the columns added since, at their ends (the
    // metrics columns sit before the archive columns).
    std::vector<column_info> recordings = expected.recordings;
    std::vector<column_info> warnings = expected.warnings;
    if (version < 4) {
        recordings.resize(recordings.size() - archive_column_count);
        warnings.resize(warnings.size() - archive_warning_column_count);
    }
    if (version < 3) recordings.resize(recordings.size() - metrics_column_count);
    std::string problem =
        columns_problem("recordings", columns_of(db_, schema_name, "recordings"), recordings);
    if (problem.empty()) {
        problem = columns_problem("warnings", columns_of(db_, schema_name, "warnings"), warnings);
    }
    if (problem.empty() && version >= 4) {
        problem = columns_problem("archives", columns_of(db_, schema_name, "archives"),
                                  expected.archives);
    }
    return problem;
}

int sqlite_store::check_identity() {
    const identity found = read_identity("main");
    const bool known = found.version >= 2 && found.version <= schema_version;
    if (found.application_id == application_id && known) {
        // Its pragmas say it is one; its tables must agree, as every row written relies on them.
        if (const std::string problem = tables_problem("main", static_cast<int>(found.version));
            !problem.empty()) {
            throw store_error("not an inputanim index: its pragmas say schema " +
                              std::to_string(found.version) + ", but " + problem +
                              "; it was left unchanged");
        }
        return static_cast<int>(found.version);
    }
    if (found.application_id == application_id) {
        throw store_error("an inputanim index of schema " + std::to_string(found.version) +
                          ", not the schema " + std::to_string(schema_version) +
                          " of this version; index into a new file");
    }
    if (found.application_id == 0 && found.version == 0 && found.objects == 0) return 0;
    if (found.application_id == 0 && found.version == 1) {
        throw store_error(
            "an inputanim index of schema 1, which did not record the options of its verdicts; "
            "index into a new file");
    }
    throw store_error("not an inputanim index (application_id " +
                      std::to_string(found.application_id) + ", user_version " +
                      std::to_string(found.version) + ", " + std::to_string(found.objects) +
                      " schema objects); it was left unchanged");
}

sqlite_store::~sqlite_store() {
    if (in_transaction_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    // The statements are finalized after this body; close_v2 waits for them.
    sqlite3_close_v2(db_);
}

void sqlite_store::use_wal() {
    // Switching a new database to WAL promotes a read lock to the exclusive one. Against another
    // run that holds the write lock and waits to commit, SQLite returns SQLITE_BUSY at once
    // instead of calling the busy handler (waiting there would be a deadlock; the documentation
    // of sqlite3_busy_handler), so two runs started together on a new file could fail: this waits
    // for the other run's commit as the handler would, up to the same timeout.
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
    for (;;) {
        const int code = sqlite3_exec(db_, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
        if (code == SQLITE_OK) return;
        if ((code & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) {
            throw store_error(sqlite3_errmsg(db_));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void sqlite_store::exec(const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
        const std::string text = message ? message : sqlite3_errmsg(db_);
        sqlite3_free(message);
        throw store_error(text);
    }
}

void sqlite_store::changed() {
    if (++pending_ < batch_size) return;
    // Each commit writes every page its batch changed, and the batch of a quick run touches the
    // index of paths all over: a run that makes 500 changes in less than min_batch_time goes on
    // to the next commit point.
    if (std::chrono::steady_clock::now() - batch_began_ < min_batch_time) return;
    exec("COMMIT");
    in_transaction_ = false;
    pending_ = 0;
    exec("BEGIN IMMEDIATE");
    in_transaction_ = true;
    batch_began_ = std::chrono::steady_clock::now();
    // Another run committed between the two transactions: its rows are in.
    const std::int64_t version = read_data_version();
    if (version != data_version_) only_this_runs_rows_ = false;
    data_version_ = version;
}

std::int64_t sqlite_store::read_data_version() {
    statement s(db_, "PRAGMA data_version");
    return s.step() ? sqlite3_column_int64(s.get(), 0) : 0;
}

std::optional<known_file> sqlite_store::lookup(std::string_view path) {
    lookup_.bind_path(1, path);
    std::optional<known_file> known;
    if (lookup_.step()) {
        sqlite3_stmt* s = lookup_.get();
        known.emplace();
        known->stamp = stamp_columns(s, 0);
        known->options = column_bytes(s, 3);
        known->valid = sqlite3_column_int(s, 4) != 0;
        known->report = column_bytes(s, 5);
    }
    lookup_.reset();
    return known;
}

std::optional<known_file> sqlite_store::lookup_archive(std::string_view path) {
    lookup_archive_.bind_path(1, path);
    std::optional<known_file> known;
    if (lookup_archive_.step()) {
        known.emplace();
        known->stamp = stamp_columns(lookup_archive_.get(), 0);
        known->options = column_bytes(lookup_archive_.get(), 3);
        known->other = static_cast<std::uint64_t>(sqlite3_column_int64(lookup_archive_.get(), 4));
    }
    lookup_archive_.reset();
    return known;
}

void sqlite_store::forget_archive(std::string_view path) {
    delete_archive_.bind_path(1, path);
    delete_archive_.step();
    delete_archive_.reset();
    delete_archive_rows_.bind_path(1, path);
    delete_archive_rows_.step();
    delete_archive_rows_.reset();
    changed();
}

void sqlite_store::put_archive(std::string_view path, std::string_view format,
                               std::uint64_t entries, std::uint64_t other, const file_stamp& stamp,
                               std::string_view options, std::int64_t indexed_at_ns) {
    insert_archive_.bind_path(1, path)
        .bind(2, format)
        .bind(3, as_int(entries))
        .bind(4, as_int(other))
        .bind(5, as_int(stamp.size))
        .bind(6, stamp.mtime_ns)
        .bind(7, as_int(stamp.inode))
        .bind(8, options)
        .bind(9, indexed_at_ns);
    insert_archive_.step();
    insert_archive_.reset();
    if (track_seen_) {
        insert_seen_.bind_path(1, path);
        insert_seen_.step();
        insert_seen_.reset();
    }
    changed();
}

void sqlite_store::for_each_archive_row(std::string_view path,
                                        const std::function<void(const stored_row&)>& each) {
    // In pages by ordinal, so that no statement is left open across the callback's writes.
    std::int64_t after = std::numeric_limits<std::int64_t>::min();
    std::vector<stored_row> page;
    do {
        page.clear();
        archive_rows_.bind_path(1, path).bind(2, after);
        while (archive_rows_.step()) {
            sqlite3_stmt* s = archive_rows_.get();
            page.push_back({column_bytes(s, 1), sqlite3_column_int(s, 2) != 0, column_bytes(s, 3),
                            sqlite3_column_int(s, 4) != 0});
            after = sqlite3_column_int64(s, 0);
        }
        archive_rows_.reset();
        for (const stored_row& row : page) each(row);
    } while (!page.empty());
}

void sqlite_store::put(const file_result& r, std::string_view options, std::string_view report_line,
                       std::int64_t indexed_at_ns) {
    const detail::store_source from(r, options, report_line, indexed_at_ns);
    // The parameters of upsert_sql: ?1, ?2, ... the table's columns in order.
    int parameter = 0;
    for (const index_table_column& c : index_table) {
        if (c.sql.empty()) continue;
        ++parameter;
        // None is NULL: reset() cleared the last row's bindings.
        const std::optional<detail::sql_value> value = c.stored(from);
        if (!value) continue;
        std::visit(
            [&](const auto& v) {
                if constexpr (std::is_same_v<std::decay_t<decltype(v)>, detail::sql_path>) {
                    upsert_.bind_path(parameter, v.bytes);
                } else {
                    upsert_.bind(parameter, v);
                }
            },
            *value);
    }
    upsert_.step();
    upsert_.reset();

    if (!(r.new_in_store && holds_only_this_runs_rows())) {
        clear_warnings_.bind_path(1, r.path).bind(2, r.ordinal);
        clear_warnings_.step();
        clear_warnings_.reset();
    }
    if (r.outcome == file_outcome::recording) {
        for (const warning& w : r.rep.warnings()) {
            insert_warning_.bind_path(1, r.path)
                .bind(2, r.ordinal)
                .bind(3, warning_name(w.code))
                .bind(4, w.path())
                .bind(6, std::int64_t{w.count})
                .bind(7, w.message());
            if (w.keyframe >= 0) insert_warning_.bind(5, w.keyframe);
            insert_warning_.step();
            insert_warning_.reset();
        }
    }
    if (track_seen_) {
        insert_seen_.bind_path(1, r.path);
        insert_seen_.step();
        insert_seen_.reset();
    }
    changed();
}

void sqlite_store::seen(std::string_view path) {
    if (!track_seen_) return;
    insert_seen_.bind_path(1, path);
    insert_seen_.step();
    insert_seen_.reset();
    changed();
}

std::vector<std::string> sqlite_store::unseen_under(std::string_view operand, bool directory,
                                                    bool archives) {
    std::vector<std::string> paths;
    const auto collect = [&](statement& query) {
        while (query.step()) paths.push_back(column_bytes(query.get(), 0));
        query.reset();
    };
    if (!directory) {
        unseen_file_[archives].bind_path(1, operand);
        collect(unseen_file_[archives]);
        return paths;
    }
    std::string prefix(operand);
    if (prefix.empty() || prefix.back() != '/') prefix += '/';
    const std::string upper = after_directory(prefix);
    unseen_in_dir_[archives].bind(1, prefix).bind(2, upper);
    collect(unseen_in_dir_[archives]);
    unseen_in_dir_bytes_[archives].bind(1, prefix).bind(2, upper);
    collect(unseen_in_dir_bytes_[archives]);
    return paths;
}

void sqlite_store::remove(std::string_view path) {
    delete_.bind_path(1, path);
    delete_.step();
    delete_.reset();
    changed();
}

void sqlite_store::merge(const std::string& file) {
    // ATTACH would create a missing file, and cannot run inside a transaction.
    if (::access(file.c_str(), R_OK) != 0) {
        throw store_error(printable(file) + ": " + std::generic_category().message(errno));
    }
    if (in_transaction_) {
        exec("COMMIT");
        in_transaction_ = false;
        pending_ = 0;
    }
    // Whatever the input holds comes in.
    only_this_runs_rows_ = false;
    {
        statement attach(db_, "ATTACH DATABASE ?1 AS shard");
        attach.bind(1, file);
        attach.step();
    }
    try {
        const identity found = read_identity("shard");
        const std::string not_an_index = printable(file) + ": not an inputanim index of schema " +
                                         std::to_string(schema_version);
        if (found.application_id == application_id && found.version != schema_version) {
            throw store_error(not_an_index + " but of schema " + std::to_string(found.version) +
                                  " (a mix of schemas is not merged: index its files again, or "
                                  "open it once with index --sqlite to migrate it)",
                              store_error::fault::not_an_index);
        }
        if (found.application_id != application_id) {
            throw store_error(not_an_index, store_error::fault::not_an_index);
        }
        if (const std::string problem = tables_problem("shard", schema_version); !problem.empty()) {
            throw store_error(not_an_index + " (" + problem + ")",
                              store_error::fault::not_an_index);
        }
        exec("BEGIN IMMEDIATE");
        in_transaction_ = true;
        // The input's verdict on a path wins. An archive it holds in another state (another
        // stamp or options) or as a file, or a file it holds as an archive, loses every row this
        // index has of it; the shards of one run hold one archive in one state, and their
        // members' rows add up.
        exec(R"sql(
DELETE FROM main.recordings WHERE archive IN (
    SELECT s.path FROM shard.archives AS s JOIN main.archives AS m ON m.path = s.path
    WHERE (m.size, m.mtime, m.inode, m.checked_with) IS NOT (s.size, s.mtime, s.inode, s.checked_with));
DELETE FROM main.recordings WHERE archive IS NULL AND path IN (SELECT path FROM shard.archives);
DELETE FROM main.recordings WHERE archive IN (
    SELECT path FROM shard.recordings WHERE archive IS NULL);
DELETE FROM main.archives WHERE path IN (SELECT path FROM shard.recordings WHERE archive IS NULL);
DELETE FROM main.warnings WHERE (path, member_ordinal) IN (
    SELECT path, member_ordinal FROM shard.recordings);
INSERT OR REPLACE INTO main.recordings SELECT * FROM shard.recordings;
INSERT INTO main.warnings SELECT * FROM shard.warnings;
INSERT OR REPLACE INTO main.archives SELECT * FROM shard.archives;
)sql");
        exec("COMMIT");
        in_transaction_ = false;
    } catch (...) {
        if (in_transaction_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        in_transaction_ = false;
        sqlite3_exec(db_, "DETACH DATABASE shard", nullptr, nullptr, nullptr);
        throw;
    }
    exec("DETACH DATABASE shard");
    exec("BEGIN IMMEDIATE");
    in_transaction_ = true;
}

void sqlite_store::finish() {
    exec("COMMIT");
    in_transaction_ = false;
    pending_ = 0;
}

void sqlite_store::claim_shard(unsigned shard, unsigned shards, const std::string& options) {
    // Not part of the schema's identity: a database without it is an index all the same (of no
    // shard), and merge copies only the rows. A table of a version that did not keep the options
    // gains their column.
    exec(
        "CREATE TABLE IF NOT EXISTS shard (shard INTEGER NOT NULL, shards INTEGER NOT NULL, "
        "complete INTEGER NOT NULL, checked_with TEXT)");
    {
        statement columns(db_,
                          "SELECT count(*) FROM pragma_table_info('shard') "
                          "WHERE name = 'checked_with'");
        if (columns.step() && sqlite3_column_int64(columns.get(), 0) == 0) {
            exec("ALTER TABLE shard ADD COLUMN checked_with TEXT");
        }
    }
    {
        statement held(db_, "SELECT shard, shards FROM shard");
        if (held.step()) {
            const auto k = sqlite3_column_int64(held.get(), 0);
            const auto n = sqlite3_column_int64(held.get(), 1);
            if (k != shard || n != shards) {
                throw store_error("holds shard " + std::to_string(k) + "/" + std::to_string(n) +
                                      ", not " + std::to_string(shard) + "/" +
                                      std::to_string(shards) + "; index it into another file",
                                  store_error::fault::refused);
            }
        }
    }
    exec("DELETE FROM shard");
    statement insert(db_,
                     "INSERT INTO shard (shard, shards, complete, checked_with) "
                     "VALUES (?1, ?2, 0, ?3)");
    insert.bind(1, std::int64_t{shard}).bind(2, std::int64_t{shards}).bind(3, options);
    insert.step();
}

void sqlite_store::mark_complete() {
    exec("UPDATE shard SET complete = 1");
}

std::optional<shard_claim> read_shard_claim(const std::string& file) {
    const auto refuse = [&file](const std::string& why) {
        return store_error(printable(file) + ": " + why, store_error::fault::not_an_index);
    };
    // SQLite would create a missing file, even read-only (it fails later, less clearly).
    if (::access(file.c_str(), R_OK) != 0) {
        throw store_error(printable(file) + ": " + std::generic_category().message(errno));
    }
    sqlite3* db = nullptr;
    const int opened = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    std::unique_ptr<sqlite3, int (*)(sqlite3*)> owner(db, sqlite3_close_v2);
    if (opened != SQLITE_OK) throw refuse(db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* raw = nullptr;
    // A table of a version that did not keep the options has no column checked_with.
    bool with_options = true;
    if (sqlite3_prepare_v2(db, "SELECT shard, shards, complete, checked_with FROM shard", -1, &raw,
                           nullptr) != SQLITE_OK) {
        with_options = false;
        if (sqlite3_prepare_v2(db, "SELECT shard, shards, complete FROM shard", -1, &raw,
                               nullptr) != SQLITE_OK) {
            // No table `shard`: a database not made by --shard.
            const std::string message = sqlite3_errmsg(db);
            if (message.rfind("no such table", 0) == 0) return std::nullopt;
            throw refuse(message);
        }
    }
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> select(raw, sqlite3_finalize);
    const int stepped = sqlite3_step(raw);
    if (stepped == SQLITE_DONE) return std::nullopt;
    if (stepped != SQLITE_ROW) throw refuse(sqlite3_errmsg(db));
    const std::int64_t k = sqlite3_column_int64(raw, 0);
    const std::int64_t n = sqlite3_column_int64(raw, 1);
    if (n < 1 || n > std::int64_t{std::numeric_limits<unsigned>::max()} || k < 0 || k >= n) {
        throw refuse("claims shard " + std::to_string(k) + "/" + std::to_string(n) +
                     ", which no run makes");
    }
    return shard_claim{static_cast<unsigned>(k), static_cast<unsigned>(n),
                       sqlite3_column_int64(raw, 2) != 0,
                       with_options ? column_bytes(raw, 3) : std::string()};
}

namespace {

// How two runs' options (indexer::stored_options) differ: "level structure and full, limits.
// max_bytes null and 1000", each key that differs with its two values.
std::string options_difference(const std::string& a_text, const std::string& b_text) {
    const nlohmann::json a = nlohmann::json::parse(a_text, nullptr, false);
    const nlohmann::json b = nlohmann::json::parse(b_text, nullptr, false);
    if (!a.is_object() || !b.is_object()) return "they cannot be read";
    std::string out;
    const auto differ = [&](const std::string& key, const nlohmann::json& x,
                            const nlohmann::json& y) {
        if (x == y) return;
        out += (out.empty() ? "" : ", ") + key + " " + (x.is_null() ? "none" : x.dump()) + " and " +
               (y.is_null() ? "none" : y.dump());
    };
    nlohmann::json keys = nlohmann::json::object();
    for (const auto& [key, value] : a.items()) keys[key] = true;
    for (const auto& [key, value] : b.items()) keys[key] = true;
    for (const auto& [key, unused] : keys.items()) {
        const nlohmann::json x = a.value(key, nlohmann::json());
        const nlohmann::json y = b.value(key, nlohmann::json());
        if (x.is_object() && y.is_object()) {
            nlohmann::json inner = nlohmann::json::object();
            for (const auto& [k, v] : x.items()) inner[k] = true;
            for (const auto& [k, v] : y.items()) inner[k] = true;
            for (const auto& [k, u] : inner.items()) {
                differ(key + "." + k, x.value(k, nlohmann::json()), y.value(k, nlohmann::json()));
            }
        } else {
            differ(key, x, y);
        }
    }
    return out;
}

// Refuses (store_error, shards_problem) inputs whose shard claims are not one whole: one total N,
// each complete, and every shard of 0..N-1 among them. Inputs without a claim are not shards and
// pass. Reads only; its work is a sort of the inputs, whatever N.
void check_shards(const std::vector<std::string>& inputs) {
    std::vector<std::pair<shard_claim, const std::string*>> claims;
    for (const std::string& input : inputs) {
        if (const std::optional<shard_claim> claim = read_shard_claim(input)) {
            claims.emplace_back(*claim, &input);
        }
    }
    if (claims.empty()) return;
    const auto text = [](const shard_claim& c) {
        return std::to_string(c.shard) + "/" + std::to_string(c.shards);
    };
    const auto refuse = [](const std::string& why) {
        return store_error(why, store_error::fault::shards_problem);
    };
    std::vector<std::string> incomplete;
    const std::pair<shard_claim, const std::string*>* first_options = nullptr;
    for (const auto& entry : claims) {
        const auto& [claim, name] = entry;
        if (!claim.options.empty()) {
            if (first_options == nullptr) {
                first_options = &entry;
            } else if (claim.options != first_options->first.options) {
                throw refuse(printable(*first_options->second) + " (shard " +
                             text(first_options->first) + ") and " + printable(*name) + " (shard " +
                             text(claim) + ") were indexed under different options: " +
                             options_difference(first_options->first.options, claim.options) +
                             "; merge the shards of one run");
            }
        }
        if (claim.shards != claims.front().first.shards) {
            throw refuse(printable(*claims.front().second) + " holds shard " +
                         text(claims.front().first) + " and " + printable(*name) + " holds shard " +
                         text(claim) +
                         ": shards of different totals overlap; merge the shards of one run");
        }
        if (!claim.complete) incomplete.push_back(printable(*name) + " (" + text(claim) + ")");
    }
    if (!incomplete.empty()) {
        std::string list;
        for (const std::string& name : incomplete) list += (list.empty() ? "" : ", ") + name;
        throw refuse("shards whose run did not complete: " + list + "; run them again");
    }
    std::vector<unsigned> held;
    held.reserve(claims.size());
    for (const auto& entry : claims) held.push_back(entry.first.shard);
    std::sort(held.begin(), held.end());
    held.erase(std::unique(held.begin(), held.end()), held.end());
    const unsigned shards = claims.front().first.shards;
    if (held.size() == shards) return;
    // The gaps between the shards held, as ranges; the first few are named.
    constexpr std::size_t named_gaps = 10;
    std::string missing;
    std::size_t gaps = 0;
    std::uint64_t count = 0;
    std::uint64_t next = 0;
    held.push_back(shards);
    for (const unsigned k : held) {
        if (k > next) {
            count += k - next;
            if (gaps++ < named_gaps) {
                missing += (missing.empty() ? "" : ", ") + std::to_string(next);
                if (k - 1 > next) missing += "-" + std::to_string(k - 1);
            }
        }
        next = std::uint64_t{k} + 1;
    }
    if (gaps > named_gaps) missing += ", ...";
    throw refuse(std::to_string(count) + " of " + std::to_string(shards) +
                 " shards are missing: " + missing);
}

}  // namespace

void merge_indexes(const std::string& output, const std::vector<std::string>& inputs) {
    if (const std::optional<output_failure> itself = output_is_input(output, inputs)) {
        throw store_error(itself->reason, store_error::fault::refused);
    }
    check_shards(inputs);
    struct stat st {};
    const bool exists = ::stat(output.c_str(), &st) == 0;
    output_file fresh;
    if (!exists) {
        if (const std::optional<output_failure> failure = fresh.open_new_database(output)) {
            throw store_error(failure->reason, failure->refused ? store_error::fault::refused
                                                                : store_error::fault::failed);
        }
    }
    {
        sqlite_store out(exists ? output : fresh.path(), false);
        for (const std::string& input : inputs) out.merge(input);
        out.finish();
    }
    // Closed: the write-ahead log is checkpointed into the file and removed.
    if (!exists) {
        if (const std::optional<output_failure> failure = fresh.commit()) {
            throw store_error(failure->reason);
        }
    }
}

}  // namespace inputanim::tools
