//===- Passes.h - tilegpu transformation passes -----------------*- C++ -*-===//
//
// Part of tilelang. Declares and registers the tilegpu passes.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
#define TILELANG_DIALECT_TILEGPU_TRANSFORMS_PASSES_H

#include "tilelang/Support/LaunchDefaults.h"

#include "mlir/Pass/Pass.h"

namespace tilelang::tilegpu {

#define GEN_PASS_DECL
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h.inc"

} // namespace tilelang::tilegpu

#endif // TILELANG_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
