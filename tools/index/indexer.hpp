// One run of `inputanim index`: PATH operands walked into files, each file skipped when the
// database holds its verdict unchanged, read by the worker threads of index_pool, its row handed
// on in walk order and stored, and the rows of files that are gone pruned. The command and the
// Python package (inputanim.index, inputanim.dask) both run it, so they find the same files and
// give the same rows.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "index/index_pool.hpp"
#include "index/index_row.hpp"
#include "index/sqlite_store.hpp"
#include "index/store_writer.hpp"

namespace inputanim::tools {

// What a PATH operand turned out to be: a folder walked whole, a file (or standard input), or one
// that could not be walked whole (missing, or some folder in it could not be listed).
enum class operand_kind : std::uint8_t { folder, file, unwalked };

// What the walk finds, in its order.
class walk_visitor {
  public:
    virtual ~walk_visitor() = default;
    // A file to index: `named` when it is the operand itself (indexed whatever its content);
    // `st` is its stat when the walk took one (the operand's, or a link's target's).
    virtual void file(const std::string& path, bool named, const struct stat* st) = 0;
    // A FIFO, socket or device: never opened (a FIFO would block).
    virtual void other(const std::string& path) = 0;
    // The operand does not exist (`listing` false) or the folder `path` could not be listed.
    virtual void failed(const std::string& path, int error, bool listing) = 0;
};

// Walks one operand: `-` is standard input and any operand that is not a folder is a file; a
// folder is walked depth first, each folder's entries in the order it lists them; links to
// folders are not followed (no loops), links to files are. A file found is handed over with the
// stat the walk took of it (of the operand, or through a link), if any.
operand_kind walk_operand(const std::string& operand, walk_visitor& visitor);

struct index_plan {
    validate_options how{level::structure, layout_choice::automatic, {}};
    unsigned jobs = 1;
    // Read every file again, even those the database holds unchanged.
    bool force = false;
    // Delete the rows of files that are gone, under the operands walked whole.
    bool prune = false;
    // Only the files whose shard_of(path, shards) is `shard`.
    unsigned shard = 0;
    unsigned shards = 1;
    // Also measure every valid recording (index --metrics): its row gets "metrics".
    std::optional<metrics_options> metrics;
    // Index the recordings inside the archives found (index --no-archives: false), each walked
    // under these budgets.
    bool archives = true;
    archive_limits archive_budgets{};
};

// Files count the members of archives too (each is a file found); `other` the members that are
// not recordings, and the entries that are not files (folders, links, devices).
struct index_totals {
    std::uint64_t files = 0;
    std::uint64_t recordings = 0;
    std::uint64_t invalid = 0;
    std::uint64_t unreadable = 0;
    std::uint64_t other = 0;
    std::uint64_t unchanged = 0;
    std::uint64_t pruned = 0;
    // Archives walked (or found unchanged), and those whose walk stopped at damage or a budget:
    // such an archive has a row of its own, which counts as invalid.
    std::uint64_t archives = 0;
    std::uint64_t damaged_archives = 0;
    // A PATH that does not exist or a folder that could not be listed.
    bool walk_failed = false;
};

// Told what the run does, on the thread that runs it.
class index_observer {
  public:
    virtual ~index_observer() = default;
    // A file was found (counted), and one was done with.
    virtual void found() {}
    virtual void done() {}
    // An operand or folder could not be walked: "NAME: reason", NAME made printable.
    virtual void note(const std::string&) {}
    // The row of a recording or unreadable file, in walk order, for the observer to keep.
    virtual void row(const file_result&, index_row&&) {}
};

class indexer {
  public:
    // `store` may be null (no database: nothing is skipped or pruned). Throws store_error from
    // the database, std::system_error when not one reading thread can start, and whatever the
    // observer throws; the run is then abandoned.
    indexer(const index_plan& plan, sqlite_store* store, index_observer& observer);

    // An operand, walked as walk_operand does.
    void add_operand(const std::string& operand);
    // A file an earlier walk found (named: it was the operand itself), without walking again.
    void add_listed(const std::string& path, bool named);
    // Hands the rows still in flight to the observer, prunes, and commits the database.
    void finish();

    const index_totals& counts() const { return totals_; }
    // The options every row of the run is made under, as the database keeps them (a row's
    // checked_with, and --metrics' options under "metrics").
    const std::string& stored_options() const { return stored_options_text_; }

  private:
    class walk_adder;

    bool mine(std::string_view path) const;
    void add_file(const std::string& path, bool named, const struct stat* st);
    void other_file(std::string_view path);
    void take(file_result& r);
    // The rows of an archive: its members' from the worker's walk, or the database's when it is
    // unchanged.
    void take_archive(file_result& r);
    void replay_archive(const file_result& r);
    // Counts a row (of a file, a member, or an archive whose walk stopped) and hands it to the
    // observer and the database.
    void take_row(file_result& r);
    void add_metrics(json_object_text& fields, const file_result& r) const;
    void prune();
    void prune_in(sqlite_store& store);

    index_plan plan_;
    sqlite_store* store_;
    index_observer& observer_;
    const std::int64_t indexed_at_;
    // The options_json of the run's options, as every row's "checked_with" holds it.
    const std::string checked_with_text_;
    // What the database keeps of the options a row was made with (checked_with, and with
    // metrics their options under "metrics"): a row is reused only under the same.
    const nlohmann::json stored_options_;
    const std::string stored_options_text_;
    index_totals totals_;
    // The fields of the row being made, kept from row to row with their memory.
    json_object_text row_fields_;
    std::vector<std::pair<std::string, operand_kind>> operands_;
    // The walk of the run's first operand is under way.
    bool unique_walk_ = false;
    // The database's writes, with a store: stops after the pool, whose rows it writes.
    std::optional<store_writer> writer_;
    // Last: its workers stop before the members they use go away.
    index_pool pool_;
};

}  // namespace inputanim::tools
