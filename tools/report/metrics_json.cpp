#include "report/metrics_json.hpp"

#include <algorithm>
#include <utility>

#include "report/report_json.hpp"

namespace inputanim::tools {

using nlohmann::json;

namespace {

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

}  // namespace

json object_of(const fields& f) {
    json o = json::object();
    for (const auto& [name, value] : f) o[name] = value;
    return o;
}

// The summary as one CSV row (or its header): the groups' fields prefixed by the group.
fields metrics_row(const recording_metrics& m) {
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

fields hand_event_fields(side hand, std::string_view event, const grid_interval& when,
                         event_kind kind) {
    fields f = {{"hand", hand_name(hand)}};
    if (kind == event_kind::tracking) f.emplace_back("event", event);
    for (auto& field : interval_fields(when)) f.push_back(std::move(field));
    return f;
}

// A fixation's direction and origin are [x, y, z] arrays, three columns in CSV.
fields fixation_fields(const inputanim::fixation& x) {
    const auto vector_json = [](const vec3& v) {
        return json::array({json_number(v.x), json_number(v.y), json_number(v.z)});
    };
    fields f = interval_fields(x.when);
    f.emplace_back("direction", vector_json(x.direction));
    f.emplace_back("origin", vector_json(x.origin));
    return f;
}

fields saccade_fields(const inputanim::saccade& s) {
    fields f = interval_fields(s.when);
    f.emplace_back("amplitude", s.amplitude);
    return f;
}

std::vector<fields> event_rows(event_collector& e) {
    std::vector<fields> rows;
    std::stable_sort(e.hand_events.begin(), e.hand_events.end(), [](const auto& a, const auto& b) {
        return a.hand < b.hand || (a.hand == b.hand && a.when.start_sample < b.when.start_sample);
    });
    for (const auto& h : e.hand_events)
        rows.push_back(hand_event_fields(h.hand, h.event, h.when, e.wanted()));
    for (const inputanim::fixation& x : e.fixations) rows.push_back(fixation_fields(x));
    for (const inputanim::saccade& s : e.saccades) rows.push_back(saccade_fields(s));
    return rows;
}

// The columns of an event table: the fields of an event of that kind.
fields event_header(event_kind kind) {
    switch (kind) {
        case event_kind::tracking:
        case event_kind::pinch:
            return hand_event_fields(side::left, "", {}, kind);
        case event_kind::fixations:
            return fixation_fields({});
        case event_kind::saccades:
            return saccade_fields({});
    }
    return {};
}

json metrics_json(const recording_metrics& m) {
    json j = object_of(top_fields(m));
    const auto group = [](bool present, const fields& f) {
        return present ? object_of(f) : json(nullptr);
    };
    j["hands"] = {{"left", group(m.hands[0].has_value(), hand_fields(m.hands[0]))},
                  {"right", group(m.hands[1].has_value(), hand_fields(m.hands[1]))}};
    j["head"] = group(m.head.has_value(), head_fields(m.head));
    j["gaze"] = group(m.gaze.has_value(), gaze_fields(m.gaze));
    return j;
}

json metrics_options_json(const metrics_options& o) {
    return {{"rate", o.rate},
            {"joint", joint_names[static_cast<std::size_t>(o.joint)]},
            {"fixation_velocity", o.fixation_velocity},
            {"merge_gap", o.merge_gap},
            {"merge_angle", o.merge_angle},
            {"min_fixation", o.min_fixation}};
}

}  // namespace inputanim::tools
