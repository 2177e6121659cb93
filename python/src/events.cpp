#include "events.hpp"

#include <pybind11/numpy.h>

#include <cstddef>
#include <stdexcept>
#include <utility>

#include "bind.hpp"
#include "report/metrics_json.hpp"
#include "report/report_json.hpp"
#include "values.hpp"

namespace inputanim::python {

namespace {

// A vector handed to numpy without a copy: the array owns it (through a capsule).
template <class T>
py::array_t<T> array_of(std::vector<T>&& v) {
    auto* owned = new std::vector<T>(std::move(v));
    py::capsule keep(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), keep);
}

}  // namespace

void event_columns::tracked(side s, const grid_interval& g) {
    if (kind_ == event_kind::tracking) hand_event(s, 0, g);
}

void event_columns::gap(side s, const grid_interval& g) {
    if (kind_ == event_kind::tracking) hand_event(s, 1, g);
}

void event_columns::pinch(side s, const grid_interval& g) {
    if (kind_ == event_kind::pinch) hand_event(s, 0, g);
}

void event_columns::fixation(const inputanim::fixation& f) {
    if (kind_ != event_kind::fixations) return;
    when_.add(f.when);
    const std::array<float, 6> v = {f.direction.x, f.direction.y, f.direction.z,
                                    f.origin.x,    f.origin.y,    f.origin.z};
    for (std::size_t i = 0; i < v.size(); ++i) vectors_[i].push_back(tools::json_number(v[i]));
}

void event_columns::saccade(const inputanim::saccade& s) {
    if (kind_ != event_kind::saccades) return;
    when_.add(s.when);
    amplitude_.push_back(s.amplitude);
}

py::dict event_columns::take() {
    if (is_hand_event(kind_)) join_hands();
    py::dict columns;
    for (const auto& [name, value] : tools::event_header(kind_)) {
        if (value.is_array()) {
            const std::size_t first = name == "direction" ? 0 : 3;
            for (std::size_t axis = 0; axis < 3; ++axis) {
                columns[text(name + "_" + "xyz"[axis])] =
                    array_of(std::move(vectors_[first + axis]));
            }
        } else {
            columns[text(name)] = column(name);
        }
    }
    return columns;
}

void event_columns::intervals::add(const grid_interval& g) {
    start.push_back(tools::json_number(g.start));
    end.push_back(tools::json_number(g.end));
    duration.push_back(g.duration);
    start_sample.push_back(static_cast<std::int64_t>(g.start_sample));
    end_sample.push_back(static_cast<std::int64_t>(g.end_sample));
}

void event_columns::hand_event(side s, std::uint8_t event, const grid_interval& g) {
    hand_rows& h = hands_[s == side::left ? 0 : 1];
    h.event.push_back(event);
    h.when.add(g);
}

void event_columns::join_hands() {
    const auto joined = [](auto& left, auto& right) {
        left.insert(left.end(), right.begin(), right.end());
        right = {};
        return std::move(left);
    };
    hand_rows& l = hands_[0];
    hand_rows& r = hands_[1];
    hand_.assign(l.event.size(), 0);
    hand_.resize(l.event.size() + r.event.size(), 1);
    event_ = joined(l.event, r.event);
    when_.start = joined(l.when.start, r.when.start);
    when_.end = joined(l.when.end, r.when.end);
    when_.duration = joined(l.when.duration, r.when.duration);
    when_.start_sample = joined(l.when.start_sample, r.when.start_sample);
    when_.end_sample = joined(l.when.end_sample, r.when.end_sample);
}

py::object event_columns::column(const std::string& name) {
    if (name == "hand") return array_of(std::move(hand_));
    if (name == "event") return array_of(std::move(event_));
    if (name == "start") return array_of(std::move(when_.start));
    if (name == "end") return array_of(std::move(when_.end));
    if (name == "duration") return array_of(std::move(when_.duration));
    if (name == "start_sample") return array_of(std::move(when_.start_sample));
    if (name == "end_sample") return array_of(std::move(when_.end_sample));
    if (name == "amplitude") return array_of(std::move(amplitude_));
    throw std::logic_error("no event column " + name);
}

void bind_events(py::module_& m) {
    m.def(
        "event_columns",
        [](const std::string& kind) {
            py::list columns;
            for (const auto& [name, value] : tools::event_header(event_kind_named(kind))) {
                columns.append(py::make_tuple(text(name), value.is_array()));
            }
            return columns;
        },
        py::arg("kind"));
}

}  // namespace inputanim::python
