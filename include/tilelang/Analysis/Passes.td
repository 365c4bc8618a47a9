//===- Passes.td - analysis test passes --------------------*- tablegen -*-===//
//
// Part of tilelang. Passes that print analysis results, for lit tests.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_ANALYSIS_PASSES_TD
#define TILELANG_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TestPrintAxisInfo : Pass<"test-print-axis-info", "mlir::ModuleOp"> {
  let summary = "Report the axis info of every integer or pointer result";
  let description = [{
    Emits a remark on every op whose first result is an integer or pointer
    (scalar or tensor) with the contiguity, divisibility and constancy the
    axis-info analysis found, for checking with -verify-diagnostics.
  }];
}

#endif // TILELANG_ANALYSIS_PASSES_TD
