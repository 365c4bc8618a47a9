//===- Passes.h - tilelang conversion passes --------------------*- C++ -*-===//
//
// Part of tilelang. Declares and registers the conversion passes
// (include/tilelang/Conversion/Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_PASSES_H
#define TILELANG_CONVERSION_PASSES_H

#include "tilelang/Support/LaunchDefaults.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace tilelang {

#define GEN_PASS_DECL
#include "tilelang/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilelang/Conversion/Passes.h.inc"

} // namespace tilelang

#endif // TILELANG_CONVERSION_PASSES_H
