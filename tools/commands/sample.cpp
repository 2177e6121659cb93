// inputanim sample: resample curves at a fixed rate as CSV (or JSON), with every number written
// as the shortest text that reads back as the same float32.
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "inputanim/detail/number_text.hpp"
#include "options.hpp"
#include "reading.hpp"

namespace inputanim::cli {

namespace {

struct sample_options {
    std::string file;
    double rate = 60.0;
    std::vector<std::string> globs;
    time_window window;
    // What the messages call the window's end: --until, or --to when the command line did not
    // give --until (spelled).
    std::string until_flag;
    std::string format = "csv";
    inputanim::level level = level::full;
    // A gzip file or standard input is read into memory (sampling needs every curve at once):
    // this bounds it.
    std::uint64_t max_bytes = default_max_whole_bytes;
    // Checked before anything is written: a mistyped rate is refused, not written to a full disk.
    std::uint64_t max_rows = default_max_rows;
};

void write_number(stdout_writer& out, float v, bool json) {
    if (json && !std::isfinite(v)) {
        out << "null";
        return;
    }
    char digits[detail::number_chars_max];
    out << std::string_view(digits, detail::number_chars(v, digits));
}

// Selects the curves of the globs (every curve without one). A glob that matches no curve path
// at all is a usage error; one that matches paths this recording lacks (gaze in a v1.0 file) is
// the file's.
std::optional<int> select_curves(resampler& rs, const sample_options& o) {
    if (o.globs.empty()) rs.select_all();
    for (const std::string& glob : o.globs) {
        if (rs.select(glob) != 0) continue;
        if (!names_any_curve(glob)) {
            return usage_error("sample", "--curve '" + printable(glob) +
                                             "' matches no curve path (such as camera.position.x)");
        }
        return invalid_file(o.file,
                            "no curve of the recording matches --curve '" + printable(glob) + "'");
    }
    return std::nullopt;
}

// Sets the grid; on failure prints why and returns the exit status.
std::optional<int> set_grid(resampler& rs, const recording& rec, const sample_options& o) {
    const grid_error g = rs.set_grid(o.rate, o.window.from, o.window.until, o.max_rows);
    const summary& sum = rec.summary();
    const double from = o.window.from ? *o.window.from : sum.start.value_or(0.0f);
    const double to = o.window.until ? *o.window.until : sum.duration.value_or(0.0f);
    switch (g) {
        case grid_error::none:
            break;
        case grid_error::bad_rate:
            return usage_error("sample",
                               "--rate " + number_text(o.rate) +
                                   " is too small: its step 1 / rate is not a finite number");
        case grid_error::no_keys:
            return invalid_file(o.file,
                                "the recording has no keyframes, so no time range: give both "
                                "--from and " +
                                    o.until_flag);
        case grid_error::bad_time:
            return invalid_file(
                o.file,
                "the recording's time range is not finite: give both --from and " + o.until_flag);
        case grid_error::too_many_rows: {
            std::string message = "more than " + std::to_string(o.max_rows) + " rows (--max-rows " +
                                  std::to_string(o.max_rows) + "): from " + number_text(from) +
                                  " to " + number_text(to) + " at " + number_text(o.rate) +
                                  " per second";
            if (rs.point_count() != 0) {
                message += " is " + std::to_string(rs.point_count()) + " grid points";
            }
            return usage_error(
                "sample",
                message + "; raise --max-rows, lower --rate or narrow --from/" + o.until_flag);
        }
    }
    if (rs.row_count() == 0) {
        // from > to given both is refused before the file is read: here one is the recording's.
        return usage_error("sample", o.window.from
                                         ? "--from " + number_text(from) +
                                               " is after the recording's last key time " +
                                               number_text(to) + " (give " + o.until_flag + ")"
                                         : o.until_flag + " " + number_text(to) +
                                               " is before the recording's first key time " +
                                               number_text(from) + " (give --from)");
    }
    return std::nullopt;
}

int write_rows(stdout_writer& out, resampler& rs, bool json, std::span<const std::byte> bytes,
               const std::string& file) {
    out << (json ? "{\"curves\":[" : "t");
    bool first = true;
    for (const curve_id id : rs.curves()) {
        // Curve paths are ASCII identifiers and dots: nothing to escape in CSV or JSON.
        if (json) {
            out << (first ? "\"" : ",\"") << curve_path(id) << "\"";
        } else {
            out << "," << curve_path(id);
        }
        first = false;
    }
    out << (json ? "],\"rows\":[" : "\n");
    std::vector<float> values(rs.curves().size());
    first = true;
    const std::error_code io = guarded(bytes, [&] {
        while (!out.failed()) {
            const std::optional<float> t = rs.next(values);
            if (!t) break;
            if (json) out << (first ? "[" : ",[");
            write_number(out, *t, json);
            for (const float v : values) {
                out << ",";
                write_number(out, v, json);
            }
            out << (json ? "]" : "\n");
            first = false;
        }
    });
    if (io) {
        out.flush();
        std::cout.flush();
        std::cerr << "inputanim: " << printable(file) << ": " << io.message() << '\n';
        return exit_unreadable;
    }
    if (json) out << "]}\n";
    out.flush();
    return exit_valid;
}

int run_sample(const sample_options& o) {
    if (o.window.problem()) {
        return usage_error("sample", o.window.problem_text("--from", o.until_flag));
    }
    validate_options how;
    how.limits.max_bytes = o.max_bytes;
    // Sampling needs every curve at once: a gzip file or standard input is read into memory, once
    // its header passed, up to --max-bytes.
    loaded_recording whole;
    if (const std::optional<int> status = read_recording(o.file, how, whole)) return *status;
    // Samples of keys out of order or not finite are not the recording's motion, so a file that
    // fails level full is refused unless asked for.
    if (const std::optional<int> status =
            open_evaluable(o.file, whole, how, o.level == level::full, "samples it anyway")) {
        return *status;
    }
    const recording& rec = whole.recording();
    resampler rs(rec);
    if (const std::optional<int> status = select_curves(rs, o)) return *status;
    if (const std::optional<int> status = set_grid(rs, rec, o)) return *status;
    stdout_writer out;
    return finish_stdout(write_rows(out, rs, o.format == "json", whole.bytes(), o.file));
}

}  // namespace

command add_sample_command(CLI::App& app) {
    auto o = std::make_shared<sample_options>();
    CLI::App* cmd = app.add_subcommand(
        "sample", "Evaluate curves at a fixed rate, as MRTK playback does (CSV or JSON)");
    add_recording_argument(*cmd, "FILE", o->file);
    add_rate_option(*cmd, o->rate,
                    "Grid points per second (points that round to the same float32 time are "
                    "one row)")
        ->required();
    cmd->add_option("--curve", o->globs,
                    "Curves to sample, by path glob (* within a name, ** across dots); "
                    "repeatable; default every curve");
    add_window_options(*cmd, o->window, "--to", "First sample time (default: the first key time)",
                       "Last sample time, inclusive (default: the duration); not before --from");
    add_format_option(*cmd, o->format, {"csv", "json"}, "Output format");
    add_level_option(*cmd, o->level,
                     "full: refuse a file that fails validation at level full; structure: sample "
                     "any file whose structure is sound");
    add_max_rows_option(*cmd, o->max_rows,
                        "Most rows written; a grid with more is refused before anything is "
                        "written");
    add_max_bytes_option(*cmd, o->max_bytes);
    return {cmd, [o, cmd] {
                o->until_flag = spelled(*cmd, "--until", "--to");
                return run_sample(*o);
            }};
}

}  // namespace inputanim::cli
