// inputanim index: summarize every recording under some folders into JSON Lines and/or a SQLite
// database. The run itself (walk, skip, read, store, prune) is indexer.hpp's; this is the command
// line, the outputs and the totals.
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "index/indexer.hpp"
#include "options.hpp"
#include "progress.hpp"
#include "reading.hpp"

namespace inputanim::cli {

using tools::file_result;
using tools::index_observer;
using tools::index_plan;
using tools::index_totals;
using tools::indexer;
using tools::max_shards;
using tools::merge_indexes;
using tools::sqlite_store;
using tools::store_error;

namespace {

namespace fs = std::filesystem;

struct index_options {
    std::vector<std::string> paths;
    unsigned jobs = 0;
    std::string jsonl;
    std::string sqlite;
    inputanim::level level = level::structure;
    layout_choice layout = layout_choice::automatic;
    inputanim::limits limits{};
    bool force = false;
    bool prune = false;
    bool metrics = false;
    // --invalid-ok: exit 0 when the index is complete, whatever the verdicts.
    bool invalid_ok = false;
    bool no_archives = false;
    archive_limits archives{};
    // --progress, --progress-every N: progress lines also in a log.
    bool progress = false;
    std::uint64_t progress_every = 0;
    // --shard K/N: this run takes the files whose shard_of(path, N) is K (and its database
    // claims it).
    bool sharded = false;
    unsigned shard = 0;
    unsigned shards = 1;
    // `index merge OUT IN...`
    bool merge = false;
    std::string merge_output;
    std::vector<std::string> merge_inputs;
};

// An output that is not written: the message names the output and the cause; `refused` when
// it is a usage error (a name that is not a regular file where one is needed).
class output_error : public std::runtime_error {
  public:
    explicit output_error(const std::string& message, bool refused = false)
        : std::runtime_error(message), refused_(refused) {}
    explicit output_error(const output_failure& failure)
        : output_error(failure.message(), failure.refused) {}
    bool refused() const noexcept { return refused_; }

  private:
    bool refused_;
};

// The rows of --jsonl, to a file or stdout ("-") through the output primitive: a file appears
// complete when the run ends, or not at all.
class jsonl_writer {
  public:
    jsonl_writer(const std::string& name, std::span<const std::string> inputs) {
        if (const std::optional<output_failure> failure = file_.open(name, inputs)) {
            throw output_error(*failure);
        }
    }

    void write(std::string_view line) {
        std::error_code ec = file_.write(line);
        if (!ec) ec = file_.write(std::string_view("\n"));
        if (ec) throw output_error(file_.failure(ec));
    }

    void close() {
        if (const std::optional<output_failure> failure = file_.commit()) {
            throw output_error(*failure);
        }
    }

  private:
    output_file file_;
};

// The command's side of a run: rows to --jsonl, the count on the progress line.
class cli_observer final : public index_observer {
  public:
    cli_observer(jsonl_writer* jsonl, progress& bar) : jsonl_(jsonl), bar_(bar) {}
    void found() override { bar_.found(); }
    void done() override { bar_.done(); }
    void note(const std::string& message) override { bar_.note("inputanim: " + message); }
    void row(const file_result&, tools::index_row&& row) override {
        if (jsonl_) jsonl_->write(row.json_text());
    }

  private:
    jsonl_writer* jsonl_;
    progress& bar_;
};

std::string totals_line(const index_totals& t, bool prune, double seconds) {
    std::string line = "inputanim index: " + std::to_string(t.files) + " files, " +
                       std::to_string(t.recordings) + " recordings, " + std::to_string(t.invalid) +
                       " invalid, " + std::to_string(t.unreadable) + " unreadable, " +
                       std::to_string(t.other) + " other, " + std::to_string(t.unchanged) +
                       " unchanged";
    if (t.archives > 0) {
        line += ", " + std::to_string(t.archives) + " archives";
        if (t.damaged_archives > 0) {
            line += " (" + std::to_string(t.damaged_archives) + " stopped early)";
        }
    }
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

// --jsonl written over the database or its journal destroys it: such a command line is refused
// before anything is opened (an output that is a PATH is refused by the output primitive as it
// opens). Returns the message, or nothing when the line is sound.
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
    return std::nullopt;
}

// The inputs of `index merge`: a name that is not a file but has glob characters is expanded
// (sorted, as glob(3) does), so that thousands of shards need not pass through a command line.
// A folder it cannot list hides its files, and a shard among them is then named missing. Throws
// output_error for a pattern that matches nothing.
std::vector<std::string> merge_inputs(const std::vector<std::string>& names) {
    std::vector<std::string> inputs;
    for (const std::string& name : names) {
        struct stat st {};
        if (name.find_first_of("*?[") == std::string::npos || ::lstat(name.c_str(), &st) == 0) {
            inputs.push_back(name);
            continue;
        }
        glob_t found{};
        const int status = ::glob(name.c_str(), 0, nullptr, &found);
        const std::unique_ptr<glob_t, void (*)(glob_t*)> owner(&found, ::globfree);
        if (status == GLOB_NOMATCH) throw output_error(printable(name) + ": matches no file");
        if (status != 0) throw output_error(printable(name) + ": out of memory");
        for (std::size_t i = 0; i < found.gl_pathc; ++i) inputs.emplace_back(found.gl_pathv[i]);
    }
    return inputs;
}

// `index merge OUT IN...`: the shards' rows into one index.
int run_merge(const index_options& given) {
    index_options o = given;
    try {
        o.merge_inputs = merge_inputs(given.merge_inputs);
    } catch (const output_error& e) {
        std::cerr << "inputanim index merge: " << e.what() << '\n';
        return exit_unreadable;
    }
    try {
        merge_indexes(o.merge_output, o.merge_inputs);
    } catch (const store_error& e) {
        // An input's message starts with its name.
        if (e.kind() == store_error::fault::not_an_index) {
            std::cerr << "inputanim: " << e.what() << '\n';
            return exit_invalid;
        }
        if (e.kind() == store_error::fault::shards_problem) {
            std::cerr << "inputanim index merge: " << e.what() << "; nothing was merged into "
                      << printable(o.merge_output) << '\n';
            return exit_invalid;
        }
        std::cerr << "inputanim: " << printable(o.merge_output) << ": " << e.what() << '\n';
        return e.kind() == store_error::fault::refused ? exit_usage : exit_unreadable;
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
    progress bar(::isatty(STDERR_FILENO) == 1 ? progress::mode::terminal
                 : o.progress                 ? progress::mode::log
                                              : progress::mode::off,
                 o.progress_every);
    index_totals counts;
    int status = exit_valid;
    try {
        // The JSON Lines file first: until its end it is only a temporary file, which a refused
        // database takes away again.
        std::unique_ptr<jsonl_writer> jsonl;
        if (!o.jsonl.empty()) jsonl = std::make_unique<jsonl_writer>(o.jsonl, o.paths);
        std::unique_ptr<sqlite_store> store;
        if (!o.sqlite.empty()) {
            try {
                store = std::make_unique<sqlite_store>(o.sqlite, o.prune, o.paths);
            } catch (const store_error& e) {
                throw output_error(printable(o.sqlite) + ": " + e.what(),
                                   e.kind() == store_error::fault::refused);
            }
        }
        cli_observer observer(jsonl.get(), bar);
        index_plan plan;
        plan.how = {o.level, o.layout, o.limits};
        plan.jobs = o.jobs;
        plan.force = o.force;
        plan.prune = o.prune;
        plan.shard = o.shard;
        plan.shards = o.shards;
        plan.archives = !o.no_archives;
        plan.archive_budgets = o.archives;
        if (o.metrics) {
            plan.metrics.emplace();
            plan.metrics->max_samples = default_max_rows;
        }
        indexer run(plan, store.get(), observer);
        try {
            if (store && o.sharded) store->claim_shard(o.shard, o.shards, run.stored_options());
            for (const std::string& operand : o.paths) run.add_operand(operand);
            bar.walk_finished();
            run.finish();
            if (jsonl) jsonl->close();
            counts = run.counts();
            // Every file of the shard has its row (an unreadable file's says so, and the next run
            // reads it again): `index merge` may take the database.
            if (store && o.sharded && !counts.walk_failed) {
                store->mark_complete();
            }
        } catch (const store_error& e) {
            if (e.kind() == store_error::fault::refused) {
                throw output_error(printable(o.sqlite) + ": " + e.what(), true);
            }
            counts = run.counts();
            throw output_error(printable(o.sqlite) + ": " + e.what());
        } catch (const output_error&) {
            counts = run.counts();
            throw;
        }
        // With --invalid-ok, verdicts (invalid, unreadable) are rows, not failures of the run.
        if (counts.walk_failed || (counts.unreadable > 0 && !o.invalid_ok)) {
            status = exit_unreadable;
        } else if (counts.invalid > 0 && !o.invalid_ok) {
            status = exit_invalid;
        }
    } catch (const output_error& e) {
        bar.note(std::string("inputanim: ") + e.what());
        status = e.refused() ? exit_usage : exit_unreadable;
    } catch (const std::system_error& e) {
        // The environment refused what the run needs (no thread could start).
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
                    "named merge: ./merge); a tar or zip among them, or found in them, is indexed "
                    "member by member (docs/ARCHIVES.md)")
        ->check(named);
    cmd->add_option("--jobs", o->jobs, "Threads that read files (default: one per core)")
        ->transform(count_between(1, max_threads));
    cmd->add_option("--jsonl", o->jsonl,
                    "Write one JSON object per recording (as `info --json`) to FILE, - for stdout")
        ->type_name("FILE")
        ->check(named);
    CLI::Option* sqlite = cmd->add_option("--sqlite", o->sqlite,
                                          "Insert or update the rows of a SQLite database FILE")
                              ->type_name("FILE")
                              ->check(named);
    add_level_option(*cmd, o->level,
                     "structure: headers and counts only; full: also every keyframe and marker");
    add_layout_choice_option(*cmd, o->layout);
    cmd->add_flag("--force", o->force,
                  "Read every file again, even when the database holds its verdict for the same "
                  "size, mtime, inode and options")
        ->needs(sqlite);
    cmd->add_flag("--prune", o->prune,
                  "Delete the database rows of files that are gone, under the PATHs this run could "
                  "walk whole")
        ->needs(sqlite);
    cmd->add_flag("--no-archives", o->no_archives,
                  "Do not open archives: a tar or zip found is some other file, one named is "
                  "indexed as a file");
    cmd->add_flag("--metrics", o->metrics,
                  "Also measure every valid recording (docs/METRICS.md, default parameters): "
                  "\"metrics\" in JSON Lines, summary columns in SQLite");
    cmd->add_option_function<std::string>(
           "--shard",
           [o](const std::string& text) {
               shard_choice choice;
               if (const std::string why = parse_shard(text, choice); !why.empty()) {
                   throw CLI::ValidationError("--shard", why);
               }
               o->sharded = true;
               o->shard = choice.shard;
               o->shards = choice.shards;
           },
           "Take only shard K of N (0 <= K < N, N at most " + std::to_string(max_shards) +
               "): the files whose path hashes to K; shards "
               "0..N-1 cover every file once (index merge joins their databases)")
        ->type_name("K/N");
    cmd->add_flag("--invalid-ok", o->invalid_ok,
                  "Exit 0 once every file found has its row, whatever the verdicts (invalid or "
                  "unreadable files: a batch job's rows, not its failure); a PATH or folder that "
                  "cannot be walked and an output that fails still exit non-zero");
    CLI::Option* progress_flag = cmd->add_flag(
        "--progress", o->progress,
        "Also when stderr is not a terminal (a batch log): a progress line every 10 s");
    cmd->add_option("--progress-every", o->progress_every,
                    "With --progress, also a line every N files")
        ->transform(count_between(1, std::numeric_limits<std::uint64_t>::max()))
        ->type_name("N")
        ->needs(progress_flag);
    add_limit_options(*cmd, o->limits, &o->archives);

    CLI::App* merge = cmd->add_subcommand(
        "merge", "Copy the rows of index databases (such as the shards of --shard) into OUT");
    merge->add_option("OUT", o->merge_output, "The index to create or update")
        ->required()
        ->check(named);
    merge
        ->add_option("IN", o->merge_inputs,
                     "Index databases to copy, in order (later wins); a name with * ? [ that is "
                     "no file is a glob (parts/part-*.db, quoted)")
        ->required()
        ->check(named);
    merge->parse_complete_callback([o] { o->merge = true; });
    return {cmd, [o] { return run_index(*o); }};
}

}  // namespace inputanim::cli
