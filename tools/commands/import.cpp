// inputanim import: a recording authored elsewhere (Unity's text clip, glTF, the CSV of `sample`)
// back into a file MRTK plays (the importers, inputanim/import.hpp; docs/IMPORT.md). The input is
// read whole through the front door (a file, gzip, standard input), up to --max-bytes; the model
// it gives is converted to the version and layout asked for (and thinned) by the library's
// convert, and written through the output primitive.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "conversion_warnings.hpp"
#include "inputanim/import.hpp"
#include "options.hpp"
#include "reading.hpp"

namespace inputanim::cli {

namespace {

struct import_cli_options {
    std::string input;
    std::string output;
    // Empty: IN's extension says.
    std::string format;
    std::string version = "1.1";
    // Empty: compact for 1.1, the layout MRTK 2.6+ writes and reads.
    std::optional<inputanim::layout> layout;
    bool thin = false;
    inputanim::limits limits = [] {
        inputanim::limits l;
        l.max_bytes = default_max_whole_bytes;
        return l;
    }();
};

int unreadable(const std::string& file, const std::error_code& ec) {
    std::cerr << "inputanim: " << printable(file) << ": " << ec.message() << '\n';
    return exit_unreadable;
}

int run_import(const import_cli_options& o) {
    std::optional<import_format> format = parse_import_format_name(o.format);
    if (o.format.empty()) format = import_format_of(o.input);
    if (!format) {
        return usage_error("import", "cannot tell the format of " + printable(o.input) +
                                         " from its name: give --format anim, gltf, glb or csv");
    }
    if (o.version == "1.0" && o.layout == layout::compact) {
        return usage_error("import",
                           "version 1.0 has only the full layout (--layout compact "
                           "needs --version 1.1)");
    }
    std::vector<std::string> inputs{o.input};
    if (const std::optional<output_failure> failure = output_is_input(o.output, inputs)) {
        return output_failed(*failure);
    }

    std::error_code ec;
    input in = input::open(o.input, ec);
    if (ec) return unreadable(o.input, ec);
    std::vector<std::byte> bytes;
    if (const error e = read_content(in, o.limits.max_bytes, bytes, ec)) {
        std::cerr << "inputanim: " << printable(o.input) << ": invalid: " << error_line(e) << '\n';
        return exit_invalid;
    }
    if (ec) return unreadable(o.input, ec);

    import_options how;
    how.limits = o.limits;
    // A .gltf's external buffers, from its own folder; standard input has none.
    std::optional<folder_files> files;
    if (o.input != "-") files.emplace(std::filesystem::path(o.input).parent_path());
    model m;
    const import_result imported = import_model(bytes, *format, m, how, files ? &*files : nullptr);
    if (imported.error) {
        if (imported.error.category() != import_error_category()) {
            // A .gltf's buffer that could not be read: the detail names it.
            std::cerr << "inputanim: " << printable(o.input) << ": ";
            if (!imported.detail.empty()) std::cerr << printable(imported.detail) << ": ";
            std::cerr << imported.error.message() << '\n';
            return exit_unreadable;
        }
        std::cerr << "inputanim: " << printable(o.input)
                  << ": cannot import: " << imported.error.message();
        if (!imported.detail.empty()) std::cerr << ": " << printable(imported.detail);
        std::cerr << '\n';
        return exit_invalid;
    }
    for (const std::string& w : imported.warnings) warn(o.input, printable(w));
    if (files) inputs.insert(inputs.end(), files->files_read().begin(), files->files_read().end());

    // The model is written as it is, then converted: one conversion (convert.hpp) decides what a
    // version or layout keeps and how a thinning thins, for `convert` and here alike.
    std::vector<std::byte> written;
    std::vector<std::byte>().swap(bytes);
    write(m, written);
    recording rec;
    if (const error e = rec.open(written)) {
        // The importers' last step validated these very bytes.
        std::cerr << "inputanim: " << printable(o.input) << ": invalid: " << error_line(e) << '\n';
        return exit_invalid;
    }
    convert_options c;
    c.minor = o.version == "1.0" ? 0 : 1;
    c.layout = o.layout.value_or(layout::compact);
    if (o.thin) c.thin = thinning{};
    output_file out;
    if (const std::optional<output_failure> failure = out.open(o.output, inputs)) {
        return output_failed(*failure);
    }
    const convert_result result = convert(rec, out, c);
    if (const std::optional<int> failed = commit_output(out, result.error)) return *failed;
    print_conversion_warnings(o.input, result);
    if (result.curved_curves != 0 && !o.layout) {
        warn(o.input,
             "--layout full keeps their tangents and weights (MRTK 2.6+ reads only "
             "compact; --version 1.0 is full and MRTK plays it, without eye gaze)");
    }
    return finish_output(o.output);
}

}  // namespace

command add_import_command(CLI::App& app) {
    auto o = std::make_shared<import_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "import",
        "Write a recording MRTK plays from a Unity clip (.anim), glTF (.glb, .gltf) or the CSV "
        "of `sample`");
    cmd->add_option("IN", o->input,
                    "The file to import (gzip or not; - for standard input, with --format)")
        ->required();
    cmd->add_option("OUT", o->output,
                    "The recording to write (replaced only once complete; a device or FIFO is "
                    "written through; - for standard output)")
        ->required();
    add_format_option(*cmd, o->format, {"anim", "gltf", "glb", "csv"},
                      "IN's format (default: its extension's)");
    add_version_option(*cmd, o->version, "File version to write");
    add_layout_option(*cmd, o->layout,
                      "v1.1 float keyframes: compact (the default: what MRTK 2.6+ reads; tangents "
                      "and weights play linearly) or full (they are kept); 1.0 is always full");
    cmd->add_flag("--thin", o->thin,
                  "Thin the keys as MRTK 2.6+ does (1 mm, 0.02 degrees; vectors together), as "
                  "convert --thin does");
    add_limit_options(*cmd, o->limits);
    return {cmd, [o] { return run_import(*o); }};
}

}  // namespace inputanim::cli
