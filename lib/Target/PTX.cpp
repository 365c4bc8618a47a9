//===- PTX.cpp - LLVM dialect to PTX --------------------------------------===//
//
// Part of tilelang. MLIR's LLVM dialect -> LLVM IR -> the O3 pipeline ->
// NVPTX's assembly printer (without its strength reduction on functions of
// very many addresses), then the rewrites of PTXPeephole.h. No CUDA
// toolkit is involved: the math lowering uses only NVVM intrinsics, so no
// libdevice is linked.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Target/PTX.h"
#include "tilelang/Target/PTXPeephole.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/OptBisect.h"
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

/// PTX ISA 8.4: covers sm_90a and loads on every driver of CUDA 12.4 on.
static constexpr llvm::StringLiteral kPTXFeatures = "+ptx84";

/// Address computations (getelementptr) past which a function is compiled
/// without LLVM's straight-line strength reduction (the NVPTX code
/// generator's "slsr"). That pass compares each address with the earlier
/// ones of the same shape, looking for a difference it can reuse; when the
/// differences are not constants (offsets from a program id, which may
/// overflow), it compares all of them, so its time grows with the square of
/// the count: one warp's masked 2^14-element copy (1,024 addresses a
/// thread) spent 5 s in it, 2^16 elements over a minute, while its PTX was
/// the same within a line. Where the differences are constants the pass
/// pays off: the int8 matmul of the parity corpus (1,191 addresses, the
/// most of the project's kernels) has 5% more PTX instructions without
/// it. The limit lies between that kernel and a one-warp block at the most
/// elements a thread may hold, loaded and stored (2,048 addresses).
static constexpr unsigned kMaxStrengthReducedAddresses = 1536;

/// The function attribute that says a function skips strength reduction;
/// it shows in the "llvm-ir" stage, so that the choice can be read there.
static constexpr llvm::StringLiteral kNoStrengthReduction =
    "tilelang-no-strength-reduction";

/// Marks each function of `module` with more than
/// kMaxStrengthReducedAddresses address computations.
static void markLongAddressChains(llvm::Module &module) {
  for (llvm::Function &function : module) {
    unsigned addresses = 0;
    for (llvm::Instruction &inst : llvm::instructions(function))
      addresses += llvm::isa<llvm::GetElementPtrInst>(inst);
    if (addresses > kMaxStrengthReducedAddresses)
      function.addFnAttr(kNoStrengthReduction);
  }
}

namespace {
/// Lets every pass run except strength reduction on the functions marked
/// by markLongAddressChains. Installed on the translation's own context, so
/// that concurrent translations and LLVM's global options are untouched.
class StrengthReductionGate final : public llvm::OptPassGate {
public:
  explicit StrengthReductionGate(const llvm::Module &module)
      : module(module) {}

  bool shouldRunPass(llvm::StringRef pass,
                     llvm::StringRef description) const override {
    // Legacy function passes ask with their argument and "function (NAME)".
    if (pass != "slsr" || !description.consume_front("function (") ||
        !description.consume_back(")"))
      return true;
    const llvm::Function *function = module.getFunction(description);
    return !function || !function->hasFnAttribute(kNoStrengthReduction);
  }
  bool isEnabled() const override { return true; }

private:
  const llvm::Module &module;
};
} // namespace

/// Everything a translation allocates, declared in the order it is made so
/// that each part is destroyed before what it refers to.
struct PTXTranslator::State {
  /// Consulted by the code generator's passes through the context, which
  /// refers to it until it is destroyed.
  std::unique_ptr<StrengthReductionGate> gate;
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
  // The O3 pipeline's analyses; their results refer to the module.
  llvm::LoopAnalysisManager loopAnalyses;
  llvm::FunctionAnalysisManager functionAnalyses;
  llvm::CGSCCAnalysisManager cgsccAnalyses;
  llvm::ModuleAnalysisManager moduleAnalyses;
  std::unique_ptr<llvm::PassBuilder> passBuilder;
  llvm::ModulePassManager optimizer;
  /// The PTX text and the stream the code generator prints it to, which
  /// must outlive the code generator (its printer refers to the stream).
  llvm::SmallString<0> ptx;
  std::unique_ptr<llvm::raw_svector_ostream> ptxStream;
  /// The code generator; it owns the machine functions.
  llvm::legacy::PassManager codegen;

  /// Runs O3 on the module and prints its PTX; false if the target cannot.
  bool optimizeAndEmit(PTXOutput &output);
};

PTXTranslator::PTXTranslator() : state(std::make_unique<State>()) {}
PTXTranslator::~PTXTranslator() = default;

FailureOr<PTXOutput> translateToPTX(ModuleOp module, llvm::StringRef arch) {
  PTXTranslator translator;
  return translator.translate(module, arch);
}

FailureOr<PTXOutput> PTXTranslator::translate(ModuleOp module,
                                              llvm::StringRef arch) {
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

  state->module = translateModuleToLLVMIR(module, state->context, "tilelang");
  if (!state->module)
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
  state->machine.reset(target->createTargetMachine(
      triple, arch, kPTXFeatures, options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  state->module->setTargetTriple(triple);
  state->module->setDataLayout(state->machine->createDataLayout());

  // (compile() runs all of this under crash recovery: an LLVM fatal error
  // in the backend becomes a diagnostic, see lib/Compiler/Compiler.cpp.)
  PTXOutput output;
  if (!state->optimizeAndEmit(output))
    return module.emitError("the NVPTX backend cannot emit assembly");
  return output;
}

bool PTXTranslator::State::optimizeAndEmit(PTXOutput &output) {
  // The standard O3 pipeline, with the target's own passes and analyses.
  passBuilder = std::make_unique<llvm::PassBuilder>(machine.get());
  passBuilder->registerModuleAnalyses(moduleAnalyses);
  passBuilder->registerCGSCCAnalyses(cgsccAnalyses);
  passBuilder->registerFunctionAnalyses(functionAnalyses);
  passBuilder->registerLoopAnalyses(loopAnalyses);
  passBuilder->crossRegisterProxies(loopAnalyses, functionAnalyses,
                                    cgsccAnalyses, moduleAnalyses);
  optimizer =
      passBuilder->buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  optimizer.run(*module, moduleAnalyses);
  markLongAddressChains(*module);
  gate = std::make_unique<StrengthReductionGate>(*module);
  context.setOptPassGate(*gate);
  {
    llvm::raw_string_ostream os(output.llvmIR);
    module->print(os, nullptr);
  }
  ptxStream = std::make_unique<llvm::raw_svector_ostream>(ptx);
  if (machine->addPassesToEmitFile(codegen, *ptxStream, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile))
    return false;
  codegen.run(*module);
  output.ptx = splitScaledWideMultiplies(ptx.str());
  return true;
}

} // namespace tilelang
