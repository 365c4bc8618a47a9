//===- tilelang-opt.cpp - tilelang's mlir-opt -----------------------------===//
//
// Part of tilelang. Parses, verifies, transforms and prints IR containing
// tilelang's dialects; the driver of every lit test of a pass or an op.
// A crash inside becomes an error message and exit status 1, not a signal;
// input MLIR's parser is known to crash on is refused before it parses
// (tilelang/Support/ParserGuard.h).
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

#include "tilelang/InitAllDialects.h"
#include "tilelang/Support/ParserGuard.h"
#include "tilelang/InitAllPasses.h"

/// The input file of the command line (the first argument that is not an
/// option or an option's value), if one is named; standard input is not
/// looked at.
static std::optional<std::string> inputPath(int argc, char **argv) {
  for (int index = 1; index < argc; ++index) {
    llvm::StringRef arg = argv[index];
    if (arg == "-o") {
      ++index;
      continue;
    }
    if (arg.starts_with("-"))
      continue;
    return arg.str();
  }
  return std::nullopt;
}

int main(int argc, char **argv) {
  // Input MLIR's parser would crash on is refused before it parses.
  if (std::optional<std::string> path = inputPath(argc, argv)) {
    if (auto buffer = llvm::MemoryBuffer::getFile(*path)) {
      if (auto where = tilelang::findIndexDenseArray((*buffer)->getBuffer())) {
        llvm::errs() << *path << ":" << where->first << ":" << where->second
                     << ": error: " << tilelang::kIndexDenseArrayMessage
                     << "\n";
        return 1;
      }
    }
  }
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
