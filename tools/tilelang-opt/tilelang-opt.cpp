//===- tilelang-opt.cpp - tilelang's mlir-opt -----------------------------===//
//
// Part of tilelang. Parses, verifies, transforms and prints IR containing
// tilelang's dialects; the driver of every lit test of a pass or an op.
// A crash inside (MLIR's parser has known ones on malformed attributes)
// becomes an error message and exit status 1, not a signal.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

#include "tilelang/InitAllDialects.h"
#include "tilelang/InitAllPasses.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilelang::registerAllDialects(registry);
  tilelang::registerAllPasses();
  int status = 1;
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  bool completed = recovery.RunSafely([&] {
    status = mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, "tilelang optimizer driver\n", registry));
  });
  if (!completed) {
    llvm::errs() << "tilelang-opt: error: internal compiler error: crashed "
                    "while processing the input (please report it with the "
                    "input that caused it)\n";
    return 1;
  }
  return status;
}
