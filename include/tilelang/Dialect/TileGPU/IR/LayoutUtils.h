//===- LayoutUtils.h - building and measuring layouts -----------*- C++ -*-===//
//
// Part of tilelang. Builds blocked layouts for a shape and warp count, and
// answers how a layout covers a tensor: the CTA tile it repeats, and how
// many elements each thread holds.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_IR_LAYOUTUTILS_H
#define TILELANG_DIALECT_TILEGPU_IR_LAYOUTUTILS_H

#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.h"

namespace tilelang::tilegpu {

/// The compute capability a target names ("sm_90a" -> 90), 0 if it names
/// none; and that of a module's tilegpu.target.
unsigned getComputeCapability(llvm::StringRef target);
unsigned getComputeCapability(mlir::Operation *op);

/// A blocked layout for `shape` whose threads hold `sizePerThread` elements
/// each, with lanes and then warps spread over the dimensions in `order`
/// (fastest first) as far as the shape has room; what remains goes to the
/// slowest dimension, replicating elements when the tensor is small.
BlockedEncodingAttr getBlockedEncoding(mlir::MLIRContext *context,
                                       llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<unsigned> sizePerThread,
                                       llvm::ArrayRef<unsigned> order,
                                       unsigned numWarps);

/// The layout tile → tilegpu conversion gives a tensor before coalescing:
/// one element per thread, row-major (last dimension fastest).
BlockedEncodingAttr getDefaultBlockedEncoding(mlir::MLIRContext *context,
                                              llvm::ArrayRef<int64_t> shape,
                                              unsigned numWarps);

/// Elements one repetition of a blocked layout covers along each dimension:
/// sizePerThread * threadsPerWarp * warpsPerCTA.
llvm::SmallVector<unsigned> getShapePerCTATile(BlockedEncodingAttr layout);

/// How a tensor-core layout (an mma accumulator or a dot operand) repeats
/// over a tensor: one repetition covers `ctaTile` elements across the CTA,
/// of which each thread holds `perThread` along each dimension. Read off
/// the layout's LayoutMap (LayoutMap::getTile), where the fragments are
/// defined.
struct MmaV2Tile {
  llvm::SmallVector<unsigned> ctaTile;
  llvm::SmallVector<unsigned> perThread;
};
/// The tile of a 2-D mma version-2 layout or of its dot operand; nullopt
/// for other layouts.
std::optional<MmaV2Tile> getMmaV2Tile(mlir::Attribute layout);
/// The tile of a 2-D mma version-3 (wgmma) accumulator; nullopt for other
/// layouts.
std::optional<MmaV2Tile> getMmaV3Tile(mlir::Attribute layout);
/// The tile of wgmma's A operand in registers (#tilegpu.dot_op<opIdx = 0,
/// kWidth = 2> of a version-3 layout); nullopt for other layouts.
std::optional<MmaV2Tile> getWgmmaOperandTile(mlir::Attribute layout);

/// Elements of a row of a `rowLength`-element tile in `encoding` that one
/// column block holds: rows longer than a full swizzle pattern (`vec *
/// maxPhase` elements) are stored as column blocks of that width.
int64_t getSwizzleBlockLength(SharedEncodingAttr encoding, int64_t rowLength);

/// The shared layout that ldmatrix reads without bank conflicts: rows along
/// `order[0]`, 16-byte vectors XOR-swizzled so that any 8 consecutive rows
/// fall in distinct 16-byte bank groups (rows shorter than 128 bytes share
/// a phase).
SharedEncodingAttr getSwizzledSharedEncoding(mlir::MLIRContext *context,
                                             llvm::ArrayRef<int64_t> shape,
                                             llvm::ArrayRef<unsigned> order,
                                             unsigned elementBits);

/// Elements a thread holds along each dimension of a tensor of `shape`.
llvm::SmallVector<unsigned>
getElemsPerThread(DistributedEncodingAttr layout, llvm::ArrayRef<int64_t> shape);

/// Elements a thread holds of a tensor (1 for scalars).
unsigned getTotalElemsPerThread(mlir::Type type);

/// `layout` with its dimensions permuted: dimension i of the result is
/// dimension `permutation[i]` of `layout` (as tile.trans permutes shapes).
BlockedEncodingAttr permuteBlockedEncoding(BlockedEncodingAttr layout,
                                           llvm::ArrayRef<int32_t> permutation);

/// The type tilegpu.thread_reduce gives for `type` along `axis`: one
/// element per lane-and-warp position along the axis, in `type`'s blocked
/// layout with sizePerThread 1 there; failure when `type` is not blocked or
/// the layout's repetition does not divide the axis.
mlir::FailureOr<mlir::RankedTensorType>
getThreadPartialType(mlir::RankedTensorType type, unsigned axis);

/// `type` with `layout` as its encoding.
mlir::RankedTensorType withEncoding(mlir::RankedTensorType type,
                                    mlir::Attribute layout);

} // namespace tilelang::tilegpu

#endif // TILELANG_DIALECT_TILEGPU_IR_LAYOUTUTILS_H
