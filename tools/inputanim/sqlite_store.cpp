#include "sqlite_store.hpp"

#include <sqlite3.h>

#include <utility>

#include "report_json.hpp"

namespace inputanim::cli {

namespace {

// Bumped when the tables change; a database of another version is refused, not altered.
constexpr int schema_version = 1;

constexpr const char* schema = R"sql(
CREATE TABLE IF NOT EXISTS recordings (
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
    indexed_at     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS warnings (
    path     TEXT NOT NULL REFERENCES recordings(path) ON DELETE CASCADE,
    code     TEXT NOT NULL,
    curve    TEXT NOT NULL,
    keyframe INTEGER,
    count    INTEGER NOT NULL,
    message  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS warnings_by_path ON warnings(path);
)sql";

constexpr const char* upsert_sql = R"sql(
INSERT INTO recordings (path, valid, bytes, version, layout, has_camera, has_hands, has_gaze,
    curves, keyframes, markers, start, duration, warnings_found, error_code, error_offset,
    error_place, error_curve, error_keyframe, error_marker, error_limit, error_message, size,
    mtime, indexed_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
    ?20, ?21, ?22, ?23, ?24, ?25)
ON CONFLICT (path) DO UPDATE SET valid = excluded.valid, bytes = excluded.bytes,
    version = excluded.version, layout = excluded.layout, has_camera = excluded.has_camera,
    has_hands = excluded.has_hands, has_gaze = excluded.has_gaze, curves = excluded.curves,
    keyframes = excluded.keyframes, markers = excluded.markers, start = excluded.start,
    duration = excluded.duration, warnings_found = excluded.warnings_found,
    error_code = excluded.error_code, error_offset = excluded.error_offset,
    error_place = excluded.error_place, error_curve = excluded.error_curve,
    error_keyframe = excluded.error_keyframe, error_marker = excluded.error_marker,
    error_limit = excluded.error_limit, error_message = excluded.error_message,
    size = excluded.size, mtime = excluded.mtime, indexed_at = excluded.indexed_at
)sql";

// The columns of upsert_sql, by parameter number.
enum column : int {
    c_path = 1,
    c_valid,
    c_bytes,
    c_version,
    c_layout,
    c_has_camera,
    c_has_hands,
    c_has_gaze,
    c_curves,
    c_keyframes,
    c_markers,
    c_start,
    c_duration,
    c_warnings_found,
    c_error_code,
    c_error_offset,
    c_error_place,
    c_error_curve,
    c_error_keyframe,
    c_error_marker,
    c_error_limit,
    c_error_message,
    c_size,
    c_mtime,
    c_indexed_at,
};

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

sqlite_store::sqlite_store(const std::string& file, bool track_seen) : track_seen_(track_seen) {
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
        const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close_v2(db_);
        db_ = nullptr;
        throw store_error(message);
    }
    try {
        sqlite3_busy_timeout(db_, 5000);
        int version = 0;
        {
            statement user_version(db_, "PRAGMA user_version");
            if (user_version.step()) version = sqlite3_column_int(user_version.get(), 0);
        }
        if (version != 0 && version != schema_version) {
            throw store_error("not an inputanim index of this version (user_version " +
                              std::to_string(version) + ", expected " +
                              std::to_string(schema_version) + ")");
        }
        // WAL: readers see the last committed batch while a run writes the next one.
        exec("PRAGMA journal_mode = WAL");
        exec("PRAGMA synchronous = NORMAL");
        exec("PRAGMA foreign_keys = ON");
        exec(schema);
        exec(("PRAGMA user_version = " + std::to_string(schema_version)).c_str());
        if (track_seen_) {
            exec("CREATE TEMP TABLE seen (path TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID");
            insert_seen_ = statement(db_, "INSERT OR IGNORE INTO temp.seen (path) VALUES (?1)");
            unseen_in_dir_ = statement(db_,
                                       "SELECT path FROM recordings WHERE path >= ?1 AND path < ?2 "
                                       "AND path NOT IN (SELECT path FROM temp.seen)");
            unseen_file_ = statement(db_,
                                     "SELECT path FROM recordings WHERE path = ?1 "
                                     "AND path NOT IN (SELECT path FROM temp.seen)");
        }
        lookup_ = statement(db_, "SELECT size, mtime, valid FROM recordings WHERE path = ?1");
        upsert_ = statement(db_, upsert_sql);
        clear_warnings_ = statement(db_, "DELETE FROM warnings WHERE path = ?1");
        insert_warning_ =
            statement(db_,
                      "INSERT INTO warnings (path, code, curve, keyframe, count, message) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        delete_ = statement(db_, "DELETE FROM recordings WHERE path = ?1");
        exec("BEGIN IMMEDIATE");
        in_transaction_ = true;
    } catch (...) {
        sqlite3_close_v2(db_);
        throw;
    }
}

sqlite_store::~sqlite_store() {
    if (in_transaction_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    // The statements are finalized after this body; close_v2 waits for them.
    sqlite3_close_v2(db_);
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
    exec("COMMIT");
    in_transaction_ = false;
    pending_ = 0;
    exec("BEGIN IMMEDIATE");
    in_transaction_ = true;
}

std::optional<known_file> sqlite_store::lookup(std::string_view path) {
    lookup_.bind(1, path);
    std::optional<known_file> known;
    if (lookup_.step()) {
        sqlite3_stmt* s = lookup_.get();
        known.emplace();
        if (sqlite3_column_type(s, 0) != SQLITE_NULL && sqlite3_column_type(s, 1) != SQLITE_NULL) {
            known->stamp = file_stamp{static_cast<std::uint64_t>(sqlite3_column_int64(s, 0)),
                                      sqlite3_column_int64(s, 1)};
        }
        known->valid = sqlite3_column_int(s, 2) != 0;
    }
    lookup_.reset();
    return known;
}

void sqlite_store::put(const file_result& r, std::int64_t indexed_at_ns) {
    statement& u = upsert_;
    u.bind(c_path, r.path);
    u.bind(c_indexed_at, indexed_at_ns);
    if (r.outcome == file_outcome::unreadable) {
        // Without size and mtime the file is read again by the next run, whatever its stamp.
        u.bind(c_valid, std::int64_t{0});
        u.bind(c_error_code, std::string_view(r.failure_code));
        u.bind(c_error_message, r.failure.message());
    } else {
        const report& rep = r.rep;
        const summary& s = rep.summary;
        if (r.stamp) {
            u.bind(c_size, as_int(r.stamp->size));
            u.bind(c_mtime, r.stamp->mtime_ns);
        }
        u.bind(c_valid, std::int64_t{rep.valid()});
        u.bind(c_bytes, as_int(r.bytes));
        // The library leaves the version at 0.0 when the header could not be read.
        if (s.major != 0) {
            u.bind(c_version, std::to_string(s.major) + "." + std::to_string(s.minor));
            u.bind(c_layout, layout_name(s.layout));
            u.bind(c_has_camera, std::int64_t{s.blocks.camera});
            u.bind(c_has_hands, std::int64_t{s.blocks.hands});
            u.bind(c_has_gaze, std::int64_t{s.blocks.gaze});
        }
        u.bind(c_curves, std::int64_t{s.curves});
        u.bind(c_keyframes, as_int(s.keyframes));
        if (s.markers) u.bind(c_markers, std::int64_t{*s.markers});
        if (s.start) u.bind(c_start, json_number(*s.start));
        if (s.duration) u.bind(c_duration, json_number(*s.duration));
        u.bind(c_warnings_found, as_int(rep.warnings_found));
        if (!rep.valid()) {
            // The same values as the JSON error object.
            const nlohmann::json e = error_json(rep.error);
            u.bind(c_error_code, e["code"].get<std::string>());
            u.bind(c_error_offset, as_int(rep.error.offset));
            u.bind(c_error_place, e["place"].get<std::string>());
            if (!e["curve"].is_null()) u.bind(c_error_curve, e["curve"].get<std::string>());
            if (!e["keyframe"].is_null())
                u.bind(c_error_keyframe, e["keyframe"].get<std::int64_t>());
            if (!e["marker"].is_null()) u.bind(c_error_marker, e["marker"].get<std::int64_t>());
            if (!e["limit"].is_null()) u.bind(c_error_limit, e["limit"].get<std::string>());
            u.bind(c_error_message, e["message"].get<std::string>());
        }
    }
    u.step();
    u.reset();

    clear_warnings_.bind(1, r.path);
    clear_warnings_.step();
    clear_warnings_.reset();
    if (r.outcome == file_outcome::recording) {
        for (const warning& w : r.rep.warnings()) {
            insert_warning_.bind(1, r.path)
                .bind(2, warning_name(w.code))
                .bind(3, w.path())
                .bind(5, std::int64_t{w.count})
                .bind(6, w.message());
            if (w.keyframe >= 0) insert_warning_.bind(4, w.keyframe);
            insert_warning_.step();
            insert_warning_.reset();
        }
    }
    if (track_seen_) {
        insert_seen_.bind(1, r.path);
        insert_seen_.step();
        insert_seen_.reset();
    }
    changed();
}

void sqlite_store::seen(std::string_view path) {
    if (!track_seen_) return;
    insert_seen_.bind(1, path);
    insert_seen_.step();
    insert_seen_.reset();
    changed();
}

std::vector<std::string> sqlite_store::unseen_under(std::string_view operand, bool directory) {
    std::vector<std::string> paths;
    std::string prefix(operand);
    statement* query = &unseen_file_;
    if (directory) {
        if (prefix.empty() || prefix.back() != '/') prefix += '/';
        unseen_in_dir_.bind(1, prefix).bind(2, after_directory(prefix));
        query = &unseen_in_dir_;
    } else {
        unseen_file_.bind(1, prefix);
    }
    while (query->step()) {
        const auto* text = sqlite3_column_text(query->get(), 0);
        const int size = sqlite3_column_bytes(query->get(), 0);
        paths.emplace_back(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
    }
    query->reset();
    return paths;
}

void sqlite_store::remove(std::string_view path) {
    delete_.bind(1, path);
    delete_.step();
    delete_.reset();
    changed();
}

void sqlite_store::finish() {
    exec("COMMIT");
    in_transaction_ = false;
    pending_ = 0;
}

}  // namespace inputanim::cli
