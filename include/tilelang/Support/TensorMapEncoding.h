//===- TensorMapEncoding.h - a descriptor's TMA encoding --------*- C++ -*-===//
//
// Part of tilelang. What the compiler decides about a tensor descriptor
// argument's bulk copies and the runtime needs to encode its tensor map:
// the one type both sides share, so that neither header includes the other.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_SUPPORT_TENSORMAPENCODING_H
#define TILELANG_SUPPORT_TENSORMAPENCODING_H

#include <string>
#include <vector>

namespace tilelang {

/// How the launcher encodes the TMA tensor map of one tensor descriptor
/// argument for the kernel's bulk copies (cuTensorMapEncodeTiled).
struct TensorMapEncoding {
  /// A CUtensorMap's size and the alignment the copy engine needs (as the
  /// kernel parameter !tile.tensormap declares them).
  static constexpr unsigned kBytes = 128;
  static constexpr unsigned kAlignment = 64;

  /// Which descriptor argument: 0 for the kernel's first, and so on.
  unsigned descriptor = 0;
  /// Element type: "f16" or "bf16".
  std::string elementType;
  /// The box each copy moves, outermost dimension first.
  std::vector<unsigned> box;
  /// The swizzle span in bytes: 32, 64 or 128.
  unsigned swizzle = 0;
};

} // namespace tilelang

#endif // TILELANG_SUPPORT_TENSORMAPENCODING_H
