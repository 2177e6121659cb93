#include "recording.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>

#include "bind.hpp"
#include "events.hpp"
#include "inputanim/error.hpp"
#include "inputanim/evaluate.hpp"
#include "inputanim/export.hpp"
#include "inputanim/format.hpp"
#include "inputanim/reader.hpp"
#include "inputanim/time_window.hpp"
#include "inputanim/validate.hpp"
#include "inputanim/views.hpp"
#include "inputanim/writer.hpp"
#include "model.hpp"
#include "os/ceilings.hpp"
#include "os/output_file.hpp"
#include "report/export_refusal.hpp"
#include "report/metrics_json.hpp"
#include "report/report_json.hpp"
#include "values.hpp"

namespace inputanim::python {

namespace {

// A curve of an open recording: its numbers as views over the bytes.
class curve {
  public:
    curve(std::shared_ptr<const source> src, py::object buffer, const curve_view& c)
        : src_(std::move(src)), buffer_(std::move(buffer)), c_(c) {}

    std::string_view path() const { return c_.path(); }
    bool is_bool() const { return c_.kind == curve_kind::bool_curve; }
    bool is_full() const { return c_.keys.stride() == full_keyframe_size; }
    std::size_t size() const { return c_.size(); }

    // The field at byte `field` of every keyframe, as a read-only view over the bytes.
    py::array field(std::size_t field, const char* dtype) const {
        const std::byte* first =
            c_.keys.data() != nullptr ? c_.keys.data() : src_->loaded.bytes().data();
        // The flags (read-only) come from the buffer array, the base of every view.
        return py::array(py::dtype(dtype), {static_cast<py::ssize_t>(c_.size())},
                         {static_cast<py::ssize_t>(c_.keys.stride())}, first + field, buffer_);
    }
    py::object full_field(std::size_t field, const char* dtype) const {
        return is_full() ? py::object(this->field(field, dtype)) : py::object(py::none());
    }

    const curve_view& view() const { return c_; }

  private:
    std::shared_ptr<const source> src_;
    py::object buffer_;
    curve_view c_;
};

}  // namespace

open_recording::open_recording(std::shared_ptr<source> src) : src_(std::move(src)) {
    // A read-only uint8 array over all the bytes, owning (through a capsule) the source:
    // the base of every curve view, so that views keep the bytes alive.
    auto* owner = new std::shared_ptr<const source>(src_);
    py::capsule keep(owner, [](void* p) { delete static_cast<std::shared_ptr<const source>*>(p); });
    const std::span<const std::byte> all = src_->loaded.bytes();
    py::array bytes(py::dtype("u1"), {static_cast<py::ssize_t>(all.size())}, {py::ssize_t{1}},
                    all.data(), keep);
    bytes.attr("setflags")(py::arg("write") = false);
    buffer_ = std::move(bytes);
}

py::list open_recording::curves() const {
    py::list l;
    for (const curve_view& c : rec().curves()) l.append(curve(src_, buffer_, c));
    return l;
}

py::dict open_recording::summary_dict() const {
    py::dict d;
    d["bytes"] = rec().summary().bytes;
    d.attr("update")(to_python(tools::summary_json(rec().summary())));
    return d;
}

py::list open_recording::metrics(const py::dict& params) const {
    const metrics_options options = metrics_options_of(params);
    recording_metrics m;
    measure_without_gil(options, m, nullptr);
    py::dict d;
    for (const auto& [name, value] : tools::metrics_row(m)) d[text(name)] = to_python(value);
    py::list rows;
    rows.append(d);
    return rows;
}

py::dict open_recording::events(const py::dict& params, const std::string& kind) const {
    const metrics_options options = metrics_options_of(params);
    event_columns columns(event_kind_named(kind));
    recording_metrics m;
    measure_without_gil(options, m, &columns);
    return columns.take();
}

py::tuple open_recording::check() const {
    report rep;
    const layout_choice layout = choice_of(rec().header());
    {
        py::gil_scoped_release release;
        std::error_code unread;
        rep = src_->loaded.check(validate_options{level::full, layout, {}}, false, unread);
    }
    if (rep.error.code == errc::io_error) {
        throw os_failure{std::make_error_code(std::errc::io_error), src_->path};
    }
    return py::make_tuple(warning_list(rep),
                          rep.valid() ? py::object(py::none()) : py::object(error_dict(rep.error)));
}

py::object open_recording::export_as(const std::string& format, double rate,
                                     std::optional<double> start, std::optional<double> stop,
                                     std::uint64_t max_bytes, const py::object& path_name) const {
    const std::optional<export_format> f = parse_export_format_name(format);
    if (!f) {
        throw py::value_error("format must be 'glb', 'gltf' or 'anim', not '" + format + "'");
    }
    std::optional<std::string> path;
    if (!path_name.is_none()) path = path_of(path_name);
    export_options o;
    o.format = *f;
    o.rate = rate;
    o.from = start;
    o.to = stop;
    o.max_bytes = max_bytes;
    // The file the recording was opened from, which the output must not be.
    std::vector<std::string> inputs;
    if (src_->named) inputs.push_back(src_->path);
    // A mapping is read under the guard, by the exporter's reads alone (they never allocate).
    const std::span<const std::byte> mapped =
        src_->loaded.mapped() ? src_->loaded.bytes() : std::span<const std::byte>{};
    export_result r;
    std::vector<std::byte> bytes;
    std::optional<tools::output_failure> failure;
    {
        py::gil_scoped_release release;
        if (path) {
            tools::output_file out;
            failure = out.open(*path, inputs);
            if (!failure) {
                r = export_recording(rec(), out, o, mapped);
                if (tools::is_export_refusal(r) || r.source_failed) {
                    out.discard();
                } else if (r.error) {
                    failure = out.failure(r.error);
                } else {
                    failure = out.commit();
                }
            }
        } else {
            vector_sink sink(bytes);
            r = export_recording(rec(), sink, o, mapped);
        }
    }
    if (tools::is_export_refusal(r)) {
        throw py::value_error(
            tools::describe_export_refusal(r, o, tools::python_export_names).message);
    }
    if (r.source_failed) throw os_failure{r.error, src_->path};
    if (failure) {
        if (failure->refused) throw py::value_error(failure->message());
        PyErr_SetString(PyExc_OSError, failure->message().c_str());
        throw py::error_already_set();
    }
    if (r.error) throw std::bad_alloc();
    if (path) return py::int_(r.written);
    return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

py::object open_recording::markers() const {
    if (!rec().summary().markers) return py::none();
    const marker_range range = rec().markers();
    std::vector<float> times(range.size());
    std::vector<std::string> names(range.size());
    // The strings are sized before the guarded reads: a fault then only stops copies.
    std::vector<std::size_t> lengths(range.size());
    read_without_gil(*src_, [&] {
        for (const marker_view& m : range) lengths[m.index] = m.name.size();
    });
    for (std::size_t i = 0; i < names.size(); ++i) names[i].resize(lengths[i]);
    read_without_gil(*src_, [&] {
        for (const marker_view& m : range) {
            times[m.index] = m.time;
            if (!m.name.empty()) std::memcpy(names[m.index].data(), m.name.data(), m.name.size());
        }
    });
    py::array_t<float> t(static_cast<py::ssize_t>(times.size()));
    if (!times.empty()) std::memcpy(t.mutable_data(), times.data(), times.size() * sizeof(float));
    py::list n;
    for (const std::string& s : names) n.append(text(s));
    return py::make_tuple(t, n);
}

py::tuple open_recording::to_model() const {
    std::span<const std::byte> bytes = src_->loaded.bytes();
    // read_model allocates, which a read under the mapping's guard must not: a mapping is copied
    // under the guard first.
    std::vector<std::byte> copy;
    if (src_->loaded.mapped()) {
        copy.resize(bytes.size());
        read_without_gil(*src_, [&] {
            if (!copy.empty()) std::memcpy(copy.data(), bytes.data(), copy.size());
        });
        bytes = copy;
    }
    model m;
    error e;
    {
        py::gil_scoped_release release;
        e = read_model(bytes, m, read_options{choice_of(rec().header()), {}});
    }
    if (e.code == errc::io_error)
        throw os_failure{std::make_error_code(std::errc::io_error), src_->path};
    if (e) throw py::value_error(e.message());
    if (rec().header().edition != edition::v1 && !m.markers) m.markers.emplace();
    return model_tuple(m);
}

py::object open_recording::input_name() const {
    if (!src_->named) return py::none();
    return py::bytes(src_->path);
}

py::tuple open_recording::sample(double rate, const std::vector<std::string>& globs,
                                 std::optional<double> start, std::optional<double> stop,
                                 bool curve_major, std::uint64_t max_rows) const {
    if (const time_window window{start, stop}; window.problem()) {
        throw py::value_error(window.problem_text("start", "stop"));
    }
    // The resampler holds one sampler per curve inline: too large for the stack of a
    // Python thread.
    auto rs = std::make_unique<resampler>(rec());
    if (globs.empty()) rs->select_all();
    for (const std::string& glob : globs) {
        if (rs->select(glob) == 0) {
            throw py::value_error("curve glob '" + glob + "' matches no curve of the recording");
        }
    }
    const grid_error e = rs->set_grid(rate, start, stop, max_rows);
    const summary& sum = rec().summary();
    const double from = start ? *start : sum.start.value_or(0.0f);
    const double to = stop ? *stop : sum.duration.value_or(0.0f);
    if (e == grid_error::too_many_rows) {
        std::string message = "more than " + std::to_string(max_rows) +
                              " rows (max_rows=" + std::to_string(max_rows) + "): from " +
                              number_text(from) + " to " + number_text(to) + " at " +
                              number_text(rate) + " per second";
        if (rs->point_count() != 0) {
            message += " is " + std::to_string(rs->point_count()) + " grid points";
        }
        throw py::value_error(message + "; raise max_rows, lower rate or narrow start/stop");
    }
    if (e != grid_error::none) {
        throw py::value_error("cannot sample: " + std::string(grid_error_name(e)));
    }
    if (rs->row_count() == 0) {
        // A start after a stop given both is refused above: here one is the recording's.
        throw py::value_error(
            start ? "start " + number_text(from) + " is after the recording's last key time " +
                        number_text(to) + " (give stop)"
                  : "stop " + number_text(to) + " is before the recording's first key time " +
                        number_text(from) + " (give start)");
    }
    const std::size_t rows = rs->row_count();
    const std::size_t cols = rs->curves().size();
    const auto r = static_cast<py::ssize_t>(rows);
    const auto c = static_cast<py::ssize_t>(cols);
    const auto f = static_cast<py::ssize_t>(sizeof(float));
    py::array_t<float> times(r);
    py::array_t<float> values({r, c}, curve_major ? std::vector<py::ssize_t>{f, r * f}
                                                  : std::vector<py::ssize_t>{c * f, f});
    float* t = times.mutable_data();
    float* v = values.mutable_data();
    if (!curve_major) {
        read_without_gil(*src_, [&] {
            for (std::size_t i = 0; i < rows; ++i) {
                t[i] = *rs->next(std::span<float>(v + i * cols, cols));
            }
        });
    } else {
        // One row at a time in cache, then spread over the columns.
        std::vector<float> row(cols);
        read_without_gil(*src_, [&] {
            for (std::size_t i = 0; i < rows; ++i) {
                t[i] = *rs->next(row);
                for (std::size_t k = 0; k < cols; ++k) v[k * rows + i] = row[k];
            }
        });
    }
    py::list paths;
    for (const curve_id id : rs->curves()) paths.append(text(curve_path(id)));
    return py::make_tuple(times, values, paths);
}

metrics_options open_recording::metrics_options_of(const py::dict& params) {
    metrics_options options;
    for (const auto& [key, value] : params) {
        const std::string name = py::cast<std::string>(key);
        if (name == "rate") {
            options.rate = py::cast<double>(value);
        } else if (name == "joint") {
            const std::string joint = py::cast<std::string>(value);
            const auto j = std::find(joint_names.begin(), joint_names.end(), joint);
            if (j == joint_names.end()) throw py::value_error("no joint named '" + joint + "'");
            options.joint = static_cast<inputanim::joint>(j - joint_names.begin());
        } else if (name == "fixation_velocity") {
            options.fixation_velocity = py::cast<double>(value);
        } else if (name == "merge_gap") {
            options.merge_gap = py::cast<double>(value);
        } else if (name == "merge_angle") {
            options.merge_angle = py::cast<double>(value);
        } else if (name == "min_fixation") {
            options.min_fixation = py::cast<double>(value);
        } else if (name == "max_samples") {
            options.max_samples = py::cast<std::uint64_t>(value);
        } else {
            throw py::value_error("unknown metrics parameter '" + name + "'");
        }
    }
    if (const std::error_code ec = options.problem()) throw py::value_error(ec.message());
    return options;
}

void open_recording::measure_without_gil(const metrics_options& options, recording_metrics& m,
                                         metrics_sink* sink) const {
    std::error_code ec;
    read_without_gil(*src_, [&] { ec = measure(rec(), options, m, sink); });
    if (ec) throw py::value_error(ec.message());
}

void bind_recording(py::module_& m) {
    py::class_<python::curve>(m, "Curve",
                              "One curve: its keyframes' fields as read-only numpy views")
        .def_property_readonly("path", &python::curve::path)
        .def_property_readonly(
            "kind", [](const python::curve& c) { return c.is_bool() ? "bool" : "float"; })
        .def_property_readonly("pre_wrap", [](const python::curve& c) { return c.view().pre_wrap; })
        .def_property_readonly("post_wrap",
                               [](const python::curve& c) { return c.view().post_wrap; })
        .def_property_readonly(
            "offset", [](const python::curve& c) { return c.view().offset; },
            "Byte offset of the curve's header in the file")
        .def_property_readonly("has_tangents", &python::curve::is_full)
        .def("__len__", &python::curve::size)
        .def_property_readonly("times", [](const python::curve& c) { return c.field(0, "<f4"); })
        .def_property_readonly("values", [](const python::curve& c) { return c.field(4, "<f4"); })
        .def_property_readonly("in_tangents",
                               [](const python::curve& c) { return c.full_field(8, "<f4"); })
        .def_property_readonly("out_tangents",
                               [](const python::curve& c) { return c.full_field(12, "<f4"); })
        .def_property_readonly("in_weights",
                               [](const python::curve& c) { return c.full_field(16, "<f4"); })
        .def_property_readonly("out_weights",
                               [](const python::curve& c) { return c.full_field(20, "<f4"); })
        .def_property_readonly("weighted_modes",
                               [](const python::curve& c) { return c.full_field(24, "<i4"); })
        .def("__repr__", [](const python::curve& c) {
            return "<inputanim.Curve " + std::string(c.path()) + ": " + std::to_string(c.size()) +
                   " keys>";
        });

    py::class_<open_recording>(m, "Recording")
        .def_property_readonly("buffer", &open_recording::buffer)
        .def_property_readonly("mapped", &open_recording::mapped)
        .def_property_readonly("summary", &open_recording::summary_dict)
        .def("curves", &open_recording::curves)
        .def("check", &open_recording::check)
        .def("metrics", &open_recording::metrics, py::arg("params"))
        .def("events", &open_recording::events, py::arg("params"), py::arg("kind"))
        .def("markers", &open_recording::markers)
        .def("to_model", &open_recording::to_model)
        .def_property_readonly("input_name", &open_recording::input_name)
        .def("export", &open_recording::export_as, py::arg("format"), py::arg("rate"),
             py::arg("start"), py::arg("stop"), py::arg("max_bytes"), py::arg("path"))
        .def("sample", &open_recording::sample, py::arg("rate"), py::arg("globs"), py::arg("start"),
             py::arg("stop"), py::arg("curve_major") = false,
             py::arg("max_rows") = tools::default_max_rows);

    m.def("curve_paths", [] {
        py::list l;
        for (std::size_t i = 0; i < curve_id_count; ++i) l.append(text(curve_path(curve_id(i))));
        return l;
    });
}

}  // namespace inputanim::python
