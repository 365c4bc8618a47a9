//===- PromiseOpToLLVM.cpp - tile.assume and tile.hint to LLVM ------------===//
//
// Part of tilelang. Promises have done their work in axis info by the time
// the program is lowered: an assumption becomes llvm.intr.assume, so that
// LLVM's own analyses may use it too, and a hint left on a block argument
// goes away.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "tilelang/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::lowering;

namespace {

/// tile.assume -> llvm.intr.assume on the same condition.
struct AssumeOpLowering : public ConvertOpToLLVMPattern<tile::AssumeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::AssumeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVM::AssumeOp::create(rewriter, op.getLoc(), adaptor.getCondition());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.hint -> nothing (axis info has read it).
struct HintOpLowering : public ConvertOpToLLVMPattern<tile::HintOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::HintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilelang::lowering::populatePromiseOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AssumeOpLowering, HintOpLowering>(converter);
}
