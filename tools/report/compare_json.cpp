#include "report/compare_json.hpp"

#include "report/report_json.hpp"

namespace inputanim::tools {

namespace {

nlohmann::json optional_time(const std::optional<float>& t) {
    return t ? nlohmann::json(json_number(*t)) : nlohmann::json(nullptr);
}

nlohmann::json interval_json(const std::optional<interval>& i) {
    if (!i) return nullptr;
    return {{"start", json_number(i->start)}, {"end", json_number(i->end)}};
}

nlohmann::json marker_json(const std::optional<marker>& m) {
    if (!m) return nullptr;
    return {{"time", json_number(m->time)}, {"name", m->name}};
}

nlohmann::json key_json(const key_difference& k) {
    return {{"curve", curve_path(k.curve)},
            {"field", k.field},
            {"key", k.key ? nlohmann::json(*k.key) : nlohmann::json(nullptr)},
            {"a", k.a},
            {"b", k.b}};
}

}  // namespace

nlohmann::json compare_json(const comparison& c) {
    nlohmann::json key_counts = nlohmann::json::array();
    for (const key_difference& k : c.key_counts) key_counts.push_back(key_json(k));
    nlohmann::json motion = nlohmann::json::array();
    for (const motion_difference& m : c.motion) {
        motion.push_back(
            {{"name", m.name},
             {"kind", error_kind_name(m.kind)},
             {"samples", m.samples},
             {"max", m.max},
             {"max_time",
              m.samples ? nlohmann::json(json_number(m.max_time)) : nlohmann::json(nullptr)},
             {"rms", m.rms},
             {"first_exceeded", optional_time(m.first_exceeded)},
             {"first_exceeded_error",
              m.first_exceeded ? nlohmann::json(m.first_exceeded_error) : nlohmann::json(nullptr)},
             {"exceeded_samples", m.exceeded_samples}});
    }
    nlohmann::json state = nlohmann::json::array();
    for (const state_difference& s : c.state) {
        state.push_back({{"curve", curve_path(s.curve)},
                         {"change", interval_change_name(s.change)},
                         {"a", interval_json(s.a)},
                         {"b", interval_json(s.b)},
                         {"a_intervals", s.a_intervals},
                         {"b_intervals", s.b_intervals}});
    }
    nlohmann::json markers = nlohmann::json::array();
    for (const marker_difference& m : c.markers) {
        markers.push_back({{"change", marker_change_name(m.change)},
                           {"a", marker_json(m.a)},
                           {"b", marker_json(m.b)}});
    }
    nlohmann::json keys = nullptr;
    if (c.key_curves) {
        nlohmann::json list = nlohmann::json::array();
        for (const key_difference& k : c.keys) list.push_back(key_json(k));
        keys = {{"curves", *c.key_curves}, {"differences", list}};
    }
    return {{"same", c.same()},
            {"a", summary_json(c.a)},
            {"b", summary_json(c.b)},
            {"tolerance",
             {{"position", c.tolerance.position},
              {"angle", c.tolerance.angle},
              {"time", c.tolerance.time}}},
            {"grid",
             {{"rate", c.rate},
              {"from", optional_time(c.from)},
              {"to", optional_time(c.to)},
              {"rows", c.rows},
              {"offset", c.offset}}},
            {"alignment", c.alignment ? nlohmann::json{{"offset", c.alignment->offset},
                                                       {"confidence", c.alignment->confidence},
                                                       {"overlap", c.alignment->overlap}}
                                      : nlohmann::json(nullptr)},
            {"structure",
             {{"blocks_differ", c.blocks_differ},
              {"key_count_curves", c.key_count_curves},
              {"key_counts", key_counts}}},
            {"motion", motion},
            {"tracking_mismatch_rows",
             {{"left", c.tracking_mismatch_rows[0]}, {"right", c.tracking_mismatch_rows[1]}}},
            {"state", {{"count", c.state_count}, {"differences", state}}},
            {"markers", {{"count", c.marker_count}, {"differences", markers}}},
            {"keys", keys}};
}

std::string align_hint(align_error e, std::string_view offset, std::string_view rate) {
    const std::string give = "give " + std::string(offset) + " if the offset is known";
    switch (e) {
        case align_error::too_flat:
            return "; " + give;
        case align_error::too_long:
            return " (" + std::to_string(max_align_steps) + " rows together): lower " +
                   std::string(rate);
        case align_error::no_match:
            return ": are they takes of the same motion? " + give;
        default:
            return "";
    }
}

}  // namespace inputanim::tools
