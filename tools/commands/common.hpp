// What the subcommands share: exit statuses, the options of commands that check files, the
// loop that maps and validates each file, and the text forms of errors and warnings.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>

#include "inputanim/inputanim.hpp"
#include "records/ceilings.hpp"
#include "records/exit_status.hpp"
#include "records/output_file.hpp"
#include "records/text.hpp"

namespace inputanim::cli {

using records::default_max_rows;
using records::default_max_whole_bytes;
using records::exit_invalid;
using records::exit_unreadable;
using records::exit_usage;
using records::exit_valid;
using records::max_threads;
using records::number_text;
using records::output_failure;
using records::output_file;
using records::printable;

// A subcommand: its CLI11 app, and what runs when the command line selected it.
struct command {
    CLI::App* app = nullptr;
    std::function<int()> run;
};

command add_info_command(CLI::App& app);
command add_validate_command(CLI::App& app);
command add_gen_command(CLI::App& app);
command add_sample_command(CLI::App& app);
command add_index_command(CLI::App& app);
command add_dump_command(CLI::App& app);
command add_serve_command(CLI::App& app);
command add_view_command(CLI::App& app);
command add_metrics_command(CLI::App& app);
command add_convert_command(CLI::App& app);

// The options of a command that checks files.
struct check_options {
    std::vector<std::string> files;
    // Each command may change the default level; validate keeps full.
    std::string level = "full";
    std::string layout = "auto";
    inputanim::limits limits{};
    bool json = false;
    // Threads for the content checks of one large file (0: one per core).
    unsigned jobs = 0;

    validate_options to_validate_options() const;
};

// --max-bytes of the commands that hold a recording whole (dump, sample, metrics): the largest
// recording accepted, to which a gzip file or standard input is read into memory.
CLI::Option* add_max_bytes_option(CLI::App& cmd, std::uint64_t& max_bytes);
// --layout NAME: the library's layout_choice names.
CLI::Option* add_layout_option(CLI::App& cmd, std::string& layout);

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

// FILE..., --json, --level, --layout and --jobs; `options.level` holds the command's default.
void add_check_options(CLI::App& cmd, check_options& options);
// --max-bytes and the other ceilings of inputanim::limits.
void add_limit_options(CLI::App& cmd, inputanim::limits& limits);

// Prints the result for one file that could be read (human output; JSON is printed by
// check_files itself).
using report_printer = std::function<void(const std::string& path, const file_check& check)>;

// Validates every file in order (validate_file; `-` is standard input). A file that cannot be
// read is a diagnostic
// on stderr; the others are printed on stdout as JSON Lines with --json, else by `print`. Returns
// the exit status.
int check_files(const check_options& options, const report_printer& print);

// A recording held whole for random access (dump, sample): its input (which owns a mapping) and
// the bytes read or inflated into memory when it is gzip or a stream.
struct whole_recording {
    input in;
    std::vector<std::byte> storage;
    std::span<const std::byte> bytes;
};
// Opens `name` through the front door and reads the recording whole (read_whole) under `how`'s
// layout and limits. On failure prints the diagnostic and returns the exit status: unreadable,
// or invalid when its structure fails on the way.
std::optional<int> read_recording(const std::string& name, const validate_options& how,
                                  whole_recording& out);

// Opens `bytes` (read by read_recording) as `rec` for a command that evaluates it (sample,
// metrics): the structure walked and, when `full`, the content validated, so that keys out of order
// or values that are not finite are not taken for motion. On failure prints why, naming what
// `--level structure` would do instead (`anyway`: "samples it anyway"), and returns the exit
// status: unreadable (a read fault of the mapping) or invalid.
std::optional<int> open_evaluable(const std::string& name, std::span<const std::byte> bytes,
                                  const validate_options& how, bool full, std::string_view anyway,
                                  recording& rec);

// An RFC 4180 field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

// "unsorted_keys at byte 120, curve camera.position.x, keyframe 2: key time is not ..."
std::string error_text(const error& e);
// "negative_time, curve camera.position.x: first key time is negative (-0.500000)"
std::string warning_text(const warning& w);
// Whether `glob` matches the path of any curve a recording of any version can hold.
bool names_any_curve(std::string_view glob);

// Where every command's output goes and how its failure is found (exit 3, "inputanim: stdout:
// cannot write: REASON" on stderr). Small text goes to std::cout; large output (dump, sample) is
// built in blocks and written by a stdout_writer; finish_stdout, the last step of each command
// that prints, checks both, on flush and on close.
class stdout_writer {
  public:
    stdout_writer() { buffer_.reserve(block); }
    ~stdout_writer() { flush(); }
    stdout_writer(const stdout_writer&) = delete;
    stdout_writer& operator=(const stdout_writer&) = delete;

    stdout_writer& operator<<(std::string_view text) {
        buffer_ += text;
        if (buffer_.size() >= block) flush();
        return *this;
    }
    // Writes what is buffered (nothing more once a write failed); false when one failed.
    bool flush();
    // Whether a write failed: a producer of many rows stops writing them.
    bool failed() const noexcept { return failed_; }

  private:
    static constexpr std::size_t block = std::size_t{1} << 16;
    std::string buffer_;
    bool failed_ = false;
};

// Flushes std::cout and stdout and checks that everything written to standard output reached
// it: a failed write, flush, or close (a file system may report a write error only when the
// file is closed, as NFS does; a duplicate of the descriptor is closed to ask, so stdout itself
// stays open until exit). Returns `status` when it did, else prints the reason and returns
// exit_unreadable.
int finish_stdout(int status);

// "inputanim: NAME: cannot write: REASON" (REASON from `error_number`, an errno) on stderr;
// returns exit_unreadable.
int write_failed(std::string_view name, int error_number);

// "inputanim: MESSAGE" on stderr for an output that is not written; returns exit_usage when it
// was refused, else exit_unreadable.
int output_failed(const output_failure& failure);

// Keeps descriptors 0, 1 and 2 taken: one that is closed when the program starts is opened on
// /dev/null for reading, so that a file the program opens later never becomes its standard
// output, and a write to a closed stdout fails (EBADF) instead of going somewhere.
void hold_standard_descriptors() noexcept;

}  // namespace inputanim::cli
