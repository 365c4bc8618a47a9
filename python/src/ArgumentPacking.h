//===- ArgumentPacking.h - arguments as kernel parameters -------*- C++ -*-===//
//
// Part of tilelang. Turns a launch's grid and Python arguments into the
// parameter block cuLaunchKernel reads, by the kernel's argument kinds:
// scalars range-checked into 8-byte slots, pointers read from tensors,
// arrays or ints, tensor descriptors expanded into a tensor map, a base,
// extents and strides. Errors name the argument by index.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PYTHON_ARGUMENTPACKING_H
#define TILELANG_PYTHON_ARGUMENTPACKING_H

#include "LaunchApi.h"
#include "LaunchableKernel.h"

#include <cstring>
#include <string>

namespace tilelang::python {

/// A launch's grid and kernel parameters, packed: every scalar parameter in
/// an 8-byte slot (the driver reads each at its size), each TMA tensor map
/// in 128 bytes aligned to 64; `params` points at them in parameter order.
struct PackedLaunch {
  static constexpr size_t kMaxParams = kMaxLaunchParams;
  static constexpr size_t kMaxTensorMaps = 16;
  static constexpr size_t kTensorMapBytes = TensorMapEncoding::kBytes;

  unsigned dims[3] = {1, 1, 1};
  size_t paramCount = 0;
  size_t tensorMapCount = 0;
  /// The addresses of the pointer arguments (and descriptor bases), with
  /// their argument indices: they say which device the launch runs on.
  size_t pointerCount = 0;
  struct PointerArgument {
    size_t index;
    std::uint64_t address;
  } pointers[kMaxArgs];

  void notePointer(size_t index, std::uint64_t address) {
    if (address != 0 && pointerCount < kMaxArgs)
      pointers[pointerCount++] = {index, address};
  }
  std::uint64_t storage[kMaxParams];
  void *params[kMaxParams];
  alignas(TensorMapEncoding::kAlignment) unsigned char
      tensorMaps[kMaxTensorMaps][kTensorMapBytes];

  /// The next 8-byte parameter slot, zeroed.
  std::uint64_t &nextSlot() {
    if (paramCount == kMaxParams)
      throw py::value_error("kernels take at most " +
                            std::to_string(kMaxParams) + " parameters");
    storage[paramCount] = 0;
    params[paramCount] = &storage[paramCount];
    return storage[paramCount++];
  }

  /// The next tensor map parameter, zeroed.
  unsigned char *nextTensorMap() {
    if (tensorMapCount == kMaxTensorMaps)
      throw py::value_error("kernels take at most " +
                            std::to_string(kMaxTensorMaps) +
                            " tensor descriptors");
    if (paramCount == kMaxParams)
      throw py::value_error("kernels take at most " +
                            std::to_string(kMaxParams) + " parameters");
    unsigned char *map = tensorMaps[tensorMapCount++];
    std::memset(map, 0, kTensorMapBytes);
    params[paramCount++] = map;
    return map;
  }

  /// Whether the grid has no block (a dimension of 0): the arguments are
  /// checked and packed, but nothing is launched, as in Triton (inputs
  /// with a batch of 0 rely on it).
  bool isEmptyGrid() const {
    return dims[0] == 0 || dims[1] == 0 || dims[2] == 0;
  }
};

/// Checks the argument count and grid and packs `args` by `kernel`'s
/// argument kinds; pointers marked `known` are taken from `knownPointers`.
void packLaunch(const LaunchableKernel &kernel, py::handle grid,
                py::handle *args, size_t count,
                const std::uint64_t *knownPointers,
                const std::bitset<kMaxArgs> &known, PackedLaunch &packed);

} // namespace tilelang::python

#endif // TILELANG_PYTHON_ARGUMENTPACKING_H
