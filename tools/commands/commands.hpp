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

using records::csv_field;
using records::default_max_rows;
using records::default_max_whole_bytes;
using records::max_threads;
using records::number_text;
using records::output_failure;
using records::output_file;
using records::output_is_input;
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
command add_export_command(CLI::App& app);

}  // namespace inputanim::cli
