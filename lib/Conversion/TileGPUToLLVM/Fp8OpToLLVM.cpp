//===- Fp8OpToLLVM.cpp - fp8 casts and constants --------------------------===//
//
// Part of tilelang. fp8 values (f8E4M3FN, f8E5M2) live in LLVM as i8 bit
// patterns (the type converter's choice for floats LLVM lacks); loads,
// stores, selects and shared memory move them as bytes. This file lowers
// what must know the format: scalar arith.extf / arith.truncf to and from
// fp8 (the per-element ops ElementwiseOpLowering leaves) and fp8 constants.
// Conversions follow Triton's: to fp8 rounds to nearest even and saturates
// to the largest finite value (cvt.rn.satfinite, NaN stays NaN), from fp8 is
// exact.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

bool isFp8(Type type) { return isa<Float8E4M3FNType, Float8E5M2Type>(type); }

/// The PTX name of an fp8 format, as the NVVM intrinsics spell it.
StringRef getFormatName(Type type) {
  return isa<Float8E4M3FNType>(type) ? "e4m3x2" : "e5m2x2";
}

/// Whether the target has the fp8 cvt instructions (sm_89 and newer).
bool hasFp8Conversions(Operation *op) { return getComputeCapability(op) >= 89; }

Value callIntrinsic(OpBuilder &b, Location loc, StringRef name, Type type,
                    ValueRange args) {
  return LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(name),
                                       args)
      .getResult(0);
}

/// fp8 bits (i8) -> f16 exactly, without the sm_89 cvt: e5m2 is the high
/// byte of an f16; e4m3's magnitude shifted into f16's fields is the value
/// times 2^-8 (its bias is 7, f16's 15), so one exact multiplication by 2^8
/// rescales it, and 0x7F (NaN) is a select.
Value emitFp8ToF16(OpBuilder &b, Location loc, Type format, Value bits) {
  Type i16 = b.getI16Type(), f16 = b.getF16Type();
  auto i16Constant = [&](int64_t value) {
    return LLVM::ConstantOp::create(b, loc, i16, b.getI16IntegerAttr(value));
  };
  Value wide = LLVM::ZExtOp::create(b, loc, i16, bits);
  if (isa<Float8E5M2Type>(format))
    return LLVM::BitcastOp::create(
        b, loc, f16, LLVM::ShlOp::create(b, loc, wide, i16Constant(8)));
  Value sign = LLVM::ShlOp::create(
      b, loc, LLVM::AndOp::create(b, loc, wide, i16Constant(0x80)),
      i16Constant(8));
  Value magnitude = LLVM::AndOp::create(b, loc, wide, i16Constant(0x7F));
  Value scaled = LLVM::FMulOp::create(
      b, loc,
      LLVM::BitcastOp::create(
          b, loc, f16, LLVM::ShlOp::create(b, loc, magnitude, i16Constant(7))),
      LLVM::ConstantOp::create(b, loc, f16, b.getF16FloatAttr(256.0)));
  Value isNaN = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, magnitude,
                                     i16Constant(0x7F));
  Value magnitudeBits =
      LLVM::SelectOp::create(b, loc, isNaN, i16Constant(0x7E00),
                             LLVM::BitcastOp::create(b, loc, i16, scaled));
  return LLVM::BitcastOp::create(
      b, loc, f16, LLVM::OrOp::create(b, loc, magnitudeBits, sign));
}

/// fp8 bits (two i8) -> two f16 with one cvt.rn.f16x2.{e4m3,e5m2}x2.
std::pair<Value, Value> emitFp8PairToF16(OpBuilder &b, Location loc,
                                         Type format, Value low, Value high) {
  Type i16 = b.getI16Type(), f16 = b.getF16Type();
  Value wide = LLVM::OrOp::create(
      b, loc, LLVM::ZExtOp::create(b, loc, i16, low),
      LLVM::ShlOp::create(
          b, loc, LLVM::ZExtOp::create(b, loc, i16, high),
          LLVM::ConstantOp::create(b, loc, i16, b.getI16IntegerAttr(8))));
  std::string name =
      ("llvm.nvvm." + getFormatName(format) + ".to.f16x2.rn").str();
  Value pair =
      callIntrinsic(b, loc, name, VectorType::get(2, f16), ValueRange{wide});
  return {LLVM::ExtractElementOp::create(b, loc, pair, i32Constant(b, loc, 0)),
          LLVM::ExtractElementOp::create(b, loc, pair, i32Constant(b, loc, 1))};
}

/// Two values (f16, or f32 after widening or narrowing) -> two fp8 bytes
/// with one cvt.rn.satfinite.{e4m3,e5m2}x2.
std::pair<Value, Value> emitPairToFp8(OpBuilder &b, Location loc, Type format,
                                      Value low, Value high) {
  Type f32 = b.getF32Type(), i16 = b.getI16Type(), i8 = b.getI8Type();
  std::string name = getFormatName(format).str();
  Value pair;
  if (low.getType().isF16()) {
    Value vector =
        LLVM::UndefOp::create(b, loc, VectorType::get(2, low.getType()));
    vector = LLVM::InsertElementOp::create(b, loc, vector, low,
                                           i32Constant(b, loc, 0));
    vector = LLVM::InsertElementOp::create(b, loc, vector, high,
                                           i32Constant(b, loc, 1));
    pair = callIntrinsic(b, loc, "llvm.nvvm.f16x2.to." + name + ".rn", i16,
                         ValueRange{vector});
  } else {
    auto toF32 = [&](Value value) -> Value {
      if (value.getType().isF32())
        return value;
      if (value.getType().isF64())
        return LLVM::FPTruncOp::create(b, loc, f32, value);
      return LLVM::FPExtOp::create(b, loc, f32, value); // bf16: exact
    };
    // The first operand goes to the high byte.
    pair = callIntrinsic(b, loc, "llvm.nvvm.ff.to." + name + ".rn", i16,
                         ValueRange{toF32(high), toF32(low)});
  }
  Value highBits = LLVM::LShrOp::create(
      b, loc, pair,
      LLVM::ConstantOp::create(b, loc, i16, b.getI16IntegerAttr(8)));
  return {LLVM::TruncOp::create(b, loc, i8, pair),
          LLVM::TruncOp::create(b, loc, i8, highBits)};
}

/// f16 -> the result type of an extension from fp8: f16 itself, f32 or f64
/// by fpext, bf16 through f32 (exactly: every fp8 value is a bf16 value).
Value widenF16(OpBuilder &b, Location loc, Value value, Type result) {
  if (result.isF16())
    return value;
  if (result.isBF16())
    return LLVM::FPTruncOp::create(
        b, loc, result, LLVM::FPExtOp::create(b, loc, b.getF32Type(), value));
  return LLVM::FPExtOp::create(b, loc, result, value);
}

/// arith.extf from fp8 or arith.truncf to fp8, on a tensor (each pair of
/// a thread's elements with one cvt) or a scalar. From fp8 is exact (f16
/// holds every fp8 value); to fp8 rounds once from f16 or f32 (bf16 widened
/// exactly, f64 narrowed to f32 first: a second rounding).
template <typename OpT>
struct Fp8CastLowering : public ConvertOpToLLVMPattern<OpT> {
  Fp8CastLowering(TileGPUTypeConverter &converter)
      // Before ElementwiseOpLowering (benefit 10), which would hand the
      // arith patterns casts between i8 and floats.
      : ConvertOpToLLVMPattern<OpT>(converter, /*benefit=*/11) {}

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type source = getElementTypeOrSelf(op.getIn().getType());
    Type result = getElementTypeOrSelf(op.getType());
    bool toFp8 = isFp8(result);
    if (!isFp8(source) && !toFp8)
      return failure();
    auto tensorType = dyn_cast<RankedTensorType>(op.getType());
    if (tensorType && !isLowerableLayout(tensorType.getEncoding()))
      return failure();
    Location loc = op.getLoc();
    // verifyFp8Ops has refused narrowing without the instructions.
    bool native = hasFp8Conversions(op);
    if (toFp8 && !native)
      return failure();
    SmallVector<Value> elements =
        tensorType ? unpackStruct(rewriter, loc, adaptor.getIn())
                   : SmallVector<Value>{adaptor.getIn()};
    SmallVector<Value> converted;
    for (unsigned index = 0; index < elements.size(); index += 2) {
      bool single = index + 1 == elements.size();
      Value low = elements[index];
      Value high = single ? low : elements[index + 1];
      std::pair<Value, Value> pair;
      if (toFp8) {
        pair = emitPairToFp8(rewriter, loc, result, low, high);
      } else if (native) {
        pair = emitFp8PairToF16(rewriter, loc, source, low, high);
        pair = {widenF16(rewriter, loc, pair.first, result),
                widenF16(rewriter, loc, pair.second, result)};
      } else {
        pair.first = widenF16(rewriter, loc,
                              emitFp8ToF16(rewriter, loc, source, low), result);
        if (!single)
          pair.second = widenF16(
              rewriter, loc, emitFp8ToF16(rewriter, loc, source, high), result);
      }
      converted.push_back(pair.first);
      if (!single)
        converted.push_back(pair.second);
    }
    if (!tensorType) {
      rewriter.replaceOp(op, converted.front());
      return success();
    }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       this->getTypeConverter()->convertType(tensorType),
                       converted));
    return success();
  }
};

/// A scalar fp8 arith.constant -> its bit pattern as an i8 constant.
struct Fp8ConstantLowering : public ConvertOpToLLVMPattern<arith::ConstantOp> {
  Fp8ConstantLowering(TileGPUTypeConverter &converter)
      : ConvertOpToLLVMPattern<arith::ConstantOp>(converter, /*benefit=*/3) {}

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<FloatAttr>(op.getValue());
    if (!value || !isFp8(value.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(
        op, rewriter.getI8Type(),
        rewriter.getIntegerAttr(rewriter.getI8Type(),
                                value.getValue().bitcastToAPInt()));
    return success();
  }
};

} // namespace

LogicalResult tilelang::lowering::verifyFp8Ops(ModuleOp module) {
  bool native = getComputeCapability(module) >= 89;
  WalkResult result = module.walk([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    if (dialect != "arith" && dialect != "math")
      return WalkResult::advance();
    bool fp8 = llvm::any_of(
        llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()),
        [](Type type) { return isFp8(getElementTypeOrSelf(type)); });
    if (!fp8 || isa<arith::ExtFOp, arith::SelectOp, arith::ConstantOp,
                    arith::BitcastOp>(op))
      return WalkResult::advance();
    if (isa<arith::TruncFOp>(op)) {
      if (native)
        return WalkResult::advance();
      op->emitError("conversions to fp8 need sm_89 or newer (the target is "
                    "sm_")
          << getComputeCapability(module) << ")";
      return WalkResult::interrupt();
    }
    // The per-element lowering would hand LLVM float arithmetic on i8.
    op->emitError("arithmetic on fp8 values cannot be lowered: convert "
                  "them to fp16 or fp32 first");
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

TypedAttr tilelang::lowering::getLLVMConstantAttr(TypedAttr value) {
  auto floatValue = dyn_cast<FloatAttr>(value);
  if (!floatValue || !isFp8(floatValue.getType()))
    return value;
  auto i8 = IntegerType::get(value.getContext(), 8);
  return IntegerAttr::get(i8, floatValue.getValue().bitcastToAPInt());
}

void tilelang::lowering::populateFp8OpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<Fp8CastLowering<arith::ExtFOp>, Fp8CastLowering<arith::TruncFOp>,
               Fp8ConstantLowering>(converter);
}
