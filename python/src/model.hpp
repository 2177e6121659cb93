// The writer's model (inputanim/writer.hpp) as Python's inputanim.Model holds it: a tuple of
// plain values and numpy arrays, which the package wraps (python/inputanim/model.py).
#pragma once

#include <pybind11/pybind11.h>

#include "inputanim/writer.hpp"

namespace inputanim::python {

namespace py = pybind11;

// (version, layout, blocks, curves, markers): version "1.0" or "1.1"; layout "compact" or
// "full"; blocks (camera, hands, gaze) as bools; curves, one per curve id in id order, each
// (pre_wrap, post_wrap, times, values, in_tangents, out_tangents, in_weights, out_weights,
// weighted_modes), new '<f4' arrays and an '<i4' one (a bool curve's tangents, weights and modes
// are MRTK's 0, 0, 0, 0, 3); markers None (no marker list) or a list of (time, name), each name
// decoded from UTF-8 with surrogate escapes, so that any bytes come back as they were.
py::tuple model_tuple(const model& m);

}  // namespace inputanim::python
