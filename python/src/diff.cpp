// inputanim.diff's core: inputanim::compare of two open recordings, reported as `inputanim diff
// --json` reports it (compare_json), with the options refused in the words of the Python
// parameters.
#include <pybind11/stl.h>

#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <system_error>

#include "bind.hpp"
#include "inputanim/compare.hpp"
#include "inputanim/error.hpp"
#include "recording.hpp"
#include "report/compare_json.hpp"
#include "source.hpp"
#include "values.hpp"

namespace inputanim::python {

namespace {

// The Python parameter an option's problem is about, and its value, for the ValueError.
std::string option_problem(const compare_options& o, std::error_code ec) {
    if (o.window.problem()) return o.window.problem_text("start", "stop");
    std::string name;
    double value = 0.0;
    switch (static_cast<option_error>(ec.value())) {
        case option_error::bad_rate:
            name = "rate";
            value = o.rate;
            break;
        case option_error::bad_position_tolerance:
            name = "position";
            value = o.tolerance.position;
            break;
        case option_error::bad_rotation_tolerance:
            name = "angle";
            value = o.tolerance.angle;
            break;
        case option_error::bad_time_tolerance:
            name = "time";
            value = o.tolerance.time;
            break;
        case option_error::bad_offset:
            name = "offset";
            value = o.offset;
            break;
        default:
            return ec.message();
    }
    return name + "=" + number_text(value) + ": " + ec.message();
}

// The comparison as `inputanim diff --json`'s object, less the sides' paths (the package's
// names). ValueError for options compare() refuses and takes it cannot align, OSError for a page
// of a mapping that vanished, MemoryError.
py::object compare_recordings(const open_recording& a, const open_recording& b, double rate,
                              std::optional<double> start, std::optional<double> stop,
                              double position, double angle, double time, double offset, bool align,
                              bool keys, std::uint64_t max_rows) {
    compare_options o;
    o.rate = rate;
    o.window = time_window{start, stop};
    o.tolerance = {position, angle, time};
    o.offset = offset;
    o.align = align;
    o.keys = keys;
    o.max_rows = max_rows;
    if (const std::error_code ec = o.problem()) throw py::value_error(option_problem(o, ec));

    comparison c;
    std::error_code ec;
    std::error_code fault_a;
    std::error_code fault_b;
    {
        py::gil_scoped_release release;
        // Each side's mapping under its own guard (held_bytes::run: none for bytes in memory).
        // A fault leaves compare() by a jump, leaking what it holds then (the markers' copies,
        // the report's lists; with `align` its series and transform, 48 MiB at most): only when
        // another process truncates a mapped file, which is then an OSError.
        fault_a = a.src().loaded.run(
            [&] { fault_b = b.src().loaded.run([&] { ec = compare(a.rec(), b.rec(), o, c); }); });
    }
    if (fault_a) throw os_failure{fault_a, a.src().path};
    if (fault_b) throw os_failure{fault_b, b.src().path};
    if (ec == std::errc::not_enough_memory) throw std::bad_alloc();
    if (ec == grid_error::too_many_rows) {
        throw py::value_error("more than " + std::to_string(max_rows) +
                              " rows (max_rows=" + std::to_string(max_rows) +
                              "): raise max_rows, lower rate or narrow start/stop");
    }
    if (ec == grid_error::bad_rate) {
        throw py::value_error("rate " + number_text(rate) +
                              " is too small: its step 1 / rate is not a finite number");
    }
    if (ec == grid_error::bad_time) {
        throw py::value_error(
            "a key time is not finite, so no time range: give both start and stop");
    }
    if (ec.category() == align_error_category()) {
        throw py::value_error(
            "cannot align: " + ec.message() +
            tools::align_hint(static_cast<align_error>(ec.value()), "offset=", "rate"));
    }
    if (ec) throw py::value_error(ec.message());
    return to_python(tools::compare_json(c));
}

}  // namespace

void bind_diff(py::module_& m) {
    m.def("compare", &compare_recordings, py::arg("a"), py::arg("b"), py::arg("rate"),
          py::arg("start"), py::arg("stop"), py::arg("position"), py::arg("angle"), py::arg("time"),
          py::arg("offset"), py::arg("align"), py::arg("keys"), py::arg("max_rows"));
}

}  // namespace inputanim::python
