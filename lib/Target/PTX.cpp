//===- PTX.cpp - LLVM dialect to PTX --------------------------------------===//
//
// Part of tilelang. MLIR's LLVM dialect -> LLVM IR -> the O3 pipeline ->
// NVPTX's assembly printer. No CUDA toolkit is involved: the math lowering
// uses only NVVM intrinsics, so no libdevice is linked.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Target/PTX.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

using namespace mlir;

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace tilelang {

void registerPTXTranslations(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

bool isSupportedArch(llvm::StringRef arch) {
  return llvm::StringSwitch<bool>(arch)
      .Cases("sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", true)
      .Default(false);
}

static constexpr llvm::StringLiteral kTriple = "nvptx64-nvidia-cuda";

/// Runs O3 on `llvmModule` and prints its PTX; false if the target cannot.
static bool optimizeAndEmit(llvm::Module &llvmModule,
                            llvm::TargetMachine &machine, PTXOutput &output);
/// PTX ISA 8.4: covers sm_90a and loads on every driver of CUDA 12.4 on.
static constexpr llvm::StringLiteral kPTXFeatures = "+ptx84";

FailureOr<PTXOutput> translateToPTX(ModuleOp module, llvm::StringRef arch) {
  if (!isSupportedArch(arch))
    return module.emitError("unsupported GPU architecture '")
           << arch << "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)";
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit pointers to shared memory (its addresses fit): the address
    // arithmetic of copies and conversions then stays 32-bit instead of
    // being done in 64 bits and truncated. The option is read when a
    // target machine is created, so it is set once, before any is.
    auto &registered = llvm::cl::getRegisteredOptions();
    if (llvm::cl::Option *shortPointers = registered.lookup("nvptx-short-ptr"))
      static_cast<llvm::cl::opt<bool> *>(shortPointers)->setValue(true);
  });

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tilelang");
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed");

  llvm::Triple triple(kTriple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError("NVPTX target unavailable: ") << error;
  llvm::TargetOptions options;
  // Contract a * b + c into fma, as Triton does by default: faster, and
  // rounded once instead of twice.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, arch, kPTXFeatures, options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  // (compile() runs all of this under crash recovery: an LLVM fatal error
  // in the backend becomes a diagnostic, see lib/Compiler/Compiler.cpp.)
  PTXOutput output;
  if (!optimizeAndEmit(*llvmModule, *machine, output))
    return module.emitError("the NVPTX backend cannot emit assembly");
  return output;
}

static bool optimizeAndEmit(llvm::Module &llvmModule, llvm::TargetMachine &machine,
                     PTXOutput &output) {
  // The standard O3 pipeline, with the target's own passes and analyses.
  llvm::LoopAnalysisManager loopAnalyses;
  llvm::FunctionAnalysisManager functionAnalyses;
  llvm::CGSCCAnalysisManager cgsccAnalyses;
  llvm::ModuleAnalysisManager moduleAnalyses;
  llvm::PassBuilder passBuilder(&machine);
  passBuilder.registerModuleAnalyses(moduleAnalyses);
  passBuilder.registerCGSCCAnalyses(cgsccAnalyses);
  passBuilder.registerFunctionAnalyses(functionAnalyses);
  passBuilder.registerLoopAnalyses(loopAnalyses);
  passBuilder.crossRegisterProxies(loopAnalyses, functionAnalyses,
                                   cgsccAnalyses, moduleAnalyses);
  llvm::ModulePassManager optimizer =
      passBuilder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  optimizer.run(llvmModule, moduleAnalyses);
  {
    llvm::raw_string_ostream os(output.llvmIR);
    llvmModule.print(os, nullptr);
  }
  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager codegen;
    if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                    llvm::CodeGenFileType::AssemblyFile))
      return false;
    codegen.run(llvmModule);
  }
  output.ptx = ptx.str().str();
  return true;
}

} // namespace tilelang
