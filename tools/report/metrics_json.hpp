// The metrics of a recording and its events (metrics.hpp) as JSON and as CSV fields: what
// `inputanim metrics` prints, `index --metrics` stores and the Python package returns, defined
// once (docs/METRICS.md names every field).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "inputanim/metrics.hpp"

namespace inputanim::tools {

// A field's name and value, in the order of the CSV columns; null when not defined.
using fields = std::vector<std::pair<std::string, nlohmann::json>>;

// {"samples", "start", "end", "nonfinite_samples", "hands": {"left", "right"}, "head", "gaze"}: a
// group is null when the recording lacks it.
nlohmann::json metrics_json(const recording_metrics& m);
// {"rate", "joint", "fixation_velocity", "merge_gap", "merge_angle", "min_fixation"}.
nlohmann::json metrics_options_json(const metrics_options& o);
// The metrics as one flat row: the top fields, then each group's prefixed by left_, right_, head_
// and gaze_ (null where the group is absent).
fields metrics_row(const recording_metrics& m);
nlohmann::json object_of(const fields& f);

// The events of one kind that measure() sends, kept for event_rows.
struct event_collector final : metrics_sink {
    struct hand_event {
        side hand;
        // "tracked" or "gap" (kind tracking), or "pinch".
        std::string_view event;
        grid_interval when;
    };
    explicit event_collector(event_kind wanted) noexcept : wanted_(wanted) {}

    event_kind wanted() const noexcept { return wanted_; }

    void tracked(side s, const grid_interval& g) override {
        if (wanted_ == event_kind::tracking) hand_events.push_back({s, "tracked", g});
    }
    void gap(side s, const grid_interval& g) override {
        if (wanted_ == event_kind::tracking) hand_events.push_back({s, "gap", g});
    }
    void pinch(side s, const grid_interval& g) override {
        if (wanted_ == event_kind::pinch) hand_events.push_back({s, "pinch", g});
    }
    void fixation(const inputanim::fixation& f) override {
        if (wanted_ == event_kind::fixations) fixations.push_back(f);
    }
    void saccade(const inputanim::saccade& s) override {
        if (wanted_ == event_kind::saccades) saccades.push_back(s);
    }

    std::vector<hand_event> hand_events;
    std::vector<inputanim::fixation> fixations;
    std::vector<inputanim::saccade> saccades;

  private:
    event_kind wanted_;
};

// The fields of one event, a row of its kind's table: a hand's event (with `event`, "tracked" or
// "gap", when the kind is tracking), a fixation (its direction and origin [x, y, z] arrays), a
// saccade.
fields hand_event_fields(side hand, std::string_view event, const grid_interval& when,
                         event_kind kind);
fields fixation_fields(const inputanim::fixation& f);
fields saccade_fields(const inputanim::saccade& s);
// Each event as its fields, in the table's order: a hand's events by hand, then time.
std::vector<fields> event_rows(event_collector& e);
// The fields of an event of that kind (the columns of its table).
fields event_header(event_kind kind);

}  // namespace inputanim::tools
