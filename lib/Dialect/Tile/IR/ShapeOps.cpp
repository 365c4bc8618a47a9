//===- ShapeOps.cpp - tensor construction and shape ops -------------------===//
//
// Part of tilelang. Verifiers and folders of make_range, splat, broadcast,
// expand_dims, reshape and trans.
//
//===----------------------------------------------------------------------===//

#include "TileOpUtils.h"
#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilelang::tile;
using namespace tilelang::tile::detail;

//===----------------------------------------------------------------------===//
// MakeRangeOp
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  // I32Attr accessors return unsigned values; the IR's are signed.
  int64_t start = static_cast<int32_t>(getStart());
  int64_t end = static_cast<int32_t>(getEnd());
  if (end <= start)
    return emitOpError("end (") << end << ") must be greater than start ("
                                << start << ")";
  int64_t count = end - start;
  if (!llvm::isPowerOf2_64(count))
    return emitOpError("number of elements (end - start = ")
           << count << ") must be a power of two";
  auto type = getType();
  if (type.getRank() != 1 || type.getDimSize(0) != count)
    return emitOpError("result must be tensor<")
           << count << "xi32> for the range [" << start << ", " << end
           << "), got " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// SplatOp
//===----------------------------------------------------------------------===//

LogicalResult SplatOp::verify() {
  Type element = getType().getElementType();
  if (element != getSrc().getType())
    return emitOpError("result element type ")
           << element << " differs from the source type "
           << getSrc().getType();
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  Attribute scalar = adaptor.getSrc();
  if (!isa_and_present<IntegerAttr, FloatAttr>(scalar))
    return {};
  return SplatElementsAttr::get(getType(), scalar);
}

/// Broadcast and reshape move elements without converting them: the
/// source's and the result's element types must be one.
static LogicalResult verifySameElementType(Operation *op, ShapedType srcType,
                                           ShapedType resultType) {
  if (srcType.getElementType() != resultType.getElementType())
    return op->emitOpError("element types of source (")
           << srcType.getElementType() << ") and result ("
           << resultType.getElementType() << ") differ";
  return success();
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  auto srcType = getSrc().getType();
  auto resultType = getType();
  if (failed(verifySameElementType(*this, srcType, resultType)))
    return failure();
  if (srcType.getRank() != resultType.getRank())
    return emitOpError("source rank (")
           << srcType.getRank() << ") differs from result rank ("
           << resultType.getRank() << "); use tile.expand_dims first";
  for (auto [dim, sizes] : llvm::enumerate(
           llvm::zip_equal(srcType.getShape(), resultType.getShape()))) {
    auto [srcSize, resultSize] = sizes;
    if (srcSize != 1 && srcSize != resultSize)
      return emitOpError("dimension ")
             << dim << " of the source has size " << srcSize
             << ", which is neither 1 nor the result's " << resultSize;
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return resizeSplat(adaptor.getSrc(), getType());
}

//===----------------------------------------------------------------------===//
// ExpandDimsOp
//===----------------------------------------------------------------------===//

LogicalResult ExpandDimsOp::verify() {
  auto srcType = getSrc().getType();
  int64_t axis = static_cast<int32_t>(getAxis());
  if (axis < 0 || axis > srcType.getRank())
    return emitOpError("axis ")
           << axis << " is out of range [0, " << srcType.getRank() << "]";
  SmallVector<int64_t> expected(srcType.getShape());
  expected.insert(expected.begin() + axis, 1);
  auto expectedType = RankedTensorType::get(expected, srcType.getElementType());
  if (!haveSameShapeAndElementType(expectedType, getType()))
    return emitOpError("result type must be ")
           << expectedType << ", got " << getType();
  return success();
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) {
  return resizeSplat(adaptor.getSrc(), getType());
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto srcType = getSrc().getType();
  auto resultType = getType();
  if (failed(verifySameElementType(*this, srcType, resultType)))
    return failure();
  if (srcType.getNumElements() != resultType.getNumElements())
    return emitOpError("source has ")
           << srcType.getNumElements() << " elements but the result has "
           << resultType.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // reshape(reshape(x)) is one reshape when both agree on reordering.
  if (auto inner = getSrc().getDefiningOp<ReshapeOp>();
      inner && inner.getAllowReorder() == getAllowReorder()) {
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return resizeSplat(adaptor.getSrc(), getType());
}

//===----------------------------------------------------------------------===//
// TransOp
//===----------------------------------------------------------------------===//

LogicalResult TransOp::verify() {
  auto srcType = getSrc().getType();
  ArrayRef<int32_t> order = getOrder();
  int64_t rank = srcType.getRank();
  if (static_cast<int64_t>(order.size()) != rank)
    return emitOpError("order has ")
           << order.size() << " entries but the source has rank " << rank;
  SmallVector<bool> seen(rank, false);
  for (int32_t dim : order) {
    if (dim < 0 || dim >= rank)
      return emitOpError("order entry ")
             << dim << " is out of range [0, " << rank << ")";
    if (seen[dim])
      return emitOpError("order is not a permutation: ")
             << dim << " appears twice";
    seen[dim] = true;
  }
  SmallVector<int64_t> expected;
  for (int32_t dim : order)
    expected.push_back(srcType.getDimSize(dim));
  auto expectedType = RankedTensorType::get(expected, srcType.getElementType());
  if (!haveSameShapeAndElementType(expectedType, getType()))
    return emitOpError("result type must be ")
           << expectedType << ", got " << getType();
  return success();
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int32_t> order = getOrder();
  auto isIdentity = [](ArrayRef<int32_t> permutation) {
    for (auto [index, dim] : llvm::enumerate(permutation))
      if (dim != static_cast<int32_t>(index))
        return false;
    return true;
  };
  // Folding to a value of another type (layout) would break the IR.
  if (isIdentity(order) && getSrc().getType() == getType())
    return getSrc();
  // trans(trans(x)) is x when the two permutations compose to the identity.
  if (auto inner = getSrc().getDefiningOp<TransOp>()) {
    ArrayRef<int32_t> innerOrder = inner.getOrder();
    SmallVector<int32_t> composed;
    for (int32_t dim : order)
      composed.push_back(innerOrder[dim]);
    if (isIdentity(composed) && inner.getSrc().getType() == getType())
      return inner.getSrc();
  }
  return resizeSplat(adaptor.getSrc(), getType());
}
