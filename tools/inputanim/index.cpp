// inputanim index: summarize every recording under some folders into JSON Lines and/or a SQLite
// database. The main thread walks the folders, skips files the database already holds unchanged
// under the same options, and writes the results in walk order; worker threads (index_pool) read
// the files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
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
    // --shard K/N: this run takes the files whose shard_of(path, N) is K.
    unsigned shard = 0;
    unsigned shards = 1;
    // `index merge OUT IN...`
    bool merge = false;
    std::string merge_output;
    std::vector<std::string> merge_inputs;
};

// The shard of a path among `shards`: FNV-1a (64 bits) of its bytes, modulo `shards`. Fixed by
// docs/CLI.md, so that shards made by different machines and releases fit together.
unsigned shard_of(std::string_view path, unsigned shards) {
    std::uint64_t h = 0xcbf29ce484222325;
    for (const char c : path) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3;
    }
    return static_cast<unsigned>(h % shards);
}

// The output could not be written; the message names the output and the cause.
class output_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// JSON Lines to a file or stdout ("-"), through one large buffer written with write(2).
class jsonl_writer {
  public:
    explicit jsonl_writer(const std::string& name)
        : name_(name == "-" ? "stdout" : printable(name)) {
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

    void write(std::string_view line) {
        buffer_ += line;
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
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
            static_cast<std::uint64_t>(st.st_ino)};
}

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

class indexer {
  public:
    indexer(const index_options& o, jsonl_writer* jsonl, sqlite_store* store, progress& bar)
        : options_(o),
          jsonl_(jsonl),
          store_(store),
          bar_(bar),
          indexed_at_(now_ns()),
          how_{parse_level_name(o.level).value_or(level::structure),
               parse_layout_choice_name(o.layout).value_or(layout_choice::automatic), o.limits},
          checked_with_(options_json(how_)),
          checked_with_text_(checked_with_.dump()),
          pool_(o.jobs, std::clamp<std::size_t>(std::size_t{64} * o.jobs, 64, 8192), how_,
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
            operand_kinds_.push_back(operand_kind::unwalked);
            return;
        }
        const bool followed = ::stat(operand.c_str(), &st) == 0;
        if (followed && S_ISDIR(st.st_mode)) {
            operand_kinds_.push_back(walk(operand) ? operand_kind::folder : operand_kind::unwalked);
            return;
        }
        operand_kinds_.push_back(operand_kind::file);
        if (followed && !S_ISREG(st.st_mode)) {
            other_file(operand);
            return;
        }
        // A link that leads nowhere is handed over all the same: opening it reports why.
        add_file(operand, true, followed ? &st : nullptr);
    }

    // Depth first, in the order the folders list their entries. Links to folders are not
    // followed (no loops); links to files are. False when some folder could not be listed whole.
    bool walk(const std::string& root) {
        bool complete = true;
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
                complete = false;
            }
        }
        return complete;
    }

    void add_entry(const fs::path& path, fs::file_type type) {
        struct stat st {};
        const char* name = path.c_str();
        switch (type) {
            case fs::file_type::regular:
                // Size, mtime and inode matter only to the database.
                if (!store_) return add_file(path.native(), false, nullptr);
                return add_file(path.native(), false, ::stat(name, &st) == 0 ? &st : nullptr);
            case fs::file_type::symlink:
                if (::stat(name, &st) != 0) return add_file(path.native(), false, nullptr);
                if (S_ISDIR(st.st_mode)) return;
                if (S_ISREG(st.st_mode)) return add_file(path.native(), false, &st);
                return other_file(path.native());
            case fs::file_type::none:
            case fs::file_type::not_found:
            case fs::file_type::unknown:
                // Vanished since the listing, or not stat-able: opening it reports why.
                return add_file(path.native(), false, nullptr);
            default:
                // FIFOs, sockets and devices are never opened (a FIFO would block).
                return other_file(path.native());
        }
    }

    bool mine(std::string_view path) const {
        return options_.shards == 1 || shard_of(path, options_.shards) == options_.shard;
    }

    void other_file(std::string_view path) {
        if (!mine(path)) return;
        ++totals_.files;
        ++totals_.other;
        bar_.found();
        bar_.done();
    }

    // Hands the file to the pool, or, when the database holds its verdict for the same stamp and
    // options, a result that the pool passes through unread (so output stays in walk order).
    void add_file(const std::string& path, bool named, const struct stat* st) {
        if (!mine(path)) return;
        ++totals_.files;
        bar_.found();
        std::optional<file_stamp> stamp;
        if (st) stamp = stamp_of(*st);
        file_result& r = pool_.next();
        r.path = path;
        r.named = named;
        r.stamp = stamp;
        r.outcome = file_outcome::recording;
        if (store_ && stamp && !options_.force) {
            std::optional<known_file> known = store_->lookup(path);
            if (known && known->stamp == stamp && known->options == checked_with_text_) {
                r.outcome = file_outcome::unchanged;
                r.known_valid = known->valid;
                r.known_report = std::move(known->report);
            }
        }
        pool_.submit();
    }

    // A worker's result, in walk order.
    void take(file_result& r) {
        bar_.done();
        std::string line;
        switch (r.outcome) {
            case file_outcome::not_recording:
                ++totals_.other;
                return;
            case file_outcome::unchanged:
                ++totals_.unchanged;
                ++totals_.recordings;
                if (!r.known_valid) ++totals_.invalid;
                if (jsonl_) jsonl_->write(r.known_report);
                store_->seen(r.path);
                return;
            case file_outcome::unreadable:
                ++totals_.unreadable;
                line = json_line(
                    r.path,
                    {{"valid", false},
                     {"error", {{"code", r.failure_code}, {"message", r.failure.message()}}},
                     {"checked_with", checked_with_}});
                break;
            case file_outcome::recording: {
                ++totals_.recordings;
                if (!r.rep.valid()) ++totals_.invalid;
                line = json_line(r.path, report_json(r.rep, how_, r.bytes));
                break;
            }
        }
        if (jsonl_) jsonl_->write(line);
        if (store_) store_->put(r, checked_with_, line, indexed_at_);
    }

    // Removes the rows of files this run did not find, only under the PATHs it walked whole: a
    // PATH that is missing (an unmounted drive, a folder renamed during the run) or a folder
    // that could not be listed says nothing about the files that were there.
    void prune() {
        for (std::size_t i = 0; i < options_.paths.size(); ++i) {
            const operand_kind kind = operand_kinds_[i];
            if (kind == operand_kind::unwalked) continue;
            for (const std::string& path :
                 store_->unseen_under(options_.paths[i], kind == operand_kind::folder)) {
                if (!mine(path)) continue;
                store_->remove(path);
                ++totals_.pruned;
            }
        }
    }

    void complain(const std::string& path, int error) {
        bar_.note("inputanim: " + printable(path) + ": " + std::generic_category().message(error));
        totals_.walk_failed = true;
    }

    // A PATH that is a folder walked whole, a file (or standard input), or one that could not be
    // walked whole (missing, or some folder in it could not be listed).
    enum class operand_kind : std::uint8_t { folder, file, unwalked };

    const index_options& options_;
    jsonl_writer* jsonl_;
    sqlite_store* store_;
    progress& bar_;
    const std::int64_t indexed_at_;
    const validate_options how_;
    const nlohmann::json checked_with_;
    const std::string checked_with_text_;
    totals totals_;
    std::vector<operand_kind> operand_kinds_;
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

// Whether names `a` and `b` lead to one file: the same inode when both exist, else the same
// absolute name once links and `..` are resolved.
bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {};
    struct stat sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    }
    std::error_code ea;
    std::error_code eb;
    const fs::path ca = fs::weakly_canonical(fs::absolute(a), ea);
    const fs::path cb = fs::weakly_canonical(fs::absolute(b), eb);
    return !ea && !eb && ca == cb;
}

// An output written over the database, its journal or an input destroys it: such a command line
// is refused before anything is opened. Returns the message, or nothing when the line is sound.
std::optional<std::string> usage_problem(const index_options& o) {
    if (o.jsonl.empty() && o.sqlite.empty()) return "give --jsonl FILE and/or --sqlite FILE";
    if (o.jsonl.empty() || o.jsonl == "-") return std::nullopt;
    if (!o.sqlite.empty()) {
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
            if (same_file(o.jsonl, o.sqlite + suffix)) {
                return "--jsonl " + printable(o.jsonl) + " is the database" +
                       (*suffix ? std::string("'s ") + (suffix + 1) + " file" : std::string()) +
                       " (" + printable(o.sqlite + suffix) + "); write it elsewhere";
            }
        }
    }
    for (const std::string& path : o.paths) {
        if (path != "-" && same_file(o.jsonl, path)) {
            return "--jsonl " + printable(o.jsonl) + " is the PATH " + printable(path) +
                   " to index";
        }
    }
    return std::nullopt;
}

// `index merge OUT IN...`: the shards' rows into one index.
int run_merge(const index_options& o) {
    try {
        sqlite_store out(o.merge_output, false);
        for (const std::string& input : o.merge_inputs) {
            if (same_file(input, o.merge_output)) {
                std::cerr << "inputanim index merge: " << printable(input) << " is the output\n";
                return exit_usage;
            }
            out.merge(input);
        }
        out.finish();
    } catch (const store_error& e) {
        std::cerr << "inputanim: " << printable(o.merge_output) << ": " << e.what() << '\n';
        return exit_unreadable;
    }
    return exit_valid;
}

int run_index(index_options& o) {
    if (o.merge) return run_merge(o);
    if (o.paths.empty()) {
        std::cerr << "inputanim index: PATH is required (folders and files to index)\n";
        return exit_usage;
    }
    if (const std::optional<std::string> problem = usage_problem(o)) {
        std::cerr << "inputanim index: " << *problem << '\n';
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
                throw output_error(printable(o.sqlite) + ": " + e.what());
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
            throw output_error(printable(o.sqlite) + ": " + e.what());
        } catch (const output_error&) {
            counts = run.counts();
            throw;
        }
        if (counts.unreadable > 0 || counts.walk_failed) {
            status = exit_unreadable;
        } else if (counts.invalid > 0) {
            status = exit_invalid;
        }
    } catch (const output_error& e) {
        bar.note(std::string("inputanim: ") + e.what());
        status = exit_unreadable;
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
    // An empty name is an unset shell variable, never a place: with --prune it would be read as
    // the root of every stored path.
    const CLI::Validator named(
        [](const std::string& name) {
            return name.empty() ? std::string("an empty name (an unset variable?)") : std::string();
        },
        "", "NAME");
    cmd->add_option("PATH", o->paths,
                    "Folders to walk (recordings found by content) and files to index (a folder "
                    "named merge: ./merge)")
        ->check(named);
    cmd->add_option("--jobs", o->jobs, "Threads that read files (default: one per core)")
        ->check(CLI::Range(1u, 1024u));
    cmd->add_option("--jsonl", o->jsonl,
                    "Write one JSON object per recording (as `info --json`) to FILE, - for stdout")
        ->type_name("FILE")
        ->check(named);
    CLI::Option* sqlite = cmd->add_option("--sqlite", o->sqlite,
                                          "Insert or update the rows of a SQLite database FILE")
                              ->type_name("FILE")
                              ->check(named);
    cmd->add_option("--level", o->level,
                    "structure: headers and counts only; full: also every keyframe and marker")
        ->check(CLI::IsMember({"structure", "full"}))
        ->capture_default_str();
    cmd->add_option("--layout", o->layout,
                    "v1.1 float keyframes: compact (8 bytes, MRTK), full (28 bytes) or auto-detect")
        ->check(CLI::IsMember({"auto", "compact", "full"}))
        ->capture_default_str();
    cmd->add_flag("--force", o->force,
                  "Read every file again, even when the database holds its verdict for the same "
                  "size, mtime, inode and options")
        ->needs(sqlite);
    cmd->add_flag("--prune", o->prune,
                  "Delete the database rows of files that are gone, under the PATHs this run could "
                  "walk whole")
        ->needs(sqlite);
    cmd->add_option_function<std::string>(
           "--shard",
           [o](const std::string& text) {
               const auto number = [](std::string_view t, unsigned& v) {
                   const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
                   return !t.empty() && ec == std::errc() && end == t.data() + t.size();
               };
               const std::size_t slash = text.find('/');
               unsigned k = 0;
               unsigned n = 0;
               if (slash == std::string::npos || !number(text.substr(0, slash), k) ||
                   !number(text.substr(slash + 1), n) || n == 0 || k >= n) {
                   throw CLI::ValidationError("--shard", "K/N with 0 <= K < N, not " + text);
               }
               o->shard = k;
               o->shards = n;
           },
           "Take only shard K of N (0 <= K < N): the files whose path hashes to K; shards "
           "0..N-1 cover every file once (index merge joins their databases)")
        ->type_name("K/N");
    add_limit_options(*cmd, o->limits);

    CLI::App* merge = cmd->add_subcommand(
        "merge", "Copy the rows of index databases (such as the shards of --shard) into OUT");
    merge->add_option("OUT", o->merge_output, "The index to create or update")
        ->required()
        ->check(named);
    merge->add_option("IN", o->merge_inputs, "Index databases to copy, in order (later wins)")
        ->required()
        ->check(named);
    merge->parse_complete_callback([o] { o->merge = true; });
    return {cmd, [o] { return run_index(*o); }};
}

}  // namespace inputanim::cli
