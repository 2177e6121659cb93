// What the subcommands share: exit statuses, the options of commands that check files, the
// loop that maps and validates each file, and the text forms of errors and warnings.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>

#include "inputanim/inputanim.hpp"

namespace inputanim::cli {

// Exit statuses. A file that cannot be read wins over an invalid one.
inline constexpr int exit_valid = 0;
inline constexpr int exit_invalid = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_unreadable = 3;

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

// "unsorted_keys at byte 120, curve camera.position.x, keyframe 2: key time is not ..."
std::string error_text(const error& e);
// "negative_time, curve camera.position.x: first key time is negative (-0.500000)"
std::string warning_text(const warning& w);
// The shortest decimal that reads back as `v`.
std::string float_text(float v);

}  // namespace inputanim::cli
