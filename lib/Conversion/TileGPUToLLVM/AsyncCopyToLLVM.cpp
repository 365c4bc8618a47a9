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

/// A copy's pointers as splat(base) + terms[0] + ... (tile.addptr of i32
/// tensors of the pointers' shape and layout on a splat) where the loop
/// carries `base` (converted): what tilegpu-pipeline leaves of a pointer tensor
/// it carries as its scalar base (CarriedPointers.h).
struct CarriedPointerSum {
  Value base;
  SmallVector<Value> terms;
};

std::optional<CarriedPointerSum>
matchCarriedPointerSum(ConversionPatternRewriter &rewriter, Value ptrs) {
  auto type = cast<RankedTensorType>(ptrs.getType());
  auto termType = type.clone(IntegerType::get(type.getContext(), 32));
  CarriedPointerSum sum;
  while (auto addptr = ptrs.getDefiningOp<tile::AddPtrOp>()) {
    if (addptr.getOffset().getType() != termType)
      return std::nullopt;
    sum.terms.insert(sum.terms.begin(), addptr.getOffset());
    ptrs = addptr.getPtr();
  }
  auto splat = ptrs.getDefiningOp<tile::SplatOp>();
  if (!splat || sum.terms.empty())
    return std::nullopt;
  // A loop-carried value is an argument of a block other than the entry
  // (the loops are branches by now); the converted block, since the
  // function's conversion has replaced every block.
  auto arg = dyn_cast_if_present<BlockArgument>(
      rewriter.getRemappedValue(splat.getSrc()));
  if (!arg || !arg.getOwner()->getParent() || arg.getOwner()->isEntryBlock())
    return std::nullopt;
  sum.base = arg;
  return sum;
}

/// The elements of a converted tensor: the values its packing inserted
/// where it is a chain of llvm.insertvalue (so that an element broadcast to
/// several positions is one value), extracted otherwise.
SmallVector<Value> getPackedElements(OpBuilder &builder, Location loc,
                                     Value packed) {
  auto type = dyn_cast<LLVM::LLVMStructType>(packed.getType());
  if (!type)
    return {packed};
  SmallVector<Value> elements(type.getBody().size());
  Value container = packed;
  while (auto insert = container.getDefiningOp<LLVM::InsertValueOp>()) {
    Value &element = elements[insert.getPosition().front()];
    if (!element)
      element = insert.getValue();
    container = insert.getContainer();
  }
  if (llvm::is_contained(elements, Value()))
    return unpackStruct(builder, loc, packed);
  return elements;
}

/// The global address of each vector of a CarriedPointerSum copy (at the
/// vector starts; null elsewhere): the base plus each term, sign-extended
/// and scaled by `mad.wide.s32` in the loop. Written in inline assembly so
/// that LLVM keeps the 32-bit terms: as plain address arithmetic its
/// loop-invariant part would be hoisted as one 64-bit value per vector (or
/// strength-reduced back into one carried pointer per vector), the
/// registers the rebasing saves. A partial sum shared by several vectors
/// (a term broadcast along the other axis) is computed once.
SmallVector<Value>
emitCarriedAddresses(ConversionPatternRewriter &rewriter, Location loc,
                     const CarriedPointerSum &sum, unsigned numElements,
                     ArrayRef<unsigned> vectorStarts, unsigned elementBytes) {
  SmallVector<SmallVector<Value>> terms;
  for (Value term : sum.terms)
    terms.push_back(
        getPackedElements(rewriter, loc, rewriter.getRemappedValue(term)));
  // Terms with fewer distinct values among the vectors first: the partial
  // sums they make are shared by more vectors (the sum is the same modulo
  // 2^64 in any order).
  auto distinct = [&](ArrayRef<Value> term) {
    llvm::SmallPtrSet<Value, 16> values;
    for (unsigned start : vectorStarts)
      values.insert(term[start]);
    return values.size();
  };
  llvm::stable_sort(terms, [&](ArrayRef<Value> a, ArrayRef<Value> b) {
    return distinct(a) < distinct(b);
  });
  Value base = sum.base;
  std::string text =
      llvm::formatv("mad.wide.s32 $0, $1, {0}, $2;", elementBytes).str();
  llvm::DenseMap<std::pair<Value, Value>, Value> partialSums;
  SmallVector<Value> addresses(numElements);
  for (unsigned start : vectorStarts) {
    Value address = base;
    for (ArrayRef<Value> term : terms) {
      Value &next = partialSums[{address, term[start]}];
      if (!next)
        next = emitInlineAsm(rewriter, loc, {rewriter.getI64Type()},
                             {term[start], address}, text, "=l,r,l",
                             /*hasSideEffects=*/false)
                   .getResult(0);
      address = next;
    }
    addresses[start] = address;
  }
  return addresses;
}

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

    std::optional<CarriedPointerSum> carried =
        matchCarriedPointerSum(rewriter, op.getPtrs());
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtrs());
    SmallVector<Value> masks =
        op.getMask() ? unpackStruct(rewriter, loc, adaptor.getMask())
                     : SmallVector<Value>();
    SmallVector<unsigned> vectorStarts;
    for (unsigned start = 0; start < ptrs.size(); start += width)
      vectorStarts.push_back(start);
    if (carried)
      ptrs = emitCarriedAddresses(rewriter, loc, *carried, ptrs.size(),
                                  vectorStarts, elementBytes);
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
