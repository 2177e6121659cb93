// inputanim metrics: the metrics of each recording (measure(), docs/METRICS.md) as JSON Lines or
// CSV, or one table of its events: tracking, pinches, fixations or saccades.
#include <algorithm>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "options.hpp"
#include "reading.hpp"
#include "report/metrics_json.hpp"
#include "report/report_json.hpp"

namespace inputanim::cli {

using tools::event_header;
using tools::event_rows;
using tools::fields;
using tools::fixation_fields;
using tools::hand_event_fields;
using tools::json_line;
using tools::metrics_json;
using tools::metrics_options_json;
using tools::metrics_row;
using tools::object_of;
using tools::saccade_fields;

namespace {

using nlohmann::json;

struct metrics_cli_options {
    std::vector<std::string> files;
    double rate = metrics_options{}.rate;
    std::string joint{joint_names[static_cast<std::size_t>(metrics_options{}.joint)]};
    double fixation_velocity = metrics_options{}.fixation_velocity;
    double merge_gap = metrics_options{}.merge_gap;
    double merge_angle = metrics_options{}.merge_angle;
    double min_fixation = metrics_options{}.min_fixation;
    // --format: json (JSON Lines) or csv.
    std::string format = "json";
    // The kind of events to list instead of the metrics.
    std::optional<event_kind> events;
    inputanim::level level = level::full;
    std::uint64_t max_bytes = default_max_whole_bytes;
    std::uint64_t max_rows = default_max_rows;

    metrics_options to_options() const {
        metrics_options m;
        m.rate = rate;
        const auto j = std::find(joint_names.begin(), joint_names.end(), joint);
        m.joint = static_cast<inputanim::joint>(j - joint_names.begin());
        m.fixation_velocity = fixation_velocity;
        m.merge_gap = merge_gap;
        m.merge_angle = merge_angle;
        m.min_fixation = min_fixation;
        m.max_samples = max_rows;
        return m;
    }
};

// What the metrics were measured with: the same file measured with other options has other
// metrics.
json measured_with(const metrics_cli_options& o) {
    json j = metrics_options_json(o.to_options());
    j["level"] = level_name(o.level);
    return j;
}

json summary_json(const recording_metrics& m, const metrics_cli_options& o) {
    json j = metrics_json(m);
    j["measured_with"] = measured_with(o);
    return j;
}

std::string csv_value(const json& v) {
    if (v.is_null()) return "";
    if (v.is_number_float()) return number_text(v.get<double>());
    if (v.is_string()) return csv_field(v.get<std::string>());
    return v.dump();
}

// One CSV row after the path (or the header): an array is a column per axis, name_x, _y, _z.
void write_csv_row(stdout_writer& out, std::string_view path, const fields& f, bool header) {
    out << (header ? "path" : csv_field(path));
    for (const auto& [name, value] : f) {
        if (!value.is_array()) {
            out << "," << (header ? name : csv_value(value));
            continue;
        }
        for (std::size_t axis = 0; axis < value.size(); ++axis) {
            const std::string suffix = std::string("_") + "xyz"[axis];
            out << "," << (header ? name + suffix : csv_value(value[axis]));
        }
    }
    out << "\n";
}

// Writes each event of one kind as its row the moment measure() sends it, keeping none: the
// memory of `metrics --events` does not grow with the number of events. The table lists a hand's
// events by hand, then time; measure() sends each hand's in time order but interleaves the two
// hands, so a hand's table takes one measure() per hand, each writing only that hand's events.
class event_printer final : public metrics_sink {
  public:
    event_printer(stdout_writer& out, std::string_view path, event_kind kind, bool csv)
        : out_(out), path_(path), kind_(kind), csv_(csv) {}

    // The hand whose events are written (fixations and saccades are written whatever it is).
    void only(side s) noexcept { hand_ = s; }

    void tracked(side s, const grid_interval& g) override {
        if (kind_ == event_kind::tracking) hand_event(s, "tracked", g);
    }
    void gap(side s, const grid_interval& g) override {
        if (kind_ == event_kind::tracking) hand_event(s, "gap", g);
    }
    void pinch(side s, const grid_interval& g) override {
        if (kind_ == event_kind::pinch) hand_event(s, "pinch", g);
    }
    void fixation(const inputanim::fixation& f) override {
        if (kind_ == event_kind::fixations) write(fixation_fields(f));
    }
    void saccade(const inputanim::saccade& s) override {
        if (kind_ == event_kind::saccades) write(saccade_fields(s));
    }

  private:
    void hand_event(side s, std::string_view event, const grid_interval& g) {
        if (s == hand_) write(hand_event_fields(s, event, g, kind_));
    }
    void write(const fields& f) {
        // Once standard output failed, the rest of the measure writes nothing.
        if (out_.failed()) return;
        if (csv_) {
            write_csv_row(out_, path_, f, false);
        } else {
            out_ << json_line(path_, object_of(f)) << "\n";
        }
    }

    stdout_writer& out_;
    std::string_view path_;
    event_kind kind_;
    bool csv_;
    side hand_ = side::left;
};

// What the options alone get wrong (the CLI's checks leave only a rate too small for its step).
std::optional<std::string> option_problem(const metrics_cli_options& o) {
    const std::error_code ec = o.to_options().problem();
    if (!ec) return std::nullopt;
    if (ec == grid_error::bad_rate) {
        return "--rate " + number_text(o.rate) +
               " is too small: its step 1 / rate is not a finite number";
    }
    return ec.message();
}

// Why a file's grid cannot be measured, for a person.
std::string grid_problem(const std::error_code& ec, const recording& rec,
                         const metrics_cli_options& o) {
    if (ec == grid_error::too_many_rows) {
        const summary& s = rec.summary();
        return "more than " + std::to_string(o.max_rows) + " samples (--max-rows " +
               std::to_string(o.max_rows) + "): from " +
               number_text(double{s.start.value_or(0.0f)}) + " to " +
               number_text(double{s.duration.value_or(0.0f)}) + " at " + number_text(o.rate) +
               " per second; raise --max-rows or lower --rate";
    }
    if (ec == grid_error::bad_time) return "the recording's key times are not finite";
    if (ec == metrics_error::shared_times) {
        return "at " + number_text(o.rate) +
               " per second consecutive samples share a float32 time (key times this far from 0 "
               "are too coarse for the rate); lower --rate";
    }
    return ec.message();
}

int run_metrics(const metrics_cli_options& o) {
    if (const std::optional<std::string> problem = option_problem(o))
        return usage_error("metrics", *problem);
    const metrics_options options = o.to_options();
    validate_options how;
    how.limits.max_bytes = o.max_bytes;
    const bool csv = o.format == "csv";
    stdout_writer out;
    if (csv) {
        write_csv_row(out, "", !o.events ? metrics_row({}) : event_header(*o.events), true);
    }
    int status = exit_valid;
    const auto failed = [&](int s) {
        if (s == exit_unreadable || status == exit_valid) status = s;
    };
    // Each file, or each member of an archive (ARCHIVE/MEMBER).
    const int walked =
        for_each_recording(o.files, false, how, archive_limits{}, [&](const named_recording& r) {
            if (out.failed()) return;
            const std::string& file = r.name;
            // Keeps a diagnostic after the results before it when both go to one terminal.
            out.flush();
            loaded_recording whole;
            if (const std::optional<int> s = read_named(r, how, whole)) {
                failed(*s);
                return;
            }
            if (const std::optional<int> s = open_evaluable(
                    file, whole, how, o.level == level::full, "measures it anyway")) {
                failed(*s);
                return;
            }
            const recording& rec = whole.recording();
            // measure() over the file, writing its events to `sink` when not null; false (the
            // reason printed) when it failed. A page of a mapping that vanishes meanwhile ends it
            // as an I/O error (the sink's writes, between the reads, are left whole).
            recording_metrics m;
            const auto measured = [&](metrics_sink* sink) {
                std::error_code ec;
                if (const std::error_code io =
                        whole.run([&] { ec = measure(rec, options, m, sink); })) {
                    std::cerr << "inputanim: " << printable(file) << ": " << io.message() << '\n';
                    failed(exit_unreadable);
                    return false;
                }
                if (ec) {
                    std::cerr << "inputanim: " << printable(file) << ": "
                              << grid_problem(ec, rec, o) << '\n';
                    failed(exit_invalid);
                    return false;
                }
                return true;
            };
            if (!o.events) {
                if (!measured(nullptr)) return;
                if (csv) {
                    write_csv_row(out, file, metrics_row(m), false);
                } else {
                    out << json_line(file, summary_json(m, o)) << "\n";
                }
                return;
            }
            event_printer events(out, file, *o.events, csv);
            if (!measured(&events)) return;
            // The first measure wrote the left hand's events (or the gaze's); the right hand's take
            // a second one when the recording has that hand.
            if (is_hand_event(*o.events) && m.hands[1] && !out.failed()) {
                events.only(side::right);
                measured(&events);
            }
        });
    if (walked != exit_valid) failed(walked);
    out.flush();
    return finish_stdout(status);
}

}  // namespace

command add_metrics_command(CLI::App& app) {
    auto o = std::make_shared<metrics_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "metrics",
        "Hand tracking, pinches, hand and head motion, gaze fixations (docs/METRICS.md)");
    cmd->add_option(
           "FILE", o->files,
           "Recordings (.bin, or gzip-compressed: .bin.gz; a tar or zip for every recording in it, "
           "ARCHIVE/MEMBER for one; - for standard input)")
        ->required();
    add_rate_option(*cmd, o->rate, "Grid samples per second")->capture_default_str();
    std::vector<std::string> joints(joint_names.begin(), joint_names.end());
    cmd->add_option("--joint", o->joint, "The joint whose position is each hand's motion")
        ->check(CLI::IsMember(joints))
        ->type_name("NAME")
        ->capture_default_str();
    const CLI::Validator not_negative = number_between(0.0, std::numeric_limits<double>::max());
    cmd->add_option("--fixation-velocity", o->fixation_velocity,
                    "A gaze sample slower than this (degrees per second) is a fixation sample")
        ->transform(not_negative)
        ->type_name("DEG_PER_S")
        ->capture_default_str();
    cmd->add_option("--merge-gap", o->merge_gap,
                    "Fixations closer than this (seconds) with directions closer than "
                    "--merge-angle are one")
        ->transform(not_negative)
        ->type_name("S")
        ->capture_default_str();
    cmd->add_option("--merge-angle", o->merge_angle, "Degrees; see --merge-gap")
        ->transform(not_negative)
        ->type_name("DEG")
        ->capture_default_str();
    cmd->add_option("--min-fixation", o->min_fixation,
                    "Fixations shorter than this (seconds, after merging) are dropped")
        ->transform(not_negative)
        ->type_name("S")
        ->capture_default_str();
    const CLI::Option* format =
        add_format_option(*cmd, o->format, {"json", "csv"},
                          "json: one JSON object per line (JSON Lines); csv: a header and a path "
                          "column");
    CLI::Option* json_flag = add_format_flag(*cmd, format, o->format, "--json", "json");
    add_format_flag(*cmd, format, o->format, "--csv", "csv")->excludes(json_flag);
    add_event_kind_option(*cmd, o->events);
    add_level_option(*cmd, o->level,
                     "full: refuse a file that fails validation at level full; structure: measure "
                     "any file whose structure is sound");
    add_max_rows_option(*cmd, o->max_rows,
                        "Most grid samples per file; a file with more is refused before it is "
                        "measured");
    add_max_bytes_option(*cmd, o->max_bytes);
    return {cmd, [o] { return run_metrics(*o); }};
}

}  // namespace inputanim::cli
