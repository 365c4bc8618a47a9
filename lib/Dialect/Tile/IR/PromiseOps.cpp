//===- PromiseOps.cpp - tile.assume and tile.hint -------------------------===//
//
// Part of tilelang. The verifier of tile.hint and the canonicalization that
// moves a hint onto the op defining the hinted value, where copies of that
// op keep it.
//
//===----------------------------------------------------------------------===//

#include "TileOpUtils.h"
#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tilelang::tile;
using namespace tilelang::tile::detail;

/// The hint's attributes with the discardable names they take on the
/// defining op.
static SmallVector<std::pair<DenseI64ArrayAttr, StringRef>, 3>
getHintFacts(HintOp op) {
  return {{op.getMultipleOfAttr(), HintOp::kMultipleOfAttrName},
          {op.getMaxContiguousAttr(), HintOp::kMaxContiguousAttrName},
          {op.getMaxConstancyAttr(), HintOp::kMaxConstancyAttrName}};
}

LogicalResult HintOp::verify() {
  auto tensor = dyn_cast<RankedTensorType>(getSrc().getType());
  size_t rank = tensor ? tensor.getRank() : 1;
  bool any = false;
  for (auto [facts, name] : getHintFacts(*this)) {
    if (!facts)
      continue;
    any = true;
    StringRef attr = name.drop_front(strlen("tile."));
    if (facts.size() != int64_t(rank))
      return emitOpError() << "'" << attr << "' has " << facts.size()
                           << " values for a value of rank " << rank;
    for (int64_t fact : facts.asArrayRef())
      if (fact < 1)
        return emitOpError()
               << "'" << attr << "' values must be positive, got " << fact;
  }
  if (!any)
    return emitOpError("promises nothing: it needs multiple_of, "
                       "max_contiguous or max_constancy");
  return success();
}

LogicalResult HintOp::canonicalize(HintOp op, PatternRewriter &rewriter) {
  // A block argument has no op to carry the promise: the hint stays.
  auto result = dyn_cast<OpResult>(op.getSrc());
  if (!result || result.getOwner()->getNumResults() != 1)
    return failure();
  Operation *def = result.getOwner();
  rewriter.modifyOpInPlace(def, [&] {
    for (auto [facts, name] : getHintFacts(op))
      if (facts)
        def->setDiscardableAttr(name, facts);
  });
  rewriter.eraseOp(op);
  return success();
}
