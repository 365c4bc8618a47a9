//===- AsyncCopyToLLVM.cpp - pipeline buffers and cp.async ----------------===//
//
// Part of tilelang. Lowers the shared-memory buffers of software pipelining
// and the copies that fill them: local_alloc becomes the buffer's address
// (its offset placed by allocateSharedMemory, SharedMemoryAllocation.cpp),
// memdesc_index a stage's address within it, async_copy_global_to_local one
// cp.async per vector of each thread's elements (zero-filled where masked
// off), and the commit and wait ops cp.async.commit_group and
// cp.async.wait_group.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

/// Makes this thread's shared-memory writes visible to the async proxy
/// (wgmma reads there) on Hopper; nothing before.
void emitAsyncProxyFence(OpBuilder &b, Location loc, Operation *op) {
  if (targetsHopper(op))
    emitInlineAsm(b, loc, {}, {}, "fence.proxy.async.shared::cta;", "");
}

/// local_alloc -> the buffer's address; with a source, the source is
/// written there (swizzled) between two barriers.
struct LocalAllocLowering : public ConvertOpToLLVMPattern<LocalAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<SwizzledTile> tile = SwizzledTile::get(op.getType());
    if (!op->hasAttr(kSharedOffsetAttrName) || (op.getSrc() && !tile))
      return op.emitError("only buffers placed by the shared memory "
                          "allocation, and initialized ones with 2-D "
                          "#tilegpu.shared layouts, can be lowered");
    Location loc = op.getLoc();
    Value buffer = getSharedMemoryBase(rewriter, loc, op);
    if (Value src = op.getSrc()) {
      // Earlier readers (the previous iteration's) are done first.
      emitBarrier(rewriter, loc);
      storeSwizzled(rewriter, loc, adaptor.getSrc(),
                    cast<RankedTensorType>(src.getType()), buffer, *tile,
                    *getTypeConverter());
      emitAsyncProxyFence(rewriter, loc, op);
      emitBarrier(rewriter, loc);
    }
    rewriter.replaceOp(op, buffer);
    return success();
  }
};

/// local_dealloc -> nothing (buffers are placed statically).
struct LocalDeallocLowering : public ConvertOpToLLVMPattern<LocalDeallocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(LocalDeallocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// memdesc_index -> the stage's address: base + index * stage bytes.
struct MemDescIndexLowering : public ConvertOpToLLVMPattern<MemDescIndexOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MemDescIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value offset = LLVM::MulOp::create(
        rewriter, loc, adaptor.getIndex(),
        i32Constant(rewriter, loc, op.getType().getSizeInBytes()));
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, adaptor.getSrc().getType(), rewriter.getI8Type(), adaptor.getSrc(),
        ValueRange{offset});
    return success();
  }
};

/// memdesc_trans -> the same address: only the view's type changes.
struct MemDescTransLowering : public ConvertOpToLLVMPattern<MemDescTransOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MemDescTransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// async_copy_global_to_local -> cp.async of 4, 8 or 16 bytes per vector.
struct AsyncCopyLowering
    : public ConvertOpToLLVMPattern<AsyncCopyGlobalToLocalOp> {
  AsyncCopyLowering(TileGPUTypeConverter &converter,
                    const ModuleAxisInfo &axisInfo)
      : ConvertOpToLLVMPattern(converter), axisInfo(axisInfo) {}

  LogicalResult
  matchAndRewrite(AsyncCopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptrsType = cast<RankedTensorType>(op.getPtrs().getType());
    MemDescType buffer = op.getDst().getType();
    std::optional<SwizzledTile> tile = SwizzledTile::get(buffer);
    if (!tile)
      return op.emitError("async copies fill 2-D #tilegpu.shared buffers only");
    if (op.getOther())
      return op.emitError("async copies zero-fill masked-off elements; "
                          "'other' is not supported");
    const SwizzledTile &smem = *tile;
    Type element = buffer.getElementType();
    unsigned elementBytes = element.getIntOrFloatBitWidth() / 8;
    unsigned dim = getFastestDim(ptrsType);
    unsigned width = std::min(
        {getContiguousPerThread(ptrsType),
         axisInfo.getPointerVectorWidth(op.getPtrs(), dim, elementBytes),
         axisInfo.getMaskConstancy(op.getMask(), dim), smem.vec});
    if (dim != smem.contiguousDim || width * elementBytes < 4)
      return op.emitError("async copy of ")
             << width * elementBytes
             << "-byte pieces: cp.async needs 4, 8 or 16 contiguous, aligned "
                "bytes along the buffer's rows";

    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtrs());
    SmallVector<Value> masks =
        op.getMask() ? unpackStruct(rewriter, loc, adaptor.getMask())
                     : SmallVector<Value>();
    SmallVector<unsigned> vectorStarts;
    for (unsigned start = 0; start < ptrs.size(); start += width)
      vectorStarts.push_back(start);
    SmallVector<Value> offsets = smem.emitOffsets(
        rewriter, loc, emitThreadElementCoordinates(rewriter, loc, ptrsType),
        vectorStarts);
    Type llvmElement = getTypeConverter()->convertType(element);
    auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), 3);
    unsigned bytes = width * elementBytes;
    // .cg (L2 only) for whole 16-byte lines; .ca is the only form for less.
    std::string text =
        llvm::formatv("cp.async.{0}.shared.global [$0], [$1], {1}, $2;",
                      bytes == 16 ? "cg" : "ca", bytes);
    for (auto [start, offset] : llvm::zip_equal(vectorStarts, offsets)) {
      Value dst = LLVM::GEPOp::create(rewriter, loc, sharedPtr, llvmElement,
                                      adaptor.getDst(), ValueRange{offset});
      Value dstAddress =
          LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(), dst);
      // Masked-off vectors read nothing and land as zeros.
      Value srcSize = i32Constant(rewriter, loc, bytes);
      if (!masks.empty())
        srcSize = LLVM::SelectOp::create(rewriter, loc, masks[start], srcSize,
                                         i32Constant(rewriter, loc, 0));
      emitInlineAsm(rewriter, loc, {}, {dstAddress, ptrs[start], srcSize}, text,
                    "r,l,r");
    }
    rewriter.replaceOp(op, i32Constant(rewriter, loc, 0));
    return success();
  }

  const ModuleAxisInfo &axisInfo;
};

/// async_commit_group -> cp.async.commit_group.
struct AsyncCommitGroupLowering
    : public ConvertOpToLLVMPattern<AsyncCommitGroupOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AsyncCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    emitInlineAsm(rewriter, loc, {}, {}, "cp.async.commit_group;", "");
    rewriter.replaceOp(op, i32Constant(rewriter, loc, 0));
    return success();
  }
};

/// async_wait -> cp.async.wait_group pending.
struct AsyncWaitLowering : public ConvertOpToLLVMPattern<AsyncWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    emitInlineAsm(
        rewriter, loc, {}, {},
        llvm::formatv("cp.async.wait_group {0};", op.getPending()).str(), "");
    rewriter.replaceOp(op, i32Constant(rewriter, loc, 0));
    return success();
  }
};

} // namespace

void tilelang::lowering::populateAsyncCopyToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns,
    const ModuleAxisInfo &axisInfo) {
  patterns.add<LocalAllocLowering, LocalDeallocLowering, MemDescIndexLowering,
               MemDescTransLowering, AsyncCommitGroupLowering,
               AsyncWaitLowering>(converter);
  patterns.add<AsyncCopyLowering>(converter, axisInfo);
}
