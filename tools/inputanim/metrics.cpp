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

#include "common.hpp"
#include "report_json.hpp"

namespace inputanim::cli {

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
    bool json = false;
    bool csv = false;
    std::string events;
    std::string level = "full";
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

// A field's name and value, in the order of the CSV columns; null when not defined.
using fields = std::vector<std::pair<std::string, json>>;

json optional_number(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

json optional_float(const std::optional<float>& v) {
    return v ? json(json_number(*v)) : json(nullptr);
}

// The fields of a group (with every value null when the group is absent).
fields hand_fields(const std::optional<hand_metrics>& h) {
    const hand_metrics m = h.value_or(hand_metrics{});
    const auto value = [&](json v) { return h ? std::move(v) : json(nullptr); };
    return {{"tracked_samples", value(m.tracked_samples)},
            {"coverage", value(m.coverage)},
            {"gaps", value(m.gaps)},
            {"gap_time", value(m.gap_time)},
            {"longest_gap", optional_number(m.longest_gap)},
            {"pinches", value(m.pinches)},
            {"pinch_time", value(m.pinch_time)},
            {"path_length", value(m.motion.path_length)},
            {"motion_time", value(m.motion.time)},
            {"mean_speed", optional_number(m.motion.mean_speed)},
            {"peak_speed", optional_number(m.motion.peak_speed)}};
}

fields head_fields(const std::optional<head_metrics>& h) {
    const head_metrics m = h.value_or(head_metrics{});
    const auto value = [&](json v) { return h ? std::move(v) : json(nullptr); };
    return {{"path_length", value(m.motion.path_length)},
            {"motion_time", value(m.motion.time)},
            {"mean_speed", optional_number(m.motion.mean_speed)},
            {"peak_speed", optional_number(m.motion.peak_speed)},
            {"rotation", value(m.rotation)},
            {"peak_angular_speed", optional_number(m.peak_angular_speed)}};
}

fields gaze_fields(const std::optional<gaze_metrics>& g) {
    const gaze_metrics m = g.value_or(gaze_metrics{});
    const auto value = [&](json v) { return g ? std::move(v) : json(nullptr); };
    return {{"samples", value(m.samples)},
            {"fixations", value(m.fixations)},
            {"fixation_time", value(m.fixation_time)},
            {"mean_fixation_duration", optional_number(m.mean_fixation_duration)},
            {"longest_fixation", optional_number(m.longest_fixation)},
            {"saccades", value(m.saccades)},
            {"mean_saccade_amplitude", optional_number(m.mean_saccade_amplitude)}};
}

fields top_fields(const recording_metrics& m) {
    return {{"samples", m.samples},
            {"start", optional_float(m.start)},
            {"end", optional_float(m.end)},
            {"nonfinite_samples", m.nonfinite_samples}};
}

json object_of(const fields& f) {
    json o = json::object();
    for (const auto& [name, value] : f) o[name] = value;
    return o;
}

// What the metrics were measured with: the same file measured with other options has other
// metrics.
json measured_with(const metrics_cli_options& o) {
    return {{"rate", o.rate},
            {"joint", o.joint},
            {"fixation_velocity", o.fixation_velocity},
            {"merge_gap", o.merge_gap},
            {"merge_angle", o.merge_angle},
            {"min_fixation", o.min_fixation},
            {"level", o.level}};
}

json summary_json(const recording_metrics& m, const metrics_cli_options& o) {
    json j = object_of(top_fields(m));
    const auto group = [](bool present, const fields& f) {
        return present ? object_of(f) : json(nullptr);
    };
    j["hands"] = {{"left", group(m.hands[0].has_value(), hand_fields(m.hands[0]))},
                  {"right", group(m.hands[1].has_value(), hand_fields(m.hands[1]))}};
    j["head"] = group(m.head.has_value(), head_fields(m.head));
    j["gaze"] = group(m.gaze.has_value(), gaze_fields(m.gaze));
    j["measured_with"] = measured_with(o);
    return j;
}

// The summary as one CSV row (or its header): the groups' fields prefixed by the group.
fields summary_row(const recording_metrics& m) {
    fields row = top_fields(m);
    const auto add = [&](const std::string& prefix, const fields& f) {
        for (const auto& [name, value] : f) row.emplace_back(prefix + name, value);
    };
    add("left_", hand_fields(m.hands[0]));
    add("right_", hand_fields(m.hands[1]));
    add("head_", head_fields(m.head));
    add("gaze_", gaze_fields(m.gaze));
    return row;
}

std::string csv_value(const json& v) {
    if (v.is_null()) return "";
    if (v.is_number_float()) return number_text(v.get<double>());
    if (v.is_string()) return csv_field(v.get<std::string>());
    return v.dump();
}

// The events of one file, as measure() sends them.
struct collected_events final : metrics_sink {
    struct hand_event {
        side hand;
        std::string_view kind;
        grid_interval when;
    };
    explicit collected_events(std::string_view wanted) : wanted_(wanted) {}

    void tracked(side s, const grid_interval& g) override {
        if (wanted_ == "tracking") hand_events.push_back({s, "tracked", g});
    }
    void gap(side s, const grid_interval& g) override {
        if (wanted_ == "tracking") hand_events.push_back({s, "gap", g});
    }
    void pinch(side s, const grid_interval& g) override {
        if (wanted_ == "pinch") hand_events.push_back({s, "pinch", g});
    }
    void fixation(const inputanim::fixation& f) override {
        if (wanted_ == "fixations") fixations.push_back(f);
    }
    void saccade(const inputanim::saccade& s) override {
        if (wanted_ == "saccades") saccades.push_back(s);
    }

    std::vector<hand_event> hand_events;
    std::vector<inputanim::fixation> fixations;
    std::vector<inputanim::saccade> saccades;

  private:
    std::string_view wanted_;
};

std::string_view hand_name(side s) {
    return s == side::left ? "left" : "right";
}

fields interval_fields(const grid_interval& g) {
    return {{"start", json_number(g.start)},
            {"end", json_number(g.end)},
            {"duration", g.duration},
            {"start_sample", g.start_sample},
            {"end_sample", g.end_sample}};
}

// Each event as its fields, in the table's order: a hand's events by hand, then time. A
// fixation's direction and origin are [x, y, z] arrays, three columns in CSV.
std::vector<fields> event_rows(collected_events& e, std::string_view kind) {
    std::vector<fields> rows;
    std::stable_sort(e.hand_events.begin(), e.hand_events.end(), [](const auto& a, const auto& b) {
        return a.hand < b.hand || (a.hand == b.hand && a.when.start_sample < b.when.start_sample);
    });
    for (const auto& h : e.hand_events) {
        fields f = {{"hand", hand_name(h.hand)}};
        if (kind == "tracking") f.emplace_back("event", h.kind);
        for (auto& field : interval_fields(h.when)) f.push_back(std::move(field));
        rows.push_back(std::move(f));
    }
    const auto vector_json = [](const vec3& v) {
        return json::array({json_number(v.x), json_number(v.y), json_number(v.z)});
    };
    for (const inputanim::fixation& x : e.fixations) {
        fields f = interval_fields(x.when);
        f.emplace_back("direction", vector_json(x.direction));
        f.emplace_back("origin", vector_json(x.origin));
        rows.push_back(std::move(f));
    }
    for (const inputanim::saccade& s : e.saccades) {
        fields f = interval_fields(s.when);
        f.emplace_back("amplitude", s.amplitude);
        rows.push_back(std::move(f));
    }
    return rows;
}

// The columns of an event table: the fields of an event of that kind.
fields event_header(std::string_view kind) {
    collected_events one(kind);
    if (kind == "tracking" || kind == "pinch") {
        one.hand_events.push_back({side::left, "", {}});
    } else if (kind == "fixations") {
        one.fixations.emplace_back();
    } else {
        one.saccades.emplace_back();
    }
    return event_rows(one, kind).front();
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

int usage_error(const std::string& message) {
    std::cerr << "inputanim metrics: " << message << '\n';
    return exit_usage;
}

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
               std::to_string(o.max_rows) + "): from " + number_text(s.start.value_or(0.0f)) +
               " to " + number_text(s.duration.value_or(0.0f)) + " at " + number_text(o.rate) +
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
    if (const std::optional<std::string> problem = option_problem(o)) return usage_error(*problem);
    const metrics_options options = o.to_options();
    validate_options how;
    how.limits.max_bytes = o.max_bytes;
    const bool csv = o.csv;
    stdout_writer out;
    if (csv) {
        write_csv_row(out, "", o.events.empty() ? summary_row({}) : event_header(o.events), true);
    }
    int status = exit_valid;
    const auto failed = [&](int s) {
        if (s == exit_unreadable || status == exit_valid) status = s;
    };
    for (const std::string& file : o.files) {
        if (out.failed()) break;
        // Keeps a diagnostic after the results before it when both go to one terminal.
        out.flush();
        whole_recording whole;
        if (const std::optional<int> s = read_recording(file, how, whole)) {
            failed(*s);
            continue;
        }
        recording rec;
        if (const std::optional<int> s = open_evaluable(file, whole.bytes, how, o.level == "full",
                                                        "measures it anyway", rec)) {
            failed(*s);
            continue;
        }
        recording_metrics m;
        collected_events events(o.events);
        std::error_code ec;
        if (const std::error_code io = guarded(whole.bytes, [&] {
                ec = measure(rec, options, m, o.events.empty() ? nullptr : &events);
            })) {
            std::cerr << "inputanim: " << printable(file) << ": " << io.message() << '\n';
            failed(exit_unreadable);
            continue;
        }
        if (ec) {
            std::cerr << "inputanim: " << printable(file) << ": " << grid_problem(ec, rec, o)
                      << '\n';
            failed(exit_invalid);
            continue;
        }
        if (o.events.empty()) {
            if (csv) {
                write_csv_row(out, file, summary_row(m), false);
            } else {
                out << json_line(file, summary_json(m, o)) << "\n";
            }
            continue;
        }
        for (const fields& f : event_rows(events, o.events)) {
            if (csv) {
                write_csv_row(out, file, f, false);
            } else {
                out << json_line(file, object_of(f)) << "\n";
            }
        }
    }
    out.flush();
    return finish_stdout(status);
}

}  // namespace

command add_metrics_command(CLI::App& app) {
    auto o = std::make_shared<metrics_cli_options>();
    CLI::App* cmd = app.add_subcommand(
        "metrics",
        "Hand tracking, pinches, hand and head motion, gaze fixations (docs/METRICS.md)");
    cmd->add_option("FILE", o->files,
                    "Recordings (.bin, or gzip-compressed: .bin.gz; - for standard input)")
        ->required();
    cmd->add_option("--rate", o->rate, "Grid samples per second")
        ->transform(positive_number())
        ->type_name("R")
        ->capture_default_str();
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
    CLI::Option* json_flag =
        cmd->add_flag("--json", o->json, "One JSON object per line (JSON Lines; the default)");
    cmd->add_flag("--csv", o->csv, "CSV with a header and a path column")->excludes(json_flag);
    cmd->add_option("--events", o->events,
                    "Instead of the metrics, a table of one kind of event per file")
        ->check(CLI::IsMember({"tracking", "pinch", "fixations", "saccades"}));
    cmd->add_option("--level", o->level,
                    "full: refuse a file that fails validation at level full; structure: measure "
                    "any file whose structure is sound")
        ->check(CLI::IsMember({"structure", "full"}))
        ->capture_default_str();
    cmd->add_option("--max-rows", o->max_rows,
                    "Most grid samples per file; a file with more is refused before it is "
                    "measured")
        ->transform(count_up_to(unlimited_rows))
        ->type_name("N")
        ->capture_default_str();
    cmd->add_option("--max-bytes", o->max_bytes,
                    "Largest recording accepted, in bytes; a gzip file or standard input is read "
                    "into memory up to this")
        ->transform(count_between(1, std::numeric_limits<std::uint64_t>::max()))
        ->type_name("N")
        ->capture_default_str();
    return {cmd, [o] { return run_metrics(*o); }};
}

}  // namespace inputanim::cli
