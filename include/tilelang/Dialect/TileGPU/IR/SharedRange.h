//===- SharedRange.h - the shared bytes an access may touch -----*- C++ -*-===//
//
// Part of tilelang. The `tilegpu.shared_range` attribute: on an LLVM-level
// access to the kernel's dynamic shared memory (llvm.load, llvm.store, or
// the inline assembly of a predicated shared store), the bytes [begin, end)
// of that array it may touch, where the lowering of a tilegpu op knows them
// (the op's scratch space, placed by the shared-memory allocation). An
// access without it may touch any byte. tilelang-remove-redundant-barriers
// reads it: accesses to disjoint bytes never conflict.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_IR_SHAREDRANGE_H
#define TILELANG_DIALECT_TILEGPU_IR_SHAREDRANGE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <utility>

namespace tilelang::tilegpu {

/// The attribute's name (an array of two i64: begin, end).
inline constexpr llvm::StringLiteral kSharedRangeAttrName =
    "tilegpu.shared_range";

/// Records that `op` touches only the shared bytes [begin, end).
inline void setSharedRange(mlir::Operation *op, int64_t begin, int64_t end) {
  op->setAttr(kSharedRangeAttrName,
              mlir::DenseI64ArrayAttr::get(op->getContext(), {begin, end}));
}

/// The bytes [begin, end) recorded on `op`, none when it has no record.
inline std::optional<std::pair<int64_t, int64_t>>
getSharedRange(mlir::Operation *op) {
  auto range = op->getAttrOfType<mlir::DenseI64ArrayAttr>(kSharedRangeAttrName);
  if (!range || range.size() != 2)
    return std::nullopt;
  return std::make_pair(range[0], range[1]);
}

} // namespace tilelang::tilegpu

#endif // TILELANG_DIALECT_TILEGPU_IR_SHAREDRANGE_H
