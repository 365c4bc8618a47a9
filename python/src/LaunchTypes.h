//===- LaunchTypes.h - kernel[grid] as CPython types ------------*- C++ -*-===//
//
// Part of tilelang. The two C types behind `kernel[grid](...)`:
// `Subscriptable`, JITFunction's base, whose subscript makes a
// `BoundLaunch` without a Python frame, and `BoundLaunch`, a vectorcall
// object holding the grid and the function's Dispatcher.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_LAUNCHTYPES_H
#define TILELANG_PYTHON_LAUNCHTYPES_H

#include <pybind11/pybind11.h>

namespace tilelang::python {

/// Adds `Subscriptable` (JITFunction's C base: `kernel[grid]` without a
/// Python frame, once `_set_dispatcher` was called; before that it calls
/// the instance's `_subscript_slow(grid)`) and `BoundLaunch` (what
/// `kernel[grid]` returns: a vectorcall object that launches) to `module`.
void addLaunchTypes(pybind11::module_ &module);

} // namespace tilelang::python

#endif // TILELANG_PYTHON_LAUNCHTYPES_H
