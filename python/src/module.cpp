// inputanim._core: the C++ side of the Python package. Names become bytes only through the
// library's front door (input.hpp). Curves are numpy views over the bytes of the mapping (or of
// the copy); every work that walks many bytes (validation, sampling, indexing) runs without the
// GIL and under the mapping's guard. The objects are immutable once built, so several Python
// threads may use them at once.
//
// Each concern binds its own names (bind.hpp); here is what belongs to the module as a whole: its
// docstring and how the sources' I/O failures become OSError.
#include <pybind11/pybind11.h>

#include <exception>

#include "bind.hpp"
#include "source.hpp"
#include "values.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
    using namespace inputanim::python;
    m.doc() = "The C++ core of inputanim; use the inputanim package.";

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const os_failure& f) {
            py::object exc = py::reinterpret_borrow<py::object>(PyExc_OSError)(
                f.code.value(), f.code.message(), name_text(f.path));
            PyErr_SetObject(PyExc_OSError, exc.ptr());
        }
    });

    bind_recording(m);
    bind_open(m);
    bind_validate(m);
    bind_index(m);
    bind_limits(m);
    bind_events(m);
    bind_model(m);
    bind_diff(m);
}
