//===- DiagnosticCapture.h - MLIR diagnostics as API values -----*- C++ -*-===//
//
// Part of tilelang. Collects the diagnostics an MLIRContext emits into the
// MLIR-free tilelang::Diagnostic records that the library API returns.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_COMPILER_DIAGNOSTICCAPTURE_H
#define TILELANG_LIB_COMPILER_DIAGNOSTICCAPTURE_H

#include "tilelang/Compiler/Compiler.h"

#include "mlir/IR/Diagnostics.h"

namespace tilelang {

/// While alive, records every diagnostic of `context` (notes included) into
/// `sink` instead of printing it.
class DiagnosticCapture {
public:
  DiagnosticCapture(mlir::MLIRContext &context,
                    std::vector<Diagnostic> &sink);

  /// True when an error has been recorded.
  bool hadError() const { return errorSeen; }

private:
  void record(mlir::Diagnostic &diagnostic);

  std::vector<Diagnostic> &sink;
  bool errorSeen = false;
  mlir::ScopedDiagnosticHandler handler;
};

} // namespace tilelang

#endif // TILELANG_LIB_COMPILER_DIAGNOSTICCAPTURE_H
