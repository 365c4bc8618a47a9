//===- TileGPUDialect.h - the tilegpu dialect -------------------*- C++ -*-===//
//
// Part of tilelang. Declares the tilegpu dialect, its layout encodings and
// its types, and helpers to query layouts.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H
#define TILELANG_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/TensorEncoding.h"

#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.h.inc"

#include "tilelang/Dialect/TileGPU/IR/TileGPUAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilelang/Dialect/TileGPU/IR/TileGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilelang/Dialect/TileGPU/IR/TileGPUTypes.h.inc"

namespace tilelang::tilegpu {

/// Shared memory of the CTA: the resource of local_* ops and async copies.
struct SharedMemory : public mlir::SideEffects::Resource::Base<SharedMemory> {
  llvm::StringRef getName() final { return "<SharedMemory>"; }
};

/// The distributed layout of a tensor type, or null if it has none.
DistributedEncodingAttr getDistributedEncoding(mlir::Type type);

/// Warps per CTA a distributed layout uses (the product over dimensions).
unsigned getNumWarps(DistributedEncodingAttr layout);

/// The module's `tilegpu.num_warps`, or std::nullopt if it is not set.
std::optional<unsigned> getNumWarps(mlir::ModuleOp module);

/// The `tilegpu.tma` encoding recorded on the tensor map `map`, a function
/// argument; null when `map` is not one or has none.
TensorMapEncodingAttr getTensorMapEncoding(mlir::Value map);

} // namespace tilelang::tilegpu

#endif // TILELANG_DIALECT_TILEGPU_IR_TILEGPUDIALECT_H
