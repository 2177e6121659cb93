// The Recording of inputanim._core: an open recording's curves, summary, checks, metrics,
// events, markers, export and resampling, reading the bytes without the GIL.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inputanim/metrics.hpp"
#include "inputanim/recording.hpp"
#include "source.hpp"

namespace inputanim::python {

namespace py = pybind11;

// The Recording behind inputanim.Recording.
class open_recording {
  public:
    explicit open_recording(std::shared_ptr<source> src);

    const recording& rec() const { return src_->loaded.recording(); }
    // The bytes it reads, for work that reads several recordings at once (diff.cpp).
    const source& src() const { return *src_; }
    py::object buffer() const { return buffer_; }
    bool mapped() const { return src_->shared(); }

    py::list curves() const;

    py::dict summary_dict() const;

    // The metrics (metrics.hpp) as a list of one dict of `inputanim metrics --csv`'s fields, in
    // its order. Raises ValueError for options or a grid that measure() refuses.
    py::list metrics(const py::dict& params) const;

    // The events of `kind` as the columns of `inputanim metrics --events KIND --csv` (name ->
    // numpy array, in its order), filled by measure() without the GIL. Raises ValueError as
    // metrics() does, and for a kind that is not one.
    py::dict events(const py::dict& params, const std::string& kind) const;

    // The warnings of a validation at level full (which reads every keyframe), and its error,
    // None when the content is valid.
    py::tuple check() const;

    // The export of inputanim/export.hpp: returned as bytes, or, given `path`, written there
    // through the command's one output primitive (a temporary file renamed once complete), and
    // its size returned. ValueError for what the exporter refuses, OSError for a failed write.
    py::object export_as(const std::string& format, double rate, std::optional<double> start,
                         std::optional<double> stop, std::uint64_t max_bytes,
                         const py::object& path_name) const;

    // The markers as (times, names), or None without a marker list.
    py::object markers() const;

    // The writer's model of the recording (read_model), as model.hpp's tuple. A 2019 file's is
    // that of the v1.0 file with its curves, with the empty marker list convert gives it (MRTK
    // reads one), so that it writes what `inputanim convert --version 1.0` writes.
    py::tuple to_model() const;

    // The file the recording was opened from (bytes), which an output must not be; None for
    // bytes from Python.
    py::object input_name() const;

    // Resamples the curves the globs select (all when none) onto the grid from `start` to
    // `stop` at `rate`: (times, values[rows, curves], paths). With `curve_major` the values are
    // laid out curve after curve (Fortran order), so that values.T is contiguous: tidy() then
    // needs no transposing copy.
    // More than `max_rows` rows is refused before anything is allocated, and so are a start
    // after the stop and bounds no recording can hold, with the rules and words of `inputanim
    // sample` (--from, --to, --max-rows).
    py::tuple sample(double rate, const std::vector<std::string>& globs,
                     std::optional<double> start, std::optional<double> stop, bool curve_major,
                     std::uint64_t max_rows) const;

  private:
    // The options of metrics() and events() (their Python parameters, already named).
    static metrics_options metrics_options_of(const py::dict& params);

    void measure_without_gil(const metrics_options& options, recording_metrics& m,
                             metrics_sink* sink) const;

    std::shared_ptr<source> src_;
    py::object buffer_;
};

}  // namespace inputanim::python
