//===- BulkCopyToLLVM.cpp - mbarriers and bulk tensor copies --------------===//
//
// Part of tilelang. Lowers the sm_90 mbarrier ops and bulk tensor copies to
// PTX: init/inval/arrive.expect_tx/try_wait.parity on 64-bit mbarriers in
// shared memory, and cp.async.bulk.tensor.2d per column block of a
// swizzled tile, issued by thread 0 and signalling the block's barrier (or,
// for stores, committed as one bulk group).
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

/// The 32-bit shared-memory address of a lowered buffer.
Value sharedAddress(OpBuilder &b, Location loc, Value buffer) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), buffer);
}

/// Whether this thread is thread 0 of the CTA (which issues the copies and
/// arrivals), and `pred` if given.
Value isIssuingThread(OpBuilder &b, Location loc, Value pred = Value()) {
  Value first =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                           getThreadId(b, loc), i32Constant(b, loc, 0));
  return pred ? LLVM::AndOp::create(b, loc, first, pred).getResult() : first;
}

/// init_barrier -> mbarrier.init by thread 0, then the fence that makes
/// the initialization visible to the bulk copy engine.
struct InitBarrierLowering : public ConvertOpToLLVMPattern<InitBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(InitBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::string text = llvm::formatv(
        "@$0 mbarrier.init.shared::cta.b64 [$1], {0};", op.getCount());
    emitInlineAsm(rewriter, loc, {},
                  {isIssuingThread(rewriter, loc),
                   sharedAddress(rewriter, loc, adaptor.getBarrier())},
                  text, "b,r");
    emitInlineAsm(rewriter, loc, {}, {}, "fence.mbarrier_init.release.cluster;",
                  "");
    rewriter.eraseOp(op);
    return success();
  }
};

/// inval_barrier -> mbarrier.inval by thread 0.
struct InvalBarrierLowering : public ConvertOpToLLVMPattern<InvalBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(InvalBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    emitInlineAsm(rewriter, loc, {},
                  {isIssuingThread(rewriter, loc),
                   sharedAddress(rewriter, loc, adaptor.getBarrier())},
                  "@$0 mbarrier.inval.shared::cta.b64 [$1];", "b,r");
    rewriter.eraseOp(op);
    return success();
  }
};

/// barrier_expect -> mbarrier.arrive.expect_tx by thread 0 where `pred`.
struct BarrierExpectLowering : public ConvertOpToLLVMPattern<BarrierExpectOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(BarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::string text = llvm::formatv(
        "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], {0};",
        op.getBytes());
    emitInlineAsm(rewriter, loc, {},
                  {isIssuingThread(rewriter, loc, adaptor.getPred()),
                   sharedAddress(rewriter, loc, adaptor.getBarrier())},
                  text, "b,r");
    rewriter.eraseOp(op);
    return success();
  }
};

/// wait_barrier -> a try_wait.parity loop (its label is local to the
/// braces, so the loop can be inlined any number of times).
struct WaitBarrierLowering : public ConvertOpToLLVMPattern<WaitBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(WaitBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    emitInlineAsm(rewriter, loc, {},
                  {sharedAddress(rewriter, loc, adaptor.getBarrier()),
                   adaptor.getPhase()},
                  "{\n"
                  ".reg .pred complete;\n"
                  "waitLoop:\n"
                  "mbarrier.try_wait.parity.shared::cta.b64 complete, [$0], $1;\n"
                  "@!complete bra.uni waitLoop;\n"
                  "}",
                  "r,r");
    rewriter.eraseOp(op);
    return success();
  }
};

/// Emits one bulk copy per column block of the 2-D swizzled `tile` at
/// shared address `shared` (box: every row, one block's width): `emit`
/// gets the block's shared address and its column in the tensor (the
/// copy's innermost coordinate). Fails unless the tile's rows run along
/// dimension 1.
LogicalResult
forEachColumnBlock(ConversionPatternRewriter &rewriter, Operation *op,
                   MemDescType tileType, Value shared, Value column,
                   llvm::function_ref<void(Value blockShared,
                                           Value blockColumn)>
                       emit) {
  std::optional<SwizzledTile> tile = SwizzledTile::get(tileType);
  if (!tile || tile->contiguousDim != 1)
    return op->emitError("bulk tensor copies move 2-D #tilegpu.shared "
                         "tiles with rows along dimension 1");
  Location loc = op->getLoc();
  int64_t blockBytes = tile->blockLength * 2;
  for (int64_t block = 0; block < tile->rowLength / tile->blockLength;
       ++block) {
    Value blockShared = LLVM::AddOp::create(
        rewriter, loc, shared,
        i32Constant(rewriter, loc, block * tile->numRows * blockBytes));
    Value blockColumn = LLVM::AddOp::create(
        rewriter, loc, column,
        i32Constant(rewriter, loc, block * tile->blockLength));
    emit(blockShared, blockColumn);
  }
  return success();
}

/// async_tma_copy_global_to_local -> one cp.async.bulk.tensor.2d per column
/// block of the destination tile, by thread 0 where `pred`, signalling the
/// barrier.
struct AsyncTMACopyLowering
    : public ConvertOpToLLVMPattern<AsyncTMACopyGlobalToLocalOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AsyncTMACopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = isIssuingThread(rewriter, loc, adaptor.getPred());
    Value barrier = sharedAddress(rewriter, loc, adaptor.getBarrier());
    Value row = adaptor.getCoords()[0];
    auto copy = [&](Value blockDst, Value blockColumn) {
      // The tensor map's coordinates run innermost first.
      emitInlineAsm(rewriter, loc, {},
                    {pred, blockDst, adaptor.getTensormap(), blockColumn, row,
                     barrier},
                    "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                    "mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];",
                    "b,r,l,r,r,r");
    };
    if (failed(forEachColumnBlock(
            rewriter, op, op.getDst().getType(),
            sharedAddress(rewriter, loc, adaptor.getDst()),
            adaptor.getCoords()[1], copy)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

/// async_tma_copy_local_to_global -> one cp.async.bulk.tensor.2d store per
/// column block of the source tile by thread 0, committed as one group.
struct AsyncTMAStoreLowering
    : public ConvertOpToLLVMPattern<AsyncTMACopyLocalToGlobalOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AsyncTMACopyLocalToGlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = isIssuingThread(rewriter, loc);
    Value row = adaptor.getCoords()[0];
    auto copy = [&](Value blockSrc, Value blockColumn) {
      emitInlineAsm(rewriter, loc, {},
                    {pred, adaptor.getTensormap(), blockColumn, row, blockSrc},
                    "@$0 cp.async.bulk.tensor.2d.global.shared::cta.tile."
                    "bulk_group [$1, {$2, $3}], [$4];",
                    "b,l,r,r,r");
    };
    if (failed(forEachColumnBlock(
            rewriter, op, op.getSrc().getType(),
            sharedAddress(rewriter, loc, adaptor.getSrc()),
            adaptor.getCoords()[1], copy)))
      return failure();
    emitInlineAsm(rewriter, loc, {}, {pred},
                  "@$0 cp.async.bulk.commit_group;", "b");
    rewriter.eraseOp(op);
    return success();
  }
};

/// async_tma_store_wait -> cp.async.bulk.wait_group.read (a no-op for
/// threads without bulk groups).
struct AsyncTMAStoreWaitLowering
    : public ConvertOpToLLVMPattern<AsyncTMAStoreWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AsyncTMAStoreWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitInlineAsm(rewriter, op.getLoc(), {}, {},
                  llvm::formatv("cp.async.bulk.wait_group.read {0};",
                                op.getPendings())
                      .str(),
                  "");
    rewriter.eraseOp(op);
    return success();
  }
};

/// fence_async_shared -> fence.proxy.async.shared::cta.
struct FenceAsyncSharedLowering
    : public ConvertOpToLLVMPattern<FenceAsyncSharedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitInlineAsm(rewriter, op.getLoc(), {}, {},
                  "fence.proxy.async.shared::cta;", "");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilelang::lowering::populateBulkCopyToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<InitBarrierLowering, InvalBarrierLowering,
               BarrierExpectLowering, WaitBarrierLowering,
               AsyncTMACopyLowering, AsyncTMAStoreLowering,
               AsyncTMAStoreWaitLowering, FenceAsyncSharedLowering>(converter);
}
