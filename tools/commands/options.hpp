// The options the subcommands share, each declared once: the level, the layouts, the version, the
// time window, the output format, the rate, the limits, --max-bytes, --max-rows, --shard and the
// numbers they take. Names are parsed with the library's own name functions (level_name,
// layout_name, layout_choice_name), so that a command accepts exactly what the library names.
//
// A flag means one thing in every command (docs/CLI.md, "One meaning per flag"). A spelling a
// command took before (sample --to, metrics --json, ...) stays an old spelling of the canonical
// flag: listed under "Old spellings" in --help, it is named in a note on stderr when given,
// and given together with the canonical flag it is a usage error naming both. One line
// (alias_note) names every old spelling a command line gave.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "inputanim/archive.hpp"
#include "inputanim/compare.hpp"
#include "inputanim/inputanim.hpp"
#include "inputanim/time_window.hpp"

namespace inputanim::http {
enum class server_end : std::uint8_t;
}  // namespace inputanim::http

namespace inputanim::cli {

// The options of a command that checks files.
struct check_options {
    std::vector<std::string> files;
    // Level (each command may change the default; validate keeps full), layout, limits, and
    // threads for the content checks of one large file (0: one per core).
    validate_options how{};
    // The budgets of an archive among the files (--max-members, ...).
    archive_limits archives{};
    // --format: text (validate's verdict lines, info's summaries) or json.
    std::string format = "text";

    bool json() const { return format == "json"; }
};

// --level NAME (structure or full) into `value`, whose value is the default shown in the help.
CLI::Option* add_level_option(CLI::App& cmd, level& value, const std::string& description);
// --layout NAME, what a reader is told to expect: auto, compact, full, 2019-06 or 2019-05.
CLI::Option* add_layout_choice_option(CLI::App& cmd, layout_choice& value);
// --layout NAME, the layout a writer writes: compact or full. Empty `value`: not given.
CLI::Option* add_layout_option(CLI::App& cmd, std::optional<layout>& value,
                               const std::string& description);
// The same into a layout whose value is the default shown in the help.
CLI::Option* add_layout_option(CLI::App& cmd, layout& value, const std::string& description);
// --events NAME (tracking, pinch, fixations or saccades) of `metrics`. Empty `value`: not given.
CLI::Option* add_event_kind_option(CLI::App& cmd, std::optional<event_kind>& value);
// The recording a command reads, its required positional argument `name` (IN, FILE): a file,
// gzip-compressed or not, a member of a tar or zip, or standard input.
CLI::Option* add_recording_argument(CLI::App& cmd, const std::string& name, std::string& value);
// --max-bytes of the commands that hold a recording whole (dump, sample, metrics): the largest
// recording accepted, to which a gzip file or standard input is read into memory.
CLI::Option* add_max_bytes_option(CLI::App& cmd, std::uint64_t& max_bytes);
// --position, --angle and --time of the commands that compare two recordings (diff, view
// --compare): inputanim::compare's tolerances, each refused outside its range as a usage error.
// `prefix` begins each description ("With --compare: ", or empty).
void add_tolerance_options(CLI::App& cmd, compare_tolerances& tolerance, const std::string& prefix);
// --max-rows of the commands that lay a grid over a recording (sample, metrics).
CLI::Option* add_max_rows_option(CLI::App& cmd, std::uint64_t& max_rows,
                                 const std::string& description);
// FILE..., --format, --json, --level, --layout and --jobs; `options.how.level` holds the
// command's default. `json_is_old`: --json is an old spelling of --format json (validate), else
// a flag of its own that means the same (info, whose --json docs/CLI.md keeps as it is).
void add_check_options(CLI::App& cmd, check_options& options, bool json_is_old);
// The ceilings of inputanim::limits (--max-bytes, --max-keyframes-per-curve, ...) and
// --upload-limits; with `archives`, also the budgets of an archive (add_archive_options), which
// --upload-limits sets to upload_archive_limits() too.
void add_limit_options(CLI::App& cmd, inputanim::limits& limits,
                       archive_limits* archives = nullptr);
// The budgets of an archive (docs/ARCHIVES.md): --max-members, --max-archive-bytes, --max-ratio.
void add_archive_options(CLI::App& cmd, archive_limits& archives);

// A plain decimal count up to `max`, as a CLI11 transform: CLI11 itself would read "010" as octal
// 8 and "-1" as the largest unsigned value, so the text is checked here and handed on in canonical
// form; the messages name the limit in digits.
CLI::Validator count_up_to(std::uint64_t max);
CLI::Validator count_between(std::uint64_t min, std::uint64_t max);
// A finite decimal number in [min, max], as a CLI11 transform whose messages print the numbers
// in their shortest form (CLI11's own Range prints a double's every digit: 309 for DBL_MAX).
CLI::Validator number_between(double min, double max);
// A finite decimal number above 0, likewise.
CLI::Validator positive_number();
// --rate R, samples (grid points, frames, keys) per second, declared the same way by every command
// that takes one: a finite decimal above 0 (positive_number), and at most `max` when given.
CLI::Option* add_rate_option(CLI::App& cmd, double& rate, const std::string& description,
                             std::optional<double> max = std::nullopt);

// --version V, the version of a file written: 1.0 or 1.1. `old`: the command's old spelling of it
// (convert --to), if any.
CLI::Option* add_version_option(CLI::App& cmd, std::string& value, const std::string& description,
                                const std::string& old = {});
// --from T and --until T, the ends of `window` as typed; the command checks the window
// (time_window::problem) when it runs, in words that name the flags as given (spelled). `old_until`
// is the command's old spelling of --until (sample --to; convert and export --to-time).
void add_window_options(CLI::App& cmd, time_window& window, const std::string& old_until,
                        const std::string& from_description, const std::string& until_description);
// --format F, one of `names`, into `value`; a value already set is the default --help shows. `old`:
// the command's old spelling of it that takes the same names (export --to), if any.
CLI::Option* add_format_option(CLI::App& cmd, std::string& value,
                               const std::vector<std::string>& names,
                               const std::string& description, const std::string& old = {});
// FLAG, an old spelling of `--format NAME` (metrics --json and --csv, validate --json): sets
// `value` to NAME. `format` is the command's --format (add_format_option).
CLI::Option* add_format_flag(CLI::App& cmd, const CLI::Option* format, std::string& value,
                             const std::string& flag, const std::string& name);
// Every flag of `app` and of its subcommands (the options that take no value) given at most once,
// as an option is, and a value given to one (--flag=VALUE) only a true or false word: true, false,
// yes, no, on, off, enable, disable, t, f, y, n, 1 or 0, in any case. CLI11 alone takes the last
// of repeated flags and reads only that one's value, so that an order of the command line would
// decide between a usage error and a run, or between on and off. main calls it once every
// command's options are added.
void strict_flags(CLI::App& app);
// The one line on stderr that says which old spellings the command line gave and what each is now
// ("inputanim sample: note: --to is now --until (the old spelling still works)"); nothing when it
// gave none. main prints it once the command line is parsed, before the command runs.
void alias_note(const CLI::App& cmd);
// The flag a message names for an option with an old spelling: `canonical` when the command line
// gave it, else `old`, so that a message reads as before for a command line that gave the old
// spelling or neither.
std::string spelled(const CLI::App& cmd, const std::string& canonical, const std::string& old);

// Shard K of N, as `index --shard K/N` takes it.
struct shard_choice {
    unsigned shard = 0;
    unsigned shards = 1;
    bool operator==(const shard_choice&) const = default;
};
// `text` as K/N, two runs of decimal digits with 0 <= K < N and 1 <= N <= tools::max_shards,
// into `choice`; returns why not ("K/N with 0 <= K < N and 1 <= N <= MAX, not TEXT: ..."), empty
// when taken.
std::string parse_shard(const std::string& text, shard_choice& choice);

// Whether `glob` matches the path of any curve a recording of any version can hold.
bool names_any_curve(std::string_view glob);

// A usage error of `command`, said as "inputanim COMMAND: message": returns exit_usage.
int usage_error(std::string_view command, const std::string& message);
// A file the command cannot use, said as "inputanim: FILE: message": returns exit_invalid.
int invalid_file(const std::string& file, const std::string& message);
// The exit status of `serve` and `view` for how their server's run ended: exit_valid once stopped,
// exit_usage for a configuration it cannot serve, exit_unreadable when the system refused.
int exit_status_of(http::server_end end);

}  // namespace inputanim::cli
