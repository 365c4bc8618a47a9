//===- Passes.h - analysis test passes --------------------------*- C++ -*-===//
//
// Part of tilelang. Declares and registers the test passes.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_ANALYSIS_PASSES_H
#define TILELANG_ANALYSIS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tilelang {

#define GEN_PASS_DECL
#include "tilelang/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilelang/Analysis/Passes.h.inc"

} // namespace tilelang

#endif // TILELANG_ANALYSIS_PASSES_H
