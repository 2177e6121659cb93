#include "values.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bind.hpp"
#include "inputanim/detail/number_text.hpp"
#include "inputanim/reader.hpp"
#include "os/ceilings.hpp"
#include "os/text.hpp"
#include "report/report_json.hpp"

namespace inputanim::python {

namespace {

// A string as a line of the command's JSON holds it: each byte that is not part of well-formed
// UTF-8 replaced by U+FFFD as the JSON writer replaces it (index_row::json_text).
py::str written_text(const std::string& s) {
    if (tools::valid_utf8(s)) return text(s);
    const std::string line =
        nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return text(nlohmann::json::parse(line).get_ref<const std::string&>());
}

// A limit's value as `checked_with.limits` holds it: None (no limit) or an integer from 0 to the
// field's largest (bool refused, though Python makes it an int: True is no count). Raises
// ValueError naming the key.
std::optional<std::uint64_t> limit_value(const limit_field& field, const py::handle value) {
    if (value.is_none()) return std::nullopt;
    const auto refused = [&] {
        return py::value_error("limits['" + std::string(limit_name(field.kind)) +
                               "'] must be None or an integer from 0 to " +
                               std::to_string(field.largest) + ", not " +
                               py::cast<std::string>(py::repr(value)));
    };
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) throw refused();
    const py::int_ n = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
    if (!n) throw py::error_already_set();
    if (n < py::int_(0) || n > py::int_(field.largest)) throw refused();
    return py::cast<std::uint64_t>(n);
}

// The limits of a dict with the keys of `checked_with.limits` (the others refused), a key with
// None, or absent, setting none.
limits limits_of(const py::dict& values) {
    limits l;
    for (const auto& [key, value] : values) {
        if (!py::isinstance<py::str>(key)) {
            throw py::value_error("a limit's name must be a str, not " +
                                  py::cast<std::string>(py::repr(key)));
        }
        const std::string name = py::cast<std::string>(key);
        const std::optional<limit_kind> kind = parse_limit_name(name);
        if (!kind || *kind == limit_kind::none) {
            throw py::value_error("unknown limit '" + name + "'");
        }
        const limit_field& field = limit_fields[static_cast<std::size_t>(*kind) - 1];
        if (const std::optional<std::uint64_t> v = limit_value(field, value)) field.set(l, *v);
    }
    return l;
}

py::dict upload_limits_dict() {
    const limits l = upload_limits();
    py::dict d;
    for (const limit_field& field : limit_fields) d[py::str(limit_name(field.kind))] = field.get(l);
    return d;
}

}  // namespace

py::str name_text(std::string_view name) {
    return py::reinterpret_steal<py::str>(
        PyUnicode_DecodeFSDefaultAndSize(name.data(), static_cast<Py_ssize_t>(name.size())));
}

std::string path_of(const py::handle name) {
    if (!py::isinstance<py::bytes>(name)) {
        throw py::type_error("a path reaches the core as bytes, not " +
                             py::cast<std::string>(py::repr(py::type::of(name))));
    }
    return py::cast<std::string>(name);
}

std::string number_text(double v) {
    return inputanim::detail::number_text(v);
}

py::str text(std::string_view s) {
    return py::reinterpret_steal<py::str>(
        PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

py::object to_python(const nlohmann::json& j, bool written) {
    switch (j.type()) {
        case nlohmann::json::value_t::null:
            return py::none();
        case nlohmann::json::value_t::boolean:
            return py::bool_(j.get<bool>());
        case nlohmann::json::value_t::number_integer:
            return py::int_(j.get<std::int64_t>());
        case nlohmann::json::value_t::number_unsigned:
            return py::int_(j.get<std::uint64_t>());
        case nlohmann::json::value_t::number_float:
            return py::float_(j.get<double>());
        case nlohmann::json::value_t::string:
            return written ? written_text(j.get_ref<const std::string&>())
                           : text(j.get_ref<const std::string&>());
        case nlohmann::json::value_t::array: {
            py::list l;
            for (const nlohmann::json& v : j) l.append(to_python(v, written));
            return l;
        }
        case nlohmann::json::value_t::object: {
            py::dict d;
            for (const auto& [key, value] : j.items()) {
                d[written ? written_text(key) : text(key)] = to_python(value, written);
            }
            return d;
        }
        default:
            return py::none();
    }
}

py::dict error_dict(const error& e) {
    return py::dict(to_python(tools::error_json(e)));
}

py::list warning_list(const report& rep) {
    py::list l;
    for (const warning& w : rep.warnings()) l.append(to_python(tools::warning_json(w)));
    return l;
}

layout_choice layout_named(const std::string& name) {
    if (const auto choice = parse_layout_choice_name(name)) return *choice;
    throw py::value_error(
        "layout must be 'auto', 'compact', 'full', '2019-06' or '2019-05', not '" + name + "'");
}

event_kind event_kind_named(const std::string& name) {
    if (const auto kind = parse_event_kind_name(name)) return *kind;
    // Every kind's name, in the enumeration's order, up to the first value that names none.
    std::vector<std::string> kinds;
    for (unsigned v = 0; parse_event_kind_name(event_kind_name(static_cast<event_kind>(v))); ++v) {
        kinds.push_back("'" + std::string(event_kind_name(static_cast<event_kind>(v))) + "'");
    }
    std::string listed;
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        listed += (i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + kinds[i];
    }
    throw py::value_error("kind must be " + listed + ", not '" + name + "'");
}

validate_options options_of(const std::string& level_name, const std::string& layout_name,
                            const py::dict& limit_values, unsigned threads) {
    validate_options o;
    const std::optional<level> parsed = parse_level_name(level_name);
    if (!parsed) {
        throw py::value_error("level must be 'structure' or 'full', not '" + level_name + "'");
    }
    o.level = *parsed;
    o.layout = layout_named(layout_name);
    o.threads = threads;
    o.limits = limits_of(limit_values);
    return o;
}

void bind_limits(py::module_& m) {
    m.def("upload_limits", &upload_limits_dict);
    m.def(
        "check_limits", [](const py::dict& values) { limits_of(values); }, py::arg("limits"));
    m.attr("MAX_THREADS") = tools::max_threads;
    m.attr("DEFAULT_MAX_ROWS") = tools::default_max_rows;
}

}  // namespace inputanim::python
