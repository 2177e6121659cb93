// inputanim export: a recording as glTF 2.0 (.glb, .gltf) or as a Unity AnimationClip (.anim),
// by the library's exporters (inputanim/export.hpp, docs/EXPORT.md).
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "reading.hpp"
#include "report/export_refusal.hpp"

namespace inputanim::cli {

namespace {

struct export_cli_options {
    std::string input;
    std::string output;
    // --format's name, empty when not given (OUT's extension then names the format).
    std::string format;
    // What the messages call --format and the window's end: --to and --to-time unless the
    // command line gave --format or --until (spelled).
    std::string format_flag;
    std::string until_flag;
    double rate = 60.0;
    time_window window;
    inputanim::level level = level::full;
    layout_choice layout = layout_choice::automatic;
    std::uint64_t max_bytes = default_max_whole_bytes;
    std::uint64_t max_output_bytes = default_max_export_bytes;
};

// The format OUT's extension names, if any.
std::optional<export_format> format_of(const std::string& name) {
    const std::size_t dot = name.rfind('.');
    if (dot == std::string::npos || name.find('/', dot) != std::string::npos) return std::nullopt;
    return parse_export_format_name(name.substr(dot + 1));
}

// What the command line alone can tell is wrong, before the file is opened.
std::optional<std::string> option_problem(const export_cli_options& o, export_format f) {
    if (o.window.problem()) return o.window.problem_text("--from", o.until_flag);
    if (f == export_format::anim && (o.window.from || o.window.until)) {
        return "a Unity clip (.anim) carries the recording's own keys, whole: --from and " +
               o.until_flag +
               " apply to glTF only (cut the recording first with `inputanim convert`)";
    }
    return std::nullopt;
}

int run_export(const export_cli_options& o) {
    const std::optional<export_format> format =
        o.format.empty() ? format_of(o.output) : parse_export_format_name(o.format);
    if (!format) {
        return usage_error("export", "cannot tell the format from OUT " + printable(o.output) +
                                         " (.glb, .gltf or .anim): give " + o.format_flag +
                                         " glb, gltf or anim");
    }
    if (const std::optional<std::string> problem = option_problem(o, *format)) {
        return usage_error("export", *problem);
    }
    const std::vector<std::string> inputs{o.input};
    if (const std::optional<output_failure> itself = output_is_input(o.output, inputs)) {
        return output_failed(*itself);
    }
    validate_options how;
    how.layout = o.layout;
    how.limits.max_bytes = o.max_bytes;
    // The exporter reads every curve at once: a gzip file or standard input is held in memory, a
    // plain file read from its mapping (under the guard: the exporter's reads never allocate).
    loaded_recording whole;
    if (const std::optional<int> status = read_recording(o.input, how, whole)) return *status;
    if (const std::optional<int> status =
            open_evaluable(o.input, whole, how, o.level == level::full, "exports it anyway")) {
        return *status;
    }
    const recording& rec = whole.recording();
    export_options e;
    e.format = *format;
    e.rate = o.rate;
    e.from = o.window.from;
    e.to = o.window.until;
    e.max_bytes = o.max_output_bytes;
    output_file out;
    if (const std::optional<output_failure> failure = out.open(o.output, inputs)) {
        return output_failed(*failure);
    }
    const std::span<const std::byte> mapped =
        whole.mapped() ? whole.bytes() : std::span<const std::byte>{};
    const export_result r = export_recording(rec, out, e, mapped);
    if (tools::is_export_refusal(r)) {
        out.discard();
        tools::export_option_names names = tools::cli_export_names;
        names.to = o.until_flag;
        const tools::export_refusal refusal = tools::describe_export_refusal(r, e, names);
        return refusal.kind == tools::export_refusal_kind::options
                   ? usage_error("export", refusal.message)
                   : invalid_file(o.input, refusal.message);
    }
    if (r.source_failed) {
        out.discard();
        std::cerr << "inputanim: " << printable(o.input) << ": " << r.error.message() << '\n';
        return exit_unreadable;
    }
    if (const std::optional<int> failed = commit_output(out, r.error)) return *failed;
    return finish_output(o.output);
}

}  // namespace

command add_export_command(CLI::App& app) {
    auto o = std::make_shared<export_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "export",
        "Write a recording as glTF 2.0 (.glb, .gltf) or as a Unity AnimationClip (.anim)");
    add_recording_argument(*cmd, "IN", o->input);
    cmd->add_option("OUT", o->output,
                    "The file to write (replaced only once complete; - for standard output); "
                    "its extension names the format unless --format does")
        ->required();
    add_format_option(
        *cmd, o->format, {"glb", "gltf", "anim"},
        "The format: glb (binary glTF), gltf (glTF JSON, buffer embedded) or anim (Unity)", "--to");
    add_rate_option(*cmd, o->rate,
                    "glTF: keyframes per second, on the grid `inputanim sample --rate` uses; "
                    "a Unity clip's sample rate")
        ->capture_default_str();
    add_window_options(*cmd, o->window, "--to-time",
                       "glTF: the first time (default: the first key time)",
                       "glTF: the last time, inclusive (default: the duration); not before --from");
    add_level_option(*cmd, o->level,
                     "full: refuse a file that fails validation at level full; structure: export "
                     "any file whose structure is sound");
    add_layout_choice_option(*cmd, o->layout);
    cmd->add_option("--max-output-bytes", o->max_output_bytes,
                    "Largest export written, in bytes; a larger one is refused before anything "
                    "is written")
        ->transform(count_between(1, std::numeric_limits<std::uint64_t>::max()))
        ->type_name("N")
        ->capture_default_str();
    add_max_bytes_option(*cmd, o->max_bytes);
    return {cmd, [o, cmd] {
                o->format_flag = spelled(*cmd, "--format", "--to");
                o->until_flag = spelled(*cmd, "--until", "--to-time");
                return run_export(*o);
            }};
}

}  // namespace inputanim::cli
