// The subcommands of `inputanim` (one file each in this folder) and what every one of them sees:
// the exit statuses, and the names of the tools' libraries (tools/os) they all use.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "exit_status.hpp"
#include "os/ceilings.hpp"
#include "os/output_file.hpp"
#include "os/text.hpp"
#include "output.hpp"

namespace inputanim::cli {

using tools::csv_field;
using tools::default_max_rows;
using tools::default_max_whole_bytes;
using tools::max_threads;
using tools::number_text;
using tools::output_failure;
using tools::output_file;
using tools::output_is_input;
using tools::printable;

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
command add_export_command(CLI::App& app);
command add_import_command(CLI::App& app);
command add_diff_command(CLI::App& app);

}  // namespace inputanim::cli
