// The SQLite database that `inputanim index --sqlite` keeps: a row per recording (a file, or a
// member of an archive) in table `recordings`, its warnings in table `warnings`, the archives
// walked whole in table `archives`, and what the skip check and --prune need.
// Writes are grouped into transactions of a bounded number of changes, so a run that is
// interrupted leaves every file either as before or fully updated. A database that is not an
// inputanim index of this schema is refused before anything in it is changed. Paths are stored
// as TEXT when they are UTF-8, else as a BLOB of their bytes (no client fails to read a row, and
// two names never merge). Only one thread may use it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "index/index_pool.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace inputanim::tools {

// Any failure of the database: the message says what and why, and fault() whose it is.
class store_error : public std::runtime_error {
  public:
    enum class fault : std::uint8_t {
        // SQLite or the system failed, or the database is not an index this version keeps.
        failed,
        // The name does not lead to a regular file (a device, a FIFO, a directory): a usage
        // error, found before SQLite opens it.
        refused,
        // An input of merge() is not an inputanim index of this schema; the message starts with
        // its name.
        not_an_index,
        // The inputs of merge_indexes() that claim shards are not one whole: a shard missing or
        // incomplete, or two totals.
        shards_problem,
    };
    explicit store_error(const std::string& message, fault kind = fault::failed)
        : std::runtime_error(message), kind_(kind) {}
    fault kind() const noexcept { return kind_; }

  private:
    fault kind_;
};

// What the database remembers of a path from an earlier run (of an archive: its stamp and
// options only).
struct known_file {
    std::optional<file_stamp> stamp;
    // options_json(...).dump() of the options that produced the verdict; empty when unknown.
    std::string options;
    bool valid = false;
    // The row's JSON Lines object, as --jsonl writes it.
    std::string report;
    // Of an archive: its members that are not recordings and its entries that are not files.
    std::uint64_t other = 0;
};

// A row an earlier run stored for a member of an archive, or for the archive whose walk stopped
// (`stopped`).
struct stored_row {
    std::string path;
    bool valid = false;
    // The row's JSON Lines object, as --jsonl writes it.
    std::string report;
    bool stopped = false;
};

class sqlite_store {
  public:
    // Opens or creates the database and its tables; `file` must be a regular file or a new
    // name, and none of the run's `inputs` (database_target_problem, output_file.hpp). With
    // `track_seen`, the paths passed to put() and seen() are remembered (in a temporary table)
    // for unseen_under(). Throws store_error.
    sqlite_store(const std::string& file, bool track_seen,
                 std::span<const std::string> inputs = {});
    // Rolls back changes not yet committed by finish().
    ~sqlite_store();
    sqlite_store(const sqlite_store&) = delete;
    sqlite_store& operator=(const sqlite_store&) = delete;

    // Whether every row the database holds is one this run put: it held none when it was opened,
    // and no other run has written to it since (each transaction holds the write lock to its end,
    // and PRAGMA data_version, read as each begins, tells whether another connection committed
    // in between). A lookup then finds nothing but what this run put.
    // Any thread may ask (store_writer writes on a thread of its own); the answer may be a
    // batch late, which costs a skipped lookup at most: every put replaces a row of its path.
    bool holds_only_this_runs_rows() const noexcept {
        return only_this_runs_rows_.load(std::memory_order_relaxed);
    }

    // The row of the file `path` (not of an archive's member), if there is one.
    std::optional<known_file> lookup(std::string_view path);
    // The archive `path` as the last run that walked it whole left it, if one did.
    std::optional<known_file> lookup_archive(std::string_view path);
    // Calls `each` with the rows of the archive `path`'s members and of its stopped walk, in the
    // order of their ordinals.
    void for_each_archive_row(std::string_view path,
                              const std::function<void(const stored_row&)>& each);
    // Deletes what the database holds of `path` as an archive (its entry in table archives, its
    // members' rows) or as a file, before it is read again as an archive.
    void forget_archive(std::string_view path);
    // Records that the archive `path` (of `format`, with `entries` entries, `other` of them not
    // recordings, stamped `stamp`) was walked whole under `options` (the text of
    // indexer::stored_options): every row of its members is in.
    void put_archive(std::string_view path, std::string_view format, std::uint64_t entries,
                     std::uint64_t other, const file_stamp& stamp, std::string_view options,
                     std::int64_t indexed_at_ns);
    // Inserts or replaces the row of a recording or unreadable file (or member, or archive whose
    // walk stopped: r.archive, r.member, r.ordinal) and its warnings, made under the options
    // `options` (the text of indexer::stored_options) with `report` its JSON Lines object.
    void put(const file_result& r, std::string_view options, std::string_view report,
             std::int64_t indexed_at_ns);
    // A path this run found but did not read again (unchanged).
    void seen(std::string_view path);
    // The paths in the database that this run did not find: equal to `operand`, or inside it
    // when it is a directory; of rows of table recordings, or with `archives` of table archives.
    // Needs `track_seen`.
    std::vector<std::string> unseen_under(std::string_view operand, bool directory,
                                          bool archives = false);
    // Deletes the rows of `path` and, by cascade, their warnings.
    void remove(std::string_view path);
    // Copies every row of the index `file` (an inputanim index of this schema, such as one shard
    // of `index --shard`) into this one with its warnings and archives, replacing the rows of the
    // same keys (and every row of an archive it holds in another state), in one transaction. An
    // input is known by its pragmas and by its tables' columns (names, types, constraints, in
    // order), which the copy relies on. Throws store_error, leaving this index as it was.
    void merge(const std::string& file);
    // Commits what is pending.
    void finish();

    // `index --shard K/N`: records in table `shard` that this database holds shard `shard` of
    // `shards` made under `options` (indexer::stored_options), not yet complete. Throws
    // store_error (refused) when it holds another shard.
    void claim_shard(unsigned shard, unsigned shards, const std::string& options);
    // The run of the claimed shard indexed every file of it: `index merge` takes it. Call after
    // finish().
    void mark_complete();

  private:
    class statement {
      public:
        statement() = default;
        statement(sqlite3* db, std::string_view sql);
        statement(statement&& other) noexcept;
        statement& operator=(statement&& other) noexcept;
        ~statement();

        statement& bind(int i, std::string_view text);
        // A file name: TEXT when it is UTF-8, else a BLOB of its bytes.
        statement& bind_path(int i, std::string_view path);
        statement& bind(int i, std::int64_t v);
        statement& bind(int i, double v);
        // True while a row is available; false when done.
        bool step();
        // Resets for the next use and clears the bindings.
        void reset();
        sqlite3_stmt* get() const { return stmt_; }

      private:
        sqlite3* db_ = nullptr;
        sqlite3_stmt* stmt_ = nullptr;
    };

    // Refuses (store_error) a database that is not empty and not an inputanim index of this
    // schema or one it migrates (2, 3); reads only. Returns its schema version (0: empty).
    int check_identity();
    // Creates the schema, or checks it is this version's (or migrates the one before), in one
    // transaction that holds the write lock: two runs that start on one new file both find it
    // whole. Throws store_error.
    void settle_schema();
    // The application_id and user_version of the attached database `schema_name`, and how many
    // schema objects it has.
    struct identity {
        std::int64_t application_id = 0;
        std::int64_t version = 0;
        std::int64_t objects = 0;
    };
    identity read_identity(const std::string& schema_name);
    // Empty when the tables of the attached database `schema_name` have the columns of schema
    // `version` (2, 3 or this one); else the first difference.
    std::string tables_problem(const std::string& schema_name, int version);
    // journal_mode WAL, waiting for another run's commit as the busy handler cannot.
    void use_wal();
    void exec(const char* sql);
    // Counts a change; commits and begins a new transaction every batch_size changes, but not
    // before the transaction is min_batch_time old.
    void changed();
    // PRAGMA data_version: changed when another connection committed.
    std::int64_t read_data_version();

    static constexpr int batch_size = 500;
    static constexpr std::chrono::milliseconds min_batch_time{250};

    sqlite3* db_ = nullptr;
    bool track_seen_ = false;
    bool in_transaction_ = false;
    int pending_ = 0;
    std::atomic<bool> only_this_runs_rows_ = false;
    // As read when the transaction under way began, and when that was.
    std::int64_t data_version_ = 0;
    std::chrono::steady_clock::time_point batch_began_;
    statement lookup_;
    statement lookup_archive_;
    statement archive_rows_;
    statement upsert_;
    statement clear_warnings_;
    statement insert_warning_;
    statement insert_seen_;
    // [0] of table recordings, [1] of table archives.
    statement unseen_in_dir_[2];
    statement unseen_in_dir_bytes_[2];
    statement unseen_file_[2];
    statement delete_;
    statement delete_archive_rows_;
    statement delete_archive_;
    statement insert_archive_;
};

// What a database made by `index --shard K/N --sqlite` says of its run.
struct shard_claim {
    unsigned shard = 0;
    unsigned shards = 1;
    // The run ended with a row for every file of the shard (every folder listed, the database
    // written).
    bool complete = false;
    // The options its rows were made under (indexer::stored_options); empty when a version
    // before they were kept made it.
    std::string options;
};

// The claim of the database `file`; nothing when it has none (not made with --shard). Throws
// store_error, the message starting with its name: failed when the file cannot be read,
// not_an_index when it is not a database.
std::optional<shard_claim> read_shard_claim(const std::string& file);

// `index merge OUT IN...`: the rows of the index databases `inputs`, in order (later ones win),
// into `output`. An existing OUT (a regular file) is updated in place, as `index --sqlite`
// updates it, each input in one transaction; a new OUT is built at a temporary name beside it
// (output_file) and renamed into place once every input is in, so it appears complete or not at
// all. Inputs that claim shards (read_shard_claim) must be complete, of one total N, made under
// the same options (level, layout, limits, metrics), and hold every shard 0..N-1; else nothing is
// written. Throws store_error: refused when OUT is not a regular file or is one of the inputs,
// not_an_index for an input, shards_problem for the claims.
void merge_indexes(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace inputanim::tools
