//===- Passes.h - tile dialect transformation passes ------------*- C++ -*-===//
//
// Part of tilelang. Declares and registers the tile dialect's passes.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILELANG_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tilelang::tile {

#define GEN_PASS_DECL
#include "tilelang/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilelang/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace tilelang::tile

#endif // TILELANG_DIALECT_TILE_TRANSFORMS_PASSES_H
