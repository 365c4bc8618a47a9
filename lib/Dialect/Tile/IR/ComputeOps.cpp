//===- ComputeOps.cpp - dot, reduce, scan and print ops -------------------===//
//
// Part of tilelang. Verifiers of the matrix product, of the reductions and
// scans with their combine regions, and of print.
//
//===----------------------------------------------------------------------===//

#include "TileOpUtils.h"
#include "tilelang/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace tilelang::tile;
using namespace tilelang::tile::detail;

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

static bool isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// Element types the tensor cores take as dot operands.
static bool isDotOperandElementType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64() ||
         isFloat8(type) || type.isInteger(8);
}

/// Whether `acc` may accumulate products of `operand` elements.
static bool isValidAccumulator(Type operand, Type acc) {
  if (operand.isInteger(8))
    return acc.isInteger(32);
  if (operand.isF64())
    return acc.isF64();
  if (operand.isF16() || isFloat8(operand))
    return acc.isF32() || acc.isF16();
  return acc.isF32();
}

LogicalResult DotOp::verify() {
  auto aType = getA().getType(), bType = getB().getType();
  auto cType = getC().getType();
  int64_t rank = aType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError("operands must be 2-D, or 3-D with a leading batch "
                       "dimension; 'a' has rank ")
           << rank;
  if (bType.getRank() != rank || cType.getRank() != rank)
    return emitOpError("'a', 'b' and 'c' must have the same rank, got ")
           << rank << ", " << bType.getRank() << " and " << cType.getRank();

  int64_t m = aType.getDimSize(rank - 2), k = aType.getDimSize(rank - 1);
  int64_t kB = bType.getDimSize(rank - 2), n = bType.getDimSize(rank - 1);
  if (k != kB)
    return emitOpError("inner dimensions differ: 'a' is ")
           << formatShape(aType) << " and 'b' is " << formatShape(bType);
  if (cType.getDimSize(rank - 2) != m || cType.getDimSize(rank - 1) != n)
    return emitOpError("accumulator must be ")
           << m << "x" << n << " for a " << formatShape(aType) << " by "
           << formatShape(bType) << " product, got " << formatShape(cType);
  if (rank == 3 && (bType.getDimSize(0) != aType.getDimSize(0) ||
                    cType.getDimSize(0) != aType.getDimSize(0)))
    return emitOpError("batch dimensions differ: ")
           << formatShape(aType) << ", " << formatShape(bType) << " and "
           << formatShape(cType);
  if (m < 16 || n < 16 || k < 16)
    return emitOpError("M, N and K must each be at least 16, got M=")
           << m << ", N=" << n << ", K=" << k;

  Type aElement = aType.getElementType(), bElement = bType.getElementType();
  for (Type element : {aElement, bElement})
    if (!isDotOperandElementType(element))
      return emitOpError("operand element type ")
             << element
             << " is not one of f16, bf16, f32, f64, f8E4M3FN, f8E5M2, i8";
  if (aElement != bElement && !(isFloat8(aElement) && isFloat8(bElement)))
    return emitOpError("operand element types differ: ")
           << aElement << " and " << bElement;
  Type accElement = cType.getElementType();
  if (!isValidAccumulator(aElement, accElement))
    return emitOpError("cannot accumulate ")
           << aElement << " products in " << accElement;
  if (getInputPrecision() != InputPrecision::TF32 && !aElement.isF32())
    return emitOpError("inputPrecision applies to f32 operands only, got ")
           << aElement;
  if (getMaxNumImpreciseAcc() != 0 && !isFloat8(aElement))
    return emitOpError("maxNumImpreciseAcc applies to fp8 operands only");
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp and ScanOp
//===----------------------------------------------------------------------===//

/// The axis as written: I32Attr accessors return it as unsigned.
template <typename OpT>
static int64_t getSignedAxis(OpT op) {
  return static_cast<int32_t>(op.getAxis());
}

/// Checks what reduce and scan share: sources of one shape, the axis, and a
/// combine region taking (accumulated..., new...) element values and
/// returning one value per source through `ReturnOpT`.
template <typename ReturnOpT>
static LogicalResult verifyCombineOp(Operation *op, ValueRange srcs,
                                     int64_t axis, Region &combine) {
  if (srcs.empty())
    return op->emitOpError("needs at least one source");
  auto firstType = cast<RankedTensorType>(srcs.front().getType());
  for (Value src : srcs.drop_front())
    if (cast<RankedTensorType>(src.getType()).getShape() !=
        firstType.getShape())
      return op->emitOpError("sources must have one shape, got ")
             << formatShape(firstType) << " and "
             << formatShape(src.getType());
  if (axis < 0 || axis >= firstType.getRank())
    return op->emitOpError("axis ")
           << axis << " is out of range [0, " << firstType.getRank() << ")";

  SmallVector<Type> elementTypes;
  for (Value src : srcs)
    elementTypes.push_back(getElementTypeOrSelf(src.getType()));
  Block &block = combine.front();
  SmallVector<Type> expectedArgs(elementTypes);
  expectedArgs.append(elementTypes);
  if (block.getArgumentTypes() != ArrayRef<Type>(expectedArgs)) {
    auto diag = op->emitOpError("combine region must take ")
                << expectedArgs.size() << " arguments of types (";
    llvm::interleaveComma(expectedArgs, diag);
    diag << "): the running values, then the new ones";
    return diag;
  }
  auto terminator = dyn_cast_if_present<ReturnOpT>(
      block.empty() ? nullptr : &block.back());
  if (!terminator)
    return op->emitOpError("combine region must end with '")
           << ReturnOpT::getOperationName() << "'";
  if (terminator.getResult().getTypes() != ArrayRef<Type>(elementTypes)) {
    auto diag = terminator.emitOpError("must return ")
                << elementTypes.size() << " values of types (";
    llvm::interleaveComma(elementTypes, diag);
    diag << "), one per source";
    return diag;
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  if (failed(verifyCombineOp<ReduceReturnOp>(*this, getSrcs(), getSignedAxis(*this),
                                             getCombineOp())))
    return failure();
  if (getNumResults() != getSrcs().size())
    return emitOpError("has ") << getSrcs().size() << " sources but "
                               << getNumResults() << " results";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip_equal(getSrcs(), getResult()))) {
    auto [src, result] = pair;
    auto srcType = cast<RankedTensorType>(src.getType());
    SmallVector<int64_t> shape(srcType.getShape());
    shape.erase(shape.begin() + getAxis());
    Type expected = shape.empty() ? srcType.getElementType()
                                  : Type(RankedTensorType::get(
                                        shape, srcType.getElementType()));
    if (!haveSameShapeAndElementType(result.getType(), expected))
      return emitOpError("result ")
             << index << " must be " << expected << ", got "
             << result.getType();
  }
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombineOp<ScanReturnOp>(*this, getSrcs(), getSignedAxis(*this),
                                       getCombineOp());
}

//===----------------------------------------------------------------------===//
// PrintOp
//===----------------------------------------------------------------------===//

LogicalResult PrintOp::verify() {
  std::optional<ArrayRef<int32_t>> isSigned = getIsSigned();
  if (!isSigned)
    return success();
  if (isSigned->size() != getArgs().size())
    return emitOpError("isSigned has ")
           << isSigned->size() << " entries for " << getArgs().size()
           << " arguments";
  for (int32_t flag : *isSigned)
    if (flag != 0 && flag != 1)
      return emitOpError("isSigned entries must be 0 or 1, got ") << flag;
  return success();
}
