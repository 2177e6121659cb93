// inputanim validate: one line per file, `PATH: valid` or `PATH: invalid: <error>`, warnings
// indented below. PATH is escaped (printable) so that a name cannot forge a line.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "options.hpp"
#include "reading.hpp"

namespace inputanim::cli {

namespace {

void print_validation(const std::string& path, const file_check& c) {
    const report& rep = c.rep;
    if (rep.valid()) {
        std::cout << printable(path) << ": valid\n";
    } else {
        std::cout << printable(path) << ": invalid: " << error_line(rep.error) << '\n';
    }
    for (const warning& w : rep.warnings()) std::cout << "  warning: " << warning_text(w) << '\n';
    if (rep.warnings_found > rep.warning_count) {
        std::cout << "  (" << rep.warnings_found - rep.warning_count << " more warnings)\n";
    }
}

}  // namespace

command add_validate_command(CLI::App& app) {
    auto options = std::make_shared<check_options>();
    CLI::App* cmd = app.add_subcommand(
        "validate", "Check files against the format: first error, byte offset, warnings");
    add_check_options(*cmd, *options, true);
    add_limit_options(*cmd, options->how.limits, &options->archives);
    return {cmd, [options] { return finish_stdout(check_files(*options, print_validation)); }};
}

}  // namespace inputanim::cli
