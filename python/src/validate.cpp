// validate(): a name or Python's bytes checked through the front door, into the fields of
// `inputanim validate --format json`.
#include <string>
#include <utility>

#include "bind.hpp"
#include "inputanim/input.hpp"
#include "inputanim/validate.hpp"
#include "report/report_json.hpp"
#include "source.hpp"
#include "values.hpp"

namespace inputanim::python {

namespace {

// What `inputanim validate --json` says of a checked input.
py::dict check_dict(py::object path, const file_check& c, const validate_options& how) {
    py::dict d;
    d["path"] = std::move(path);
    d.attr("update")(to_python(tools::report_json(c.rep, how, c.bytes, c.compressed_bytes)));
    return d;
}

file_check check_without_gil(input& in, const validate_options& o) {
    py::gil_scoped_release release;
    return validate_input(in, o);
}

py::dict validate_name(const py::bytes& path, const std::string& level_name,
                       const std::string& layout_name, const py::dict& limit_values,
                       unsigned threads) {
    const std::string name = path_of(path);
    const validate_options o = options_of(level_name, layout_name, limit_values, threads);
    file_check c;
    {
        py::gil_scoped_release release;
        c = validate_file(name, o);
    }
    if (c.io) throw os_failure{c.io, name};
    return check_dict(name_text(name), c, o);
}

py::dict validate_buffer(const py::buffer& data, const std::string& level_name,
                         const std::string& layout_name, const py::dict& limit_values,
                         unsigned threads) {
    const validate_options o = options_of(level_name, layout_name, limit_values, threads);
    opened s;
    {
        // Holds the buffer (and so its bytes) while they are copied.
        const py::buffer_info info = data.request();
        s = open_bytes(buffer_bytes(info));
    }
    const file_check c = check_without_gil(s.in, o);
    if (c.io) throw os_failure{c.io, s.path};
    return check_dict(py::str("-"), c, o);
}

}  // namespace

void bind_validate(py::module_& m) {
    m.def("validate_name", &validate_name, py::arg("path"), py::arg("level"), py::arg("layout"),
          py::arg("limits"), py::arg("threads"));
    m.def("validate_buffer", &validate_buffer, py::arg("data"), py::arg("level"), py::arg("layout"),
          py::arg("limits"), py::arg("threads"));
}

}  // namespace inputanim::python
