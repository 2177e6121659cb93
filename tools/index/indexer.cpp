#include "index/indexer.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "os/text.hpp"
#include "report/metrics_json.hpp"
#include "report/report_json.hpp"

namespace inputanim::tools {

namespace {

namespace fs = std::filesystem;

nlohmann::json stored_options(const index_plan& plan) {
    nlohmann::json options = options_json(plan.how);
    if (plan.metrics) options["metrics"] = metrics_options_json(*plan.metrics);
    return options;
}

// The name of why a valid recording could not be measured.
std::string metrics_failure_name(const std::error_code& ec) {
    if (ec.category() == metrics_error_category()) {
        return std::string(metrics_error_name(static_cast<metrics_error>(ec.value())));
    }
    if (ec.category() == grid_error_category()) {
        return std::string(grid_error_name(static_cast<grid_error>(ec.value())));
    }
    if (ec.category() == error_category()) {
        return std::string(error_name(static_cast<errc>(ec.value())));
    }
    return "not_measured";
}

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void visit_entry(const fs::path& path, fs::file_type type, walk_visitor& visitor) {
    struct stat st {};
    const char* name = path.c_str();
    switch (type) {
        case fs::file_type::regular:
            return visitor.file(path.native(), false, nullptr);
        case fs::file_type::symlink:
            if (::stat(name, &st) != 0) return visitor.file(path.native(), false, nullptr);
            if (S_ISDIR(st.st_mode)) return;
            if (S_ISREG(st.st_mode)) return visitor.file(path.native(), false, &st);
            return visitor.other(path.native());
        case fs::file_type::none:
        case fs::file_type::not_found:
        case fs::file_type::unknown:
            // Vanished since the listing, or not stat-able: opening it reports why.
            return visitor.file(path.native(), false, nullptr);
        default:
            return visitor.other(path.native());
    }
}

// The type of `entry` itself (a link is a link): from the folder listing where the file system
// gives it, else an lstat. (symlink_status() alone would lstat every entry: it also returns the
// permissions, which a listing does not hold.)
fs::file_type type_of(const fs::directory_entry& entry) {
    std::error_code ec;
    // Not a link: these take the listed type and follow nothing.
    if (!entry.is_symlink(ec) && !ec) {
        if (entry.is_directory(ec)) return fs::file_type::directory;
        if (entry.is_regular_file(ec)) return fs::file_type::regular;
    }
    return entry.symlink_status(ec).type();
}

// False when some folder could not be listed whole.
bool walk_folder(const std::string& root, walk_visitor& visitor) {
    bool complete = true;
    std::vector<fs::path> folders{fs::path(root)};
    while (!folders.empty()) {
        const fs::path folder = std::move(folders.back());
        folders.pop_back();
        std::error_code ec;
        fs::directory_iterator it(folder, ec);
        for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
            const fs::directory_entry& entry = *it;
            const fs::file_type type = type_of(entry);
            if (type == fs::file_type::directory) {
                folders.push_back(entry.path());
            } else {
                visit_entry(entry.path(), type, visitor);
            }
        }
        if (ec) {
            visitor.failed(folder.native(), ec.value(), true);
            complete = false;
        }
    }
    return complete;
}

}  // namespace

operand_kind walk_operand(const std::string& operand, walk_visitor& visitor) {
    if (operand == "-") {
        // Standard input: one recording read as it arrives, never a folder.
        visitor.file(operand, true, nullptr);
        return operand_kind::file;
    }
    struct stat st {};
    if (::lstat(operand.c_str(), &st) != 0) {
        visitor.failed(operand, errno, false);
        return operand_kind::unwalked;
    }
    const bool followed = ::stat(operand.c_str(), &st) == 0;
    if (followed && S_ISDIR(st.st_mode)) {
        return walk_folder(operand, visitor) ? operand_kind::folder : operand_kind::unwalked;
    }
    if (followed && !S_ISREG(st.st_mode)) {
        visitor.other(operand);
    } else {
        // A link that leads nowhere is handed over all the same: opening it reports why.
        visitor.file(operand, true, followed ? &st : nullptr);
    }
    return operand_kind::file;
}

class indexer::walk_adder final : public walk_visitor {
  public:
    explicit walk_adder(indexer& run) : run_(run) {}
    void file(const std::string& path, bool named, const struct stat* st) override {
        run_.add_file(path, named, st);
    }
    void other(const std::string& path) override { run_.other_file(path); }
    void failed(const std::string& path, int error, bool) override {
        run_.observer_.note(printable(path) + ": " + std::generic_category().message(error));
        run_.totals_.walk_failed = true;
    }

  private:
    indexer& run_;
};

indexer::indexer(const index_plan& plan, sqlite_store* store, index_observer& observer)
    : plan_(plan),
      store_(store),
      observer_(observer),
      indexed_at_(now_ns()),
      checked_with_text_(options_json(plan.how).dump()),
      stored_options_(tools::stored_options(plan)),
      stored_options_text_(stored_options_.dump()),
      pool_(std::max(1u, plan.jobs), std::clamp<std::size_t>(std::size_t{64} * plan.jobs, 64, 8192),
            plan.how, plan.metrics, {plan.archives, plan.archive_budgets, plan.shard, plan.shards},
            [this](file_result& r) { take(r); }) {
    if (pool_.refusal()) {
        observer_.note(
            "warning: " + std::to_string(pool_.started()) + " of " +
            std::to_string(std::max(1u, plan.jobs)) +
            " threads started (the system refused the next: " + pool_.refusal().message() + ")");
    }
    if (store_) {
        writer_.emplace(*store_, stored_options_text_);
        if (writer_->refusal()) {
            observer_.note(
                "warning: the database is written by the main thread (the system "
                "refused a thread of its own: " +
                writer_->refusal().message() + ")");
        }
    }
}

void indexer::add_operand(const std::string& operand) {
    walk_adder adder(*this);
    // One walk finds each path once; a second operand may find some again.
    unique_walk_ = operands_.empty();
    operands_.emplace_back(operand, walk_operand(operand, adder));
    unique_walk_ = false;
}

void indexer::add_listed(const std::string& path, bool named) {
    add_file(path, named, nullptr);
}

void indexer::finish() {
    pool_.finish();
    if (!writer_) return;
    if (plan_.prune) prune();
    writer_->locked([](sqlite_store& s) { s.finish(); }, true);
}

bool indexer::mine(std::string_view path) const {
    return plan_.shards <= 1 || shard_of(path, plan_.shards) == plan_.shard;
}

void indexer::other_file(std::string_view path) {
    if (!mine(path)) return;
    ++totals_.files;
    ++totals_.other;
    observer_.found();
    observer_.done();
}

// Hands the file to the pool, or, when the database holds its verdict (or, for an archive, its
// members' rows) for the same stamp and options, a result that the pool passes through unread
// (so rows stay in walk order). A file of another shard is still handed over when archives are
// opened: the members of an archive go to the shards by their own paths.
void indexer::add_file(const std::string& path, bool named, const struct stat* st) {
    const bool only_archive = !mine(path);
    if (only_archive && !plan_.archives) return;
    if (!only_archive) {
        ++totals_.files;
        observer_.found();
    }
    // A path of the run's first walk, in a database that holds no row but this run's, has no row
    // to find: nothing is looked up, and the stamp kept is what the worker's fstat says when it
    // opens the file (the main thread stats nothing).
    const bool fresh = store_ && unique_walk_ && store_->holds_only_this_runs_rows();
    struct stat own {};
    if (store_ && !fresh && !st && path != "-" && ::stat(path.c_str(), &own) == 0) st = &own;
    std::optional<file_stamp> stamp;
    if (st) stamp = stamp_of(*st);
    file_result& r = pool_.next();
    // The slot's last file's fields are overwritten one by one, so that its strings keep their
    // capacity (a new file_result each time cost 5% of a run over small files).
    r.path = path;
    r.named = named;
    r.only_archive = only_archive;
    r.was_archive = false;
    r.stamp = stamp;
    r.new_in_store = fresh;
    r.outcome = file_outcome::recording;
    r.archive.clear();
    r.member.reset();
    r.ordinal = -1;
    r.feed.reset();
    if (store_ && stamp && !fresh) {
        std::optional<known_file> known;
        if (!only_archive) known = writer_->locked([&](sqlite_store& s) { return s.lookup(path); });
        if (known && !plan_.force && known->stamp == stamp &&
            known->options == stored_options_text_) {
            // The stored text is the database's, whatever wrote it (a merged shard, a hand): it
            // is printed as the object it holds, on one line. Text that is not a JSON object is
            // no verdict, and the file is read again.
            const nlohmann::json report = nlohmann::json::parse(known->report, nullptr, false);
            if (report.is_object()) {
                r.outcome = file_outcome::unchanged;
                r.known_valid = known->valid;
                r.known_fields = std::move(report);
            }
        } else if (!known && plan_.archives) {
            const std::optional<known_file> archive =
                writer_->locked([&](sqlite_store& s) { return s.lookup_archive(path); });
            r.was_archive = archive.has_value();
            if (archive && !plan_.force && archive->stamp == stamp &&
                archive->options == stored_options_text_) {
                r.outcome = file_outcome::unchanged_archive;
                r.known_other = archive->other;
            }
        }
    }
    pool_.submit();
}

// A worker's result, in walk order.
void indexer::take(file_result& r) {
    switch (r.outcome) {
        case file_outcome::archive:
            take_archive(r);
            return;
        case file_outcome::unchanged_archive:
            replay_archive(r);
            return;
        case file_outcome::not_recording:
            if (r.only_archive) return;
            observer_.done();
            ++totals_.other;
            return;
        case file_outcome::unchanged:
            observer_.done();
            ++totals_.unchanged;
            ++totals_.recordings;
            if (!r.known_valid) ++totals_.invalid;
            observer_.row(r, index_row(r.path, std::move(r.known_fields)));
            writer_->locked([&](sqlite_store& s) { s.seen(r.path); });
            return;
        case file_outcome::unreadable:
        case file_outcome::recording:
            // A file the database held as an archive: those rows go.
            if (store_ && r.was_archive) {
                writer_->locked([&](sqlite_store& s) { s.forget_archive(r.path); }, true);
            }
            observer_.done();
            take_row(r);
            return;
    }
}

void indexer::take_row(file_result& r) {
    json_object_text& fields = row_fields_;
    fields.clear();
    if (r.outcome == file_outcome::unreadable) {
        ++totals_.unreadable;
        fields.boolean("valid", false);
        fields.object("error", [&](json_object_text& e) {
            e.text("code", r.failure_code);
            e.text("message", r.failure.message());
        });
    } else {
        // An archive's own row (its walk stopped) counts as no recording.
        if (r.archive.empty() || r.member) ++totals_.recordings;
        if (!r.rep.valid()) ++totals_.invalid;
        report_fields(r.rep, r.bytes, fields);
        if (plan_.metrics) add_metrics(fields, r);
    }
    fields.raw("checked_with", checked_with_text_);
    index_row row = make_row({.path = r.path,
                              .archive = r.archive,
                              .member = r.member ? &*r.member : nullptr,
                              .ordinal = r.ordinal},
                             fields);
    // The database's line is made before the observer takes the row (the command's --jsonl then
    // writes the same text, made once).
    std::string line = store_ ? row.json_text() : std::string();
    observer_.row(r, std::move(row));
    if (store_) writer_->put(r, std::move(line), indexed_at_);
}

void indexer::take_archive(file_result& r) {
    if (!r.only_archive) observer_.done();
    ++totals_.archives;
    // Its rows are made again: those of members now gone must not stay.
    if (store_) writer_->locked([&](sqlite_store& s) { s.forget_archive(r.path); }, true);
    const std::shared_ptr<member_feed> feed = std::move(r.feed);
    file_result m;
    bool unreadable = false;
    // Members found not to be recordings here, beside those the walk skipped.
    std::uint64_t other = 0;
    while (feed->pop(m)) {
        observer_.found();
        observer_.done();
        ++totals_.files;
        if (!m.unchecked.empty()) pool_.check_member(m);
        if (m.outcome == file_outcome::not_recording) {
            ++totals_.other;
            ++other;
            continue;
        }
        unreadable = unreadable || m.outcome == file_outcome::unreadable;
        take_row(m);
    }
    totals_.other += feed->skipped();
    totals_.files += feed->skipped();
    if (const error& stopped = feed->stopped()) {
        ++totals_.damaged_archives;
        file_result row;
        row.path = r.path;
        row.archive = r.path;
        row.ordinal = static_cast<std::int64_t>(feed->entries());
        if (stopped.code == errc::io_error) {
            row.outcome = file_outcome::unreadable;
            row.failure = std::make_error_code(std::errc::io_error);
            row.failure_code = "io_error";
        } else {
            row.rep.error = stopped;
        }
        take_row(row);
        unreadable = unreadable || stopped.code == errc::io_error;
    }
    // An archive that could not be read whole is read again by the next run.
    if (store_ && r.stamp && !unreadable) {
        writer_->locked(
            [&](sqlite_store& s) {
                s.put_archive(r.path, archive_format_name(feed->format()), feed->entries(),
                              feed->skipped() + other, *r.stamp, stored_options_text_, indexed_at_);
            },
            true);
    }
}

void indexer::replay_archive(const file_result& r) {
    if (!r.only_archive) observer_.done();
    ++totals_.archives;
    totals_.other += r.known_other;
    totals_.files += r.known_other;
    writer_->locked([&](sqlite_store& store) {
        store.seen(r.path);
        store.for_each_archive_row(r.path, [&](const stored_row& row) {
            // Each is mine when this database holds it (one shard holds only its own).
            nlohmann::json fields = nlohmann::json::parse(row.report, nullptr, false);
            if (!fields.is_object()) fields = nlohmann::json::object();
            file_result known;
            known.path = row.path;
            if (row.stopped) {
                ++totals_.damaged_archives;
            } else {
                observer_.found();
                observer_.done();
                ++totals_.files;
                ++totals_.recordings;
                ++totals_.unchanged;
            }
            if (!row.valid) ++totals_.invalid;
            observer_.row(known, index_row(row.path, std::move(fields)));
            store.seen(row.path);
        });
    });
}

// "metrics" (with "measured_with"), null for an invalid file or one that could not be measured;
// "metrics_error" says why for a valid one.
void indexer::add_metrics(json_object_text& fields, const file_result& r) const {
    if (!r.metrics) {
        fields.null("metrics");
        if (r.metrics_failure) {
            fields.object("metrics_error", [&](json_object_text& e) {
                e.text("code", metrics_failure_name(r.metrics_failure));
                e.text("message", r.metrics_failure.message());
            });
        }
        return;
    }
    nlohmann::json m = metrics_json(*r.metrics);
    m["measured_with"] = stored_options_["metrics"];
    fields.value("metrics", m);
}

// Removes the rows of files this run did not find, only under the operands it walked whole: one
// that is missing (an unmounted drive, a folder renamed during the run) or a folder that could not
// be listed says nothing about the files that were there.
void indexer::prune() {
    writer_->locked([&](sqlite_store& store) { prune_in(store); }, true);
}

void indexer::prune_in(sqlite_store& store) {
    for (const auto& [operand, kind] : operands_) {
        if (kind == operand_kind::unwalked) continue;
        const bool folder = kind == operand_kind::folder;
        for (const std::string& path : store.unseen_under(operand, folder)) {
            if (!mine(path)) continue;
            store.remove(path);
            ++totals_.pruned;
        }
        // The archives gone: their entries (their members' rows went above, by their paths).
        for (const std::string& path : store.unseen_under(operand, folder, true)) {
            store.forget_archive(path);
        }
    }
}

}  // namespace inputanim::tools
