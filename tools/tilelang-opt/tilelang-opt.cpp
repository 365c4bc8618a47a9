//===- tilelang-opt.cpp - tilelang's mlir-opt -----------------------------===//
//
// Part of tilelang. Parses, verifies, transforms and prints IR containing
// tilelang's dialects; the driver of every lit test of a pass or an op.
// A crash inside becomes an error message and exit status 1, not a signal;
// input MLIR's parser is known to crash on is refused before it parses
// (tilelang/Support/ParserGuard.h), whether it comes from a file or from
// standard input: the driver reads the input itself and hands MLIR's the
// buffer. A crash outside that (before or after the input is processed)
// prints a stack dump, as in every LLVM tool (llvm::InitLLVM).
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <memory>
#include <string>

#include "tilelang/InitAllDialects.h"
#include "tilelang/Support/ParserGuard.h"
#include "tilelang/InitAllPasses.h"

int main(int argc, char **argv) {
  // What every LLVM tool's main sets up first (mlir-opt's too, inside the
  // MlirOptMain that takes argv): a stack dump, with the program's
  // arguments, of a crash outside the recovery context below, and
  // llvm_shutdown at exit.
  llvm::InitLLVM init(argc, argv);
  // Its crash report asks for a report to LLVM; the crash is tilelang's.
  llvm::setBugReportMsg("tilelang-opt: error: internal compiler error: "
                        "crashed (please report it with the input that "
                        "caused it and the stack dump below)\n");
  mlir::DialectRegistry registry;
  tilelang::registerAllDialects(registry);
  tilelang::registerAllPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "tilelang optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  int status = 1;
  llvm::CrashRecoveryContext::Enable();
  llvm::CrashRecoveryContext recovery;
  bool completed;
  if (config.shouldShowDialects() || config.shouldListPasses()) {
    // Nothing to read: MLIR's driver prints them (from the form without
    // argv, which would set up LLVM a second time).
    completed = recovery.RunSafely([&] {
      status = mlir::asMainReturnCode(
          mlir::MlirOptMain(llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""),
                            registry, config));
    });
  } else {
    // The input is read here, a file or standard input ("-") alike, so
    // that input MLIR's parser would crash on is refused before it parses,
    // with the position in the input's name ("<stdin>" for standard input).
    if (inputFilename == "-" &&
        llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
      llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d "
                      "to interrupt)\n";
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> input =
        mlir::openInputFile(inputFilename, &error);
    if (!input) {
      llvm::errs() << error << "\n";
      return 1;
    }
    if (auto where = tilelang::findIndexDenseArray(input->getBuffer())) {
      llvm::errs() << input->getBufferIdentifier() << ":" << where->first << ":"
                   << where->second
                   << ": error: " << tilelang::kIndexDenseArrayMessage << "\n";
      return 1;
    }
    std::unique_ptr<llvm::ToolOutputFile> output =
        mlir::openOutputFile(outputFilename, &error);
    if (!output) {
      llvm::errs() << error << "\n";
      return 1;
    }
    completed = recovery.RunSafely([&] {
      if (mlir::succeeded(mlir::MlirOptMain(output->os(), std::move(input),
                                            registry, config))) {
        output->keep();
        status = 0;
      }
    });
  }
  if (!completed) {
    llvm::errs() << "tilelang-opt: error: internal compiler error: crashed "
                    "while processing the input (please report it with the "
                    "input that caused it)\n";
    return 1;
  }
  return status;
}
