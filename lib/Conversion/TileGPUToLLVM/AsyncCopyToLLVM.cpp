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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Matchers.h"
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
matchCarriedPointerSum(ConversionPatternRewriter &rewriter, Value ptrs,
                       bool anyBase) {
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
  sum.base = rewriter.getRemappedValue(splat.getSrc());
  if (anyBase)
    return sum;
  // A loop-carried value is an argument of a block other than the entry
  // (the loops are branches by now); the converted block, since the
  // function's conversion has replaced every block.
  auto arg = dyn_cast_if_present<BlockArgument>(sum.base);
  if (!arg || !arg.getOwner()->getParent() || arg.getOwner()->isEntryBlock())
    return std::nullopt;
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

/// A term that is a uniform scale times one coordinate of its tensor, plus
/// a uniform offset (the FA2 tutorial's offs_n[None, :] * stride_kn): its
/// elements differ between two registers of a thread by the scale times the
/// difference of their coordinates, which the layout fixes at compile time
/// (a coordinate is a thread's start plus a register's constant,
/// LayoutMap.h).
struct AffineTerm {
  /// The uniform factors of the scale (i32, converted) and its constant
  /// factor.
  SmallVector<Value> factors;
  int64_t constant = 1;
  unsigned dim = 0;
};

/// `term` as an AffineTerm: broadcasts and expand_dims of a make_range,
/// multiplied by splats and constants and offset by them.
std::optional<AffineTerm> matchAffineTerm(ConversionPatternRewriter &rewriter,
                                          Value term) {
  // Whether `value` is the same in every element: its scalar (converted)
  // or constant.
  auto uniform = [&](Value value, Value &scalar, int64_t &constant) {
    APInt splat;
    if (matchPattern(value, m_ConstantInt(&splat))) {
      constant = splat.getSExtValue();
      return true;
    }
    if (auto op = value.getDefiningOp<tile::SplatOp>()) {
      scalar = rewriter.getRemappedValue(op.getSrc());
      return scalar.getType().isInteger(32);
    }
    return false;
  };
  AffineTerm affine;
  // Tensor dimensions of `term` that each dimension of `value` stands for.
  auto type = cast<RankedTensorType>(term.getType());
  SmallVector<unsigned> dims =
      llvm::to_vector(llvm::seq<unsigned>(0, type.getRank()));
  Value value = term;
  while (true) {
    Operation *op = value.getDefiningOp();
    if (auto range = dyn_cast_if_present<tile::MakeRangeOp>(op)) {
      affine.dim = dims.front();
      // A range shorter than the term along its dimension was broadcast
      // there (from one element): the term is uniform along it, while the
      // registers' coordinates still differ.
      if (range.getType().getShape()[0] != type.getShape()[affine.dim])
        return std::nullopt;
      return affine;
    }
    if (auto broadcast = dyn_cast_if_present<tile::BroadcastOp>(op)) {
      value = broadcast.getSrc();
      continue;
    }
    if (auto expand = dyn_cast_if_present<tile::ExpandDimsOp>(op)) {
      dims.erase(dims.begin() + expand.getAxis());
      value = expand.getSrc();
      continue;
    }
    if (isa_and_present<arith::MulIOp, arith::AddIOp>(op)) {
      Value scalar;
      int64_t constant = 0;
      unsigned other = 1;
      if (!uniform(op->getOperand(1), scalar, constant)) {
        if (!uniform(op->getOperand(0), scalar, constant))
          return std::nullopt;
        other = 0;
      }
      other = 1 - other;
      if (isa<arith::MulIOp>(op)) {
        if (scalar)
          affine.factors.push_back(scalar);
        else
          affine.constant *= constant;
      }
      value = op->getOperand(other);
      continue;
    }
    return std::nullopt;
  }
}

/// Whether every thread's registers hold coordinates along `dim` at the
/// same offsets from its first register's, so that steps read off one
/// thread (lane 0 of warp 0) hold for all: the register bases' bits along
/// `dim` are disjoint from the lanes' and the warps', and a coordinate is
/// then a thread's start plus a register's offset (the XOR of the bases is
/// their sum). LayoutMap builds every encoding it describes so (each base a
/// distinct power of two along its dimension, or zero: LayoutMap.h), blocked
/// or not; a map where the bits overlap would be read per vector.
static bool hasThreadIndependentSteps(const LayoutMap &map, unsigned dim) {
  int64_t registerBits = 0, threadBits = 0;
  for (const SmallVector<int64_t> &base : map.registers)
    registerBits |= base[dim];
  for (const SmallVector<int64_t> &base : map.lanes)
    threadBits |= base[dim];
  for (const SmallVector<int64_t> &base : map.warps)
    threadBits |= base[dim];
  return (registerBits & threadBits) == 0;
}

/// Whether `block` is in a loop of its region's control flow graph (the
/// lowering runs after scf-to-cf): it reaches itself.
static bool isInCycle(Block *block) {
  llvm::SmallPtrSet<Block *, 16> seen;
  SmallVector<Block *> worklist(block->getSuccessors().begin(),
                                block->getSuccessors().end());
  while (!worklist.empty()) {
    Block *next = worklist.pop_back_val();
    if (next == block)
      return true;
    if (seen.insert(next).second)
      llvm::append_range(worklist, next->getSuccessors());
  }
  return false;
}

/// The global address of each vector of a CarriedPointerSum copy (at the
/// vector starts; null elsewhere): the base plus each term, sign-extended
/// and scaled by `mad.wide.s32` in the loop. Written in inline assembly so
/// that LLVM keeps the 32-bit terms: as plain address arithmetic its
/// loop-invariant part would be hoisted as one 64-bit value per vector (or
/// strength-reduced back into one carried pointer per vector), the
/// registers the rebasing saves. A partial sum shared by several vectors
/// (a term broadcast along the other axis) is computed once.
///
/// With `steppedOffsets` (TileGPUOps.td), an AffineTerm (matchAffineTerm)
/// is read at the first vector only; each
/// other vector adds its scale times the coordinate difference to that
/// vector's address (one mad.wide.s32 of the uniform scale and an
/// immediate; in a loop, to the previous stepped vector's address, by the
/// difference from it). Its per-vector values would otherwise stay live across the
/// loop, one register each (two, with their byte-scaled copies ptxas
/// hoists): 16 for the K and V copies of flash attention at 128x64, 4
/// warps, where they made the loop spill. The steps equal the differences
/// of the per-vector offsets where the term's 32-bit elements do not wrap
/// (an i32 offset past 2**31 is wrong in either form; kernels take 64-bit
/// offsets there).
SmallVector<Value>
emitCarriedAddresses(ConversionPatternRewriter &rewriter, Location loc,
                     const CarriedPointerSum &sum, RankedTensorType type,
                     ArrayRef<unsigned> vectorStarts, unsigned elementBytes,
                     bool steppedOffsets) {
  unsigned numElements = getTotalElemsPerThread(type);
  std::optional<LayoutMap> map =
      steppedOffsets ? LayoutMap::get(type.getEncoding(), type.getShape())
                     : std::nullopt;
  SmallVector<SmallVector<Value>> terms;
  // The affine terms' scaled coordinate differences from the first vector:
  // a constant factor of bytes per vector, and the uniform factors.
  SmallVector<int64_t> deltas(numElements, 0);
  SmallVector<Value> factors;
  bool affineUsed = false;
  for (Value term : sum.terms) {
    SmallVector<Value> elements =
        getPackedElements(rewriter, loc, rewriter.getRemappedValue(term));
    std::optional<AffineTerm> affine =
        map && !affineUsed ? matchAffineTerm(rewriter, term) : std::nullopt;
    // One affine term with uniform factors at most (the steps of several
    // would not share one scale); the others are read per vector.
    if (affine && affine->factors.size() <= 1 &&
        hasThreadIndependentSteps(*map, affine->dim)) {
      int64_t first = map->apply(vectorStarts.front(), 0, 0)[affine->dim];
      SmallVector<int64_t> steps;
      for (unsigned start : vectorStarts) {
        int64_t coordinate = map->apply(start, 0, 0)[affine->dim];
        steps.push_back((coordinate - first) * affine->constant *
                        int64_t(elementBytes));
      }
      // The steps are mad.wide.s32 immediates.
      if (llvm::all_of(steps,
                       [](int64_t step) { return llvm::isInt<32>(step); })) {
        for (auto [start, step] : llvm::zip_equal(vectorStarts, steps)) {
          deltas[start] = step;
          elements[start] = elements[vectorStarts.front()];
        }
        if (llvm::any_of(steps, [](int64_t step) { return step != 0; })) {
          affineUsed = true;
          factors = affine->factors;
        }
      }
    }
    terms.push_back(std::move(elements));
  }
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
  // Per address the affine term's steps start from: the step and address
  // of the last vector stepped from it.
  llvm::DenseMap<Value, std::pair<int64_t, Value>> lastSteps;
  bool inLoop = isInCycle(rewriter.getInsertionBlock());
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
    // The affine term's step from the vector that read it (its scale is
    // uniform, the immediate the layout's).
    if (deltas[start] != 0) {
      if (factors.empty()) {
        address =
            emitInlineAsm(
                rewriter, loc, {rewriter.getI64Type()}, {address},
                llvm::formatv("add.s64 $0, $1, {0};", deltas[start]).str(),
                "=l,l", /*hasSideEffects=*/false)
                .getResult(0);
      } else {
        // From the previous vector that stepped from the same address, by
        // the difference of their steps: each scaled step a loop-invariant
        // 64-bit value, ptxas hoists them out of the loop and holds one
        // per vector (two uniform registers each; 7 steps for each of the K
        // and V copies of attention at 128x64, 4 warps, head 128, which
        // filled the uniform register file and spilled); the chain needs
        // the scale alone. Before a loop the steps stay the first vector's.
        auto &[lastDelta, lastAddress] = lastSteps[address];
        int64_t step = deltas[start];
        Value from = address;
        if (inLoop && lastAddress && llvm::isInt<32>(step - lastDelta)) {
          step -= lastDelta;
          from = lastAddress;
        }
        Value stepped =
            emitInlineAsm(
                rewriter, loc, {rewriter.getI64Type()}, {factors[0], from},
                llvm::formatv("mad.wide.s32 $0, $1, {0}, $2;", step).str(),
                "=l,r,l", /*hasSideEffects=*/false)
                .getResult(0);
        lastDelta = deltas[start];
        lastAddress = stepped;
        address = stepped;
      }
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

    // Copies with steppedOffsets take this path from any scalar base, so
    // that those before the loop do not keep each vector's 64-bit offset
    // live across an earlier loop (causal attention's second loop).
    std::optional<CarriedPointerSum> carried =
        matchCarriedPointerSum(rewriter, op.getPtrs(), op.getSteppedOffsets());
    SmallVector<Value> ptrs = unpackStruct(rewriter, loc, adaptor.getPtrs());
    SmallVector<Value> masks =
        op.getMask() ? unpackStruct(rewriter, loc, adaptor.getMask())
                     : SmallVector<Value>();
    SmallVector<unsigned> vectorStarts;
    for (unsigned start = 0; start < ptrs.size(); start += width)
      vectorStarts.push_back(start);
    if (carried)
      ptrs =
          emitCarriedAddresses(rewriter, loc, *carried, ptrsType, vectorStarts,
                               elementBytes, op.getSteppedOffsets());
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
