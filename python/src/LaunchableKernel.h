//===- LaunchableKernel.h - a loaded kernel and its launch ------*- C++ -*-===//
//
// Part of tilelang. A LaunchableKernel is a loaded kernel plus how to pack
// each of its arguments, decided once per specialization. Launching one
// packs the arguments (ArgumentPacking.h), picks the device their memory
// is on, loads the kernel there if it is not yet, and calls the driver on
// torch's current stream of that device, with the GIL released.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_LAUNCHABLEKERNEL_H
#define TILELANG_PYTHON_LAUNCHABLEKERNEL_H

#include "tilelang/Runtime/Runtime.h"

#include <pybind11/pybind11.h>

#include <bitset>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilelang::python {

namespace py = pybind11;

/// The most arguments a kernel takes.
constexpr size_t kMaxArgs = 64;

/// A loaded kernel and its argument kinds: 'p' pointer (an int, or an
/// object with data_ptr() or __cuda_array_interface__), 'i'/'I' 32-bit and
/// 'l'/'L' 64-bit signed/unsigned integers, 'f' float, 'd' double, 'b' bool,
/// '1' to '5' a tensor descriptor of that rank (several kernel parameters).
///
/// A launch runs on the device its pointer arguments live on: `kernel` is
/// loaded on the device that was current when the image was loaded, and
/// the image is loaded again, once, into each other device a launch goes
/// to (`onDevice`).
struct LaunchableKernel {
  std::unique_ptr<runtime::Kernel> kernel;
  std::string argKinds;
  /// The parameter names, by argument (for messages; may be empty).
  std::vector<std::string> argNames;
  /// The loaded image, to load into other devices.
  std::string image;

  /// The kernel loaded on `device`, loading it there first if it is not
  /// (called with the GIL held, which serializes the loading).
  const runtime::Kernel &onDevice(int device) const;

  /// The name of argument `index`, quoted, for messages.
  std::string argumentName(size_t index) const;

  /// Loaded on devices other than `kernel`'s, by ordinal.
  mutable std::vector<std::unique_ptr<runtime::Kernel>> otherDevices;
  /// Per tensor descriptor argument (in order), how its tensor map is
  /// encoded for the kernel's bulk copies; none: the map stays zero.
  std::vector<std::optional<TensorMapEncoding>> tensorMaps;

  /// The last tensor map encoded for each descriptor argument and what it
  /// was encoded from: a launch with the same tensor copies it instead of
  /// calling the driver. (Used with the GIL held.)
  struct EncodedTensorMap {
    std::uint64_t base = 0;
    std::vector<std::int64_t> shape, strides;
    alignas(TensorMapEncoding::kAlignment) unsigned char
        bytes[TensorMapEncoding::kBytes];
  };
  mutable std::vector<std::optional<EncodedTensorMap>> encodedMaps;
};

/// The stream argument meaning "torch's current stream on the device the
/// launch runs on" (the default stream without torch).
constexpr std::uintptr_t kDeviceStream = ~std::uintptr_t(0);

/// Launches `kernel` on `stream` (or kDeviceStream) with `args` (one per
/// argument kind), on the device of its pointer arguments.
void launchWithArgs(const LaunchableKernel &kernel, py::handle grid,
                    std::uintptr_t stream, py::handle *args, size_t count);

/// The same, taking the pointer arguments marked in `known` from
/// `knownPointers` (the dispatcher read them while keying the call).
void launchWithKnownPointers(const LaunchableKernel &kernel, py::handle grid,
                             std::uintptr_t stream, py::handle *args,
                             size_t count, const std::uint64_t *knownPointers,
                             const std::bitset<kMaxArgs> &known);

/// Packs `args` once and calls cuLaunchKernel `launches` times from C++;
/// returns the seconds it took (the driver's share of a launch, for
/// benchmarks). With `releaseEach`, the GIL is released around each launch
/// (as kernel[grid] does) rather than once around the loop.
double timeLaunches(const LaunchableKernel &kernel, py::handle grid,
                    std::uintptr_t stream, py::handle *args, size_t count,
                    size_t launches, bool releaseEach = false);

} // namespace tilelang::python

#endif // TILELANG_PYTHON_LAUNCHABLEKERNEL_H
