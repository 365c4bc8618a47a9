//===- FuncOpToLLVM.cpp - kernels and program geometry --------------------===//
//
// Part of tilelang. Lowers func.func to llvm.func (public functions become
// kernels with nvvm.kernel and a .maxntid of num_warps * 32), func.return,
// and program_id / num_programs to the ctaid / nctaid special registers.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::lowering;

namespace {

/// func.func -> llvm.func; public functions are kernels.
struct FuncOpLowering : public ConvertOpToLLVMPattern<func::FuncOp> {
  FuncOpLowering(TileGPUTypeConverter &converter, unsigned numWarps,
                 unsigned maxRegisters)
      : ConvertOpToLLVMPattern(converter), numWarps(numWarps),
        maxRegisters(maxRegisters) {}

  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (func.isExternal())
      return rewriter.notifyMatchFailure(func, "declarations are not lowered");
    if (func.getNumResults() != 0 && func.isPublic())
      return func.emitError("a kernel cannot return values; store results "
                            "through pointer arguments");
    TypeConverter::SignatureConversion signature(func.getNumArguments());
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes())) {
      Type converted = getTypeConverter()->convertType(type);
      if (!converted)
        return func.emitError("cannot lower argument ")
               << index << " of type " << type;
      signature.addInputs(index, converted);
    }
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(func.getResultTypes(),
                                                results)))
      return failure();
    Type resultType =
        results.empty() ? LLVM::LLVMVoidType::get(getContext())
        : results.size() == 1
            ? results.front()
            : LLVM::LLVMStructType::getLiteral(getContext(), results);
    auto llvmType = LLVM::LLVMFunctionType::get(
        resultType, signature.getConvertedTypes());
    auto llvmFunc = LLVM::LLVMFuncOp::create(rewriter, func.getLoc(),
                                             func.getName(), llvmType);
    if (func.isPublic()) {
      llvmFunc->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                        rewriter.getUnitAttr());
      llvmFunc->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                        rewriter.getDenseI32ArrayAttr(
                            {int32_t(numWarps * 32), 1, 1}));
      // Ask for at least 16 resident warps per SM (at most 128 registers a
      // thread): memory-bound kernels need the parallelism, and the driver's
      // JIT otherwise may spend registers down to one block per SM (seen on
      // layernorm with 8 warps: 142 registers, half Triton's bandwidth).
      // Blocks of 16 or 32 warps get 1, which the block's size already
      // implies but which marks the kernel for the runtime's occupancy
      // search (without it, layernorm at 16 warps kept 80 registers and one
      // block per SM: 1914 GB/s against Triton's 2795). Kernels with
      // tensor-core products keep the whole register file.
      bool hasDot = func.walk([](Operation *op) {
                          return isa<tile::DotOp, tilegpu::WarpGroupDotOp>(op)
                                     ? WalkResult::interrupt()
                                     : WalkResult::advance();
                        }).wasInterrupted();
      // A register cap the user asked for (Triton's maxnreg) replaces the
      // floor, and with it the runtime's occupancy search.
      if (maxRegisters > 0)
        llvmFunc->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                          rewriter.getI32IntegerAttr(int32_t(maxRegisters)));
      else if (!hasDot)
        llvmFunc->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                          rewriter.getI32IntegerAttr(
                              int32_t((16 + numWarps - 1) / numWarps)));
    } else {
      llvmFunc.setLinkage(LLVM::Linkage::Internal);
    }
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<tile::TensorMapType>(type))
        setTensorMapParameter(llvmFunc, index);
    rewriter.inlineRegionBefore(func.getBody(), llvmFunc.getBody(),
                                llvmFunc.end());
    if (failed(rewriter.convertRegionTypes(&llvmFunc.getBody(),
                                           *getTypeConverter(), &signature)))
      return failure();
    rewriter.eraseOp(func);
    return success();
  }

  /// A CUtensorMap parameter: 128 bytes by value, aligned to 64 as the bulk
  /// tensor copy engine requires, and read in place in parameter space
  /// (`__grid_constant__`) rather than copied to local memory.
  static void setTensorMapParameter(LLVM::LLVMFuncOp func, unsigned index) {
    MLIRContext *context = func.getContext();
    Builder builder(context);
    auto bytes = LLVM::LLVMArrayType::get(IntegerType::get(context, 8),
                                          tile::TensorMapType::kBytes);
    func.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                    TypeAttr::get(bytes));
    func.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                    builder.getI64IntegerAttr(tile::TensorMapType::kAlignment));
    func.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                    builder.getUnitAttr());
  }

  unsigned numWarps;
  unsigned maxRegisters;
};

/// func.return -> llvm.return.
struct ReturnOpLowering : public ConvertOpToLLVMPattern<func::ReturnOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (adaptor.getOperands().size() > 1)
      return op.emitError("functions returning several values are not "
                          "supported");
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, adaptor.getOperands());
    return success();
  }
};

/// func.call of a device function -> llvm.call.
struct CallOpLowering : public ConvertOpToLLVMPattern<func::CallOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(func::CallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), results)))
      return failure();
    if (results.size() > 1)
      return op.emitError("calls returning several values are not supported");
    rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, results, op.getCallee(),
                                              adaptor.getOperands());
    return success();
  }
};

/// program_id / num_programs -> %ctaid / %nctaid.
template <typename OpT, typename XOp, typename YOp, typename ZOp>
struct GridQueryLowering : public ConvertOpToLLVMPattern<OpT> {
  using ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value value;
    switch (op.getAxis()) {
    case tile::ProgramAxis::X:
      value = XOp::create(rewriter, op.getLoc(), i32);
      break;
    case tile::ProgramAxis::Y:
      value = YOp::create(rewriter, op.getLoc(), i32);
      break;
    case tile::ProgramAxis::Z:
      value = ZOp::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, value);
    return success();
  }
};

/// tilegpu.barrier -> bar.sync 0. A user's barrier stays marked, so that
/// tilelang-remove-redundant-barriers keeps it.
struct BarrierOpLowering : public ConvertOpToLLVMPattern<tilegpu::BarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tilegpu::BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    StringRef user = tilegpu::TileGPUDialect::kUserBarrierAttrName;
    auto barrier = NVVM::Barrier0Op::create(rewriter, op.getLoc());
    if (op->hasAttr(user))
      barrier->setAttr(user, rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Reports an op the lowering cannot handle yet, naming what will.
template <typename OpT>
struct UnsupportedOpLowering : public ConvertOpToLLVMPattern<OpT> {
  UnsupportedOpLowering(TileGPUTypeConverter &converter, StringRef why)
      : ConvertOpToLLVMPattern<OpT>(converter, /*benefit=*/5), why(why.str()) {}

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &) const override {
    return op.emitError("'") << op->getName()
                             << "' cannot be lowered to PTX yet: " << why;
  }

  std::string why;
};

} // namespace

void tilelang::lowering::populateUnsupportedOpPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  // Math functions NVPTX has no instruction or library call for: an error
  // here, instead of LLVM's backend stopping the process later.
  patterns.add<UnsupportedOpLowering<math::SinhOp>,
               UnsupportedOpLowering<math::CoshOp>,
               UnsupportedOpLowering<math::AsinOp>,
               UnsupportedOpLowering<math::AcosOp>,
               UnsupportedOpLowering<math::AtanOp>,
               UnsupportedOpLowering<math::Atan2Op>,
               UnsupportedOpLowering<math::AsinhOp>,
               UnsupportedOpLowering<math::AcoshOp>,
               UnsupportedOpLowering<math::AtanhOp>,
               UnsupportedOpLowering<math::CbrtOp>,
               UnsupportedOpLowering<math::ErfcOp>,
               UnsupportedOpLowering<math::FPowIOp>,
               UnsupportedOpLowering<math::IPowIOp>>(
      converter, "no libdevice-free lowering of this function exists yet");
  patterns.add<UnsupportedOpLowering<tilegpu::LocalStoreOp>>(
      converter, "software pipelining fills buffers with async copies only");
}

void tilelang::lowering::populateFuncOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns,
    unsigned numWarps, unsigned maxRegisters) {
  patterns.add<FuncOpLowering>(converter, numWarps, maxRegisters);
  patterns.add<ReturnOpLowering, CallOpLowering, BarrierOpLowering,
               GridQueryLowering<tile::ProgramIdOp, NVVM::BlockIdXOp,
                                 NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridQueryLowering<tile::NumProgramsOp, NVVM::GridDimXOp,
                                 NVVM::GridDimYOp, NVVM::GridDimZOp>>(
      converter);
}
