// inputanim info: a readable summary of each file (what it holds, and why it is invalid).
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "options.hpp"
#include "reading.hpp"

namespace inputanim::cli {

namespace {

std::string blocks_text(const block_flags& b) {
    std::string text;
    for (const auto& [present, name] :
         {std::pair{b.camera, "camera"}, std::pair{b.hands, "hands"}, std::pair{b.gaze, "gaze"}}) {
        if (!present) continue;
        if (!text.empty()) text += ", ";
        text += name;
    }
    return text.empty() ? "none" : text;
}

void print_info(const std::string& path, const file_check& c, level checked) {
    const report& rep = c.rep;
    const summary& s = rep.summary;
    std::cout << printable(path) << ": " << (rep.valid() ? "valid" : "invalid") << " (level "
              << level_name(checked) << ")\n";
    // No version name: the header could not be read.
    if (const std::string_view version = version_name(s.edition, s.major, s.minor);
        !version.empty()) {
        std::cout << "  version    " << version << '\n'
                  << "  layout     " << layout_name(s.layout) << '\n'
                  << "  blocks     " << blocks_text(s.blocks) << '\n';
    } else {
        std::cout << "  version    unknown (header not read)\n";
    }
    std::cout << "  curves     " << s.curves << '\n' << "  keyframes  " << s.keyframes << '\n';
    std::cout << "  markers    "
              << (s.markers ? std::to_string(*s.markers)
                  : s.edition == edition::may_2019
                      ? std::string("unknown (a .NET trailer, not read)")
                      : std::string("none (no marker list)"))
              << '\n';
    if (s.start && s.duration) {
        std::cout << "  start      " << number_text(*s.start) << " s\n"
                  << "  duration   " << number_text(*s.duration) << " s\n";
    } else {
        std::cout << "  start      - (no keyframes)\n"
                  << "  duration   - (no keyframes)\n";
    }
    std::cout << "  size       " << c.bytes << " bytes";
    if (c.compressed_bytes) std::cout << " (gzip, " << *c.compressed_bytes << " compressed)";
    std::cout << '\n';
    std::cout << "  warnings   " << rep.warnings_found << '\n';
    for (const warning& w : rep.warnings()) std::cout << "    " << warning_text(w) << '\n';
    if (!rep.valid()) std::cout << "  error      " << error_line(rep.error) << '\n';
}

}  // namespace

command add_info_command(CLI::App& app) {
    auto options = std::make_shared<check_options>();
    options->how.level = level::structure;
    CLI::App* cmd = app.add_subcommand(
        "info", "Summarize files: version, blocks, curves, keys, markers, times, warnings");
    add_check_options(*cmd, *options, false);
    add_archive_options(*cmd, options->archives);
    return {cmd, [options] {
                const level checked = options->how.level;
                bool first = true;
                return finish_stdout(
                    check_files(*options, [&](const std::string& path, const file_check& c) {
                        // A blank line between files keeps each summary a paragraph.
                        if (!first) std::cout << '\n';
                        first = false;
                        print_info(path, c, checked);
                    }));
            }};
}

}  // namespace inputanim::cli
