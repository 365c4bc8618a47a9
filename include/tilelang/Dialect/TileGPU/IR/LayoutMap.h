//===- LayoutMap.h - distributed layouts as maps of bits --------*- C++ -*-===//
//
// Part of tilelang. Describes where a distributed layout puts a tensor's
// elements as one map from (register, lane, warp) to tensor coordinates,
// so that questions about layouts (which lanes hold a dimension, whether two
// layouts place every element in the same thread) have one answer for every
// encoding.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_IR_LAYOUTMAP_H
#define TILELANG_DIALECT_TILEGPU_IR_LAYOUTMAP_H

#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tilelang::tilegpu {

/// A distributed layout of a tensor of power-of-two `shape` as a map that is
/// linear over bits: the element that register r of lane l of warp w holds
/// sits at the XOR of the bases of the bits set in r, l and w. Base i of a
/// kind is the coordinate input `1 << i` of that kind maps to (the others
/// 0); a zero base replicates (a lane or warp beyond the tensor, or a
/// register wrapping around a small tensor). Register r is the r-th element
/// of the thread's struct, in the order the lowering packs them.
///
/// This is the one description of each layout's fragment: element counts,
/// struct order, coordinates, tensor-core tiles and ldmatrix addresses are
/// all read off it.
///
/// Every base is a power of two along one dimension, and along each
/// dimension the bases of one repetition of the layout (its tile across the
/// CTA) are distinct and cover the tile; repetitions step whole tiles. So
/// XOR is also the sum: a coordinate is a thread-dependent start (the lane
/// and warp bases) plus a register-dependent constant (the register bases).
struct LayoutMap {
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<llvm::SmallVector<int64_t>> registers, lanes, warps;
  /// The index dimension each register bit steps along; a slice drops the
  /// register bits of its sliced dimension.
  llvm::SmallVector<unsigned> registerDims;

  /// The map of `layout` over `shape`; nullopt for layouts it cannot
  /// describe (shared encodings, shapes or layout parameters that are not
  /// powers of two).
  static std::optional<LayoutMap> get(mlir::Attribute layout,
                                      llvm::ArrayRef<int64_t> shape);
  /// The map of one repetition of `layout`: `shape` is the layout's tile
  /// across the CTA, the registers those of one tile. nullopt for slices
  /// and layouts get() cannot describe.
  static std::optional<LayoutMap> getTile(mlir::Attribute layout);

  unsigned getRank() const { return shape.size(); }
  unsigned getNumRegisters() const { return 1u << registers.size(); }
  /// The coordinates that register `reg` of lane `lane` of warp `warp`
  /// holds.
  llvm::SmallVector<int64_t> apply(unsigned reg, unsigned lane,
                                   unsigned warp) const;
  /// Registers a thread holds along each dimension (the product is
  /// getNumRegisters()).
  llvm::SmallVector<unsigned> getRegistersPerDim() const;
  /// Register `reg`'s index among the thread's elements along each
  /// dimension: its register bits along that dimension, lowest first.
  llvm::SmallVector<unsigned> getRegisterIndex(unsigned reg) const;
};

/// How the lanes and warps of a layout spread along one dimension: the
/// lane-id bits (and warp-id bits) whose bases step along `dim` and nowhere
/// else, as a count of distinct positions and the id stride between them.
/// Lanes and warps whose bases are 0 along `dim` hold the same data.
struct DimSpread {
  unsigned distinctLanes = 1;
  unsigned laneStride = 1;
  unsigned distinctWarps = 1;
  unsigned warpStride = 1;
};
/// The spread of `map` along `dim`; nullopt when the lane or warp bits along
/// `dim` are not contiguous or also step along another dimension, or when a
/// register replicates an element along `dim` (a reduction would count it
/// twice).
std::optional<DimSpread> getDimSpread(const LayoutMap &map, unsigned dim);

/// When every thread holds the same elements of a `shape` tensor under
/// `from` and under `to` (their lane and warp bases agree), the `from`
/// register of each `to` register: converting between them moves no data
/// between threads. nullopt otherwise.
std::optional<llvm::SmallVector<unsigned>>
getRegisterPermutation(mlir::Attribute from, mlir::Attribute to,
                       llvm::ArrayRef<int64_t> shape);

} // namespace tilelang::tilegpu

#endif // TILELANG_DIALECT_TILEGPU_IR_LAYOUTMAP_H
