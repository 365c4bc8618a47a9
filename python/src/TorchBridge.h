//===- TorchBridge.h - torch tensors without Python calls -------*- C++ -*-===//
//
// Part of tilelang. The table of functions that the optional extension
// `tilelang._C_torch` (TorchBridge.cpp, built only where torch's C++
// headers are found) hands to `tilelang._C` in a capsule. With it, the
// launch fast path reads a torch tensor's address, dtype and device and
// torch's current CUDA stream in C++, instead of through four Python calls
// per launch. This header includes no torch header: `_C` never links
// torch, and works the same (slower) without the bridge.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_TORCHBRIDGE_H
#define TILELANG_PYTHON_TORCHBRIDGE_H

#include <Python.h>

#include <cstdint>

namespace tilelang::python {

/// The capsule's name: `tilelang._C_torch.api`.
inline constexpr const char *kTorchBridgeCapsule = "tilelang._C_torch.api";

/// Bumped whenever the table's layout changes, so that a stale `_C_torch`
/// next to a newer `_C` is refused instead of misread.
inline constexpr unsigned kTorchBridgeVersion = 1;

struct TorchBridgeApi {
  unsigned version;
  /// The `torch.__version__` the bridge was compiled against: a bridge is
  /// used only under the same torch (the C++ layout of a tensor is not
  /// stable across releases).
  const char *torchVersion;
  /// For an exact `torch.Tensor` or `torch.nn.Parameter` (not a subclass,
  /// which may override `data_ptr`): sets `data_ptr()`, the `dtype` object
  /// (borrowed; the same object `tensor.dtype` returns) and `is_cuda`, and
  /// returns true. Returns false, with nothing set and no Python error, for
  /// anything else, and for tensors whose data cannot be read (no storage):
  /// the caller then asks through Python, which raises torch's own error.
  bool (*readTensor)(PyObject *object, std::uint64_t *pointer, PyObject **dtype,
                     bool *isCuda);
  /// torch's current stream on the current device, as
  /// `torch._C._cuda_getCurrentRawStream(-1)` gives it; null when the
  /// bridge was built without CUDA's headers (the caller asks Python).
  bool (*currentStream)(std::uintptr_t *stream);
};

} // namespace tilelang::python

#endif // TILELANG_PYTHON_TORCHBRIDGE_H
