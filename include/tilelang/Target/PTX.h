//===- PTX.h - LLVM dialect to PTX ------------------------------*- C++ -*-===//
//
// Part of tilelang. Translates a module in the LLVM and NVVM dialects to LLVM
// IR, optimizes it at O3 and emits PTX with LLVM's NVPTX backend.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_PTX_H
#define TILELANG_TARGET_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <memory>
#include <string>

namespace tilelang {

/// Registers the translations of the builtin, LLVM and NVVM dialects to
/// LLVM IR.
void registerPTXTranslations(mlir::DialectRegistry &registry);

/// The GPU architectures tilelang emits PTX for.
bool isSupportedArch(llvm::StringRef arch);

/// What translateToPTX produced.
struct PTXOutput {
  std::string ptx;
  /// The optimized LLVM IR the PTX was generated from.
  std::string llvmIR;
};

/// Translates a module to PTX, owning all the LLVM state of the translation
/// (context, module, target machine, the optimizer's analyses, the code
/// generator's passes) until it is destroyed. A caller that recovers from a
/// crash inside translate() frees that state by destroying the translator:
/// the recovery itself runs no destructor of the crashed frames.
class PTXTranslator {
public:
  PTXTranslator();
  ~PTXTranslator();
  PTXTranslator(const PTXTranslator &) = delete;
  PTXTranslator &operator=(const PTXTranslator &) = delete;

  /// Emits PTX for `arch` (sm_80, sm_86, sm_89, sm_90 or sm_90a). Errors
  /// are reported as diagnostics on `module`. Call it once per translator.
  mlir::FailureOr<PTXOutput> translate(mlir::ModuleOp module,
                                       llvm::StringRef arch);

private:
  struct State;
  std::unique_ptr<State> state;
};

/// translate() on a translator of its own.
mlir::FailureOr<PTXOutput> translateToPTX(mlir::ModuleOp module,
                                          llvm::StringRef arch);

} // namespace tilelang

#endif // TILELANG_TARGET_PTX_H
