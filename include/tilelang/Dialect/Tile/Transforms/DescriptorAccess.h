//===- DescriptorAccess.h - descriptor blocks as pointer tensors -*- C++ -*-===//
//
// Part of tilelang. Rewrites block loads and stores through tensor
// descriptors into masked loads and stores on tensors of pointers, before
// layouts exist (tile-expand-tensor-descriptors) or with the layout of the
// access (what tilegpu-pipeline does not copy in bulk).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_TRANSFORMS_DESCRIPTORACCESS_H
#define TILELANG_DIALECT_TILE_TRANSFORMS_DESCRIPTORACCESS_H

#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "llvm/ADT/SmallVector.h"

namespace tilelang::tile {

/// The layouts an expansion gives the tensors it builds: `block` for the
/// block-shaped ones, `vectors[d]` for the 1-D ones along dimension d (a
/// slice of `block`). Without layouts, tensors have none.
struct DescriptorAccessLayouts {
  mlir::Attribute block;
  llvm::SmallVector<mlir::Attribute> vectors;
};

/// The op that made the descriptor `desc`; an error at `user` when it cannot
/// be seen (a descriptor selected at run time).
mlir::FailureOr<MakeTensorDescOp> getTensorDescriptor(mlir::Operation *user,
                                                      mlir::Value desc);

/// Replaces the descriptor_load or descriptor_store `access` by a tile.load
/// (reading zero outside the tensor) or tile.store (masked to the tensor) on
/// the block's pointers; fails with an error at `access`.
mlir::LogicalResult
expandDescriptorAccess(mlir::Operation *access,
                       const DescriptorAccessLayouts *layouts = nullptr);

} // namespace tilelang::tile

#endif // TILELANG_DIALECT_TILE_TRANSFORMS_DESCRIPTORACCESS_H
