// The core of inputanim.Model: the writer's model built from Python's values and checked before a
// byte is written, written through the library's encoder (to bytes, or to a path through the
// command's one output primitive), thinned by the library's conversion, and imported by the
// library's importers.
#include "model.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "bind.hpp"
#include "detail/rules.hpp"
#include "inputanim/convert.hpp"
#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/import.hpp"
#include "inputanim/input.hpp"
#include "inputanim/reader.hpp"
#include "inputanim/recording.hpp"
#include "inputanim/thin.hpp"
#include "inputanim/validate.hpp"
#include "os/output_file.hpp"
#include "source.hpp"
#include "values.hpp"

namespace inputanim::python {

namespace {

using float_array = py::array_t<float, py::array::c_style | py::array::forcecast>;
using int_array = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;

// The arrays of a curve's tuple, after its two wrap modes, by the names Curve gives them.
constexpr std::string_view key_fields[] = {"times",         "values",     "in_tangents",
                                           "out_tangents",  "in_weights", "out_weights",
                                           "weighted_modes"};
constexpr std::size_t float_fields = 6;

std::string_view block_name(block b) noexcept {
    switch (b) {
        case block::camera:
            return "camera";
        case block::hands:
            return "hands";
        case block::gaze:
            return "gaze";
    }
    return "unknown";
}

[[noreturn]] void refuse(const std::string& message) {
    throw py::value_error(message);
}

std::string key_place(curve_id id, std::size_t key) {
    return std::string(curve_path(id)) + " key " + std::to_string(key);
}

// What the file of `m` holds: v1.0 camera and hands in full keyframes, whatever `m` says.
file_header header_of(const model& m) noexcept {
    return v1_header(m.major, m.minor, m.layout, m.blocks);
}

// The model Python's values describe (model.hpp's tuple, the markers' names as bytes), refused
// with a ValueError naming the curve and key for what writing would lose without a word: keys in
// a curve whose block the file does not hold, eye gaze in a v1.0 model, keys a compact file
// cannot hold. What the format itself refuses is the validator's to say (checked_bytes).
model model_of(const std::string& version, const std::string& layout_name, const py::tuple& blocks,
               const py::list& curves, const py::object& markers) {
    model m;
    if (version == "1.0") {
        m.minor = 0;
    } else if (version != "1.1") {
        refuse("version must be '1.0' or '1.1', not '" + version + "'");
    }
    const std::optional<layout> lay = parse_layout_name(layout_name);
    if (!lay) refuse("layout must be 'compact' or 'full', not '" + layout_name + "'");
    m.layout = *lay;
    m.blocks = block_flags{py::cast<bool>(blocks[0]), py::cast<bool>(blocks[1]),
                           py::cast<bool>(blocks[2])};
    if (m.minor == 0 && m.blocks.gaze) {
        refuse(
            "a v1.0 model cannot hold eye gaze (version 1.0 has no gaze curves): remove "
            "'gaze' from blocks, or make the version '1.1'");
    }
    if (m.minor == 0 && !(m.blocks.camera && m.blocks.hands)) {
        refuse(
            "a v1.0 model holds camera and hands (every v1.0 file has both): blocks must be "
            "{'camera', 'hands'}");
    }
    const file_header h = header_of(m);
    if (curves.size() != curve_id_count) refuse("a model has 395 curves");
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const curve_id id{static_cast<std::uint16_t>(i)};
        const std::string path(curve_path(id));
        const py::tuple c = curves[i];
        curve& out = m[id];
        out.pre_wrap = py::cast<std::int32_t>(c[0]);
        out.post_wrap = py::cast<std::int32_t>(c[1]);
        float_array fields[float_fields];
        for (std::size_t f = 0; f < float_fields; ++f) fields[f] = py::cast<float_array>(c[2 + f]);
        const int_array modes = py::cast<int_array>(c[2 + float_fields]);
        const auto n = static_cast<std::size_t>(fields[0].size());
        for (std::size_t f = 1; f <= float_fields; ++f) {
            const auto size =
                static_cast<std::size_t>(f < float_fields ? fields[f].size() : modes.size());
            if (size != n) {
                refuse(path + ": " + std::string(key_fields[f]) + " has " + std::to_string(size) +
                       " keys, times has " + std::to_string(n));
            }
        }
        if (n == 0) continue;
        if (!has_curve(h.blocks, id)) {
            const std::string name(block_name(block_of(id)));
            refuse(key_place(id, 0) + ": a curve of the " + name +
                   " block, which the model does not hold: add '" + name +
                   "' to blocks, or empty the curve");
        }
        if (n > detail::int32_max) {
            refuse(path + ": " + std::to_string(n) + " keys, more than a file's Int32 count holds");
        }
        out.keys.resize(n);
        const float* f[float_fields];
        for (std::size_t k = 0; k < float_fields; ++k) f[k] = fields[k].data();
        const std::int32_t* w = modes.data();
        const bool compact = kind_of(id) == curve_kind::float_curve && !detail::full_float_keys(h);
        for (std::size_t k = 0; k < n; ++k) {
            out.keys[k] = keyframe{f[0][k], f[1][k], f[2][k], f[3][k], f[4][k], f[5][k], w[k]};
            if (compact && !detail::mrtk_linear(f[2][k], f[3][k], f[4][k], f[5][k], w[k])) {
                refuse(key_place(id, k) +
                       ": tangents, weights or weighted mode other than MRTK's (0, 0, 0, 0, 3), "
                       "which the compact layout cannot hold: make the layout 'full'");
            }
        }
    }
    if (markers.is_none()) {
        m.markers.reset();
        return m;
    }
    const py::list list = markers;
    if (list.size() > detail::int32_max) refuse("more markers than a file's Int32 count holds");
    m.markers->reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        const py::tuple pair = list[i];
        marker mk{py::cast<float>(pair[0]), py::cast<std::string>(pair[1])};
        if (mk.name.size() > detail::int32_max) {
            refuse("marker " + std::to_string(i) + ": a name longer than a file's Int32 holds");
        }
        m.markers->push_back(std::move(mk));
    }
    return m;
}

// The bytes of `m` through the library's encoder, validated at level full before they go
// anywhere: a key time or value that is not finite, key times that do not increase, a bool value
// other than 0 or 1, a wrap or weighted mode Unity does not have, a marker name that is not UTF-8
// are each a ValueError naming the curve and key (or the marker), with the validator's code.
std::vector<std::byte> checked_bytes(const model& m) {
    std::vector<std::byte> bytes;
    report verdict;
    {
        py::gil_scoped_release release;
        write(m, bytes);
        validate_options check;
        check.level = level::full;
        check.layout = choice_of(header_of(m));
        check.threads = 1;
        verdict = validate(bytes, check);
    }
    if (verdict.valid()) return bytes;
    const error& e = verdict.error;
    std::string where;
    if (e.place == error_place::curve) {
        where = e.index >= 0 ? key_place(e.curve, static_cast<std::size_t>(e.index))
                             : std::string(curve_path(e.curve));
    } else if (e.place == error_place::markers && e.index >= 0) {
        where = "marker " + std::to_string(e.index);
    } else {
        refuse("the model cannot be written: " + e.message());
    }
    refuse(where + ": " + std::string(error_description(e.code)) + " (" +
           std::string(error_name(e.code)) + ")");
}

model model_from(const py::tuple& args) {
    return model_of(py::cast<std::string>(args[0]), py::cast<std::string>(args[1]), args[2],
                    args[3], args[4]);
}

// The model's bytes, returned, or written to `path_name` through the output primitive (a
// temporary file renamed once complete; never one of `inputs`) and their count returned.
py::object write_model(const py::tuple& args, const py::object& path_name,
                       const py::list& input_names) {
    const std::vector<std::byte> bytes = checked_bytes(model_from(args));
    if (path_name.is_none()) {
        return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    const std::string path = path_of(path_name);
    std::vector<std::string> inputs;
    for (const py::handle name : input_names) inputs.push_back(path_of(name));
    std::optional<tools::output_failure> failure;
    {
        py::gil_scoped_release release;
        tools::output_file out;
        failure = out.open(path, inputs);
        if (!failure) {
            const std::error_code ec = out.write(bytes);
            failure = ec ? std::optional(out.failure(ec)) : out.commit();
        }
    }
    if (failure) {
        if (failure->refused) throw py::value_error(failure->message());
        PyErr_SetString(PyExc_OSError, failure->message().c_str());
        throw py::error_already_set();
    }
    return py::int_(bytes.size());
}

// The model thinned as `inputanim convert --thin` thins (MRTK's tolerances), to its own version
// and layout: written, then converted by the library.
py::tuple thin_model(const py::tuple& args) {
    const model m = model_from(args);
    const std::vector<std::byte> bytes = checked_bytes(m);
    const read_options read{choice_of(header_of(m)), {}};
    model thinned;
    std::error_code failed;
    {
        py::gil_scoped_release release;
        recording rec;
        if (const error e = rec.open(bytes, read)) {
            failed = make_error_code(e.code);
        } else {
            convert_options o;
            o.minor = m.minor;
            o.layout = m.layout;
            o.thin = thinning{};
            std::vector<std::byte> out;
            vector_sink sink(out);
            failed = convert(rec, sink, o).error;
            if (!failed) failed = make_error_code(read_model(out, thinned, read).code);
        }
    }
    if (failed == std::errc::not_enough_memory) throw std::bad_alloc();
    if (failed) refuse("the model cannot be thinned: " + failed.message());
    return model_tuple(thinned);
}

// The refusal of an import as Python's InvalidImport takes it: the code's name, the detail, the
// code's sentence.
py::dict import_refusal(std::string_view code, const std::string& detail,
                        const std::string& message) {
    py::dict e;
    e["code"] = text(code);
    e["detail"] = text(detail);
    e["message"] = text(message);
    return e;
}

// The content of `o` read whole through the front door as `inputanim import` reads IN (gzip
// inflated, up to limits.max_bytes), then imported, a .gltf's external buffers read from `files`
// when there are any: (the model's tuple, the import's warnings), or (None, the refusal) for
// content the front door or the importer refuses. Throws os_failure for a read or a system error.
py::tuple import_opened(opened o, const std::string& format_name, const py::dict& limit_values,
                        import_files* files) {
    const std::optional<import_format> format = parse_import_format_name(format_name);
    if (!format) {
        refuse("format must be 'anim', 'gltf', 'glb' or 'csv', not '" + format_name + "'");
    }
    import_options options;
    options.limits = options_of("full", "auto", limit_values, 1).limits;
    std::vector<std::byte> bytes;
    std::error_code io;
    error unread;
    model m;
    import_result r;
    {
        py::gil_scoped_release release;
        unread = read_content(o.in, options.limits.max_bytes, bytes, io);
        if (!unread && !io) r = import_model(bytes, *format, m, options, files);
    }
    if (io == std::errc::not_enough_memory || r.error == std::errc::not_enough_memory) {
        throw std::bad_alloc();
    }
    if (io) throw os_failure{io, o.path};
    if (unread.code == errc::limit_exceeded) {
        return py::make_tuple(
            py::none(), import_refusal(import_error_name(import_error::too_large),
                                       "more than max_bytes " +
                                           std::to_string(options.limits.max_bytes) + " bytes",
                                       make_error_code(import_error::too_large).message()));
    }
    if (unread) {
        // A damaged gzip stream: the front door's code.
        return py::make_tuple(py::none(),
                              import_refusal(error_name(unread.code), unread.message(),
                                             std::string(error_description(unread.code))));
    }
    // A failure of the system's (a .gltf's buffer that cannot be read) is an OSError, named by
    // the detail when there is one.
    if (r.error && r.error.category() != import_error_category()) {
        throw os_failure{r.error, r.detail.empty() ? o.path : r.detail};
    }
    if (r.error) {
        return py::make_tuple(
            py::none(),
            import_refusal(import_error_name(static_cast<import_error>(r.error.value())), r.detail,
                           r.error.message()));
    }
    py::list warnings;
    for (const std::string& w : r.warnings) warnings.append(text(w));
    return py::make_tuple(model_tuple(m), warnings);
}

// A file by name; a .gltf's external buffers are read from `folder` (below it). import_opened's
// tuple, and the buffers read (bytes, links resolved): inputs too, which an output must not
// replace.
py::tuple import_file(const py::bytes& path, const std::string& format_name,
                      const py::dict& limit_values, const py::bytes& folder) {
    folder_files files(path_of(folder));
    const py::tuple imported =
        import_opened(open_name(path_of(path)), format_name, limit_values, &files);
    py::list read;
    for (const std::string& f : files.files_read()) read.append(py::bytes(f));
    return py::make_tuple(imported[0], imported[1], read);
}

py::tuple import_buffer(const py::buffer& data, const std::string& format_name,
                        const py::dict& limit_values) {
    opened o;
    {
        const py::buffer_info info = data.request();
        o = open_bytes(buffer_bytes(info));
    }
    // No folder: a .gltf's buffers are data URIs.
    return import_opened(std::move(o), format_name, limit_values, nullptr);
}

}  // namespace

py::tuple model_tuple(const model& m) {
    py::list curves;
    for (const curve& c : m.curves) {
        const auto n = static_cast<py::ssize_t>(c.keys.size());
        py::array_t<float> fields[float_fields];
        float* f[float_fields];
        for (std::size_t k = 0; k < float_fields; ++k) {
            fields[k] = py::array_t<float>(n);
            f[k] = fields[k].mutable_data();
        }
        py::array_t<std::int32_t> modes(n);
        std::int32_t* w = modes.mutable_data();
        for (std::size_t k = 0; k < c.keys.size(); ++k) {
            const keyframe& key = c.keys[k];
            f[0][k] = key.time;
            f[1][k] = key.value;
            f[2][k] = key.in_tangent;
            f[3][k] = key.out_tangent;
            f[4][k] = key.in_weight;
            f[5][k] = key.out_weight;
            w[k] = key.weighted_mode;
        }
        curves.append(py::make_tuple(c.pre_wrap, c.post_wrap, fields[0], fields[1], fields[2],
                                     fields[3], fields[4], fields[5], modes));
    }
    py::object markers = py::none();
    if (m.markers) {
        py::list list;
        for (const marker& mk : *m.markers) {
            py::object name = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
                mk.name.data(), static_cast<Py_ssize_t>(mk.name.size()), "surrogateescape"));
            if (!name) throw py::error_already_set();
            list.append(py::make_tuple(mk.time, name));
        }
        markers = list;
    }
    const file_header h = header_of(m);
    return py::make_tuple(
        text(version_name(edition::v1, m.major, m.minor)), text(layout_name(h.layout)),
        py::make_tuple(h.blocks.camera, h.blocks.hands, h.blocks.gaze), curves, markers);
}

void bind_model(py::module_& m) {
    m.def("write_model", &write_model, py::arg("model"), py::arg("path"), py::arg("inputs"));
    m.def("thin_model", &thin_model, py::arg("model"));
    m.def("import_file", &import_file, py::arg("path"), py::arg("format"), py::arg("limits"),
          py::arg("folder"));
    m.def("import_buffer", &import_buffer, py::arg("data"), py::arg("format"), py::arg("limits"));
}

}  // namespace inputanim::python
