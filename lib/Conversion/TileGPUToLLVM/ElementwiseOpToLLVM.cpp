//===- ElementwiseOpToLLVM.cpp - elementwise ops and math -----------------===//
//
// Part of tilelang. Lowers arith and math ops on distributed tensors to one
// scalar op per element the thread holds (the scalar ops are then lowered
// by the arith patterns), pointer arithmetic, casts, elementwise inline
// assembly, and scalar math functions to NVVM's approximate intrinsics or
// polynomials, so that no libdevice is needed.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>


using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

static constexpr double kLog2E = 1.4426950408889634;
static constexpr double kLn2 = 0.6931471805599453;
static constexpr double kLog10Of2 = 0.30102999566398120;
/// 2^x, approximate (ex2.approx.ftz.f32): the base of exp, pow and erf.
static constexpr const char *kEx2 = "llvm.nvvm.ex2.approx.ftz.f32";

namespace {

/// Whether `op` is one of the upstream elementwise ops lowered per element.
bool isUpstreamElementwise(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  return (dialect == "arith" || dialect == "math") &&
         op->getNumRegions() == 0 && !isa<arith::ConstantOp>(op);
}

/// An arith or math op on tensors -> the same op on each element, computed
/// once per block of elements the axis analysis proves equal (e.g. a mask
/// `offsets < n` with n divisible by 16 is one compare per 16 offsets,
/// whether they are adjacent in a thread or a repetition apart).
struct ElementwiseOpLowering : public ConversionPattern {
  ElementwiseOpLowering(TileGPUTypeConverter &converter, MLIRContext *context,
                        const ModuleAxisInfo &axisInfo)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/10,
                          context),
        axisInfo(axisInfo) {}

  /// For each element of a thread, the first element that the results'
  /// constancy proves equal to it (itself when none is).
  SmallVector<unsigned> getRepresentatives(Operation *op,
                                           RankedTensorType type,
                                           unsigned count) const {
    SmallVector<unsigned> representatives(count);
    for (unsigned index = 0; index < count; ++index)
      representatives[index] = index;
    unsigned rank = type.getRank();
    SmallVector<int64_t> constancy(type.getShape());
    for (Value result : op->getResults()) {
      AxisInfo info = axisInfo.get(result);
      if (info.getRank() != rank)
        return representatives;
      for (unsigned dim = 0; dim < rank; ++dim)
        constancy[dim] = std::min(constancy[dim], info.getConstancy(dim));
    }
    std::optional<ThreadElementPlacement> placement =
        getThreadElementPlacement(type);
    if (!placement)
      return getRunRepresentatives(type, constancy, count);
    // A thread's element sits at start + (index / run) * tile + index % run
    // along each dimension, its start a multiple of run below tile. All
    // threads' elements in one aligned block of the constancy are equal:
    // with the constancy a multiple of the tile, elements whose tile-aligned
    // positions fall in one block; otherwise (the constancy and the run are
    // powers of two), elements of one repetition in one block of the run.
    // Along a dimension the tile wraps around (size below the tile, a
    // divisor of it), repetitions replicate: the position in the run, and
    // modulo the size where that divides the run, decides.
    llvm::DenseMap<SmallVector<int64_t>, unsigned> firstOfBlock;
    for (unsigned index = 0; index < count; ++index) {
      SmallVector<int64_t> key;
      for (unsigned dim = 0; dim < rank; ++dim) {
        int64_t position = placement->indices[index][dim];
        int64_t run = placement->run[dim], tile = placement->tile[dim];
        int64_t repetition = position / run, inRun = position % run;
        int64_t block = constancy[dim], size = type.getDimSize(dim);
        if (tile > size)
          key.append({0, tile % size ? position
                         : run % size == 0 ? inRun % size
                                           : inRun});
        else if (block <= 1)
          key.append({repetition, inRun});
        else if (block % tile == 0)
          key.append({(repetition * tile + inRun) / block, 0});
        else if (block % run == 0 || run % block == 0)
          key.append({repetition, inRun / block});
        else
          key.append({repetition, inRun});
      }
      auto [it, inserted] = firstOfBlock.try_emplace(key, index);
      representatives[index] = it->second;
    }
    return representatives;
  }

  /// Without a placement: adjacent elements of a contiguous run share one
  /// result when the constancy along the fastest dimension divides the run.
  static SmallVector<unsigned>
  getRunRepresentatives(RankedTensorType type, ArrayRef<int64_t> constancy,
                        unsigned count) {
    unsigned perThread = getContiguousPerThread(type);
    int64_t run = std::min<int64_t>(perThread, constancy[getFastestDim(type)]);
    if (run <= 1 || perThread % run != 0)
      run = 1;
    SmallVector<unsigned> representatives;
    for (unsigned index = 0; index < count; ++index)
      representatives.push_back(index - index % run);
    return representatives;
  }

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isUpstreamElementwise(op) || op->getNumResults() == 0)
      return failure();
    // Every result a tensor in a lowerable layout (several for ops such as
    // arith.mului_extended, which gives both halves of a product).
    SmallVector<RankedTensorType> resultTypes;
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !isLowerableLayout(tensor.getEncoding()))
        return failure();
      resultTypes.push_back(tensor);
    }
    Location loc = op->getLoc();
    unsigned count = getTotalElemsPerThread(resultTypes.front());
    SmallVector<SmallVector<Value>> elements;
    for (auto [operand, original] : llvm::zip_equal(operands, op->getOperands()))
      elements.push_back(
          getElements(rewriter, loc, operand, original.getType(), count));
    SmallVector<Type> scalarTypes;
    for (RankedTensorType type : resultTypes)
      scalarTypes.push_back(
          getTypeConverter()->convertType(type.getElementType()));
    SmallVector<SmallVector<Value>> results(resultTypes.size());
    SmallVector<unsigned> representatives =
        getRepresentatives(op, resultTypes.front(), count);
    for (unsigned index = 0; index < count; ++index) {
      if (representatives[index] != index) {
        for (auto &resultElements : results)
          resultElements.push_back(resultElements[representatives[index]]);
        continue;
      }
      OperationState state(loc, op->getName());
      for (auto &operandElements : elements)
        state.addOperands(operandElements[index]);
      state.addTypes(scalarTypes);
      state.addAttributes(op->getAttrs());
      Operation *scalar = rewriter.create(state);
      for (unsigned result = 0; result < resultTypes.size(); ++result)
        results[result].push_back(scalar->getResult(result));
    }
    SmallVector<Value> packed;
    for (auto [type, values] : llvm::zip_equal(resultTypes, results))
      packed.push_back(packStruct(rewriter, loc,
                                  getTypeConverter()->convertType(type),
                                  values));
    rewriter.replaceOp(op, packed);
    return success();
  }

  const ModuleAxisInfo &axisInfo;
};

/// Applies `fn` to each element pair of a unary tile op's operand.
template <typename OpT>
struct TileUnaryLowering : public ConvertOpToLLVMPattern<OpT> {
  using ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;
  using Fn = std::function<Value(OpBuilder &, Location, Type, Value)>;

  virtual Value convertElement(OpBuilder &b, Location loc, Type type,
                               Value value) const = 0;

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = this->getTypeConverter()->convertType(op.getType());
    Type elementType = this->getTypeConverter()->convertType(
        getElementTypeOrSelf(op.getType()));
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, convertElement(rewriter, loc, elementType,
                                            adaptor.getSrc()));
      return success();
    }
    SmallVector<Value> results;
    for (Value element : unpackStruct(rewriter, loc, adaptor.getSrc()))
      results.push_back(convertElement(rewriter, loc, elementType, element));
    rewriter.replaceOp(op, packStruct(rewriter, loc, resultType, results));
    return success();
  }
};

struct BitcastLowering : public TileUnaryLowering<tile::BitcastOp> {
  using TileUnaryLowering::TileUnaryLowering;
  Value convertElement(OpBuilder &b, Location loc, Type type,
                       Value value) const override {
    if (value.getType() == type)
      return value;
    return LLVM::BitcastOp::create(b, loc, type, value);
  }
};

struct IntToPtrLowering : public TileUnaryLowering<tile::IntToPtrOp> {
  using TileUnaryLowering::TileUnaryLowering;
  Value convertElement(OpBuilder &b, Location loc, Type type,
                       Value value) const override {
    return LLVM::IntToPtrOp::create(b, loc, type, value);
  }
};

struct PtrToIntLowering : public TileUnaryLowering<tile::PtrToIntOp> {
  using TileUnaryLowering::TileUnaryLowering;
  Value convertElement(OpBuilder &b, Location loc, Type type,
                       Value value) const override {
    return LLVM::PtrToIntOp::create(b, loc, type, value);
  }
};

/// addptr -> getelementptr on each element (offsets count elements).
struct AddPtrLowering : public ConvertOpToLLVMPattern<tile::AddPtrOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type pointee = getTypeConverter()->convertType(
        getElementTypeOrSelf(tile::getPointeeType(op.getPtr().getType())));
    Type ptrType =
        getTypeConverter()->convertType(getElementTypeOrSelf(op.getType()));
    auto gep = [&](Value ptr, Value offset) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, ptrType, pointee, ptr,
                                 ValueRange{offset});
    };
    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, gep(adaptor.getPtr(), adaptor.getOffset()));
      return success();
    }
    SmallVector<Value> results;
    for (auto [ptr, offset] :
         llvm::zip_equal(unpackStruct(rewriter, loc, adaptor.getPtr()),
                         unpackStruct(rewriter, loc, adaptor.getOffset())))
      results.push_back(gep(ptr, offset));
    replaceWithElements(rewriter, op, op.getType(), results,
                        *getTypeConverter());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scalar math
//===----------------------------------------------------------------------===//

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return LLVM::ConstantOp::create(b, loc, b.getF32Type(),
                                  b.getF32FloatAttr(value));
}

Value callIntrinsic(OpBuilder &b, Location loc, StringRef name, Type type,
                    ValueRange args) {
  return LLVM::CallIntrinsicOp::create(b, loc, type, b.getStringAttr(name),
                                       args)
      .getResult(0);
}
Value callIntrinsic(OpBuilder &b, Location loc, StringRef name, Type type,
                    Value arg) {
  return callIntrinsic(b, loc, name, type, ValueRange{arg});
}

/// erf(x) for f32 from the Chebyshev fit of erfc in Numerical Recipes
/// (fractional error below 1.2e-7): erfc(z) = t exp(-z^2 + P(t)),
/// t = 1 / (1 + z/2), z = |x|. t is rcp.approx.ftz.f32 (1 ulp; the
/// denominator is at least 1, t = 0 past 2^126 gives erf = +-1): IEEE
/// division is a subroutine with a slow-path branch per element, which
/// split a matmul's GELU epilogue (128x256 tile, 8 warps) into 128 blocks
/// per thread that ptxas could not interleave: it spilled 124 bytes at 255
/// registers; none at 206 registers with rcp.approx.
Value emitErf(OpBuilder &b, Location loc, Value x) {
  static const double coefficients[] = {
      -1.26551223, 1.00002368,  0.37409196, 0.09678418, -0.18628806,
      0.27886807,  -1.13520398, 1.48851587, -0.82215223, 0.17087277};
  Type f32 = b.getF32Type();
  Value z = LLVM::FAbsOp::create(b, loc, x);
  Value t = callIntrinsic(
      b, loc, "llvm.nvvm.rcp.approx.ftz.f", f32,
      LLVM::FAddOp::create(
          b, loc, f32Constant(b, loc, 1.0),
          LLVM::FMulOp::create(b, loc, z, f32Constant(b, loc, 0.5))));
  Value poly = f32Constant(b, loc, coefficients[9]);
  for (int i = 8; i >= 0; --i)
    poly = LLVM::FMAOp::create(b, loc, poly, t,
                               f32Constant(b, loc, coefficients[i]));
  Value exponent = LLVM::FSubOp::create(
      b, loc, poly, LLVM::FMulOp::create(b, loc, z, z));
  Value expValue = callIntrinsic(
      b, loc, kEx2, f32,
      LLVM::FMulOp::create(b, loc, exponent,
                           f32Constant(b, loc, kLog2E)));
  Value erfc = LLVM::FMulOp::create(b, loc, t, expValue);
  Value erfAbs = LLVM::FSubOp::create(b, loc, f32Constant(b, loc, 1.0), erfc);
  return LLVM::CopySignOp::create(b, loc, erfAbs, x);
}

/// sum(coefficients[i] * x^i) by Horner's rule, in f32.
Value f32Polynomial(OpBuilder &b, Location loc, Value x,
                    ArrayRef<double> coefficients) {
  Value result = f32Constant(b, loc, coefficients.back());
  for (int i = int(coefficients.size()) - 2; i >= 0; --i)
    result = LLVM::FMAOp::create(b, loc, result, x,
                                 f32Constant(b, loc, coefficients[i]));
  return result;
}

Value f32Compare(OpBuilder &b, Location loc, LLVM::FCmpPredicate predicate,
                 Value lhs, double rhs) {
  return LLVM::FCmpOp::create(b, loc, predicate, lhs, f32Constant(b, loc, rhs));
}

/// ln(1 + x). Near 0, where lg2.approx(1 + x) would lose every digit that
/// 1 + x rounds away, the series 2 atanh(s) = 2 (s + s^3/3 + ... + s^9/9)
/// with s = x / (2 + x): for |x| < 1/4, |s| < 1/7 and the first term left out
/// is below f32 rounding. Elsewhere lg2.approx(1 + x) ln 2, whose absolute
/// error is small next to |ln(1 + x)| > 0.22 there.
Value emitLog1p(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type();
  Value s = LLVM::FDivOp::create(
      b, loc, x, LLVM::FAddOp::create(b, loc, x, f32Constant(b, loc, 2.0)));
  Value series = LLVM::FMulOp::create(
      b, loc, s,
      f32Polynomial(b, loc, LLVM::FMulOp::create(b, loc, s, s),
                    {2.0, 2.0 / 3, 2.0 / 5, 2.0 / 7, 2.0 / 9}));
  Value far = LLVM::FMulOp::create(
      b, loc,
      callIntrinsic(b, loc, "llvm.nvvm.lg2.approx.ftz.f", f32,
                    LLVM::FAddOp::create(b, loc, x, f32Constant(b, loc, 1.0))),
      f32Constant(b, loc, kLn2));
  Value small = f32Compare(b, loc, LLVM::FCmpPredicate::olt,
                           LLVM::FAbsOp::create(b, loc, x), 0.25);
  return LLVM::SelectOp::create(b, loc, small, series, far);
}

/// e^x - 1. Near 0, where ex2.approx(x log2 e) - 1 would cancel, the Taylor
/// series to x^9/9! (for |x| < 1/2 the first term left out is below f32
/// rounding); elsewhere ex2.approx(x log2 e) - 1, at least 0.39 in
/// magnitude there.
Value emitExpm1(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type();
  SmallVector<double> inverseFactorials;
  double factorial = 1;
  for (int n = 1; n <= 9; ++n) {
    factorial *= n;
    inverseFactorials.push_back(1.0 / factorial);
  }
  Value series =
      LLVM::FMulOp::create(b, loc, x, f32Polynomial(b, loc, x, inverseFactorials));
  Value far = LLVM::FSubOp::create(
      b, loc,
      callIntrinsic(b, loc, kEx2, f32,
                    LLVM::FMulOp::create(b, loc, x, f32Constant(b, loc, kLog2E))),
      f32Constant(b, loc, 1.0));
  Value small = f32Compare(b, loc, LLVM::FCmpPredicate::olt,
                           LLVM::FAbsOp::create(b, loc, x), 0.5);
  return LLVM::SelectOp::create(b, loc, small, series, far);
}

/// tanh(x) = -t / (t + 2) with t = e^(-2|x|) - 1 (emitExpm1, accurate near
/// 0 and never overflowing), with the sign of x.
Value emitTanh(OpBuilder &b, Location loc, Value x) {
  Value absX = LLVM::FAbsOp::create(b, loc, x);
  Value t = emitExpm1(
      b, loc, LLVM::FMulOp::create(b, loc, absX, f32Constant(b, loc, -2.0)));
  Value r = LLVM::FDivOp::create(
      b, loc, LLVM::FNegOp::create(b, loc, t),
      LLVM::FAddOp::create(b, loc, t, f32Constant(b, loc, 2.0)));
  return LLVM::CopySignOp::create(b, loc, r, x);
}

/// x^y as C's powf: 2^(y lg2|x|), negated for a negative base and an odd
/// integer exponent, NaN for a negative base and a non-integer exponent,
/// and 1 when y == 0 or x == 1 (even for a NaN other operand).
Value emitPow(OpBuilder &b, Location loc, Value x, Value y) {
  Type f32 = b.getF32Type();
  Value magnitude = callIntrinsic(
      b, loc, kEx2, f32,
      LLVM::FMulOp::create(
          b, loc, y,
          callIntrinsic(b, loc, "llvm.nvvm.lg2.approx.ftz.f", f32,
                        LLVM::FAbsOp::create(b, loc, x))));
  Value halfY = LLVM::FMulOp::create(b, loc, y, f32Constant(b, loc, 0.5));
  Value isInteger = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::oeq,
                                         LLVM::FTruncOp::create(b, loc, y), y);
  Value isOdd = LLVM::AndOp::create(
      b, loc, isInteger,
      LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::une,
                           LLVM::FTruncOp::create(b, loc, halfY), halfY));
  Value negative = f32Compare(b, loc, LLVM::FCmpPredicate::olt, x, 0.0);
  Value result = LLVM::SelectOp::create(
      b, loc, LLVM::AndOp::create(b, loc, negative, isOdd),
      LLVM::FNegOp::create(b, loc, magnitude), magnitude);
  Value notInteger = LLVM::XOrOp::create(
      b, loc, isInteger,
      LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true)));
  result = LLVM::SelectOp::create(
      b, loc, LLVM::AndOp::create(b, loc, negative, notInteger),
      f32Constant(b, loc, std::numeric_limits<double>::quiet_NaN()), result);
  Value one = LLVM::OrOp::create(
      b, loc, f32Compare(b, loc, LLVM::FCmpPredicate::oeq, y, 0.0),
      f32Compare(b, loc, LLVM::FCmpPredicate::oeq, x, 1.0));
  return LLVM::SelectOp::create(b, loc, one, f32Constant(b, loc, 1.0), result);
}

/// ln(1 + x) in f64 from the accurate log (MathF64.cpp), by Kahan's
/// correction: with u = 1 + x rounded, log(u) * x / (u - 1) cancels the
/// rounding of u; x itself where u == 1, and u where it is +inf.
Value emitLog1pF64(OpBuilder &b, Location loc, Value x) {
  auto f64 = [&](double value) -> Value {
    return LLVM::ConstantOp::create(b, loc, b.getF64Type(),
                                    b.getF64FloatAttr(value));
  };
  Value u = LLVM::FAddOp::create(b, loc, x, f64(1.0));
  Value d = LLVM::FSubOp::create(b, loc, u, f64(1.0));
  Value r = LLVM::FMulOp::create(b, loc, emitLogF64(b, loc, u),
                                 LLVM::FDivOp::create(b, loc, x, d));
  r = LLVM::SelectOp::create(
      b, loc,
      LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::oeq, d, f64(0.0)), x,
      r);
  return LLVM::SelectOp::create(
      b, loc,
      LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::oeq, u,
                           f64(std::numeric_limits<double>::infinity())),
      u, r);
}

/// e^x - 1 in f64 from the accurate exp and log, by Kahan's correction:
/// with u = e^x rounded, (u - 1) * x / log(u); x where u == 1, -1 where
/// u - 1 == -1, and u where it is +inf.
Value emitExpm1F64(OpBuilder &b, Location loc, Value x) {
  auto f64 = [&](double value) -> Value {
    return LLVM::ConstantOp::create(b, loc, b.getF64Type(),
                                    b.getF64FloatAttr(value));
  };
  auto equals = [&](Value v, double c) -> Value {
    return LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::oeq, v, f64(c));
  };
  Value u = emitExpF64(b, loc, x);
  Value d = LLVM::FSubOp::create(b, loc, u, f64(1.0));
  Value r = LLVM::FDivOp::create(b, loc, LLVM::FMulOp::create(b, loc, d, x),
                                 emitLogF64(b, loc, u));
  r = LLVM::SelectOp::create(b, loc, equals(d, 0.0), x, r);
  r = LLVM::SelectOp::create(b, loc, equals(d, -1.0), d, r);
  return LLVM::SelectOp::create(
      b, loc, equals(u, std::numeric_limits<double>::infinity()), u, r);
}

/// x - 2 pi round(x / 2 pi): sin.approx and cos.approx are accurate on
/// [-pi, pi] only. 2 pi is split in two parts to keep the reduction exact.
Value reduceToPi(OpBuilder &b, Location loc, Value x) {
  Value turns = LLVM::RoundEvenOp::create(
      b, loc, LLVM::FMulOp::create(b, loc, x, f32Constant(b, loc, 0.15915494309189535)));
  Value reduced = LLVM::FMAOp::create(b, loc, turns,
                                      f32Constant(b, loc, -6.28125), x);
  return LLVM::FMAOp::create(b, loc, turns,
                             f32Constant(b, loc, -1.9353071795864769e-3),
                             reduced);
}

/// A scalar f32 math op as NVVM approximations; f16 and bf16 compute in f32.
template <typename OpT>
struct ScalarMathLowering : public ConvertOpToLLVMPattern<OpT> {
  ScalarMathLowering(TileGPUTypeConverter &converter)
      : ConvertOpToLLVMPattern<OpT>(converter, /*benefit=*/2) {}

  /// Computes the op on f32 arguments.
  Value compute(OpBuilder &b, Location loc, ValueRange args) const {
    Type f32 = b.getF32Type();
    if constexpr (std::is_same_v<OpT, math::ExpOp>)
      return callIntrinsic(
          b, loc, kEx2, f32,
          LLVM::FMulOp::create(b, loc, args[0],
                               f32Constant(b, loc, kLog2E)));
    else if constexpr (std::is_same_v<OpT, math::Exp2Op>)
      return callIntrinsic(b, loc, kEx2, f32, args);
    else if constexpr (std::is_same_v<OpT, math::LogOp>)
      return LLVM::FMulOp::create(
          b, loc,
          callIntrinsic(b, loc, "llvm.nvvm.lg2.approx.ftz.f", f32, args),
          f32Constant(b, loc, kLn2));
    else if constexpr (std::is_same_v<OpT, math::Log2Op>)
      return callIntrinsic(b, loc, "llvm.nvvm.lg2.approx.ftz.f", f32, args);
    else if constexpr (std::is_same_v<OpT, math::RsqrtOp>)
      return callIntrinsic(b, loc, "llvm.nvvm.rsqrt.approx.ftz.f", f32, args);
    else if constexpr (std::is_same_v<OpT, math::SinOp>)
      return callIntrinsic(b, loc, "llvm.nvvm.sin.approx.ftz.f", f32,
                           reduceToPi(b, loc, args[0]));
    else if constexpr (std::is_same_v<OpT, math::CosOp>)
      return callIntrinsic(b, loc, "llvm.nvvm.cos.approx.ftz.f", f32,
                           reduceToPi(b, loc, args[0]));
    else if constexpr (std::is_same_v<OpT, math::TanhOp>)
      return emitTanh(b, loc, args[0]);
    else if constexpr (std::is_same_v<OpT, math::ErfOp>)
      return emitErf(b, loc, args[0]);
    else if constexpr (std::is_same_v<OpT, math::Log10Op>)
      return LLVM::FMulOp::create(
          b, loc,
          callIntrinsic(b, loc, "llvm.nvvm.lg2.approx.ftz.f", f32, args),
          f32Constant(b, loc, kLog10Of2));
    else if constexpr (std::is_same_v<OpT, math::Log1pOp>)
      return emitLog1p(b, loc, args[0]);
    else if constexpr (std::is_same_v<OpT, math::ExpM1Op>)
      return emitExpm1(b, loc, args[0]);
    else if constexpr (std::is_same_v<OpT, math::TanOp>) {
      Value x = reduceToPi(b, loc, args[0]);
      return LLVM::FDivOp::create(
          b, loc, callIntrinsic(b, loc, "llvm.nvvm.sin.approx.ftz.f", f32, x),
          callIntrinsic(b, loc, "llvm.nvvm.cos.approx.ftz.f", f32, x));
    }
    else if constexpr (std::is_same_v<OpT, math::PowFOp>)
      return emitPow(b, loc, args[0], args[1]);
    else
      static_assert(sizeof(OpT) == 0, "unhandled math op");
  }

  /// Computes the op on f64 arguments; null if there is no f64 version.
  Value computeF64(OpBuilder &b, Location loc, ValueRange args) const {
    auto f64 = [&](double value) -> Value {
      return LLVM::ConstantOp::create(b, loc, b.getF64Type(),
                                      b.getF64FloatAttr(value));
    };
    if constexpr (std::is_same_v<OpT, math::ExpOp>)
      return emitExpF64(b, loc, args[0]);
    else if constexpr (std::is_same_v<OpT, math::Exp2Op>)
      return emitExpF64(b, loc, LLVM::FMulOp::create(b, loc, args[0], f64(kLn2)));
    else if constexpr (std::is_same_v<OpT, math::LogOp>)
      return emitLogF64(b, loc, args[0]);
    else if constexpr (std::is_same_v<OpT, math::Log2Op>)
      return LLVM::FMulOp::create(b, loc, emitLogF64(b, loc, args[0]),
                                  f64(kLog2E));
    else if constexpr (std::is_same_v<OpT, math::RsqrtOp>)
      return LLVM::FDivOp::create(b, loc, f64(1.0),
                                  LLVM::SqrtOp::create(b, loc, args[0]));
    else if constexpr (std::is_same_v<OpT, math::SinOp>)
      return emitSinCosF64(b, loc, args[0], /*cosine=*/false);
    else if constexpr (std::is_same_v<OpT, math::CosOp>)
      return emitSinCosF64(b, loc, args[0], /*cosine=*/true);
    else if constexpr (std::is_same_v<OpT, math::TanhOp>) {
      // -t / (t + 2) with t = expm1(-2|x|), sign of x: accurate near 0.
      Value t = emitExpm1F64(
          b, loc,
          LLVM::FMulOp::create(b, loc, LLVM::FAbsOp::create(b, loc, args[0]),
                               f64(-2.0)));
      Value r = LLVM::FDivOp::create(b, loc, LLVM::FNegOp::create(b, loc, t),
                                     LLVM::FAddOp::create(b, loc, t, f64(2.0)));
      return LLVM::CopySignOp::create(b, loc, r, args[0]);
    } else if constexpr (std::is_same_v<OpT, math::Log1pOp>)
      return emitLog1pF64(b, loc, args[0]);
    else if constexpr (std::is_same_v<OpT, math::ExpM1Op>)
      return emitExpm1F64(b, loc, args[0]);
    else if constexpr (std::is_same_v<OpT, math::PowFOp>)
      return emitExpF64(b, loc, LLVM::FMulOp::create(
                                    b, loc, args[1], emitLogF64(b, loc, args[0])));
    else if constexpr (std::is_same_v<OpT, math::Log10Op>)
      return LLVM::FMulOp::create(b, loc, emitLogF64(b, loc, args[0]),
                                  f64(1.0 / 2.302585092994046));
    else if constexpr (std::is_same_v<OpT, math::TanOp>)
      return LLVM::FDivOp::create(b, loc,
                                  emitSinCosF64(b, loc, args[0], false),
                                  emitSinCosF64(b, loc, args[0], true));
    else
      return Value();
  }

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (isa<ShapedType>(type))
      return failure();
    if (type.isF64()) {
      Value result = computeF64(rewriter, op.getLoc(), adaptor.getOperands());
      if (!result)
        return op.emitError("'")
               << op->getName() << "' on f64 is not supported yet";
      rewriter.replaceOp(op, result);
      return success();
    }
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> args;
    for (Value operand : adaptor.getOperands())
      args.push_back(operand.getType() == f32
                         ? operand
                         : LLVM::FPExtOp::create(rewriter, loc, f32, operand));
    Value result = compute(rewriter, loc, args);
    if (!type.isF32())
      result = LLVM::FPTruncOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A scalar f32 arith.divf that allows approximation (`fastmath<afn>`, the
/// frontend's `/`) -> div.full.f32: within 2 ulp over the full range, and a
/// few instructions instead of IEEE division's subroutine.
struct ApproximateDivLowering : public ConvertOpToLLVMPattern<arith::DivFOp> {
  ApproximateDivLowering(TileGPUTypeConverter &converter)
      : ConvertOpToLLVMPattern<arith::DivFOp>(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(),
                                   arith::FastMathFlags::afn))
      return failure();
    rewriter.replaceOp(op, callIntrinsic(rewriter, op.getLoc(),
                                         "llvm.nvvm.div.full",
                                         rewriter.getF32Type(),
                                         ValueRange{adaptor.getLhs(),
                                                    adaptor.getRhs()}));
    return success();
  }
};

/// A scalar f32 math.sqrt that allows approximation (`fastmath<afn>`, the
/// frontend's tl.sqrt, Triton's fast square root) -> sqrt.approx.ftz.f32:
/// one MUFU instruction instead of IEEE sqrt's subroutine (a branch to a
/// slow path for denormals and special values). tl.sqrt_rn stays IEEE.
struct ApproximateSqrtLowering : public ConvertOpToLLVMPattern<math::SqrtOp> {
  ApproximateSqrtLowering(TileGPUTypeConverter &converter)
      : ConvertOpToLLVMPattern<math::SqrtOp>(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(math::SqrtOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    rewriter.replaceOp(
        op, callIntrinsic(rewriter, op.getLoc(), "llvm.nvvm.sqrt.approx.ftz.f",
                          rewriter.getF32Type(), adaptor.getOperand()));
    return success();
  }
};

/// tile.elementwise_inline_asm -> one inline assembly block per group of
/// `pack` elements a thread holds (the same elements of every operand and
/// result: they share one layout). Elements narrower than 32 bits travel
/// in groups of up to 32 / width as one integer register (a bitcast
/// vector), as tl.inline_asm_elementwise's constraints expect.
struct ElementwiseInlineAsmLowering
    : public ConvertOpToLLVMPattern<tile::ElementwiseInlineAsmOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  /// How many elements of `type` share one register.
  static unsigned perRegister(Type type, unsigned pack) {
    unsigned bits = type.getIntOrFloatBitWidth();
    return bits < 32 ? std::min(32 / bits, pack) : 1;
  }

  /// The register holding `elements` (one, or several packed).
  static Value toRegister(OpBuilder &b, Location loc, ArrayRef<Value> elements) {
    if (elements.size() == 1)
      return elements.front();
    Type element = elements.front().getType();
    Value vector = LLVM::UndefOp::create(
        b, loc, VectorType::get(elements.size(), element));
    for (auto [index, value] : llvm::enumerate(elements))
      vector = LLVM::InsertElementOp::create(b, loc, vector, value,
                                             i32Constant(b, loc, index));
    return LLVM::BitcastOp::create(
        b, loc,
        b.getIntegerType(elements.size() * element.getIntOrFloatBitWidth()),
        vector);
  }

  LogicalResult
  matchAndRewrite(tile::ElementwiseInlineAsmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &converter = *getTypeConverter();
    unsigned pack = op.getPack();
    Type shapeType = op.getResult(0).getType();
    unsigned count = 1;
    if (isa<RankedTensorType>(shapeType))
      count = cast<LLVM::LLVMStructType>(converter.convertType(shapeType))
                  .getBody()
                  .size();
    if (count % pack != 0)
      return op.emitOpError("each thread holds ")
             << count << " elements of each tensor, not a multiple of pack = "
             << pack << " (use a larger tensor or fewer warps)";

    SmallVector<SmallVector<Value>> args;
    for (auto [arg, converted] : llvm::zip(op.getArgs(), adaptor.getArgs()))
      args.push_back(isa<RankedTensorType>(arg.getType())
                         ? unpackStruct(rewriter, loc, converted)
                         : SmallVector<Value>{converted});
    // The registers each result takes per run, and their types.
    SmallVector<Type> elementTypes, registerTypes;
    SmallVector<unsigned> groups;
    for (Type type : op.getResultTypes()) {
      Type element = converter.convertType(getElementTypeOrSelf(type));
      unsigned group = perRegister(element, pack);
      elementTypes.push_back(element);
      groups.push_back(group);
      Type reg = group == 1 ? element
                            : rewriter.getIntegerType(
                                  group * element.getIntOrFloatBitWidth());
      registerTypes.append(pack / group, reg);
    }

    SmallVector<SmallVector<Value>> results(op.getNumResults());
    for (unsigned run = 0; run < count / pack; ++run) {
      SmallVector<Value> operands;
      for (ArrayRef<Value> elements : args) {
        unsigned group = perRegister(elements.front().getType(), pack);
        for (unsigned j = 0; j < pack; j += group)
          operands.push_back(toRegister(
              rewriter, loc, elements.slice(run * pack + j, group)));
      }
      LLVM::InlineAsmOp asmOp =
          emitInlineAsm(rewriter, loc, registerTypes, operands,
                        op.getAsmString(), op.getConstraints(),
                        /*hasSideEffects=*/!op.getPure());
      unsigned index = 0;
      for (unsigned r = 0; r < op.getNumResults(); ++r) {
        for (unsigned j = 0; j < pack; j += groups[r], ++index) {
          Value reg = registerTypes.size() == 1
                          ? asmOp.getResult(0)
                          : LLVM::ExtractValueOp::create(
                                rewriter, loc, asmOp.getResult(0),
                                ArrayRef<int64_t>{index});
          if (groups[r] == 1) {
            results[r].push_back(reg);
            continue;
          }
          Value vector = LLVM::BitcastOp::create(
              rewriter, loc, VectorType::get(groups[r], elementTypes[r]), reg);
          for (unsigned e = 0; e < groups[r]; ++e)
            results[r].push_back(LLVM::ExtractElementOp::create(
                rewriter, loc, vector, i32Constant(rewriter, loc, e)));
        }
      }
    }
    SmallVector<Value> replacements;
    for (auto [result, elements] : llvm::zip(op.getResults(), results))
      replacements.push_back(
          isa<RankedTensorType>(result.getType())
              ? packStruct(rewriter, loc, converter.convertType(result.getType()),
                           elements)
              : elements.front());
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void tilelang::lowering::populateElementwiseOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns,
    const ModuleAxisInfo &axisInfo) {
  patterns.add<ElementwiseOpLowering>(converter, patterns.getContext(),
                                      axisInfo);
  patterns
      .add<AddPtrLowering, BitcastLowering, IntToPtrLowering, PtrToIntLowering,
           ApproximateDivLowering, ApproximateSqrtLowering,
           ElementwiseInlineAsmLowering>(converter);
  patterns.add<ScalarMathLowering<math::ExpOp>, ScalarMathLowering<math::Exp2Op>,
               ScalarMathLowering<math::LogOp>, ScalarMathLowering<math::Log2Op>,
               ScalarMathLowering<math::RsqrtOp>, ScalarMathLowering<math::SinOp>,
               ScalarMathLowering<math::CosOp>, ScalarMathLowering<math::TanhOp>,
               ScalarMathLowering<math::ErfOp>, ScalarMathLowering<math::PowFOp>,
               ScalarMathLowering<math::Log10Op>, ScalarMathLowering<math::Log1pOp>,
               ScalarMathLowering<math::ExpM1Op>, ScalarMathLowering<math::TanOp>>(
      converter);
}
