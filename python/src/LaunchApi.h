//===- LaunchApi.h - tilelang._C's launcher for other extensions -*- C++
//-*-===//
//
// Part of tilelang. The table of functions that `tilelang._C` hands to
// other extensions in a capsule, so that C++ outside it (the autograd nodes
// of tilelang._C_torch, TorchAutograd.cpp) launches a loaded kernel without
// Python: the runtime kernel of a `_C.Kernel` on a device, resolved once
// with the GIL held, then launches with parameters packed by the caller.
// Plain C types only: the two extensions are built with different C++
// standard libraries' ABIs (torch's and the default).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_LAUNCHAPI_H
#define TILELANG_PYTHON_LAUNCHAPI_H

#include <Python.h>

#include <cstddef>
#include <cstdint>

namespace tilelang::python {

/// The capsule's name: `tilelang._C.launch_api`.
inline constexpr const char *kLaunchApiCapsule = "tilelang._C.launch_api";

/// Bumped whenever the table's layout changes.
inline constexpr unsigned kLaunchApiVersion = 1;

/// The most 8-byte parameter slots a launch has: what tilelang._C packs
/// (PackedLaunch) and what a caller of `launch` passes.
inline constexpr std::size_t kMaxLaunchParams = 192;

struct LaunchApi {
  unsigned version;
  /// The runtime kernel (an opaque handle) of `kernel`, a `_C.Kernel`, on
  /// device `device` (-1: the device it was loaded on), loading it there
  /// first if it is not; null with a Python error set otherwise. Called
  /// with the GIL held. The handle lives as long as `kernel` does.
  const void *(*loadedKernel)(PyObject *kernel, int device);
  /// Launches `loaded` on `stream` with grid `dims` and `params` (pointers
  /// to each parameter's value, as cuLaunchKernel takes them); returns
  /// false and writes the driver's message into `message` (`size` bytes)
  /// when it fails. Needs no GIL; an empty grid launches nothing.
  bool (*launch)(const void *loaded, const unsigned dims[3],
                 std::uintptr_t stream, void **params, char *message,
                 std::size_t size);
  /// torch's current stream on device `device` (-1: the current one), as a
  /// launch from Python would take it; for callers built without CUDA's
  /// headers. Takes the GIL; false with `message` written on failure.
  bool (*currentStream)(int device, std::uintptr_t *stream, char *message,
                        std::size_t size);
};

/// The capsule holding this process's LaunchApi (a new reference).
PyObject *makeLaunchApiCapsule();

} // namespace tilelang::python

#endif // TILELANG_PYTHON_LAUNCHAPI_H
