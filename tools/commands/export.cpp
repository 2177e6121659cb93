// inputanim export: a recording as glTF 2.0 (.glb, .gltf) or as a Unity AnimationClip (.anim),
// by the library's exporters (inputanim/export.hpp, docs/EXPORT.md).
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "options.hpp"
#include "reading.hpp"

namespace inputanim::cli {

namespace {

struct export_cli_options {
    std::string input;
    std::string output;
    std::optional<export_format> format;
    double rate = 60.0;
    std::optional<double> from;
    std::optional<double> to;
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
    constexpr double float_max = std::numeric_limits<float>::max();
    for (const auto& [name, value] : {std::pair{"--from", o.from}, std::pair{"--to-time", o.to}}) {
        if (value && !(std::abs(*value) <= float_max)) {
            return std::string(name) + " " + number_text(*value) +
                   " is not a time a recording can hold (a finite float, at most " +
                   number_text(float_max) + " in magnitude)";
        }
    }
    if (o.from && o.to && *o.from > *o.to) {
        return "--from " + number_text(*o.from) + " is after --to-time " + number_text(*o.to);
    }
    if (f == export_format::anim && (o.from || o.to)) {
        return "a Unity clip (.anim) carries the recording's own keys, whole: --from and "
               "--to-time apply to glTF only (cut the recording first with `inputanim convert`)";
    }
    return std::nullopt;
}

int run_export(const export_cli_options& o) {
    std::optional<export_format> format = o.format;
    if (!format) format = format_of(o.output);
    if (!format) {
        return usage_error("export", "cannot tell the format from OUT " + printable(o.output) +
                                         " (.glb, .gltf or .anim): give --to glb, gltf or anim");
    }
    if (const std::optional<std::string> problem = option_problem(o, *format)) {
        return usage_error("export", *problem);
    }
    validate_options how;
    how.layout = o.layout;
    how.limits.max_bytes = o.max_bytes;
    // The exporters read every curve at once: a gzip file or standard input is held in memory.
    whole_recording whole;
    if (const std::optional<int> status = read_recording(o.input, how, whole)) return *status;
    // The exporters allocate as they go, which a read fault of a mapping must not interrupt
    // (guard.hpp): a mapped file is copied into memory first, under the guard.
    std::span<const std::byte> bytes = whole.bytes;
    if (whole.storage.empty() && !bytes.empty()) {
        whole.storage.resize(bytes.size());
        if (const std::error_code io = guarded(
                bytes, [&] { std::memcpy(whole.storage.data(), bytes.data(), bytes.size()); })) {
            std::cerr << "inputanim: " << printable(o.input) << ": " << io.message() << '\n';
            return exit_unreadable;
        }
        bytes = whole.storage;
    }
    recording rec;
    if (const std::optional<int> status =
            open_evaluable(o.input, bytes, how, o.level == level::full, "exports it anyway", rec)) {
        return *status;
    }
    export_options e;
    e.format = *format;
    e.rate = o.rate;
    e.from = o.from;
    e.to = o.to;
    e.max_bytes = o.max_output_bytes;
    output_file out;
    if (const std::optional<output_failure> failure = out.open(o.output)) {
        return output_failed(*failure);
    }
    const export_result r = export_recording(rec, out, e);
    if (r.error == export_error::too_large) {
        out.discard();
        return usage_error("export",
                           "the export would be " + std::to_string(r.size) +
                               " bytes, more than --max-output-bytes " +
                               std::to_string(o.max_output_bytes) +
                               (*format == export_format::anim
                                    ? std::string("; raise --max-output-bytes")
                                    : std::string("; raise --max-output-bytes, lower --rate or "
                                                  "narrow --from/--to-time")));
    }
    if (r.error == export_error::empty_window) {
        out.discard();
        return usage_error("export",
                           "the window from --from to --to-time holds no time of the recording");
    }
    if (r.error == grid_error::bad_rate) {
        out.discard();
        return usage_error("export", "--rate " + number_text(o.rate) +
                                         " is too small: its step 1 / rate is not a finite number");
    }
    if (r.error == grid_error::no_keys || r.error == grid_error::bad_time) {
        out.discard();
        return invalid_file(o.input, r.error == grid_error::no_keys
                                         ? "the recording has no keyframes, so no time range: give "
                                           "both --from and --to-time"
                                         : "the recording's time range is not finite: give both "
                                           "--from and --to-time");
    }
    if (r.error) return output_failed(out.failure(r.error));
    if (const std::optional<output_failure> failure = out.commit()) {
        return output_failed(*failure);
    }
    return o.output == "-" ? finish_stdout(exit_valid) : exit_valid;
}

}  // namespace

command add_export_command(CLI::App& app) {
    auto o = std::make_shared<export_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "export",
        "Write a recording as glTF 2.0 (.glb, .gltf) or as a Unity AnimationClip (.anim)");
    cmd->add_option("IN", o->input,
                    "The recording (.bin, or gzip-compressed: .bin.gz; - for standard input)")
        ->required();
    cmd->add_option("OUT", o->output,
                    "The file to write (replaced only once complete; - for standard output); "
                    "its extension names the format unless --to does")
        ->required();
    cmd->add_option_function<std::string>(
           "--to", [o](const std::string& name) { o->format = parse_export_format_name(name); },
           "The format: glb (binary glTF), gltf (glTF JSON, buffer embedded) or anim (Unity)")
        ->check(CLI::IsMember({"glb", "gltf", "anim"}))
        ->type_name("FORMAT");
    cmd->add_option("--rate", o->rate,
                    "glTF: keyframes per second, on the grid `inputanim sample --rate` uses; "
                    "a Unity clip's sample rate")
        ->transform(positive_number())
        ->type_name("R")
        ->capture_default_str();
    cmd->add_option("--from", o->from, "glTF: the first time (default: the first key time)")
        ->type_name("T");
    cmd->add_option("--to-time", o->to,
                    "glTF: the last time, inclusive (default: the duration); not before --from")
        ->type_name("T");
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
    return {cmd, [o] { return run_export(*o); }};
}

}  // namespace inputanim::cli
