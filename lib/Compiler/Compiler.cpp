//===- Compiler.cpp - the public API of libtilelang -----------------------===//
//
// Part of tilelang. Implements runPipeline (parse tile IR text, verify it,
// run a textual pass pipeline, print) and compile (tile IR -> tilegpu ->
// LLVM dialect -> PTX), turning every problem into a located diagnostic.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Compiler/Compiler.h"

#include "ArgumentWrites.h"
#include "DiagnosticCapture.h"
#include "Recovery.h"
#include "tilelang/Dialect/Tile/IR/TileOps.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.h"
#include "tilelang/Support/ParserGuard.h"
#include "tilelang/InitAllDialects.h"
#include "tilelang/InitAllPasses.h"
#include "tilelang/Pipelines/Pipelines.h"
#include "tilelang/Target/PTX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>

using namespace mlir;

namespace tilelang {

namespace {

/// Registers the passes once per process: registration is global state.
void ensurePassesRegistered() {
  static std::once_flag once;
  std::call_once(once, [] { registerAllPasses(); });
}

/// One compilation's context, diagnostics, parsed module and translation to
/// PTX: nearly all that a compilation allocates, owned in one place so that
/// runInSession can free it even when the compilation was recovered from a
/// crash or from running out of memory.
class Session {
public:
  explicit Session(std::vector<Diagnostic> &diagnostics)
      : context(makeRegistry(), MLIRContext::Threading::DISABLED),
        capture(context, diagnostics), diagnostics(diagnostics) {
    context.loadAllAvailableDialects();
    // The located message is what users act on; a dump of the op in
    // generic form would only bury it.
    context.printOpOnDiagnostic(false);
  }

  /// Parses and verifies `source` into `module`; null on failure.
  ModuleOp parse(const std::string &source, const std::string &sourceName) {
    if (auto where = findIndexDenseArray(source)) {
      Diagnostic diagnostic;
      diagnostic.file = sourceName;
      diagnostic.line = where->first;
      diagnostic.column = where->second;
      diagnostic.message = kIndexDenseArrayMessage;
      diagnostics.push_back(std::move(diagnostic));
      return nullptr;
    }
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, sourceName),
        llvm::SMLoc());
    ParserConfig config(&context);
    module = parseSourceFile<ModuleOp>(sourceMgr, config);
    if (!module || capture.hadError())
      return nullptr;
    return *module;
  }

  /// Runs `pm` on `module`; false (with diagnostics) on failure.
  bool run(PassManager &pm, ModuleOp module) {
    return succeeded(pm.run(module)) && !capture.hadError();
  }

  bool hadError() const { return capture.hadError(); }

  /// Adds an error that has no source location.
  void error(const std::string &file, const std::string &message) {
    Diagnostic diagnostic;
    diagnostic.file = file;
    diagnostic.message = message;
    diagnostics.push_back(std::move(diagnostic));
  }

  /// A new pass manager on the module, owned by the session: a recovery
  /// abandons the frame that would own it, and its passes, with whatever
  /// they keep in their objects, would stay allocated.
  PassManager &newPassManager() {
    passManagers.push_back(std::make_unique<PassManager>(
        &context, ModuleOp::getOperationName()));
    return *passManagers.back();
  }

  MLIRContext context;
  /// The module being compiled (destroyed before the context it lives in).
  OwningOpRef<ModuleOp> module;
  /// The LLVM state of the translation to PTX.
  PTXTranslator translator;
  /// The pass managers of newPassManager.
  std::vector<std::unique_ptr<PassManager>> passManagers;

private:
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerPTXTranslations(registry);
    return registry;
  }

  DiagnosticCapture capture;
  std::vector<Diagnostic> &diagnostics;
};

std::string print(ModuleOp module, const OpPrintingFlags &flags = {}) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, flags);
  os << '\n'; // as tilelang-opt prints it
  return text;
}

/// Runs `body` on a new session, recoverably (runRecoverably). The session
/// lives on the heap, owned here rather than by a frame of `body`: a
/// recovery abandons those frames without destructors, and the session,
/// with everything it holds, would stay allocated for the rest of the
/// process. Returns false if the compilation had to be recovered.
bool runInSession(std::vector<Diagnostic> &diagnostics,
                  llvm::function_ref<void(Session &)> body) {
  std::unique_ptr<Session> session;
  return runRecoverably(
      diagnostics,
      [&] {
        session = std::make_unique<Session>(diagnostics);
        body(*session);
        session.reset();
      },
      [&] { session.reset(); });
}

} // namespace

static void runPipelineImpl(Session &session, const std::string &source,
                            const PipelineOptions &options,
                            PipelineResult &result) {
  ModuleOp module = session.parse(source, options.sourceName);
  if (!module)
    return;

  PassManager &passManager = session.newPassManager();
  passManager.enableVerifier(options.verifyEachPass);
  if (!options.pipeline.empty()) {
    std::string pipelineErrors;
    llvm::raw_string_ostream errorStream(pipelineErrors);
    if (failed(parsePassPipeline(options.pipeline, passManager,
                                 errorStream))) {
      session.error("<pass-pipeline>",
                    "invalid pass pipeline '" + options.pipeline + "': " +
                        llvm::StringRef(pipelineErrors).trim().str());
      return;
    }
  }
  if (!session.run(passManager, module))
    return;

  OpPrintingFlags printingFlags;
  if (options.printGenericForm)
    printingFlags.printGenericOpForm();
  if (options.printLocations)
    printingFlags.enableDebugInfo();
  result.output = print(module, printingFlags);
  result.success = true;
}

PipelineResult runPipeline(const std::string &source,
                           const PipelineOptions &options) {
  ensurePassesRegistered();
  PipelineResult result;
  if (!runInSession(result.diagnostics, [&](Session &session) {
        runPipelineImpl(session, source, options, result);
      }))
    result.success = false;
  return result;
}

/// The module's one kernel: its only public func.func with a body; null
/// (after an error) when there is not exactly one.
static func::FuncOp findKernel(ModuleOp module) {
  SmallVector<func::FuncOp> kernels;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      kernels.push_back(func);
  if (kernels.size() != 1) {
    module->emitError("expected exactly one kernel (a public func.func with "
                      "a body), found ")
        << kernels.size();
    return nullptr;
  }
  // A launch passes addresses and numbers, never tensors (a tensor<?xf32>
  // argument became an empty parameter that crashed the NVPTX backend).
  for (BlockArgument argument : kernels.front().getArguments())
    if (isa<TensorType>(argument.getType())) {
      emitError(argument.getLoc())
          << "kernel argument #" << argument.getArgNumber() << " is a tensor ("
          << argument.getType()
          << "); a kernel takes pointers, scalars and tensor descriptors: "
             "pass a pointer and load the tensor";
      return nullptr;
    }
  return kernels.front();
}

static void findWrittenArgumentsImpl(Session &session,
                                     const std::string &source,
                                     const std::string &sourceName,
                                     WrittenArguments &result) {
  ModuleOp module = session.parse(source, sourceName);
  if (!module)
    return;
  func::FuncOp kernel = findKernel(module);
  if (!kernel)
    return;
  result.mayWrite = findWrittenArguments(kernel);
  result.success = true;
}

WrittenArguments findWrittenArguments(const std::string &source,
                                      const std::string &sourceName) {
  ensurePassesRegistered();
  WrittenArguments result;
  if (!runInSession(result.diagnostics, [&](Session &session) {
        findWrittenArgumentsImpl(session, source, sourceName, result);
      })) {
    result.success = false;
    result.mayWrite.clear();
  }
  return result;
}

/// The encodings the bulk-copy passes recorded on the kernel's tensor map
/// arguments (#tilegpu.tma, see BulkCopies.h), by descriptor argument.
static std::vector<TensorMapEncoding>
collectTensorMapEncodings(func::FuncOp kernel) {
  std::vector<TensorMapEncoding> encodings;
  unsigned descriptor = 0;
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    if (!isa<tile::TensorMapType>(type))
      continue;
    if (auto recorded =
            tilegpu::getTensorMapEncoding(kernel.getArgument(index))) {
      TensorMapEncoding encoding;
      encoding.descriptor = descriptor;
      encoding.elementType = recorded.getElement().isBF16() ? "bf16" : "f16";
      for (int32_t size : recorded.getBox())
        encoding.box.push_back(unsigned(size));
      encoding.swizzle = recorded.getSwizzle();
      encodings.push_back(std::move(encoding));
    }
    ++descriptor;
  }
  return encodings;
}

/// TILELANG_L2_REUSE_HINTS, a switch as python/tilelang/knobs.py reads them:
/// 1, true, yes or on runs tile-l2-reuse-hints, 0, false, no or off leaves
/// it out (any case, spaces around); unset or another value keeps the
/// pipeline's default (knobs.py warns of the other values). Read here, at
/// each compile, rather than as a CompileOptions field, so that libraries
/// with and without the pass keep one interface; python/tilelang/cache.py
/// puts the setting in the kernel's cache key.
static bool l2ReuseHints(bool byDefault) {
  const char *given = std::getenv("TILELANG_L2_REUSE_HINTS");
  if (!given)
    return byDefault;
  std::string value = llvm::StringRef(given).trim().lower();
  if (value == "1" || value == "true" || value == "yes" || value == "on")
    return true;
  if (value == "0" || value == "false" || value == "no" || value == "off")
    return false;
  return byDefault;
}

/// TILELANG_OVERLAP_PRODUCTS: 1, true, yes or on sets tilegpu-pipeline's
/// overlap-products option (off by default until measured); read at each
/// compile as TILELANG_L2_REUSE_HINTS is, and put in the kernel's cache key
/// by python/tilelang/cache.py.
static bool overlapProducts() {
  const char *given = std::getenv("TILELANG_OVERLAP_PRODUCTS");
  if (!given)
    return false;
  std::string value = llvm::StringRef(given).trim().lower();
  return value == "1" || value == "true" || value == "yes" || value == "on";
}

static void compileImpl(Session &session, const std::string &source,
                        const CompileOptions &options, CompileResult &result) {
  result.arch = options.arch;
  result.numWarps = options.numWarps;
  if (!isSupportedArch(options.arch)) {
    session.error("<options>", "unsupported GPU architecture '" +
                                   options.arch +
                                   "' (expected sm_80, sm_86, sm_89, sm_90 "
                                   "or sm_90a)");
    return;
  }
  if (options.numWarps == 0 || options.numWarps > CompileOptions::kMaxWarps ||
      (options.numWarps & (options.numWarps - 1)) != 0) {
    session.error("<options>", "num_warps must be a power of two from 1 to " +
                                   std::to_string(CompileOptions::kMaxWarps) +
                                   ", got " + std::to_string(options.numWarps));
    return;
  }
  if (options.maxRegisters != 0 &&
      (options.maxRegisters < CompileOptions::kMinMaxRegisters ||
       options.maxRegisters > CompileOptions::kMaxMaxRegisters)) {
    session.error(
        "<options>",
        "maxnreg must be from " +
            std::to_string(CompileOptions::kMinMaxRegisters) + " to " +
            std::to_string(CompileOptions::kMaxMaxRegisters) +
            " registers a thread, got " + std::to_string(options.maxRegisters));
    return;
  }
  ModuleOp module = session.parse(source, options.sourceName);
  if (!module)
    return;

  // Exactly one kernel: the public function.
  func::FuncOp kernel = findKernel(module);
  if (!kernel)
    return;
  result.kernelName = kernel.getName().str();
  auto keep = [&](const char *name) {
    if (options.keepStages)
      result.stages.push_back({name, print(module)});
  };
  keep("tile");

  PassManager &toTileGPU = session.newPassManager();
  TileToTileGPUPipelineOptions tileGPUOptions;
  tileGPUOptions.numWarps = options.numWarps;
  tileGPUOptions.numStages = options.numStages;
  tileGPUOptions.target = options.arch;
  tileGPUOptions.overlapProducts = overlapProducts();
  tileGPUOptions.l2ReuseHints = l2ReuseHints(tileGPUOptions.l2ReuseHints);
  buildTileToTileGPUPipeline(toTileGPU, tileGPUOptions);
  if (!session.run(toTileGPU, module))
    return;
  keep("tilegpu");
  result.tensorMaps = collectTensorMapEncodings(kernel);

  PassManager &toLLVM = session.newPassManager();
  TileGPUToLLVMPipelineOptions llvmOptions;
  llvmOptions.maxRegisters = options.maxRegisters;
  buildTileGPUToLLVMPipeline(toLLVM, llvmOptions);
  if (!session.run(toLLVM, module))
    return;
  keep("llvm");
  if (auto shared = module->getAttrOfType<IntegerAttr>(
          tilegpu::TileGPUDialect::kSharedBytesAttrName))
    result.sharedBytes = shared.getInt();

  FailureOr<PTXOutput> ptx = session.translator.translate(module, options.arch);
  if (failed(ptx) || session.hadError())
    return;
  if (options.keepStages)
    result.stages.push_back({"llvm-ir", ptx->llvmIR});
  result.ptx = std::move(ptx->ptx);
  result.success = true;
}

CompileResult compile(const std::string &source,
                      const CompileOptions &options) {
  ensurePassesRegistered();
  CompileResult result;
  if (!runInSession(result.diagnostics, [&](Session &session) {
        compileImpl(session, source, options, result);
      })) {
    result.success = false;
    result.ptx.clear();
  }
  return result;
}

} // namespace tilelang
