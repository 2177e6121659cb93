// inputanim index: summarize every recording under some folders into JSON Lines and/or a SQLite
// database. The main thread walks the folders, skips files the database already holds unchanged,
// and writes the results in walk order; worker threads (index_pool) read the files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "common.hpp"
#include "index_pool.hpp"
#include "progress.hpp"
#include "report_json.hpp"
#include "sqlite_store.hpp"

namespace inputanim::cli {

namespace {

namespace fs = std::filesystem;

// Exit status 3 means here that the output (JSON Lines or database) could not be written.
constexpr int exit_output_failed = exit_unreadable;

struct index_options {
    std::vector<std::string> paths;
    unsigned jobs = 0;
    std::string jsonl;
    std::string sqlite;
    std::string level = "structure";
    std::string layout = "auto";
    inputanim::limits limits{};
    bool force = false;
    bool prune = false;
};

// The output could not be written; the message names the output and the cause.
class output_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// JSON Lines to a file or stdout ("-"), through one large buffer written with write(2).
class jsonl_writer {
  public:
    explicit jsonl_writer(const std::string& name) : name_(name == "-" ? "stdout" : name) {
        if (name == "-") {
            fd_ = STDOUT_FILENO;
        } else {
            fd_ = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            if (fd_ < 0) fail(errno);
            owned_ = true;
        }
        buffer_.reserve(buffer_size);
    }
    ~jsonl_writer() {
        if (owned_) ::close(fd_);
    }
    jsonl_writer(const jsonl_writer&) = delete;
    jsonl_writer& operator=(const jsonl_writer&) = delete;

    void write(const nlohmann::json& object) {
        // Paths are bytes, not necessarily UTF-8: replace what JSON cannot carry.
        buffer_ += object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        buffer_ += '\n';
        if (buffer_.size() >= buffer_size) flush();
    }

    void close() {
        flush();
        if (owned_) {
            owned_ = false;
            if (::close(fd_) != 0) fail(errno);
        }
    }

  private:
    static constexpr std::size_t buffer_size = std::size_t{1} << 20;

    void flush() {
        std::size_t written = 0;
        while (written < buffer_.size()) {
            const ssize_t n = ::write(fd_, buffer_.data() + written, buffer_.size() - written);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) fail(errno);
            written += static_cast<std::size_t>(n);
        }
        buffer_.clear();
    }

    [[noreturn]] void fail(int error) const {
        throw output_error(name_ + ": " + std::generic_category().message(error));
    }

    std::string name_;
    int fd_ = -1;
    bool owned_ = false;
    std::string buffer_;
};

struct totals {
    std::uint64_t files = 0;
    std::uint64_t recordings = 0;
    std::uint64_t invalid = 0;
    std::uint64_t unreadable = 0;
    std::uint64_t other = 0;
    std::uint64_t unchanged = 0;
    std::uint64_t pruned = 0;
    // A PATH that does not exist or a folder that could not be listed.
    bool walk_failed = false;
};

file_stamp stamp_of(const struct stat& st) {
    return {static_cast<std::uint64_t>(st.st_size),
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Whether `path` lies inside one of the folders in `prefixes` (each ending with '/').
bool inside_any(std::string_view path, const std::vector<std::string>& prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](const std::string& p) { return path.starts_with(p); });
}

std::string as_prefix(std::string folder) {
    if (folder.empty() || folder.back() != '/') folder += '/';
    return folder;
}

class indexer {
  public:
    indexer(const index_options& o, jsonl_writer* jsonl, sqlite_store* store, progress& bar)
        : options_(o),
          jsonl_(jsonl),
          store_(store),
          bar_(bar),
          indexed_at_(now_ns()),
          pool_(
              o.jobs, std::clamp<std::size_t>(std::size_t{64} * o.jobs, 64, 8192),
              validate_options{
                  parse_level_name(o.level).value_or(level::structure),
                  parse_layout_choice_name(o.layout).value_or(layout_choice::automatic), o.limits},
              [this](file_result& r) { take(r); }) {}

    void index_all() {
        for (const std::string& operand : options_.paths) index_operand(operand);
        bar_.walk_finished();
        pool_.finish();
        if (options_.prune) prune();
        if (store_) store_->finish();
        if (jsonl_) jsonl_->close();
    }

    const totals& counts() const { return totals_; }

  private:
    // A PATH from the command line: a folder is walked, anything else is a file to index
    // whatever its content.
    void index_operand(const std::string& operand) {
        if (operand == "-") {
            // Standard input: one recording read as it arrives, never a folder.
            operand_kinds_.push_back(operand_kind::file);
            add_file(operand, true, nullptr);
            return;
        }
        struct stat st {};
        if (::lstat(operand.c_str(), &st) != 0) {
            complain(operand, errno);
            operand_kinds_.push_back(operand_kind::missing);
            return;
        }
        const bool followed = ::stat(operand.c_str(), &st) == 0;
        if (followed && S_ISDIR(st.st_mode)) {
            operand_kinds_.push_back(operand_kind::folder);
            walk(operand);
            return;
        }
        operand_kinds_.push_back(operand_kind::file);
        if (followed && !S_ISREG(st.st_mode)) {
            other_file();
            return;
        }
        // A link that leads nowhere is handed over all the same: opening it reports why.
        add_file(operand, true, followed ? &st : nullptr);
    }

    // Depth first, in the order the folders list their entries. Links to folders are not
    // followed (no loops); links to files are.
    void walk(const std::string& root) {
        std::vector<fs::path> folders{fs::path(root)};
        while (!folders.empty()) {
            const fs::path folder = std::move(folders.back());
            folders.pop_back();
            std::error_code ec;
            fs::directory_iterator it(folder, ec);
            for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
                const fs::directory_entry& entry = *it;
                std::error_code type_error;
                // From the folder listing where the file system says; else an lstat.
                const fs::file_type type = entry.symlink_status(type_error).type();
                if (type == fs::file_type::directory) {
                    folders.push_back(entry.path());
                } else {
                    add_entry(entry.path(), type);
                }
            }
            if (ec) {
                complain(folder.native(), ec.value());
                unlisted_folders_.push_back(as_prefix(folder.native()));
            }
        }
    }

    void add_entry(const fs::path& path, fs::file_type type) {
        struct stat st {};
        const char* name = path.c_str();
        switch (type) {
            case fs::file_type::regular:
                // Size and mtime matter only to the database.
                if (!store_) return add_file(path.native(), false, nullptr);
                return add_file(path.native(), false, ::stat(name, &st) == 0 ? &st : nullptr);
            case fs::file_type::symlink:
                if (::stat(name, &st) != 0) return add_file(path.native(), false, nullptr);
                if (S_ISDIR(st.st_mode)) return;
                if (S_ISREG(st.st_mode)) return add_file(path.native(), false, &st);
                return other_file();
            case fs::file_type::none:
            case fs::file_type::not_found:
            case fs::file_type::unknown:
                // Vanished since the listing, or not stat-able: opening it reports why.
                return add_file(path.native(), false, nullptr);
            default:
                // FIFOs, sockets and devices are never opened (a FIFO would block).
                return other_file();
        }
    }

    void other_file() {
        ++totals_.files;
        ++totals_.other;
        bar_.found();
        bar_.done();
    }

    void add_file(const std::string& path, bool named, const struct stat* st) {
        ++totals_.files;
        bar_.found();
        std::optional<file_stamp> stamp;
        if (st) stamp = stamp_of(*st);
        if (store_ && stamp && !options_.force) {
            const std::optional<known_file> known = store_->lookup(path);
            if (known && known->stamp && known->stamp->size == stamp->size &&
                known->stamp->mtime_ns == stamp->mtime_ns) {
                ++totals_.unchanged;
                ++totals_.recordings;
                if (!known->valid) ++totals_.invalid;
                store_->seen(path);
                bar_.done();
                return;
            }
        }
        file_result& r = pool_.next();
        r.path = path;
        r.named = named;
        r.stamp = stamp;
        pool_.submit();
    }

    // A worker's result, in walk order.
    void take(file_result& r) {
        bar_.done();
        switch (r.outcome) {
            case file_outcome::not_recording:
                ++totals_.other;
                return;
            case file_outcome::unreadable:
                ++totals_.unreadable;
                if (jsonl_) {
                    jsonl_->write(
                        {{"path", r.path},
                         {"valid", false},
                         {"error", {{"code", r.failure_code}, {"message", r.failure.message()}}}});
                }
                break;
            case file_outcome::recording:
                ++totals_.recordings;
                if (!r.rep.valid()) ++totals_.invalid;
                if (jsonl_) jsonl_->write(report_json(r.path, r.rep, r.bytes));
                break;
        }
        if (store_) store_->put(r, indexed_at_);
    }

    // Removes the rows under the PATHs that this run did not find, except inside folders that
    // could not be listed (their files may well still be there).
    void prune() {
        for (std::size_t i = 0; i < options_.paths.size(); ++i) {
            const std::string& operand = options_.paths[i];
            std::vector<std::string> gone;
            if (operand_kinds_[i] != operand_kind::folder)
                gone = store_->unseen_under(operand, false);
            if (operand_kinds_[i] != operand_kind::file) {
                std::vector<std::string> inside = store_->unseen_under(operand, true);
                gone.insert(gone.end(), inside.begin(), inside.end());
            }
            for (const std::string& path : gone) {
                if (inside_any(path, unlisted_folders_)) continue;
                store_->remove(path);
                ++totals_.pruned;
            }
        }
    }

    void complain(const std::string& path, int error) {
        bar_.note("inputanim: " + path + ": " + std::generic_category().message(error));
        totals_.walk_failed = true;
    }

    enum class operand_kind : std::uint8_t { folder, file, missing };

    const index_options& options_;
    jsonl_writer* jsonl_;
    sqlite_store* store_;
    progress& bar_;
    const std::int64_t indexed_at_;
    totals totals_;
    std::vector<operand_kind> operand_kinds_;
    std::vector<std::string> unlisted_folders_;
    // Last: its workers stop before the members they use go away.
    index_pool pool_;
};

std::string totals_line(const totals& t, bool prune, double seconds) {
    std::string line = "inputanim index: " + std::to_string(t.files) + " files, " +
                       std::to_string(t.recordings) + " recordings, " + std::to_string(t.invalid) +
                       " invalid, " + std::to_string(t.unreadable) + " unreadable, " +
                       std::to_string(t.other) + " other, " + std::to_string(t.unchanged) +
                       " unchanged";
    if (prune) line += ", " + std::to_string(t.pruned) + " pruned";
    char time_text[64];
    std::snprintf(time_text, sizeof time_text, ", %.2f s (%.0f files/s)", seconds,
                  seconds > 0 ? static_cast<double>(t.files) / seconds : 0.0);
    return line + time_text;
}

int run_index(index_options& o) {
    if (o.jsonl.empty() && o.sqlite.empty()) {
        std::cerr << "inputanim index: give --jsonl FILE and/or --sqlite FILE\n";
        return exit_usage;
    }
    if (o.jobs == 0) o.jobs = std::max(1u, std::thread::hardware_concurrency());
    progress bar(::isatty(STDERR_FILENO) == 1);
    totals counts;
    int status = exit_valid;
    try {
        std::unique_ptr<sqlite_store> store;
        if (!o.sqlite.empty()) {
            try {
                store = std::make_unique<sqlite_store>(o.sqlite, o.prune);
            } catch (const store_error& e) {
                throw output_error(o.sqlite + ": " + e.what());
            }
        }
        std::unique_ptr<jsonl_writer> jsonl;
        if (!o.jsonl.empty()) jsonl = std::make_unique<jsonl_writer>(o.jsonl);
        indexer run(o, jsonl.get(), store.get(), bar);
        try {
            run.index_all();
            counts = run.counts();
        } catch (const store_error& e) {
            counts = run.counts();
            throw output_error(o.sqlite + ": " + e.what());
        } catch (const output_error&) {
            counts = run.counts();
            throw;
        }
        if (counts.invalid > 0 || counts.unreadable > 0 || counts.walk_failed) {
            status = exit_invalid;
        }
    } catch (const output_error& e) {
        bar.note(std::string("inputanim: ") + e.what());
        status = exit_output_failed;
    }
    bar.clear();
    const double seconds = std::chrono::duration<double>(bar.elapsed()).count();
    std::cerr << totals_line(counts, o.prune, seconds) << '\n';
    return status;
}

}  // namespace

command add_index_command(CLI::App& app) {
    auto o = std::make_shared<index_options>();
    CLI::App* cmd = app.add_subcommand(
        "index", "Summarize every recording under folders into JSON Lines and/or SQLite");
    cmd->add_option("PATH", o->paths,
                    "Folders to walk (recordings found by content) and files to index")
        ->required();
    cmd->add_option("--jobs", o->jobs, "Threads that read files (default: one per core)")
        ->check(CLI::Range(1u, 1024u));
    cmd->add_option("--jsonl", o->jsonl,
                    "Write one JSON object per recording (as `info --json`) to FILE, - for stdout")
        ->type_name("FILE");
    CLI::Option* sqlite = cmd->add_option("--sqlite", o->sqlite,
                                          "Insert or update the rows of a SQLite database FILE")
                              ->type_name("FILE");
    cmd->add_option("--level", o->level,
                    "structure: headers and counts only; full: also every keyframe and marker")
        ->check(CLI::IsMember({"structure", "full"}))
        ->capture_default_str();
    cmd->add_option("--layout", o->layout,
                    "v1.1 float keyframes: compact (8 bytes, MRTK), full (28 bytes) or auto-detect")
        ->check(CLI::IsMember({"auto", "compact", "full"}))
        ->capture_default_str();
    cmd->add_flag("--force", o->force,
                  "Read every file again, even when the database holds it with the same size and "
                  "mtime")
        ->needs(sqlite);
    cmd->add_flag("--prune", o->prune,
                  "Delete the database rows under the PATHs of files that are gone")
        ->needs(sqlite);
    add_limit_options(*cmd, o->limits);
    return {cmd, [o] { return run_index(*o); }};
}

}  // namespace inputanim::cli
