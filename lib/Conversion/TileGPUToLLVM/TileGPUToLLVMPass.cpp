//===- TileGPUToLLVMPass.cpp - the convert-tilegpu-to-llvm pass -----------===//
//
// Part of tilelang. Lays out shared memory by liveness, runs axis info
// for the memory lowering, and applies the tilegpu patterns together with
// the upstream arith, math and cf to LLVM patterns.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Conversion/Passes.h"

#include "TileGPUToLLVM.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"

namespace tilelang {
#define GEN_PASS_DEF_CONVERTTILEGPUTOLLVM
#include "tilelang/Conversion/Passes.h.inc"
} // namespace tilelang

using namespace mlir;
using namespace tilelang;
using namespace tilelang::lowering;

namespace {

/// Lowers tilegpu to LLVM + NVVM; see Passes.td.
struct ConvertTileGPUToLLVMPass
    : public tilelang::impl::ConvertTileGPUToLLVMBase<
          ConvertTileGPUToLLVMPass> {
  using ConvertTileGPUToLLVMBase::ConvertTileGPUToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    std::optional<unsigned> numWarps = tilegpu::getNumWarps(module);
    if (!numWarps) {
      module.emitError("convert-tilegpu-to-llvm needs the module attribute '")
          << tilegpu::TileGPUDialect::kNumWarpsAttrName
          << "' (run convert-tile-to-tilegpu first)";
      return signalPassFailure();
    }
    // Each element becomes values of its thread: tilegpu IR given directly
    // is held to the cap that convert-tile-to-tilegpu enforces.
    if (failed(tile::verifyTensorSizes(module)))
      return signalPassFailure();
    if (failed(verifyFp8Ops(module)))
      return signalPassFailure();

    int64_t shared = allocateSharedMemory(module);
    OpBuilder builder(context);
    module->setAttr(tilegpu::TileGPUDialect::kSharedBytesAttrName,
                    builder.getI32IntegerAttr(shared));
    if (shared > 0 && !module.lookupSymbol(kSharedMemorySymbol)) {
      builder.setInsertionPointToStart(module.getBody());
      auto arrayType = LLVM::LLVMArrayType::get(builder.getI8Type(), 0);
      LLVM::GlobalOp::create(builder, module.getLoc(), arrayType,
                             /*isConstant=*/false, LLVM::Linkage::External,
                             kSharedMemorySymbol, Attribute(),
                             /*alignment=*/1024, /*addrSpace=*/3);
    }

    ModuleAxisInfo axisInfo(module);
    LowerToLLVMOptions options(context);
    TileGPUTypeConverter converter(context, options);
    RewritePatternSet patterns(context);
    populateFuncOpToLLVMPatterns(converter, patterns, *numWarps,
                                 maxRegisters);
    populateElementwiseOpToLLVMPatterns(converter, patterns, axisInfo);
    populateFp8OpToLLVMPatterns(converter, patterns);
    populateMemoryOpToLLVMPatterns(converter, patterns, axisInfo);
    populateShapeOpToLLVMPatterns(converter, patterns);
    populateConvertLayoutToLLVMPatterns(converter, patterns);
    populateDotOperandToLLVMPatterns(converter, patterns);
    populateDotOpToLLVMPatterns(converter, patterns);
    populateAsyncCopyToLLVMPatterns(converter, patterns, axisInfo);
    populateBulkCopyToLLVMPatterns(converter, patterns);
    populateReduceOpToLLVMPatterns(converter, patterns);
    populateScanOpToLLVMPatterns(converter, patterns);
    populateAtomicOpToLLVMPatterns(converter, patterns);
    populateDebugOpToLLVMPatterns(converter, patterns);
    populatePromiseOpToLLVMPatterns(converter, patterns);
    populateUnsupportedOpPatterns(converter, patterns);
    // ceildiv, floordiv and friends become plain integer arithmetic first.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);

    ConversionTarget target(*context);
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
    target.addIllegalDialect<tile::TileDialect, tilegpu::TileGPUDialect,
                             arith::ArithDialect, math::MathDialect,
                             func::FuncDialect, cf::ControlFlowDialect>();
    target.addLegalOp<ModuleOp>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
