//===- AccumulatePerThread.cpp - per-thread partials for loop reductions --===//
//
// Part of tilelang. The tilegpu-accumulate-per-thread pass: a loop-carried
// accumulator that is only combined elementwise and reduced after the loop
// is carried as one partial per thread (tilegpu.thread_reduce), so it costs
// a register or two instead of a block's worth per thread.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "tilelang/Dialect/Tile/IR/TileOps.h"
#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

namespace tilelang::tilegpu {
#define GEN_PASS_DEF_TILEGPUACCUMULATEPERTHREAD
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilelang::tilegpu

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// An iter_arg the rewrite applies to: `acc = accumulate(acc, x)` in the
/// body, `reduce(result)` after the loop.
struct AccumulatorMatch {
  unsigned index;
  Operation *accumulate;
  unsigned newValueOperand; // the operand of `accumulate` that is x
  tile::ReduceOp reduce;
  RankedTensorType partialType;
};

} // namespace

/// The single op of a reduce's combine region when the region is just that
/// op on its two arguments (in either order), returned.
static Operation *getSingleCombineOp(tile::ReduceOp reduce) {
  Block &block = reduce.getCombineOp().front();
  if (block.getNumArguments() != 2 || !llvm::hasSingleElement(
                                          block.without_terminator()))
    return nullptr;
  Operation &combine = block.front();
  if (combine.getNumOperands() != 2 || combine.getNumResults() != 1 ||
      combine.getNumRegions() != 0 ||
      !llvm::equal(block.getTerminator()->getOperands(),
                   combine.getResults()))
    return nullptr;
  Value lhs = combine.getOperand(0), rhs = combine.getOperand(1);
  Value first = block.getArgument(0), second = block.getArgument(1);
  bool onArguments = (lhs == first && rhs == second) ||
                     (lhs == second && rhs == first);
  return onArguments ? &combine : nullptr;
}

/// Whether the loop's accumulate op and the reduce's combine op compute the
/// same function: same op, same attributes (fastmath, overflow flags).
static bool isSameCombine(Operation *accumulate, Operation *combine) {
  return accumulate->getName() == combine->getName() &&
         accumulate->getAttrDictionary() == combine->getAttrDictionary();
}

/// Matches iter_arg `index` of `loop` against the pattern of the pass.
static std::optional<AccumulatorMatch> matchAccumulator(scf::ForOp loop,
                                                        unsigned index) {
  Value iterArg = loop.getRegionIterArgs()[index];
  auto type = dyn_cast<RankedTensorType>(iterArg.getType());
  if (!type || !iterArg.hasOneUse())
    return std::nullopt;
  Operation *accumulate = *iterArg.getUsers().begin();
  if (accumulate->getBlock() != loop.getBody() ||
      !accumulate->hasTrait<OpTrait::Elementwise>() ||
      accumulate->getNumOperands() != 2 || accumulate->getNumResults() != 1 ||
      accumulate->getNumRegions() != 0 ||
      accumulate->getOperand(0) == accumulate->getOperand(1))
    return std::nullopt;
  Value accumulated = accumulate->getResult(0);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (!accumulated.hasOneUse() || *accumulated.getUsers().begin() != yield ||
      yield.getOperand(index) != accumulated)
    return std::nullopt;

  Value result = loop.getResult(index);
  if (!result.hasOneUse())
    return std::nullopt;
  auto reduce = dyn_cast<tile::ReduceOp>(*result.getUsers().begin());
  if (!reduce || reduce.getSrcs().size() != 1)
    return std::nullopt;
  Operation *combine = getSingleCombineOp(reduce);
  if (!combine || !isSameCombine(accumulate, combine))
    return std::nullopt;

  unsigned axis = reduce.getAxis();
  FailureOr<RankedTensorType> partialType = getThreadPartialType(type, axis);
  // Worth it only when a thread holds several elements along the axis.
  if (failed(partialType) ||
      partialType->getDimSize(axis) >= type.getDimSize(axis))
    return std::nullopt;
  unsigned newValueOperand = accumulate->getOperand(0) == iterArg ? 1 : 0;
  return AccumulatorMatch{index, accumulate, newValueOperand, reduce,
                          *partialType};
}

/// tilegpu.thread_reduce of `value` along `axis` with `combine` (the single
/// op of a tile.reduce region) as its combine region.
static Value createThreadReduce(OpBuilder &builder, Location loc, Value value,
                                unsigned axis, RankedTensorType partialType,
                                Operation *combine) {
  auto threadReduce = ThreadReduceOp::create(builder, loc, partialType, value,
                                             builder.getI32IntegerAttr(axis));
  Type element = partialType.getElementType();
  OpBuilder::InsertionGuard guard(builder);
  Block *body = builder.createBlock(&threadReduce.getCombineOp(), {},
                                    {element, element}, {loc, loc});
  Block *original = combine->getBlock();
  IRMapping mapping;
  mapping.map(original->getArguments(), body->getArguments());
  Operation *cloned = builder.clone(*combine, mapping);
  ThreadReduceReturnOp::create(builder, loc, cloned->getResult(0));
  return threadReduce.getResult();
}

/// Carries the matched accumulator as per-thread partials. The reduce keeps
/// its result type: a slice of the partials' layout places every element
/// where the same slice of the original layout does (the two differ only
/// in sizePerThread along the reduced axis).
static void rewriteAccumulator(scf::ForOp loop, AccumulatorMatch match,
                               OpBuilder &builder) {
  unsigned axis = match.reduce.getAxis();
  Operation *combine = getSingleCombineOp(match.reduce);

  builder.setInsertionPoint(loop);
  OpOperand &init = loop.getInitArgsMutable()[match.index];
  init.set(createThreadReduce(builder, loop.getLoc(), init.get(), axis,
                              match.partialType, combine));

  builder.setInsertionPoint(match.accumulate);
  OpOperand &newValue = match.accumulate->getOpOperand(match.newValueOperand);
  newValue.set(createThreadReduce(builder, match.accumulate->getLoc(),
                                  newValue.get(), axis, match.partialType,
                                  combine));
  match.accumulate->getResult(0).setType(match.partialType);
  loop.getRegionIterArgs()[match.index].setType(match.partialType);
  loop.getResult(match.index).setType(match.partialType);
}

namespace {
/// Rewrites every matching loop accumulator; see Passes.td.
struct TileGPUAccumulatePerThreadPass
    : public tilelang::tilegpu::impl::TileGPUAccumulatePerThreadBase<
          TileGPUAccumulatePerThreadPass> {
  void runOnOperation() override {
    OpBuilder builder(&getContext());
    getOperation().walk([&](scf::ForOp loop) {
      for (unsigned index = 0; index < loop.getNumRegionIterArgs(); ++index)
        if (std::optional<AccumulatorMatch> match =
                matchAccumulator(loop, index))
          rewriteAccumulator(loop, *match, builder);
    });
  }
};
} // namespace
