// Names, numbers and the command's JSON values as Python objects, and the validation options
// Python names (level, layout, limits), for every part of inputanim._core.
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/metrics.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::python {

namespace py = pybind11;

// File names cross into Python as os.fsdecode/os.fsencode do (PEP 383): a name that is not UTF-8
// becomes a str with surrogate escapes and comes back as the same bytes.
py::str name_text(std::string_view name);

// A path from the package: the bytes os.fsencode gave (str, with its surrogate escapes, would be
// encoded otherwise here: the package converts every path in one place).
std::string path_of(py::handle name);

// The shortest decimal that reads back as `v`, as the command writes numbers in messages.
std::string number_text(double v);

py::str text(std::string_view s);

// A JSON value of the command's reports (report_json.hpp) as Python objects: the dicts Python
// gives are the command's JSON, field for field, from the one definition. With `written`, strings
// are those of the value's JSON text (written_text).
py::object to_python(const nlohmann::json& j, bool written = false);

py::dict error_dict(const error& e);

py::list warning_list(const report& rep);

layout_choice layout_named(const std::string& name);

event_kind event_kind_named(const std::string& name);

validate_options options_of(const std::string& level_name, const std::string& layout_name,
                            const py::dict& limit_values, unsigned threads);

}  // namespace inputanim::python
