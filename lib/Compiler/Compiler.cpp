//===- Compiler.cpp - the public API of libtilelang -----------------------===//
//
// Part of tilelang. Implements runPipeline: parse tile IR text, verify it,
// run a textual pass pipeline and print the result, turning every problem
// into a located diagnostic.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Compiler/Compiler.h"

#include "DiagnosticCapture.h"
#include "tilelang/InitAllDialects.h"
#include "tilelang/InitAllPasses.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace tilelang {

/// Registers the passes once per process: registration is global state.
static void ensurePassesRegistered() {
  static std::once_flag once;
  std::call_once(once, [] { registerAllPasses(); });
}

PipelineResult runPipeline(const std::string &source,
                           const PipelineOptions &options) {
  ensurePassesRegistered();
  PipelineResult result;

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // The located message is what users act on; a dump of the op in generic
  // form would only bury it.
  context.printOpOnDiagnostic(false);
  DiagnosticCapture capture(context, result.diagnostics);

  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, options.sourceName),
      llvm::SMLoc());
  ParserConfig parserConfig(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, parserConfig);
  if (!module || capture.hadError())
    return result;

  PassManager passManager(&context, ModuleOp::getOperationName());
  passManager.enableVerifier(options.verifyEachPass);
  if (!options.pipeline.empty()) {
    std::string pipelineErrors;
    llvm::raw_string_ostream errorStream(pipelineErrors);
    if (failed(parsePassPipeline(options.pipeline, passManager,
                                 errorStream))) {
      Diagnostic diagnostic;
      diagnostic.file = "<pass-pipeline>";
      diagnostic.message = "invalid pass pipeline '" + options.pipeline +
                           "': " + llvm::StringRef(pipelineErrors).trim().str();
      result.diagnostics.push_back(std::move(diagnostic));
      return result;
    }
  }
  if (failed(passManager.run(*module)) || capture.hadError())
    return result;

  OpPrintingFlags printingFlags;
  if (options.printGenericForm)
    printingFlags.printGenericOpForm();
  if (options.printLocations)
    printingFlags.enableDebugInfo();
  llvm::raw_string_ostream os(result.output);
  module->print(os, printingFlags);
  os << '\n'; // as tilelang-opt prints it
  result.success = true;
  return result;
}

std::string getVersion() {
  return "0.1.0 (LLVM " LLVM_VERSION_STRING ")";
}

} // namespace tilelang
