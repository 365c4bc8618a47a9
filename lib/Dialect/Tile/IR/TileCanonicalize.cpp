//===- TileCanonicalize.cpp - canonicalization patterns of tile ops -------===//
//
// Part of tilelang. Rewrites that are always profitable: shape ops of splats
// become splats, chains of broadcasts collapse, and memory ops whose mask is
// a constant lose it (or disappear).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tilelang::tile;

namespace {

/// shape_op(splat(x)) -> splat(x) for any op that only rearranges elements.
template <typename ShapeOpT>
struct FoldShapeOfSplat : public OpRewritePattern<ShapeOpT> {
  using OpRewritePattern<ShapeOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(ShapeOpT op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// broadcast(broadcast(x)) -> broadcast(x).
struct CollapseBroadcasts : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getSrcMutable().assign(inner.getSrc()); });
    return success();
  }
};

/// Whether `mask` is a constant whose every element is `value`.
static bool isConstantMask(Value mask, bool value) {
  return mask && (value ? matchPattern(mask, m_One())
                        : matchPattern(mask, m_Zero()));
}

/// load(ptr, all-true mask, other) -> load(ptr).
struct DropTrueLoadMask : public OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantMask(op.getMask(), true))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getMaskMutable().clear();
      op.getOtherMutable().clear();
    });
    return success();
  }
};

/// load(ptr, all-false mask, other) -> other: nothing is read.
struct FoldFalseLoadMask : public OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getOther() || op.getIsVolatile() ||
        !isConstantMask(op.getMask(), false))
      return failure();
    rewriter.replaceOp(op, op.getOther());
    return success();
  }
};

/// store(ptr, value, all-true mask) -> store(ptr, value).
struct DropTrueStoreMask : public OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantMask(op.getMask(), true))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
    return success();
  }
};

/// store(ptr, value, all-false mask) is erased: nothing is written.
struct EraseFalseStore : public OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantMask(op.getMask(), false))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                              MLIRContext *context) {
  patterns.add<FoldShapeOfSplat<BroadcastOp>, CollapseBroadcasts>(context);
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<FoldShapeOfSplat<ExpandDimsOp>>(context);
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<FoldShapeOfSplat<ReshapeOp>>(context);
}

void TransOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<FoldShapeOfSplat<TransOp>>(context);
}

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                         MLIRContext *context) {
  patterns.add<DropTrueLoadMask, FoldFalseLoadMask>(context);
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<DropTrueStoreMask, EraseFalseStore>(context);
}
