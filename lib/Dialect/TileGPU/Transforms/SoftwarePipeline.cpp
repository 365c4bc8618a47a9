//===- SoftwarePipeline.cpp - cp.async software pipelining of dot operands ===//
//
// Part of tilelang. The tilegpu-pipeline pass: turns the global loads that
// feed tensor-core operands in a loop into asynchronous copies issued
// num_stages - 1 iterations ahead (num_stages - 2 where a product is
// deferred) into rotating shared-memory buffers
// (cp.async, or on sm_90 bulk tensor copies signalling one mbarrier per
// stage), and keeps the loop's wgmma products in flight as long as their
// readers allow (AsyncProducts.cpp). Pointer tensors the copies read
// through that move by a uniform step are carried as their scalar base
// (CarriedPointers.cpp). Copies of loop-invariant tensors to
// shared memory move before their loops. The descriptor accesses it does
// not take are lowered by tilegpu-lower-descriptor-accesses.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "AsyncProducts.h"
#include "CarriedPointers.h"

#include "tilelang/Analysis/AxisInfo.h"
#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"
#include "tilelang/Dialect/TileGPU/Transforms/BulkCopies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tilelang::tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilelang::tilegpu

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// A global load whose only use makes it a tensor-core operand.
struct OperandLoad {
  /// A tile.load, or a tile.descriptor_load copied in bulk.
  Operation *load;
  /// Its only user: a convert_layout to an mma.sync operand (read back with
  /// local_load) or a local_alloc that wgmma reads (replaced by the stage).
  Operation *consumer;
  SharedEncodingAttr encoding;
  /// The load's operands and result type, which outlive it: pointers and
  /// mask of a tile.load, descriptor and offsets of a descriptor load.
  Value ptr, mask;
  tile::MakeTensorDescOp desc;
  SmallVector<Value> offsets;
  RankedTensorType type;
  /// With bulk copies: the encoding of the descriptor's tensor map that
  /// fills a stage.
  TensorMapEncodingAttr tensorMap;

  bool isBulk() const { return static_cast<bool>(desc); }
  /// Bytes of one stage of this load's buffer.
  int64_t getStageBytes() const {
    return type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }
};

/// A loop's own number of stages, set by the frontend from
/// `tl.range(..., num_stages=)`.
static constexpr llvm::StringLiteral kLoopNumStagesAttrName = "tile.num_stages";

/// Pipelines one loop; see the pass description.
class LoopPipeliner {
public:
  LoopPipeliner(scf::ForOp loop, unsigned numStages, bool productsAhead,
                const ModuleAxisInfo &axisInfo)
      : loop(loop), body(loop.getBody()), numStages(numStages),
        productsAhead(productsAhead), axisInfo(axisInfo) {}

  /// Finds the loads and the ops computing their addresses; false if there
  /// is nothing to pipeline. Changes nothing: a loop it refuses is left as
  /// it was.
  bool analyze();
  void rewrite();

private:
  /// Carries the copies' pointer tensors that move by a uniform step as
  /// their scalar base (CarriedPointers.h) and finds the slice again; the
  /// first step of rewrite().
  void rebaseCarriedPointers();
  std::optional<OperandLoad> matchOperandLoad(Operation *consumer);
  /// A descriptor load that bulk copies can fill a stage with.
  std::optional<OperandLoad> matchBulkLoad(tile::DescriptorLoadOp load,
                                           Operation *consumer,
                                           SharedEncodingAttr encoding,
                                           RankedTensorType type);
  /// Whether `operand` is what a pipelined load hands its consumer (its
  /// tile, to become a view of a stage).
  bool isStageOperand(Value operand) const {
    return llvm::any_of(loads, [&](const OperandLoad &load) {
      return load.consumer->getResult(0) == operand;
    });
  }
  /// Adds the ops computing `value` in the loop body to the slice; false if
  /// one of them cannot be recomputed for another iteration.
  bool addToSlice(Value value);
  /// Clones the slice at `builder`'s position under `mapping` (induction
  /// variable and carried iter_args already mapped).
  void cloneSlice(OpBuilder &builder, IRMapping &mapping);
  /// The mbarrier of stage `stage` (bulk copies).
  Value getStageBarrier(OpBuilder &builder, Location loc, Value stage) {
    auto type = cast<MemDescType>(barriers.getType()).getStageType();
    return MemDescIndexOp::create(builder, loc, type, barriers, stage);
  }
  /// Issues the copies of one iteration into stage `stage` of each buffer,
  /// as one cp.async group or as bulk copies signalling the stage's
  /// barrier; `valid` masks the whole iteration.
  void issueCopies(OpBuilder &builder, Location loc, IRMapping &mapping,
                   ArrayRef<Value> buffers, Value stage, Value valid);

  scf::ForOp loop;
  /// The loop's body, which moves to the rewritten loop.
  Block *body;
  unsigned numStages;
  /// Whether a loop of two dependent products may issue its first product
  /// one iteration ahead (the pass's overlap-products option).
  bool productsAhead;
  /// Whether the stages are filled by bulk tensor copies (every load is a
  /// descriptor load) rather than cp.async.
  bool bulk = false;
  /// The wgmma products issued asynchronously.
  SmallVector<AsyncProduct> products;
  /// Whether the loop's products retire within each iteration for
  /// registers (AsyncProduct::retiredForRegisters): then its copies step
  /// their offsets (steppedOffsets) and go right after the loop's first
  /// barrier, and products reading a loop-invariant shared operand form
  /// their descriptors at issue (descriptorsAtIssue), all to hold fewer
  /// registers across the loop.
  bool isRegisterBound() const {
    return llvm::any_of(products, [](const AsyncProduct &product) {
      return product.retiredForRegisters;
    });
  }
  const ModuleAxisInfo &axisInfo;
  SmallVector<OperandLoad> loads;
  /// With bulk copies: one mbarrier per stage (a [num_stages x 1] buffer of
  /// i64), which the stage's copies signal.
  Value barriers;
  llvm::SetVector<Operation *> slice;
  /// Iter_args the addresses depend on, in argument order.
  llvm::SmallSetVector<unsigned, 4> carried;
};

} // namespace

std::optional<OperandLoad>
LoopPipeliner::matchOperandLoad(Operation *consumer) {
  // The tile's shared layout: ldmatrix's for mma.sync operands, the one
  // wgmma's descriptors were set up for otherwise.
  Value loaded;
  SharedEncodingAttr encoding;
  if (auto convert = dyn_cast<ConvertLayoutOp>(consumer)) {
    if (!getMmaV2Tile(convert.getType().getEncoding()))
      return std::nullopt;
    loaded = convert.getSrc();
  } else if (auto alloc = dyn_cast<LocalAllocOp>(consumer)) {
    encoding = dyn_cast<SharedEncodingAttr>(alloc.getType().getEncoding());
    if (!alloc.getSrc() || !encoding)
      return std::nullopt;
    loaded = alloc.getSrc();
  } else {
    return std::nullopt;
  }
  auto type = cast<RankedTensorType>(loaded.getType());
  // 16-bit operands; 8-bit ones (fp8, i8) of wgmma, through cp.async.
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (bits != 16 && !(bits == 8 && isa<LocalAllocOp>(consumer)))
    return std::nullopt;
  if (auto descLoad = loaded.getDefiningOp<tile::DescriptorLoadOp>()) {
    if (bits != 16)
      return std::nullopt;
    return matchBulkLoad(descLoad, consumer, encoding, type);
  }
  auto load = loaded.getDefiningOp<tile::LoadOp>();
  if (!load || load->getBlock() != body || !load->hasOneUse() ||
      load.getIsVolatile())
    return std::nullopt;
  // Masked-off elements are zero-filled by the copy: `other` must be zero
  // (a float or, for integer operands, an integer zero).
  Value other = load.getOther();
  if (other && !matchPattern(other, m_AnyZeroFloat()) &&
      !matchPattern(other, m_Zero()))
    return std::nullopt;
  auto ptrType = dyn_cast<RankedTensorType>(load.getPtr().getType());
  auto blocked =
      ptrType ? dyn_cast<BlockedEncodingAttr>(ptrType.getEncoding()) : nullptr;
  if (!blocked || ptrType.getRank() != 2)
    return std::nullopt;
  // cp.async moves 4, 8 or 16 bytes: the same width the lowering computes.
  unsigned dim = blocked.getOrder()[0];
  unsigned bytes = bits / 8;
  unsigned width =
      std::min({blocked.getSizePerThread()[dim],
                axisInfo.getPointerVectorWidth(load.getPtr(), dim, bytes),
                axisInfo.getMaskConstancy(load.getMask(), dim), 16 / bytes});
  if (width * bytes < 4 || type.getDimSize(dim) % 8 != 0)
    return std::nullopt;
  if (!encoding)
    encoding = getSwizzledSharedEncoding(loop.getContext(), type.getShape(),
                                         blocked.getOrder(), bits);
  // Copies land along the buffer's rows.
  if (encoding.getOrder()[0] != dim)
    return std::nullopt;
  OperandLoad match{load, consumer, encoding, load.getPtr(), load.getMask()};
  match.type = type;
  return match;
}

std::optional<OperandLoad>
LoopPipeliner::matchBulkLoad(tile::DescriptorLoadOp load, Operation *consumer,
                             SharedEncodingAttr encoding,
                             RankedTensorType type) {
  auto desc = load.getDesc().getDefiningOp<tile::MakeTensorDescOp>();
  if (load->getBlock() != body || !load->hasOneUse() || !desc ||
      !desc.getTensormap() || type.getRank() != 2)
    return std::nullopt;
  // Rows along the descriptor's contiguous last dimension.
  if (!encoding)
    encoding = getSwizzledSharedEncoding(loop.getContext(), type.getShape(),
                                         {1, 0}, 16);
  TensorMapEncodingAttr tensorMap =
      getBulkCopyEncoding(desc.getTensormap(), type.getShape(), encoding,
                          type.getElementType());
  if (!tensorMap)
    return std::nullopt;
  OperandLoad match{load, consumer, encoding};
  match.desc = desc;
  match.offsets = llvm::to_vector(load.getOffsets());
  match.type = type;
  match.tensorMap = tensorMap;
  return match;
}

bool LoopPipeliner::addToSlice(Value value) {
  // Depth first with an explicit stack, in the order a recursive walk would
  // take: an address computed by 50,000 dependent ops would overflow the
  // call stack.
  SmallVector<Value> pending{value};
  while (!pending.empty()) {
    Value next = pending.pop_back_val();
    if (next == loop.getInductionVar())
      continue;
    if (auto arg = dyn_cast<BlockArgument>(next)) {
      if (arg.getOwner() != body) {
        if (loop->isAncestor(arg.getOwner()->getParentOp()))
          return false;
        continue;
      }
      unsigned index = arg.getArgNumber() - 1;
      // The carried value's update must be recomputable too.
      if (carried.insert(index))
        pending.push_back(body->getTerminator()->getOperand(index));
      continue;
    }
    Operation *def = next.getDefiningOp();
    if (!loop->isAncestor(def))
      continue; // loop invariant
    if (def->getBlock() != body || def->getNumRegions() != 0 || !isPure(def))
      return false;
    if (!slice.insert(def))
      continue;
    llvm::append_range(pending, llvm::reverse(def->getOperands()));
  }
  return true;
}

bool LoopPipeliner::analyze() {
  for (Operation &op : body->without_terminator())
    if (std::optional<OperandLoad> load = matchOperandLoad(&op))
      loads.push_back(*load);
  // A stage fills either by cp.async or by bulk copies; with both kinds of
  // loads, the descriptor loads stay (and become pointer loads).
  bulk = !loads.empty() && llvm::all_of(loads, [](const OperandLoad &load) {
           return load.isBulk();
         });
  // One tensor map read through two different boxes cannot be encoded for
  // both.
  llvm::DenseMap<Value, TensorMapEncodingAttr> tensorMaps;
  for (OperandLoad &load : loads) {
    if (!bulk)
      break;
    auto [known, inserted] =
        tensorMaps.try_emplace(load.desc.getTensormap(), load.tensorMap);
    bulk = inserted || known->second == load.tensorMap;
  }
  if (!bulk)
    llvm::erase_if(loads, [](const OperandLoad &load) { return load.isBulk(); });
  if (loads.empty())
    return false;
  for (OperandLoad &load : loads)
    for (Value operand : load.load->getOperands())
      if (!addToSlice(operand))
        return false;
  products = findAsyncProducts(
      loop, [&](Value operand) { return isStageOperand(operand); });
  return true;
}

void LoopPipeliner::rebaseCarriedPointers() {
  // Only here, once the loop is pipelined: the rewrite of a carried
  // pointer tensor is what the copies' prologue and ahead values need, and
  // a loop left as it was keeps its tensors (and its registers) as written.
  bool rebased = false;
  for (OperandLoad &load : loads) {
    auto arg = dyn_cast_if_present<BlockArgument>(load.ptr);
    if (load.isBulk() || !arg)
      continue;
    Value rebuilt = rebaseCarriedPointerTensor(loop, arg);
    if (!rebuilt)
      continue;
    for (OperandLoad &other : loads)
      if (other.ptr == arg)
        other.ptr = rebuilt;
    rebased = true;
  }
  if (!rebased)
    return;
  // The addresses are recomputed from the carried base, so the slice is
  // found again. It cannot fail where analyze() succeeded: the rebuilt
  // tensor is pure ops of the body on the carried base (advanced by a
  // pure, loop-invariant step) and on offsets defined before the loop.
  slice.clear();
  carried.clear();
  for (OperandLoad &load : loads)
    for (Value operand : load.load->getOperands()) {
      [[maybe_unused]] bool recomputable = addToSlice(operand);
      assert(recomputable && "a rebased address slice must be recomputable");
    }
}

void LoopPipeliner::cloneSlice(OpBuilder &builder, IRMapping &mapping) {
  for (Operation &op : body->without_terminator())
    if (slice.contains(&op))
      builder.clone(op, mapping);
}

void LoopPipeliner::issueCopies(OpBuilder &builder, Location loc,
                                IRMapping &mapping, ArrayRef<Value> buffers,
                                Value stage, Value valid) {
  cloneSlice(builder, mapping);
  if (bulk) {
    // One arrival on the stage's barrier, expecting every copy's bytes.
    Value barrier = getStageBarrier(builder, loc, stage);
    int64_t bytes = 0;
    for (OperandLoad &load : loads)
      bytes += load.getStageBytes();
    BarrierExpectOp::create(builder, loc, barrier, bytes, valid);
    for (auto [load, buffer] : llvm::zip_equal(loads, buffers)) {
      SmallVector<Value> coords;
      for (Value offset : load.offsets)
        coords.push_back(mapping.lookupOrDefault(offset));
      auto stageType = cast<MemDescType>(buffer.getType()).getStageType();
      Value view =
          MemDescIndexOp::create(builder, loc, stageType, buffer, stage);
      AsyncTMACopyGlobalToLocalOp::create(builder, loc,
                                          load.desc.getTensormap(), coords,
                                          view, barrier, valid);
    }
    return;
  }
  auto tokenType = AsyncTokenType::get(builder.getContext());
  SmallVector<Value> tokens;
  for (auto [load, buffer] : llvm::zip_equal(loads, buffers)) {
    Value ptrs = mapping.lookupOrDefault(load.ptr);
    Type maskType = tile::getI1SameShape(ptrs.getType());
    Value mask = tile::SplatOp::create(builder, loc, maskType, valid);
    if (Value original = load.mask)
      mask = arith::AndIOp::create(builder, loc,
                                   mapping.lookupOrDefault(original), mask);
    auto stageType = cast<MemDescType>(buffer.getType()).getStageType();
    Value view = MemDescIndexOp::create(builder, loc, stageType, buffer, stage);
    auto copy = AsyncCopyGlobalToLocalOp::create(builder, loc, tokenType, ptrs,
                                                 view, mask, Value());
    copy.setSteppedOffsets(isRegisterBound());
    tokens.push_back(copy);
  }
  AsyncCommitGroupOp::create(builder, loc, tokenType, tokens);
}

void LoopPipeliner::rewrite() {
  rebaseCarriedPointers();
  Location loc = loop.getLoc();
  MLIRContext *context = loop.getContext();
  Operation *yield = body->getTerminator();
  Value iv = loop.getInductionVar();
  Type ivType = iv.getType();
  OpBuilder builder(loop);
  auto ivConstant = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(builder, loc, ivType,
                                     builder.getIntegerAttr(ivType, value));
  };
  auto i32Constant = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(builder, loc, value, 32);
  };
  // Whether iteration `ivValue` exists.
  auto inRange = [&](Value ivValue) -> Value {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                 ivValue, loop.getUpperBound());
  };

  // The buffers may take the room of buffers and scratch used before the
  // loop, which other threads may still be reading (shared memory is
  // placed by program order, and a dealloc waits for nothing): everyone
  // first finishes with it. The bulk copy engine writes through the async
  // proxy, so earlier generic writes are fenced first.
  if (bulk)
    FenceAsyncSharedOp::create(builder, loc);
  BarrierOp::create(builder, loc);

  // One buffer of num_stages tiles per load.
  SmallVector<Value> buffers;
  for (OperandLoad &load : loads) {
    RankedTensorType type = load.type;
    SmallVector<int64_t> shape{numStages};
    llvm::append_range(shape, type.getShape());
    auto bufferType = MemDescType::get(context, shape, type.getElementType(),
                                       load.encoding, /*mutableMemory=*/true);
    buffers.push_back(LocalAllocOp::create(builder, loc, bufferType, Value()));
  }
  // Bulk copies: the launcher encodes each tensor map for the stage's
  // layout, and each stage gets an mbarrier, initialized before any copy.
  SmallVector<Value> stageBarriers;
  if (bulk) {
    for (OperandLoad &load : loads)
      recordTensorMapEncoding(load.desc.getTensormap(), load.tensorMap);
    auto unswizzled = SharedEncodingAttr::get(context, 1, 1, 1, {0});
    auto barriersType =
        MemDescType::get(context, {numStages, 1}, builder.getI64Type(),
                         unswizzled, /*mutableMemory=*/true);
    barriers = LocalAllocOp::create(builder, loc, barriersType, Value());
    for (unsigned stage = 0; stage < numStages; ++stage) {
      stageBarriers.push_back(
          getStageBarrier(builder, loc, i32Constant(stage)));
      InitBarrierOp::create(builder, loc, stageBarriers.back(), 1);
    }
    BarrierOp::create(builder, loc);
  }

  // A carried product issued one iteration late (flash attention's P V,
  // see findDeferrableProduct; its first issue has a zero register operand)
  // reads the previous iteration's stage until late in the body, so the
  // copies refill the stage read two iterations before, which every thread
  // has finished with at the loop's first barrier: they run one iteration
  // less ahead (three stages or more) and need no second barrier (copies
  // after that product's wait would leave the tensor cores idle through
  // them and both barriers).
  // With overlap-products, a loop of two dependent products (flash
  // attention's S = Q K^T, then P V) may instead issue its first product one
  // iteration ahead (canIssueFirstProductAhead): S_{j+1} runs with the
  // carried P_{j-1} V_{j-1} through the softmax of S_j. The stage of
  // iteration j + 1 must then be complete at the top of iteration j: the
  // loop waits for one copy group more, and a prologue issues S_0.
  // Iteration j's products read stages j - 1 (the previous P V, until the
  // rescale), j and j + 1 (S_{j+1}); the copies refill stage j - 2, free
  // once every thread is past the loop's first barrier, right after S_{j+1}
  // is issued, a whole iteration before the next one waits for them (one
  // barrier): four stages or more. With three, the only stage to refill is
  // the previous P V's, after P V and a second barrier, and the next
  // iteration's first wait would find the copies just issued (their latency
  // exposed: 128x64 attention ran 22% slower so, bench/parity/results,
  // 2026-11-26, run 39); such loops defer their P V instead.
  bool firstAhead = productsAhead && !bulk && numStages >= 4 &&
                    canIssueFirstProductAhead(loop, products, [&](Value v) {
                      return isStageOperand(v);
                    });
  std::optional<unsigned> deferredIndex;
  if (!bulk && numStages >= 3 && !firstAhead)
    deferredIndex = findDeferrableProduct(
        products, [&](Value operand) { return isStageOperand(operand); });
  // Likewise a loop whose product is carried in flight (a matmul's) may
  // refill the stage read two iterations before, right after its product,
  // instead of waiting for the previous product and a second barrier
  // (shouldRefillEarly): one barrier per iteration.
  bool earlyCopies = !bulk && !deferredIndex &&
                     shouldRefillEarly(products, numStages);
  // How many iterations ahead the copies run.
  unsigned distance = deferredIndex || earlyCopies || firstAhead
                          ? numStages - 2
                          : numStages - 1;

  // Prologue: iterations 0 .. distance - 1 into stages 0 .. distance - 1.
  SmallVector<Value> ahead;
  for (unsigned index : carried)
    ahead.push_back(loop.getInitArgs()[index]);
  for (unsigned stage = 0; stage < distance; ++stage) {
    Value ivValue = arith::AddIOp::create(
        builder, loc, loop.getLowerBound(),
        arith::MulIOp::create(builder, loc, loop.getStep(), ivConstant(stage)));
    IRMapping mapping;
    mapping.map(iv, ivValue);
    for (auto [index, value] : llvm::zip_equal(carried, ahead))
      mapping.map(loop.getRegionIterArg(index), value);
    issueCopies(builder, loc, mapping, buffers, i32Constant(stage),
                inRange(ivValue));
    for (auto [position, index] : llvm::enumerate(carried))
      ahead[position] = mapping.lookupOrDefault(yield->getOperand(index));
  }

  // The loop gains the ahead values and the read and write stages (and a
  // deferred product's register operand and stage).
  SmallVector<Value> inits(loop.getInitArgs());
  // The first product issued ahead arrives through an iter_arg after the
  // loop's own; a loop of no iteration yields this zero, a loop that runs
  // gets the prologue's product instead (after the loop's guard exists).
  unsigned aheadIndex = inits.size();
  if (firstAhead) {
    Type resultType = products[0].dot.getD().getType();
    inits.push_back(arith::ConstantOp::create(
        builder, loc, cast<TypedAttr>(builder.getZeroAttr(resultType))));
  }
  llvm::append_range(inits, ahead);
  inits.push_back(i32Constant(0));
  inits.push_back(i32Constant(distance));
  if (bulk)
    inits.push_back(i32Constant(0)); // the read stage's barrier phase
  if (deferredIndex) {
    Type aType = products[*deferredIndex].dot.getA().getType();
    inits.push_back(arith::ConstantOp::create(
        builder, loc, cast<TypedAttr>(builder.getZeroAttr(aType))));
    inits.push_back(i32Constant(0));
  }
  auto newLoop =
      scf::ForOp::create(builder, loc, loop.getLowerBound(),
                         loop.getUpperBound(), loop.getStep(), inits);
  newLoop.getRegion().getBlocks().clear();
  newLoop.getRegion().takeBody(loop.getRegion());
  BlockArgument currentProduct =
      firstAhead ? body->addArgument(inits[aheadIndex].getType(), loc)
                 : BlockArgument();
  SmallVector<BlockArgument> aheadArgs;
  for (Value value : ahead)
    aheadArgs.push_back(body->addArgument(value.getType(), loc));
  BlockArgument readStage = body->addArgument(builder.getI32Type(), loc);
  BlockArgument writeStage = body->addArgument(builder.getI32Type(), loc);
  BlockArgument readPhase =
      bulk ? body->addArgument(builder.getI32Type(), loc) : BlockArgument();
  BlockArgument previousA, previousStage;
  if (deferredIndex) {
    previousA = body->addArgument(inits[inits.size() - 2].getType(), loc);
    previousStage = body->addArgument(builder.getI32Type(), loc);
  }

  // Wait for this iteration's stage; the barrier also tells every thread
  // that all have finished reading the stage the copies below refill (with
  // a product carried in flight across iterations, the barrier after the
  // wait for it does).
  bool carriesProducts =
      !deferredIndex && llvm::any_of(products, [](const AsyncProduct &p) {
        return p.carriedIndex >= 0;
      });
  builder.setInsertionPointToStart(body);
  Operation *firstBarrier = nullptr;
  if (bulk) {
    WaitBarrierOp::create(builder, loc, getStageBarrier(builder, loc, readStage),
                          readPhase);
    if (!carriesProducts)
      firstBarrier = BarrierOp::create(builder, loc);
  } else {
    // With the first product ahead, the stage of the next iteration too.
    AsyncWaitOp::create(builder, loc, AsyncTokenType::get(context),
                        ValueRange(), firstAhead ? distance - 2 : distance - 1);
    firstBarrier = BarrierOp::create(builder, loc);
  }
  Operation *lastRead = nullptr;
  for (auto [load, buffer] : llvm::zip_equal(loads, buffers)) {
    builder.setInsertionPoint(load.consumer);
    auto stageType = cast<MemDescType>(buffer.getType()).getStageType();
    Value view =
        MemDescIndexOp::create(builder, loc, stageType, buffer, readStage);
    // mma.sync operands are read into registers; wgmma reads the stage.
    Operation *read = view.getDefiningOp();
    if (isa<ConvertLayoutOp>(load.consumer))
      read = LocalLoadOp::create(builder, loc,
                                 load.consumer->getResult(0).getType(), view);
    load.consumer->replaceAllUsesWith(read->getResults());
    // Transposed views of the stage are as mutable as the stage.
    for (Operation *user : read->getUsers())
      if (auto trans = dyn_cast<MemDescTransOp>(user))
        trans.getResult().setType(
            MemDescTransOp::getTransposedType(trans.getSrc().getType()));
    load.consumer->erase();
    load.load->erase();
    if (!lastRead || lastRead->isBeforeInBlock(read))
      lastRead = read;
  }

  auto nextStage = [&](Value stage) -> Value {
    Value next = arith::AddIOp::create(builder, loc, stage, i32Constant(1));
    Value wraps = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        next, i32Constant(numStages));
    return arith::SelectOp::create(builder, loc, wraps, i32Constant(0), next);
  };
  // The first product, issued ahead right after the loop's first barrier
  // for the next stage; this iteration's reads the iter_arg. It is not
  // carried in flight: the yield waits for it (leaving P V in flight), since
  // the loop's back edge copies it into the iter_arg's registers (S_j and
  // S_{j+1} are both live from its issue to the softmax's last read of S_j),
  // and a copy of accumulators in flight makes ptxas serialize every wgmma
  // of the kernel (C7514). By then the tensor cores have long finished it:
  // it was queued behind the previous P V only, before the softmax.
  Value nextRead;
  if (firstAhead) {
    builder.setInsertionPointAfter(firstBarrier);
    nextRead = nextStage(readStage);
    WarpGroupDotOp ahead = issueFirstProductAhead(
        builder, body, products[0].dot, nextRead, currentProduct);
    products[0] = AsyncProduct{ahead};
  }

  WarpGroupDotOp deferred;
  Value deferredA;
  unsigned deferredAccumulator = 0;
  if (deferredIndex) {
    deferredAccumulator = products[*deferredIndex].carriedIndex;
    std::tie(deferred, deferredA) =
        deferCarriedProduct(body, products[*deferredIndex], products[0].dot,
                            previousA, previousStage);
    products[*deferredIndex] = AsyncProduct{deferred};
  }

  // Then start the copies for iteration i + distance, into the stage that
  // iteration i + distance - num_stages read, while this iteration's
  // products run: after its last product. Products carried in flight from
  // iteration i - 1 may still read the stage: unless the copies refill the
  // stage of iteration i - 2 (earlyCopies), they also follow the wait that
  // retires them and a barrier (for the other warpgroups' products).
  if (earlyCopies) {
    placeProductWaits(body, products);
    builder.setInsertionPointAfter(products.back().dot);
  } else if (firstAhead) {
    placeProductWaits(body, products);
    builder.setInsertionPointAfter(products.front().dot);
  } else if (isRegisterBound()) {
    // No product crosses the back edge: the stage refilled here was read
    // by the previous iteration's products, which all retired in it, and
    // every thread is past them at the loop's first barrier. The copies go
    // right after that barrier, where a thread holds the fewest registers
    // (the carried accumulators), rather than after the last product, next
    // to every value the products made live (flash attention at 128x64, 4
    // warps, head 128, whose P V retires in the iteration: S, P and the
    // softmax's temporaries) or after the first, next to its result. Their
    // address arithmetic then overlaps no product; such a loop already
    // gave up the overlap of carried products for registers.
    placeProductWaits(body, products);
    builder.setInsertionPointAfter(firstBarrier);
    // A loop-invariant operand's descriptors (attention's Q) would be
    // hoisted as one 64-bit value per instruction, more than the uniform
    // registers hold next to the loop's own (TileGPUOps.td).
    for (const AsyncProduct &product : products) {
      WarpGroupDotOp dot = product.dot;
      SmallVector<Value> shared{dot.getB()};
      if (!dot.isAInRegisters())
        shared.push_back(dot.getA());
      if (llvm::any_of(shared, [&](Value operand) {
            while (auto view = operand.getDefiningOp<MemDescTransOp>())
              operand = view.getSrc();
            return newLoop.isDefinedOutsideOfLoop(operand);
          }))
        dot.setDescriptorsAtIssue(true);
    }
  } else if (!products.empty()) {
    builder.setInsertionPointAfter(placeProductWaits(body, products));
    if (carriesProducts)
      BarrierOp::create(builder, loc);
  } else {
    builder.setInsertionPointAfter(lastRead);
  }
  Value aheadIv = arith::AddIOp::create(
      builder, loc, newLoop.getInductionVar(),
      arith::MulIOp::create(builder, loc, newLoop.getStep(),
                            ivConstant(distance)));
  IRMapping mapping;
  mapping.map(iv, aheadIv);
  for (auto [index, arg] : llvm::zip_equal(carried, aheadArgs))
    mapping.map(body->getArgument(index + 1), arg);
  issueCopies(builder, loc, mapping, buffers, writeStage, inRange(aheadIv));
  SmallVector<Value> yielded(yield->getOperands());
  for (unsigned index : carried)
    yielded.push_back(mapping.lookupOrDefault(yield->getOperand(index)));
  if (!nextRead)
    nextRead = nextStage(readStage);
  yielded.push_back(nextRead);
  yielded.push_back(nextStage(writeStage));
  if (bulk) {
    // A barrier's phase flips each time its stage comes round again.
    Value wrapped = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, nextRead, i32Constant(0));
    Value flipped =
        arith::XOrIOp::create(builder, loc, readPhase, i32Constant(1));
    yielded.push_back(
        arith::SelectOp::create(builder, loc, wrapped, flipped, readPhase));
  }
  if (deferred) {
    yielded.push_back(deferredA);
    yielded.push_back(readStage);
  }
  yield->setOperands(yielded);

  Operation *replacement =
      deferred ? issueDeferredAfterLoop(newLoop, deferred, deferredAccumulator,
                                        inits.size() - 2, inits.size() - 1)
      : products.empty() ? newLoop.getOperation()
                         : waitAfterLoop(newLoop, products);
  // The prologue, on the path that runs the loop, once the first stage is
  // complete (the later prologue groups stay in flight) and published to
  // every thread: the first product of iteration 0, waited for (it enters
  // the loop as every later one arrives, complete).
  if (firstAhead) {
    builder.setInsertionPoint(newLoop);
    AsyncWaitOp::create(builder, loc, AsyncTokenType::get(context),
                        ValueRange(), distance - 1);
    BarrierOp::create(builder, loc);
    WarpGroupDotOp first =
        issueProductForStage(builder, products[0].dot, i32Constant(0));
    auto done = WarpGroupDotWaitOp::create(
        builder, loc, ValueRange{first.getD()}, /*pendings=*/0);
    newLoop.getInitArgsMutable()[aheadIndex].assign(done.getOutputs()[0]);
  }

  // After the loop: drain the copies past the end (bulk copies past the end
  // were never issued, and every thread has passed its last barrier wait
  // before the in-loop CTA barrier), free the buffers.
  builder.setInsertionPointAfter(replacement);
  if (bulk) {
    for (Value barrier : stageBarriers)
      InvalBarrierOp::create(builder, loc, barrier);
    LocalDeallocOp::create(builder, loc, barriers);
  } else {
    AsyncWaitOp::create(builder, loc, AsyncTokenType::get(context),
                        ValueRange(), 0);
  }
  for (Value buffer : buffers)
    LocalDeallocOp::create(builder, loc, buffer);
  loop.replaceAllUsesWith(
      replacement->getResults().take_front(loop.getNumResults()));
  loop.erase();
}

/// Moves before its loop every local_alloc that copies a tensor defined
/// outside the loop into an immutable buffer (a wgmma operand that does not
/// change, such as attention's Q block): the tensor goes to shared memory
/// once instead of in every iteration, and the buffer is live across the
/// loop. Its lowering stores, fences the stores for the async proxy and
/// waits at a barrier where it now stands, so wgmma in the loop still
/// reads complete data. Allocations the loop frees (local_dealloc) stay.
/// Then a copy of a tensor already copied by a dominating local_alloc of
/// the same type reuses that buffer (causal attention's two loops read one
/// Q), so the tensor's registers die at the first copy.
static void hoistInvariantSharedCopies(ModuleOp module) {
  for (bool changed = true; changed;) {
    changed = false;
    module.walk([&](LocalAllocOp alloc) {
      if (!isLoopInvariantSharedCopy(alloc))
        return;
      cast<LoopLikeOpInterface>(alloc->getParentOp()).moveOutOfLoop(alloc);
      changed = true;
    });
  }
  auto isSharable = [](LocalAllocOp alloc) {
    return alloc.getSrc() && !alloc.getType().getMutableMemory() &&
           llvm::none_of(alloc->getUsers(), llvm::IsaPred<LocalDeallocOp>);
  };
  DominanceInfo dominance(module);
  llvm::DenseMap<Value, SmallVector<LocalAllocOp>> copiesOf;
  SmallVector<LocalAllocOp> allocs;
  module.walk([&](LocalAllocOp alloc) { allocs.push_back(alloc); });
  for (LocalAllocOp alloc : allocs) {
    if (!isSharable(alloc))
      continue;
    SmallVector<LocalAllocOp> &earlier = copiesOf[alloc.getSrc()];
    auto first = llvm::find_if(earlier, [&](LocalAllocOp copy) {
      return copy.getType() == alloc.getType() &&
             dominance.properlyDominates(copy.getOperation(), alloc);
    });
    if (first == earlier.end()) {
      earlier.push_back(alloc);
      continue;
    }
    alloc.replaceAllUsesWith(first->getResult());
    alloc.erase();
  }
}

namespace {
/// Software-pipelines dot operand loads; see Passes.td.
struct TileGPUPipelinePass
    : public tilelang::tilegpu::impl::TileGPUPipelineBase<TileGPUPipelinePass> {
  using TileGPUPipelineBase::TileGPUPipelineBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    hoistInvariantSharedCopies(module);
    // A loop's own `tile.num_stages` (tl.range(..., num_stages=)) replaces
    // the kernel's; fewer than 2 stages leave the loop as it is.
    SmallVector<std::pair<scf::ForOp, unsigned>> loops;
    module.walk([&](scf::ForOp loop) {
      unsigned stages = numStages;
      if (auto own = loop->getAttrOfType<IntegerAttr>(kLoopNumStagesAttrName))
        stages = own.getInt();
      if (stages >= 2)
        loops.emplace_back(loop, stages);
    });
    if (!loops.empty()) {
      ModuleAxisInfo axisInfo(module);
      for (auto [loop, stages] : loops) {
        LoopPipeliner pipeliner(loop, stages, overlapProducts, axisInfo);
        if (pipeliner.analyze())
          pipeliner.rewrite();
      }
    }
  }
};
} // namespace
