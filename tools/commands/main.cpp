// inputanim: a command-line tool over the inputanim library. Each subcommand lives in its own
// file and registers itself here; main parses the command line and runs the one selected.
#include <array>
#include <iostream>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "options.hpp"
#include "reading.hpp"

int main(int argc, char** argv) {
    namespace cli = inputanim::cli;
    cli::hold_standard_descriptors();
    // An interrupted command leaves no temporary file of an output behind.
    inputanim::tools::remove_temporaries_on_signals();
    CLI::App app{"Read and validate MRTK input animation recordings (.bin files).", "inputanim"};
    app.set_version_flag("--version", "inputanim " INPUTANIM_VERSION, "Print the version and exit");
    app.require_subcommand(1);
    app.footer(
        "Exit status: 0 every file valid, 1 some file invalid, 2 usage error, 3 some file could "
        "not be read or the output could not be written (wins over 1).\nRun `inputanim COMMAND "
        "--help` for a command's options.");
    const std::array commands = {cli::add_info_command(app),    cli::add_validate_command(app),
                                 cli::add_gen_command(app),     cli::add_sample_command(app),
                                 cli::add_index_command(app),   cli::add_dump_command(app),
                                 cli::add_serve_command(app),   cli::add_view_command(app),
                                 cli::add_metrics_command(app), cli::add_convert_command(app),
                                 cli::add_export_command(app),  cli::add_import_command(app),
                                 cli::add_diff_command(app)};
    cli::strict_flags(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // CLI11 reports `inputanim frobnicate` as a missing subcommand; name the unknown one.
        const std::vector<std::string> extra = app.remaining();
        if (app.get_subcommands().empty() && !extra.empty() && !extra.front().starts_with('-')) {
            std::cerr << "Unknown command: " << extra.front() << "\nRun with --help for more "
                      << "information.\n";
            return cli::exit_usage;
        }
        // --help and --version also end the parse this way, with a success code.
        return app.exit(e) == 0 ? cli::exit_valid : cli::exit_usage;
    }
    // The environment refusing what a command needs (memory, a thread) is a message and exit 3
    // from whichever command met it, never an abort.
    try {
        for (const cli::command& c : commands) {
            if (!c.app->parsed()) continue;
            cli::alias_note(*c.app);
            return c.run();
        }
    } catch (const std::bad_alloc&) {
        std::cerr << "inputanim: out of memory\n";
        return cli::exit_unreadable;
    } catch (const std::system_error& e) {
        std::cerr << "inputanim: " << e.what() << '\n';
        return cli::exit_unreadable;
    }
    return cli::exit_usage;
}
