//===- TorchAutograd.h - C++ autograd nodes for tilelang.ops ----*- C++ -*-===//
//
// Part of tilelang. The part of tilelang._C_torch that records tilelang.ops'
// backwards as C++ autograd nodes (TorchAutograd.cpp; docs/ops.md, "The C++
// backward"): `BackwardPlan`, `record`, `ForwardPlan`, `forward`,
// `ForwardTable` and `eager_forward`, added to the module at import.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_TORCHAUTOGRAD_H
#define TILELANG_PYTHON_TORCHAUTOGRAD_H

#include <Python.h>

namespace tilelang::python {

/// Adds the nodes' classes and functions to `module`; false with a Python
/// error set when that fails.
bool addTorchAutograd(PyObject *module);

} // namespace tilelang::python

#endif // TILELANG_PYTHON_TORCHAUTOGRAD_H
