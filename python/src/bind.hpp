// The parts of inputanim._core, one per concern: each binds its names into the module, and
// module.cpp calls them in turn.
#pragma once

#include <pybind11/pybind11.h>

namespace inputanim::python {

namespace py = pybind11;

// Curve, Recording and curve_paths (recording.cpp).
void bind_recording(py::module_& m);

// open, open_buffer, open_member and members (open.cpp).
void bind_open(py::module_& m);

// validate_name and validate_buffer (validate.cpp).
void bind_validate(py::module_& m);

// DatabaseError, list_files, index_paths, index_files, merge_index, output_is_input and the
// frame's columns, INDEX_COLUMNS and METRICS_COLUMNS (index.cpp).
void bind_index(py::module_& m);

// upload_limits, check_limits, MAX_THREADS and DEFAULT_MAX_ROWS (values.cpp).
void bind_limits(py::module_& m);

// event_columns (events.cpp).
void bind_events(py::module_& m);

// write_model, thin_model, import_file and import_buffer, inputanim.Model's core (model.cpp).
void bind_model(py::module_& m);

// compare, inputanim.diff's core (diff.cpp).
void bind_diff(py::module_& m);

}  // namespace inputanim::python
