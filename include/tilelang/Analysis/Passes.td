//===- Passes.td - analysis test passes --------------------*- tablegen -*-===//
//
// Part of tilelang. Test passes: passes that print analysis results, for lit
// tests, and one that crashes on purpose, for the crash-recovery tests.
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

def TestCrash : Pass<"test-crash", "mlir::ModuleOp"> {
  let summary = "Crash on purpose, holding memory, for crash-recovery tests";
  let description = [{
    Holds memory the ways a pass in the middle of its work does and then
    crashes, so that tests can check what a recovered compilation frees
    (test_recovery.py): `object-kb` kilobytes in the pass object,
    `frame-kb` kilobytes in a local of runOnOperation, a copy of the module
    attached to nothing, and the cached dominance analysis. Then it raises
    SIGSEGV (`kind=segfault`) or reports an LLVM fatal error
    (`kind=fatal-error`). No pipeline of the compiler names it.
  }];
  let options = [
    Option<"kind", "kind", "std::string", /*default=*/"\"segfault\"",
           "How to crash: segfault or fatal-error">,
    Option<"objectKilobytes", "object-kb", "unsigned", /*default=*/"0",
           "Kilobytes held in the pass object">,
    Option<"frameKilobytes", "frame-kb", "unsigned", /*default=*/"0",
           "Kilobytes held in the frame of runOnOperation">,
  ];
}

#endif // TILELANG_ANALYSIS_PASSES_TD
