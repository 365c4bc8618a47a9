//===- tilelang-opt.cpp - tilelang's mlir-opt -----------------------------===//
//
// Part of tilelang. Parses, verifies, transforms and prints IR containing
// tilelang's dialects; the driver of every lit test of a pass or an op.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "tilelang/InitAllDialects.h"
#include "tilelang/InitAllPasses.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilelang::registerAllDialects(registry);
  tilelang::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tilelang optimizer driver\n", registry));
}
