//===- TorchBridge.cpp - the tilelang._C_torch extension ------------------===//
//
// Part of tilelang. Built only where torch's C++ headers are found (see
// python/CMakeLists.txt), against that torch. It exports one capsule, the
// TorchBridgeApi of TorchBridge.h, through which the launch fast path of
// `tilelang._C` reads a tensor's address, dtype and device and torch's
// current stream without calling Python: what `tensor.data_ptr()`,
// `tensor.dtype`, `tensor.is_cuda` and `torch._C._cuda_getCurrentRawStream`
// compute, minus the Python calls around them.
//
//===----------------------------------------------------------------------===//

#include "TorchBridge.h"
#include "TorchAutograd.h"

#include <ATen/PythonTorchFunctionTLS.h>
#include <torch/csrc/DynamicTypes.h>
#include <torch/csrc/autograd/python_variable.h>

#ifdef TILELANG_TORCH_BRIDGE_CUDA
#include <c10/cuda/CUDAStream.h>
#endif

namespace {

using tilelang::python::TorchBridgeApi;

bool readTensor(PyObject *object, std::uint64_t *pointer, PyObject **dtype,
                bool *isCuda) {
  // Subclasses may override data_ptr and friends in Python, and an active
  // torch-function mode sees every tensor method call: both go through
  // Python, as `tensor.data_ptr()` would.
  if (!THPVariable_CheckExact(object) ||
      at::impl::torch_function_mode_enabled())
    return false;
  const at::Tensor &tensor = THPVariable_Unpack(object);
  try {
    // data_ptr() as Python's: the mutable pointer (materializes a lazily
    // copied storage), with the storage offset applied.
    *pointer = reinterpret_cast<std::uintptr_t>(tensor.data_ptr());
    *isCuda = tensor.is_cuda();
    *dtype =
        reinterpret_cast<PyObject *>(torch::getTHPDtype(tensor.scalar_type()));
  } catch (const std::exception &) {
    // No storage (meta, fake or functional tensors): Python raises torch's
    // own error for them.
    return false;
  }
  return *dtype != nullptr;
}

#ifdef TILELANG_TORCH_BRIDGE_CUDA
bool currentStream(std::uintptr_t *stream) {
  try {
    *stream = reinterpret_cast<std::uintptr_t>(
        c10::cuda::getCurrentCUDAStream(-1).stream());
  } catch (const std::exception &) {
    return false;
  }
  return true;
}
#endif

const TorchBridgeApi bridge = {
    tilelang::python::kTorchBridgeVersion,
    TILELANG_TORCH_VERSION,
    &readTensor,
#ifdef TILELANG_TORCH_BRIDGE_CUDA
    &currentStream,
#else
    nullptr,
#endif
};

PyModuleDef moduleDef = {
    PyModuleDef_HEAD_INIT,
    "_C_torch",
    "tilelang's bridge to torch's C++ tensors (launch fast path).",
    -1,
    nullptr,
};

} // namespace

PyMODINIT_FUNC PyInit__C_torch() {
  PyObject *module = PyModule_Create(&moduleDef);
  if (!module)
    return nullptr;
  PyObject *capsule =
      PyCapsule_New(const_cast<TorchBridgeApi *>(&bridge),
                    tilelang::python::kTorchBridgeCapsule, nullptr);
  if (!capsule || PyModule_AddObject(module, "api", capsule) < 0 ||
      PyModule_AddStringConstant(module, "torch_version",
                                 TILELANG_TORCH_VERSION) < 0) {
    Py_XDECREF(capsule);
    Py_DECREF(module);
    return nullptr;
  }
  // The C++ autograd nodes of tilelang.ops (TorchAutograd.h).
  if (!tilelang::python::addTorchAutograd(module)) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
