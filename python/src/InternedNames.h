//===- InternedNames.h - attribute names the launcher reads -----*- C++ -*-===//
//
// Part of tilelang. The Python attribute names the launch path reads on
// every call (data_ptr, dtype, a descriptor's base and shape...), interned
// once per process so that each read is a lookup by pointer, not a string
// made and hashed. Header-only: the accessor is inline, and so costs no
// call on the per-argument path of the files that read them.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_INTERNEDNAMES_H
#define TILELANG_PYTHON_INTERNEDNAMES_H

#include <pybind11/pybind11.h>

namespace tilelang::python {

/// `text` as an interned Python string (a new, never released reference).
inline PyObject *internedName(const char *text) {
  PyObject *name = PyUnicode_InternFromString(text);
  if (!name)
    throw pybind11::error_already_set();
  return name;
}

/// The attribute names the launcher reads.
struct Names {
  PyObject *dataPtr = internedName("data_ptr");
  PyObject *dtype = internedName("dtype");
  PyObject *isCuda = internedName("is_cuda");
  PyObject *subscriptSlow = internedName("_subscript_slow");
  PyObject *base = internedName("base");
  PyObject *blockShape = internedName("block_shape");
  PyObject *shape = internedName("shape");
  PyObject *strides = internedName("strides");
  PyObject *padding = internedName("padding");
  PyObject *cudaArrayInterface = internedName("__cuda_array_interface__");
  /// Marks an error as the caller's: CALLERS_ERROR in tilelang/errors.py.
  PyObject *callersError = internedName("_tilelang_callers_error");
};

/// The names, interned on first use (with the GIL held).
inline const Names &names() {
  static const Names interned;
  return interned;
}

} // namespace tilelang::python

#endif // TILELANG_PYTHON_INTERNEDNAMES_H
