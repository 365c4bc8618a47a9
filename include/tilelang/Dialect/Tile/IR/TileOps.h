//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//
//
// Part of tilelang. Declares the tile ops, their enum attributes and the
// memory resources their side effects name.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEOPS_H
#define TILELANG_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilelang/Dialect/Tile/IR/TileDialect.h"

#include "tilelang/Dialect/Tile/IR/TileEnums.h.inc"

namespace tilelang::tile {

/// Device global memory: what loads, stores and atomics read and write.
struct GlobalMemory
    : public mlir::SideEffects::Resource::Base<GlobalMemory> {
  llvm::StringRef getName() final { return "<GlobalMemory>"; }
};

/// The device's printf stream, written by print and assert; a separate
/// resource so that debugging output never orders memory accesses.
struct DebugStream : public mlir::SideEffects::Resource::Base<DebugStream> {
  llvm::StringRef getName() final { return "<DebugStream>"; }
};

/// What the program promises about its values: written by tile.assume and
/// tile.hint, read by nothing, so that the promises stay until lowered.
struct Promises : public mlir::SideEffects::Resource::Base<Promises> {
  llvm::StringRef getName() final { return "<Promises>"; }
};

} // namespace tilelang::tile

#define GET_OP_CLASSES
#include "tilelang/Dialect/Tile/IR/TileOps.h.inc"

#endif // TILELANG_DIALECT_TILE_IR_TILEOPS_H
