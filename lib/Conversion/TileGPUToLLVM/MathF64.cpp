//===- MathF64.cpp - double-precision math without libdevice --------------===//
//
// Part of tilelang. exp, log, sin and cos on f64 from range reduction and
// polynomials whose truncation error is below double rounding on the
// reduced range (Taylor series of exp on |r| <= ln2/2 to degree 13, of
// 2 atanh on |s| <= 0.172 to degree 21, of sin and cos on |r| <= pi/4 to
// degrees 15 and 16). Special values (0, negatives, infinities, NaN) are
// handled explicitly; subnormal inputs to log and very large arguments to
// sin and cos lose accuracy.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::lowering;

namespace {

constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kLog2E = 1.4426950408889634;
constexpr double kPiOver2Hi = 1.57079632673412561417e+00;
constexpr double kPiOver2Lo = 6.07710050650619224932e-11;
constexpr double kTwoOverPi = 0.63661977236758134308;

Value f64(OpBuilder &b, Location loc, double value) {
  return LLVM::ConstantOp::create(b, loc, b.getF64Type(),
                                  b.getF64FloatAttr(value));
}
Value i64(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(value));
}

/// Horner evaluation of sum(coefficients[i] * x^i).
Value polynomial(OpBuilder &b, Location loc, Value x,
                 ArrayRef<double> coefficients) {
  Value result = f64(b, loc, coefficients.back());
  for (int i = int(coefficients.size()) - 2; i >= 0; --i)
    result = LLVM::FMAOp::create(b, loc, result, x, f64(b, loc, coefficients[i]));
  return result;
}

/// 1/n! for n = 0..count-1.
SmallVector<double> inverseFactorials(int count, int start = 0, int step = 1) {
  SmallVector<double> result;
  for (int n = start; result.size() < size_t(count); n += step) {
    double factorial = 1;
    for (int k = 2; k <= n; ++k)
      factorial *= k;
    result.push_back(1.0 / factorial);
  }
  return result;
}

/// 2^k for an integer-valued double k, split in two factors so that the
/// whole range of finite results is reachable.
Value exp2Integer(OpBuilder &b, Location loc, Value k) {
  Value clamped = LLVM::MinNumOp::create(
      b, loc, LLVM::MaxNumOp::create(b, loc, k, f64(b, loc, -2100.0)),
      f64(b, loc, 2100.0));
  Value half = LLVM::FPToSIOp::create(
      b, loc, b.getI64Type(),
      LLVM::FMulOp::create(b, loc, clamped, f64(b, loc, 0.5)));
  Value whole = LLVM::FPToSIOp::create(b, loc, b.getI64Type(), clamped);
  Value rest = LLVM::SubOp::create(b, loc, whole, half);
  auto power = [&](Value exponent) -> Value {
    // Exponents beyond the normal range saturate (to 0 or inf after the
    // product), which is what exp needs there.
    Value biased = LLVM::AddOp::create(b, loc, exponent, i64(b, loc, 1023));
    biased = LLVM::SMaxOp::create(b, loc, biased, i64(b, loc, 0));
    biased = LLVM::SMinOp::create(b, loc, biased, i64(b, loc, 2047));
    Value bits = LLVM::ShlOp::create(b, loc, biased, i64(b, loc, 52));
    return LLVM::BitcastOp::create(b, loc, b.getF64Type(), bits);
  };
  return LLVM::FMulOp::create(b, loc, power(half), power(rest));
}

} // namespace

Value tilelang::lowering::emitExpF64(OpBuilder &b, Location loc, Value x) {
  Value k = LLVM::RoundEvenOp::create(
      b, loc, LLVM::FMulOp::create(b, loc, x, f64(b, loc, kLog2E)));
  Value r = LLVM::FMAOp::create(b, loc, k, f64(b, loc, -kLn2Hi), x);
  r = LLVM::FMAOp::create(b, loc, k, f64(b, loc, -kLn2Lo), r);
  Value series = polynomial(b, loc, r, inverseFactorials(14));
  Value result = LLVM::FMulOp::create(b, loc, series, exp2Integer(b, loc, k));
  // NaN stays NaN (the clamps above would otherwise hide it).
  Value isNaN = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::uno, x, x);
  return LLVM::SelectOp::create(b, loc, isNaN, x, result);
}

Value tilelang::lowering::emitLogF64(OpBuilder &b, Location loc, Value x) {
  Value bits = LLVM::BitcastOp::create(b, loc, b.getI64Type(), x);
  Value exponent = LLVM::SubOp::create(
      b, loc,
      LLVM::AndOp::create(b, loc,
                          LLVM::LShrOp::create(b, loc, bits, i64(b, loc, 52)),
                          i64(b, loc, 0x7ff)),
      i64(b, loc, 1023));
  Value mantissaBits = LLVM::OrOp::create(
      b, loc, LLVM::AndOp::create(b, loc, bits, i64(b, loc, (1LL << 52) - 1)),
      i64(b, loc, 1023LL << 52));
  Value m = LLVM::BitcastOp::create(b, loc, b.getF64Type(), mantissaBits);
  // m in [1, 2): fold to [sqrt(1/2), sqrt(2)) for a short series.
  Value large = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::ogt, m,
                                     f64(b, loc, 1.4142135623730951));
  m = LLVM::SelectOp::create(
      b, loc, large, LLVM::FMulOp::create(b, loc, m, f64(b, loc, 0.5)), m);
  Value e = LLVM::SIToFPOp::create(b, loc, b.getF64Type(), exponent);
  e = LLVM::SelectOp::create(
      b, loc, large, LLVM::FAddOp::create(b, loc, e, f64(b, loc, 1.0)), e);
  // log(m) = 2 atanh(s), s = (m - 1) / (m + 1).
  Value s = LLVM::FDivOp::create(
      b, loc, LLVM::FSubOp::create(b, loc, m, f64(b, loc, 1.0)),
      LLVM::FAddOp::create(b, loc, m, f64(b, loc, 1.0)));
  Value s2 = LLVM::FMulOp::create(b, loc, s, s);
  SmallVector<double> odd;
  for (int n = 1; n <= 21; n += 2)
    odd.push_back(2.0 / n);
  Value logM = LLVM::FMulOp::create(b, loc, s, polynomial(b, loc, s2, odd));
  Value result = LLVM::FAddOp::create(
      b, loc, LLVM::FMAOp::create(b, loc, e, f64(b, loc, kLn2Lo), logM),
      LLVM::FMulOp::create(b, loc, e, f64(b, loc, kLn2Hi)));
  // Special values: log(0) = -inf, log(x < 0) = NaN, log(inf) = inf.
  Value zero = f64(b, loc, 0.0);
  Value inf = f64(b, loc, std::numeric_limits<double>::infinity());
  Value nan = f64(b, loc, std::numeric_limits<double>::quiet_NaN());
  Value isZero = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::oeq, x, zero);
  Value isNegative =
      LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::olt, x, zero);
  Value isInf = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::oeq, x, inf);
  Value isNaN = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::uno, x, x);
  result = LLVM::SelectOp::create(b, loc, isInf, inf, result);
  result = LLVM::SelectOp::create(
      b, loc, isZero, f64(b, loc, -std::numeric_limits<double>::infinity()),
      result);
  result = LLVM::SelectOp::create(b, loc, isNegative, nan, result);
  return LLVM::SelectOp::create(b, loc, isNaN, x, result);
}

Value tilelang::lowering::emitSinCosF64(OpBuilder &b, Location loc, Value x,
                                        bool cosine) {
  Value k = LLVM::RoundEvenOp::create(
      b, loc, LLVM::FMulOp::create(b, loc, x, f64(b, loc, kTwoOverPi)));
  Value r = LLVM::FMAOp::create(b, loc, k, f64(b, loc, -kPiOver2Hi), x);
  r = LLVM::FMAOp::create(b, loc, k, f64(b, loc, -kPiOver2Lo), r);
  Value r2 = LLVM::FMulOp::create(b, loc, r, r);
  // sin r = r * P(r^2), cos r = Q(r^2) with alternating Taylor terms.
  SmallVector<double> sinTerms = inverseFactorials(8, 1, 2);
  SmallVector<double> cosTerms = inverseFactorials(9, 0, 2);
  for (size_t i = 1; i < sinTerms.size(); i += 2)
    sinTerms[i] = -sinTerms[i];
  for (size_t i = 1; i < cosTerms.size(); i += 2)
    cosTerms[i] = -cosTerms[i];
  Value sinR = LLVM::FMulOp::create(b, loc, r, polynomial(b, loc, r2, sinTerms));
  Value cosR = polynomial(b, loc, r2, cosTerms);
  // Quadrant q = k mod 4 (cos shifts it by one).
  Value q = LLVM::FPToSIOp::create(b, loc, b.getI64Type(), k);
  if (cosine)
    q = LLVM::AddOp::create(b, loc, q, i64(b, loc, 1));
  q = LLVM::AndOp::create(b, loc, q, i64(b, loc, 3));
  Value useCos = LLVM::ICmpOp::create(
      b, loc, LLVM::ICmpPredicate::ne,
      LLVM::AndOp::create(b, loc, q, i64(b, loc, 1)), i64(b, loc, 0));
  Value negate = LLVM::ICmpOp::create(
      b, loc, LLVM::ICmpPredicate::ne,
      LLVM::AndOp::create(b, loc, q, i64(b, loc, 2)), i64(b, loc, 0));
  Value value = LLVM::SelectOp::create(b, loc, useCos, cosR, sinR);
  Value negated = LLVM::FNegOp::create(b, loc, value);
  return LLVM::SelectOp::create(b, loc, negate, negated, value);
}
