// The events of Recording.events(): measure()'s events collected as numpy columns.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "inputanim/format.hpp"
#include "inputanim/metrics.hpp"

namespace inputanim::python {

namespace py = pybind11;

// The events of one kind as columns, filled as measure() sends them: a number per event and
// column, no Python object, so that a frame of a million events costs its arrays. A hand's events
// are kept per hand and joined left first, the table's order (each hand's come in time order).
// Times and vectors are the doubles of the command's JSON (json_number), so the values are those
// `metrics --events` prints.
class event_columns final : public metrics_sink {
  public:
    explicit event_columns(event_kind kind) noexcept : kind_(kind) {}

    void tracked(side s, const grid_interval& g) override;
    void gap(side s, const grid_interval& g) override;
    void pinch(side s, const grid_interval& g) override;
    void fixation(const inputanim::fixation& f) override;
    void saccade(const inputanim::saccade& s) override;

    // The columns, named and ordered as the command's header (event_header): "hand" holds 0 for
    // left and 1 for right, "event" 0 for tracked and 1 for gap. Leaves the columns empty.
    py::dict take();

  private:
    struct intervals {
        std::vector<double> start;
        std::vector<double> end;
        std::vector<double> duration;
        std::vector<std::int64_t> start_sample;
        std::vector<std::int64_t> end_sample;

        void add(const grid_interval& g);
    };
    struct hand_rows {
        std::vector<std::uint8_t> event;
        intervals when;
    };

    void hand_event(side s, std::uint8_t event, const grid_interval& g);

    // The left hand's rows, then the right's, into hand_, event_ and when_.
    void join_hands();

    py::object column(const std::string& name);

    event_kind kind_;
    std::array<hand_rows, 2> hands_;
    std::vector<std::uint8_t> hand_;
    std::vector<std::uint8_t> event_;
    intervals when_;
    // Direction x, y, z, then origin x, y, z.
    std::array<std::vector<double>, 6> vectors_;
    std::vector<double> amplitude_;
};

}  // namespace inputanim::python
