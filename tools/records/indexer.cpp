#include "records/indexer.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "records/metrics_json.hpp"
#include "records/report_json.hpp"
#include "records/text.hpp"

namespace inputanim::records {

namespace {

namespace fs = std::filesystem;

file_stamp stamp_of(const struct stat& st) {
    return {static_cast<std::uint64_t>(st.st_size),
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
            static_cast<std::uint64_t>(st.st_ino)};
}

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

void visit_entry(const fs::path& path, fs::file_type type, walk_visitor& visitor, bool stat_files) {
    struct stat st {};
    const char* name = path.c_str();
    switch (type) {
        case fs::file_type::regular:
            if (!stat_files) return visitor.file(path.native(), false, nullptr);
            return visitor.file(path.native(), false, ::stat(name, &st) == 0 ? &st : nullptr);
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
bool walk_folder(const std::string& root, walk_visitor& visitor, bool stat_files) {
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
                visit_entry(entry.path(), type, visitor, stat_files);
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

unsigned shard_of(std::string_view path, unsigned shards) {
    std::uint64_t h = 0xcbf29ce484222325;
    for (const char c : path) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3;
    }
    return static_cast<unsigned>(h % shards);
}

operand_kind walk_operand(const std::string& operand, walk_visitor& visitor, bool stat_files) {
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
        return walk_folder(operand, visitor, stat_files) ? operand_kind::folder
                                                         : operand_kind::unwalked;
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
      checked_with_(options_json(plan.how)),
      stored_options_(records::stored_options(plan)),
      stored_options_text_(stored_options_.dump()),
      pool_(std::max(1u, plan.jobs), std::clamp<std::size_t>(std::size_t{64} * plan.jobs, 64, 8192),
            plan.how, plan.metrics, [this](file_result& r) { take(r); }) {
    if (pool_.refusal()) {
        observer_.note(
            "warning: " + std::to_string(pool_.started()) + " of " +
            std::to_string(std::max(1u, plan.jobs)) +
            " threads started (the system refused the next: " + pool_.refusal().message() + ")");
    }
}

void indexer::add_operand(const std::string& operand) {
    walk_adder adder(*this);
    operands_.emplace_back(operand, walk_operand(operand, adder, store_ != nullptr));
}

void indexer::add_listed(const std::string& path, bool named) {
    struct stat st {};
    const bool stamped = store_ && path != "-" && ::stat(path.c_str(), &st) == 0;
    add_file(path, named, stamped ? &st : nullptr);
}

void indexer::finish() {
    pool_.finish();
    if (plan_.prune && store_) prune();
    if (store_) store_->finish();
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

// Hands the file to the pool, or, when the database holds its verdict for the same stamp and
// options, a result that the pool passes through unread (so rows stay in walk order).
void indexer::add_file(const std::string& path, bool named, const struct stat* st) {
    if (!mine(path)) return;
    ++totals_.files;
    observer_.found();
    std::optional<file_stamp> stamp;
    if (st) stamp = stamp_of(*st);
    file_result& r = pool_.next();
    r.path = path;
    r.named = named;
    r.stamp = stamp;
    r.outcome = file_outcome::recording;
    if (store_ && stamp && !plan_.force) {
        std::optional<known_file> known = store_->lookup(path);
        if (known && known->stamp == stamp && known->options == stored_options_text_) {
            // The stored text is the database's, whatever wrote it (a merged shard, a hand): it
            // is printed as the object it holds, on one line. Text that is not a JSON object is
            // no verdict, and the file is read again.
            const nlohmann::json report = nlohmann::json::parse(known->report, nullptr, false);
            if (report.is_object()) {
                r.outcome = file_outcome::unchanged;
                r.known_valid = known->valid;
                r.known_fields = std::move(report);
            }
        }
    }
    pool_.submit();
}

// A worker's result, in walk order.
void indexer::take(file_result& r) {
    observer_.done();
    nlohmann::json fields;
    switch (r.outcome) {
        case file_outcome::not_recording:
            ++totals_.other;
            return;
        case file_outcome::unchanged:
            ++totals_.unchanged;
            ++totals_.recordings;
            if (!r.known_valid) ++totals_.invalid;
            observer_.row(r, index_row(r.path, std::move(r.known_fields)));
            store_->seen(r.path);
            return;
        case file_outcome::unreadable:
            ++totals_.unreadable;
            fields = {{"valid", false},
                      {"error", {{"code", r.failure_code}, {"message", r.failure.message()}}},
                      {"checked_with", checked_with_}};
            break;
        case file_outcome::recording:
            ++totals_.recordings;
            if (!r.rep.valid()) ++totals_.invalid;
            fields = report_json(r.rep, plan_.how, r.bytes);
            if (plan_.metrics) add_metrics(fields, r);
            break;
    }
    add_path(fields, r.path);
    index_row row(r.path, std::move(fields));
    // The database's line is made before the observer takes the row (the command's --jsonl then
    // writes the same text, made once).
    const std::string line = store_ ? row.json_text() : std::string();
    observer_.row(r, std::move(row));
    if (store_) store_->put(r, stored_options_, line, indexed_at_);
}

// "metrics" (with "measured_with"), null for an invalid file or one that could not be measured;
// "metrics_error" says why for a valid one.
void indexer::add_metrics(nlohmann::json& fields, const file_result& r) const {
    if (!r.metrics) {
        fields["metrics"] = nullptr;
        if (r.metrics_failure) {
            const bool stream = r.metrics_failure == std::errc::operation_not_supported;
            fields["metrics_error"] = {
                {"code", metrics_failure_name(r.metrics_failure)},
                {"message", stream ? "standard input is read once, by the validation; measure it "
                                     "with inputanim metrics"
                                   : r.metrics_failure.message()}};
        }
        return;
    }
    nlohmann::json m = metrics_json(*r.metrics);
    m["measured_with"] = stored_options_["metrics"];
    fields["metrics"] = std::move(m);
}

// Removes the rows of files this run did not find, only under the operands it walked whole: one
// that is missing (an unmounted drive, a folder renamed during the run) or a folder that could not
// be listed says nothing about the files that were there.
void indexer::prune() {
    for (const auto& [operand, kind] : operands_) {
        if (kind == operand_kind::unwalked) continue;
        for (const std::string& path :
             store_->unseen_under(operand, kind == operand_kind::folder)) {
            if (!mine(path)) continue;
            store_->remove(path);
            ++totals_.pruned;
        }
    }
}

}  // namespace inputanim::records
