//===- ReduceOpToLLVM.cpp - reductions along an axis ----------------------===//
//
// Part of tilelang. Lowers tile.reduce in three steps: each thread combines
// the elements it holds along the axis; lanes combine through butterfly
// warp shuffles (shfl.sync.bfly), so every lane ends with its warp's
// result; and when several warps hold the axis, partial results meet in
// shared memory. The combine region is inlined at every step.
// tilegpu.thread_reduce is the first step alone.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "tilelang/Dialect/TileGPU/IR/SharedRange.h"

#include <map>

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

using Accumulator = SmallVector<Value>; // one value per reduced operand

struct ReduceOpLowering : public ConvertOpToLLVMPattern<tile::ReduceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  /// Inlines the combine region on (acc, value) and returns its results.
  FailureOr<Accumulator> combine(ConversionPatternRewriter &rewriter,
                                 tile::ReduceOp op, const Accumulator &acc,
                                 const Accumulator &value) const {
    return inlineCombineRegion(rewriter, op.getCombineOp(), acc, value);
  }

  /// shfl.sync.bfly of a 32-bit-or-narrower scalar (wider ones in halves).
  Value shuffleXor(ConversionPatternRewriter &rewriter, Location loc,
                   Value value, unsigned mask) const {
    Type type = value.getType();
    unsigned bits = isa<LLVM::LLVMPointerType>(type)
                        ? 64
                        : type.getIntOrFloatBitWidth();
    Type i32 = rewriter.getI32Type();
    auto shuffle32 = [&](Value word) -> Value {
      return NVVM::ShflOp::create(
          rewriter, loc, i32, i32Constant(rewriter, loc, -1), word,
          i32Constant(rewriter, loc, mask), i32Constant(rewriter, loc, 0x1f),
          NVVM::ShflKind::bfly, UnitAttr());
    };
    if (bits == 64) {
      Value asInt = toStorage(rewriter, loc, value);
      if (!asInt.getType().isInteger(64))
        asInt = LLVM::BitcastOp::create(rewriter, loc, rewriter.getI64Type(),
                                        asInt);
      auto halves = VectorType::get({2}, i32);
      Value vector = LLVM::BitcastOp::create(rewriter, loc, halves, asInt);
      Value result = LLVM::UndefOp::create(rewriter, loc, halves);
      for (int index = 0; index < 2; ++index) {
        Value half = LLVM::ExtractElementOp::create(
            rewriter, loc, vector, i32Constant(rewriter, loc, index));
        result = LLVM::InsertElementOp::create(
            rewriter, loc, result, shuffle32(half),
            i32Constant(rewriter, loc, index));
      }
      Value merged =
          LLVM::BitcastOp::create(rewriter, loc, rewriter.getI64Type(), result);
      if (isa<LLVM::LLVMPointerType>(type))
        return LLVM::IntToPtrOp::create(rewriter, loc, type, merged);
      return LLVM::BitcastOp::create(rewriter, loc, type, merged);
    }
    // Narrow values travel as i32.
    Value word = value;
    if (bits < 32) {
      Value asInt = type.isInteger(bits)
                        ? value
                        : LLVM::BitcastOp::create(
                              rewriter, loc, rewriter.getIntegerType(bits),
                              value);
      word = LLVM::ZExtOp::create(rewriter, loc, i32, asInt);
    } else if (!type.isInteger(32)) {
      word = LLVM::BitcastOp::create(rewriter, loc, i32, value);
    }
    Value shuffled = shuffle32(word);
    if (bits < 32) {
      Value narrow = LLVM::TruncOp::create(
          rewriter, loc, rewriter.getIntegerType(bits), shuffled);
      return type.isInteger(bits)
                 ? narrow
                 : LLVM::BitcastOp::create(rewriter, loc, type, narrow);
    }
    return type.isInteger(32) ? shuffled
                              : LLVM::BitcastOp::create(rewriter, loc, type,
                                                        shuffled);
  }

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    auto layout = getDistributedEncoding(srcType);
    if (!isLowerableLayout(layout))
      return op.emitError("reduce needs a blocked or mma source layout (or "
                          "a slice of one)");
    FailureOr<DimSpread> distribution =
        getDimDistribution(layout, srcType.getShape(), axis);
    if (failed(distribution))
      return op.emitError("reducing along a dimension smaller than the "
                          "elements one thread holds, or spread over lanes "
                          "that also hold other rows, is not supported");
    unsigned numOperands = op.getSrcs().size();

    // 1. Within the thread: combine elements that differ only along the
    //    axis, keyed by their other indices in first-seen order.
    SmallVector<SmallVector<Value>> operandElements;
    for (Value src : adaptor.getSrcs())
      operandElements.push_back(unpackStruct(rewriter, loc, src));
    ElementIndices indices = getElementIndices(layout, srcType.getShape());
    std::map<SmallVector<unsigned>, unsigned> keyPosition;
    SmallVector<Accumulator> accumulators;
    for (auto [position, index] : llvm::enumerate(indices)) {
      SmallVector<unsigned> key(index);
      key.erase(key.begin() + axis);
      Accumulator value;
      for (unsigned operand = 0; operand < numOperands; ++operand)
        value.push_back(operandElements[operand][position]);
      auto [it, inserted] = keyPosition.try_emplace(key, accumulators.size());
      if (inserted) {
        accumulators.push_back(value);
        continue;
      }
      FailureOr<Accumulator> combined =
          combine(rewriter, op, accumulators[it->second], value);
      if (failed(combined))
        return failure();
      accumulators[it->second] = *combined;
    }

    // 2. Across lanes: butterfly over the lanes holding distinct data.
    for (unsigned step = distribution->distinctLanes / 2; step >= 1;
         step /= 2) {
      for (Accumulator &acc : accumulators) {
        Accumulator other;
        for (Value value : acc)
          other.push_back(shuffleXor(rewriter, loc, value,
                                     step * distribution->laneStride));
        FailureOr<Accumulator> combined = combine(rewriter, op, acc, other);
        if (failed(combined))
          return failure();
        acc = *combined;
      }
    }

    // 3. Across warps, through shared memory: each warp writes its partial
    //    results, then the lanes along the axis combine them together.
    if (distribution->distinctWarps > 1) {
      unsigned warps = distribution->distinctWarps;
      SmallVector<int64_t> sliceShape(srcType.getShape());
      sliceShape.erase(sliceShape.begin() + axis);
      int64_t sliceElements = 1;
      for (int64_t size : sliceShape)
        sliceElements *= size;
      // This thread's warp coordinate along the axis.
      Value warpCoord = LLVM::URemOp::create(
          rewriter, loc,
          LLVM::UDivOp::create(rewriter, loc, getWarpId(rewriter, loc),
                               i32Constant(rewriter, loc,
                                           distribution->warpStride)),
          i32Constant(rewriter, loc, warps));
      // Slice coordinates of each accumulator: those of a source element
      // that holds it, with the axis dropped.
      SmallVector<SmallVector<Value>> coords =
          emitElementCoordinates(rewriter, loc, srcType);
      SmallVector<Value> sliceIndex(accumulators.size());
      for (auto [position, index] : llvm::enumerate(indices)) {
        SmallVector<unsigned> key(index);
        key.erase(key.begin() + axis);
        unsigned acc = keyPosition.at(key);
        if (sliceIndex[acc])
          continue;
        Value linear = i32Constant(rewriter, loc, 0);
        for (unsigned dim = 0; dim < srcType.getRank(); ++dim) {
          if (dim == axis)
            continue;
          linear = LLVM::AddOp::create(
              rewriter, loc,
              LLVM::MulOp::create(rewriter, loc, linear,
                                  i32Constant(rewriter, loc,
                                              srcType.getDimSize(dim))),
              coords[position][dim]);
        }
        sliceIndex[acc] = linear;
      }
      Value base = getSharedMemoryBase(rewriter, loc, op);
      // Every access below stays within the op's scratch space: recorded,
      // so that tilelang-remove-redundant-barriers can see that it does not
      // conflict with another op's accesses to other bytes.
      auto offsetAttr = op->getAttrOfType<IntegerAttr>(kSharedOffsetAttrName);
      int64_t scratchBegin = offsetAttr ? offsetAttr.getInt() : 0;
      int64_t scratchEnd = scratchBegin + getScratchBytes(op);
      auto withinScratch = [&](Operation *access) {
        setSharedRange(access, scratchBegin, scratchEnd);
      };
      auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), 3);
      SmallVector<Value> sections;
      SmallVector<Type> storageTypes;
      int64_t offset = 0;
      for (unsigned operand = 0; operand < numOperands; ++operand) {
        Type storage = getStorageType(accumulators.front()[operand].getType());
        storageTypes.push_back(storage);
        sections.push_back(LLVM::GEPOp::create(
            rewriter, loc, sharedPtr, rewriter.getI8Type(), base,
            ValueRange{i32Constant(rewriter, loc, offset)}));
        int64_t bytes = std::max<int64_t>(
            1, isa<IntegerType, FloatType>(storage)
                   ? storage.getIntOrFloatBitWidth() / 8
                   : 8);
        offset += llvm::alignTo(warps * sliceElements * bytes, 16);
      }
      auto slot = [&](unsigned operand, Value warp, Value index) -> Value {
        Value linear = LLVM::AddOp::create(
            rewriter, loc,
            LLVM::MulOp::create(rewriter, loc, warp,
                                i32Constant(rewriter, loc, sliceElements)),
            index);
        return LLVM::GEPOp::create(rewriter, loc, sharedPtr,
                                   storageTypes[operand], sections[operand],
                                   ValueRange{linear});
      };
      // After step 2 the lanes along the axis hold the same accumulators:
      // the first of them writes them (one store per slot and warp, not one
      // per lane; see emitPredicatedSharedStore for why it matters).
      // This lane's position along the axis, counted in lanes holding
      // distinct data (wrapped below by what each use needs).
      Value laneAlongAxis = LLVM::UDivOp::create(
          rewriter, loc, getLaneId(rewriter, loc),
          i32Constant(rewriter, loc, distribution->laneStride));
      Value firstAlongAxis;
      if (distribution->distinctLanes > 1)
        firstAlongAxis = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::eq,
            LLVM::URemOp::create(
                rewriter, loc, laneAlongAxis,
                i32Constant(rewriter, loc, distribution->distinctLanes)),
            i32Constant(rewriter, loc, 0));
      emitBarrier(rewriter, loc);
      for (auto [acc, index] : llvm::zip_equal(accumulators, sliceIndex))
        for (unsigned operand = 0; operand < numOperands; ++operand) {
          Value stored = toStorage(rewriter, loc, acc[operand]);
          Value pointer = slot(operand, warpCoord, index);
          if (!firstAlongAxis) {
            withinScratch(
                LLVM::StoreOp::create(rewriter, loc, stored, pointer));
            continue;
          }
          Type word =
              rewriter.getIntegerType(stored.getType().getIntOrFloatBitWidth());
          if (stored.getType() != word)
            stored = LLVM::BitcastOp::create(rewriter, loc, word, stored);
          emitPredicatedSharedStore(rewriter, loc, pointer, stored,
                                    firstAlongAxis);
          // The store's inline assembly, just created before the insertion
          // point.
          withinScratch(&*std::prev(rewriter.getInsertionPoint()));
        }
      emitBarrier(rewriter, loc);
      // The lanes along the axis hold the same accumulators (step 2), so
      // they share the partials out: the lane at position q along the axis
      // combines those of warps q, q + g, ... (g = the fewer of the lanes
      // and the warps), and a butterfly over those g lanes completes the
      // total in every one of them. With a whole warp along the axis, each
      // lane reads one partial instead of every thread reading all of them.
      unsigned sharing = std::min(warps, distribution->distinctLanes);
      Value lanePosition = LLVM::URemOp::create(
          rewriter, loc, laneAlongAxis, i32Constant(rewriter, loc, sharing));
      for (auto [acc, index] : llvm::zip_equal(accumulators, sliceIndex)) {
        Accumulator total;
        for (unsigned round = 0; round < warps / sharing; ++round) {
          Value warp = LLVM::AddOp::create(
              rewriter, loc, lanePosition,
              i32Constant(rewriter, loc, round * sharing));
          Accumulator partial;
          for (unsigned operand = 0; operand < numOperands; ++operand) {
            auto load =
                LLVM::LoadOp::create(rewriter, loc, storageTypes[operand],
                                     slot(operand, warp, index));
            withinScratch(load);
            Value stored = load;
            partial.push_back(fromStorage(rewriter, loc, stored,
                                          acc[operand].getType()));
          }
          if (round == 0) {
            total = partial;
            continue;
          }
          FailureOr<Accumulator> combined =
              combine(rewriter, op, total, partial);
          if (failed(combined))
            return failure();
          total = *combined;
        }
        for (unsigned step = sharing / 2; step >= 1; step /= 2) {
          Accumulator other;
          for (Value value : total)
            other.push_back(shuffleXor(rewriter, loc, value,
                                       step * distribution->laneStride));
          FailureOr<Accumulator> combined =
              combine(rewriter, op, total, other);
          if (failed(combined))
            return failure();
          total = *combined;
        }
        acc = total;
      }
    }

    // Results: scalars, or the slice-layout tensors in struct order.
    SmallVector<Value> results;
    for (unsigned operand = 0; operand < numOperands; ++operand) {
      Type resultType = op.getResult()[operand].getType();
      if (!isa<RankedTensorType>(resultType)) {
        results.push_back(accumulators.front()[operand]);
        continue;
      }
      SmallVector<Value> elements;
      for (Accumulator &acc : accumulators)
        elements.push_back(acc[operand]);
      results.push_back(packStruct(
          rewriter, loc, getTypeConverter()->convertType(resultType),
          elements));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// The most independent partials tilegpu.thread_reduce combines a thread's
/// elements into before joining them (docs/lowering.md, "Loop
/// accumulators"): four chains keep the floating-point pipe busy for one
/// warp at the cost of three extra live values.
constexpr unsigned kThreadReduceChains = 4;

/// `values` (one thread's elements of one slice, in register order)
/// combined with `region`: split into up to kThreadReduceChains contiguous
/// runs, each folded in order, and the runs' results joined pairwise
/// ((r0 . r1) . (r2 . r3)). A run's order and the runs' order are the
/// register order, so only associativity is assumed, as a tree over lanes
/// already does; the longest dependent chain is n / 4 + 1 combines instead
/// of n - 1 (n = 16: 5 instead of 15).
static Value combineInRuns(OpBuilder &builder, Region &region,
                           ArrayRef<Value> values) {
  size_t count = values.size();
  size_t runs = std::min<size_t>(kThreadReduceChains, count);
  SmallVector<Value> partials;
  for (size_t run = 0; run < runs; ++run) {
    size_t begin = run * count / runs, end = (run + 1) * count / runs;
    Value partial = values[begin];
    for (size_t index = begin + 1; index < end; ++index)
      partial =
          inlineCombineRegion(builder, region, partial, values[index]).front();
    partials.push_back(partial);
  }
  while (partials.size() > 1) {
    SmallVector<Value> joined;
    for (size_t index = 0; index + 1 < partials.size(); index += 2)
      joined.push_back(inlineCombineRegion(builder, region, partials[index],
                                           partials[index + 1])
                           .front());
    if (partials.size() % 2)
      joined.push_back(partials.back());
    partials = std::move(joined);
  }
  return partials.front();
}

/// tilegpu.thread_reduce: each thread combines its elements that differ
/// only along the axis, in independent runs (combineInRuns); no lane or
/// warp communicates.
struct ThreadReduceOpLowering
    : public ConvertOpToLLVMPattern<tilegpu::ThreadReduceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tilegpu::ThreadReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    RankedTensorType srcType = op.getSrc().getType();
    RankedTensorType resultType = op.getType();
    SmallVector<Value> elements =
        unpackStruct(rewriter, loc, adaptor.getSrc());
    // The elements of each index outside the axis, in the order the thread
    // holds them, then their partial.
    std::map<SmallVector<unsigned>, SmallVector<Value>> members;
    for (auto [element, index] : llvm::zip_equal(
             elements, getElementIndices(getDistributedEncoding(srcType),
                                         srcType.getShape()))) {
      SmallVector<unsigned> key(index);
      key.erase(key.begin() + axis);
      members[key].push_back(element);
    }
    std::map<SmallVector<unsigned>, Value> partials;
    for (auto &[key, values] : members)
      partials[key] = combineInRuns(rewriter, op.getCombineOp(), values);
    // The result holds one element per such index, in its own order.
    SmallVector<Value> results;
    for (const SmallVector<unsigned> &index : getElementIndices(
             getDistributedEncoding(resultType), resultType.getShape())) {
      SmallVector<unsigned> key(index);
      key.erase(key.begin() + axis);
      auto it = partials.find(key);
      if (it == partials.end())
        return op.emitError("thread_reduce: the result holds an element the "
                            "source's thread does not");
      results.push_back(it->second);
    }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       getTypeConverter()->convertType(resultType), results));
    return success();
  }
};

} // namespace

void tilelang::lowering::populateReduceOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering, ThreadReduceOpLowering>(converter);
}
