//===- AsyncProducts.cpp - wgmma products kept in flight ------------------===//
//
// Part of tilelang. Makes the wgmma products of a pipelined loop
// asynchronous and waits for each one as late as its readers allow: a
// product runs while the warpgroup issues the next instructions, and a
// product whose result is only carried to the next iteration (an
// accumulator) stays in flight across the back edge, or, where registers
// allow, is issued one iteration late: flash attention's loop (S = Q K^T,
// then the softmax, then O += P V) then issues the previous iteration's
// P V right after S and runs the softmax of S while it computes.
//
//===----------------------------------------------------------------------===//

#include "AsyncProducts.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

/// The 32-bit registers a thread holds of `type` (a distributed tensor).
static unsigned registersPerThread(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  unsigned bits = getTotalElemsPerThread(tensor) *
                  tensor.getElementType().getIntOrFloatBitWidth();
  return llvm::divideCeil(bits, 32);
}

bool tilelang::tilegpu::isLoopInvariantSharedCopy(LocalAllocOp alloc) {
  auto loop = dyn_cast_or_null<LoopLikeOpInterface>(alloc->getParentOp());
  return loop && alloc.getSrc() && !alloc.getType().getMutableMemory() &&
         loop.isDefinedOutsideOfLoop(alloc.getSrc()) &&
         llvm::none_of(alloc->getUsers(), llvm::IsaPred<LocalDeallocOp>);
}

SmallVector<AsyncProduct>
tilelang::tilegpu::findAsyncProducts(scf::ForOp loop,
                                     function_ref<bool(Value)> isStage) {
  Block *body = loop.getBody();
  Operation *yield = body->getTerminator();
  SmallVector<AsyncProduct> products;
  for (WarpGroupDotOp dot : body->getOps<WarpGroupDotOp>()) {
    SmallVector<Value> shared{dot.getB()};
    if (!dot.isAInRegisters())
      shared.push_back(dot.getA());
    // Whether each shared operand stays unchanged while the product is in
    // flight: within the iteration, and into the next one.
    bool usable = true, outlivesIteration = true;
    for (Value operand : shared) {
      // A transposed view reads the tile it views.
      while (auto view = operand.getDefiningOp<MemDescTransOp>())
        operand = view.getSrc();
      if (isStage(operand) || loop.isDefinedOutsideOfLoop(operand))
        continue;
      auto alloc = operand.getDefiningOp<LocalAllocOp>();
      if (alloc && alloc->getBlock() == body && alloc.getSrc() &&
          !alloc.getType().getMutableMemory()) {
        outlivesIteration &= isLoopInvariantSharedCopy(alloc);
        continue;
      }
      usable = false;
    }
    if (!usable)
      continue;
    AsyncProduct product{dot};
    Value result = dot.getD();
    if (outlivesIteration && result.hasOneUse() &&
        result.getUses().begin()->getOwner() == yield)
      product.carriedIndex = result.getUses().begin()->getOperandNumber();
    products.push_back(product);
  }
  // A product carried across the back edge keeps its accumulator and its
  // register operand (flash attention's P) live and untouchable while the
  // next iteration's first product, when that is another one, writes its
  // result (S): with 4 warps on a 128x64 block of a 128-wide head that is
  // 128 + 32 + 64 of the 255 registers, and the softmax, the addresses and
  // the copies spill. Where the registers in flight at that point exceed
  // the budget, the carried products retire before the back edge instead
  // (one wait more per iteration, no spills). A loop whose first product is
  // the carried one (a matmul's) holds nothing more by carrying it.
  if (products.empty() || products.front().carriedIndex >= 0)
    return products;
  unsigned inFlightRegisters =
      registersPerThread(products.front().dot.getD().getType());
  for (AsyncProduct &product : products) {
    if (product.carriedIndex < 0)
      continue;
    inFlightRegisters += registersPerThread(product.dot.getD().getType());
    if (product.dot.isAInRegisters())
      inFlightRegisters += registersPerThread(product.dot.getA().getType());
  }
  if (inFlightRegisters > kCarriedProductRegisters)
    for (AsyncProduct &product : products) {
      product.retiredForRegisters |= product.carriedIndex >= 0;
      product.carriedIndex = -1;
    }
  return products;
}

namespace {

/// A product's result that may still be computed: the value standing for it
/// (its result, an iter_arg carrying it, or a wait's output passing it on).
struct InFlight {
  Value value;
  /// The product of this iteration, null for one carried in from the last.
  const AsyncProduct *product;
};

/// Walks a loop body in order, tracking the products in flight (oldest
/// first: wgmma groups retire in order) and inserting waits.
class WaitPlacer {
public:
  WaitPlacer(Block *body, ArrayRef<AsyncProduct> products)
      : body(body), products(products) {}

  Operation *run();

private:
  /// Whether `use` of `entry`'s value may see it unfinished: as the
  /// accumulator of a later product (wgmma accumulates into registers in
  /// flight), or as the carried product's own yield operand.
  bool mayReadInFlight(OpOperand &use, const InFlight &entry) const;
  /// Whether `value` is used at or after `op` (or inside such an op).
  bool isUsedFrom(Value value, Operation *op) const;
  /// Inserts before `before` a wait that retires `inFlight[0..newest]`,
  /// passing on every value in flight that is used from there on; returns
  /// the wait.
  Operation *retire(Operation *before, unsigned newest);

  Block *body;
  ArrayRef<AsyncProduct> products;
  SmallVector<InFlight> inFlight;
};

} // namespace

bool WaitPlacer::mayReadInFlight(OpOperand &use,
                                 const InFlight &entry) const {
  Operation *user = use.getOwner();
  if (auto dot = dyn_cast<WarpGroupDotOp>(user))
    if (use.get() == dot.getC() && dot.getIsAsync() &&
        dot->getBlock() == body)
      return true;
  return user == body->getTerminator() && entry.product &&
         entry.product->carriedIndex ==
             static_cast<int>(use.getOperandNumber());
}

bool WaitPlacer::isUsedFrom(Value value, Operation *op) const {
  return llvm::any_of(value.getUsers(), [&](Operation *user) {
    Operation *ancestor = body->findAncestorOpInBlock(*user);
    return ancestor && !ancestor->isBeforeInBlock(op);
  });
}

Operation *WaitPlacer::retire(Operation *before, unsigned newest) {
  SmallVector<Value> passed;
  SmallVector<unsigned> passedIndices;
  for (auto [index, entry] : llvm::enumerate(inFlight)) {
    if (isUsedFrom(entry.value, before)) {
      passed.push_back(entry.value);
      passedIndices.push_back(index);
    }
  }
  OpBuilder builder(before);
  unsigned pendings = inFlight.size() - 1 - newest;
  auto wait = WarpGroupDotWaitOp::create(builder, before->getLoc(), passed,
                                         pendings);
  for (auto [value, output] : llvm::zip_equal(passed, wait.getOutputs())) {
    value.replaceUsesWithIf(output, [&](OpOperand &use) {
      Operation *ancestor = body->findAncestorOpInBlock(*use.getOwner());
      return ancestor && ancestor != wait && !ancestor->isBeforeInBlock(wait);
    });
  }
  for (auto [position, index] : llvm::enumerate(passedIndices))
    inFlight[index].value = wait.getOutputs()[position];
  inFlight.erase(inFlight.begin(), inFlight.begin() + newest + 1);
  return wait;
}

Operation *WaitPlacer::run() {
  llvm::DenseMap<Operation *, const AsyncProduct *> productOf;
  for (const AsyncProduct &product : products) {
    WarpGroupDotOp dot = product.dot;
    dot.setIsAsync(true);
    productOf[product.dot] = &product;
  }
  // The previous iteration's carried products, in the order they were
  // issued in.
  for (const AsyncProduct &product : products)
    if (product.carriedIndex >= 0)
      inFlight.push_back(
          {body->getArgument(product.carriedIndex + 1), /*product=*/nullptr});

  Operation *lastProduct = products.back().dot;
  Operation *copiesAfter = nullptr;
  for (Operation *op = &body->front(); op; op = op->getNextNode()) {
    // Retire up to the newest product this op reads. Where that includes a
    // product carried in from the previous iteration, retire every product
    // in flight: ptxas cannot tell which groups a wait that leaves some
    // pending retires across the back edge, and serializes every wgmma of
    // the kernel when registers are read after one (C7514; a loop whose
    // first product is issued ahead, canIssueFirstProductAhead, would leave
    // it pending at the rescale of the carried accumulator).
    std::optional<unsigned> newest;
    for (auto [index, entry] : llvm::enumerate(inFlight))
      for (OpOperand &use : entry.value.getUses())
        if (body->findAncestorOpInBlock(*use.getOwner()) == op &&
            !mayReadInFlight(use, entry))
          newest = index;
    if (newest && llvm::any_of(llvm::ArrayRef(inFlight).take_front(*newest + 1),
                               [](const InFlight &entry) {
                                 return !entry.product;
                               }))
      newest = inFlight.size() - 1;
    if (newest)
      retire(op, *newest);

    auto found = productOf.find(op);
    if (found == productOf.end())
      continue;
    WarpGroupDotOp dot = found->second->dot;
    inFlight.push_back({dot.getD(), found->second});
    if (op != lastProduct)
      continue;
    // The stages the previous iteration read are refilled after here: its
    // products must be complete.
    std::optional<unsigned> newestCarried;
    for (auto [index, entry] : llvm::enumerate(inFlight))
      if (!entry.product)
        newestCarried = index;
    copiesAfter = op;
    if (newestCarried) {
      copiesAfter = retire(op->getNextNode(), *newestCarried);
      op = copiesAfter;
    }
  }
  // A product that is not carried must not cross the back edge: the next
  // iteration rewrites the buffers of the iteration it reads. One whose
  // result only feeds a later product's accumulator in flight has no reader
  // that waits for it; the end of the body does (leaving newer products,
  // such as the carried one it feeds, in flight).
  std::optional<unsigned> newestUncarried;
  for (auto [index, entry] : llvm::enumerate(inFlight))
    if (entry.product && entry.product->carriedIndex < 0)
      newestUncarried = index;
  if (newestUncarried)
    retire(body->getTerminator(), *newestUncarried);
  return copiesAfter;
}

Operation *
tilelang::tilegpu::placeProductWaits(Block *body,
                                     ArrayRef<AsyncProduct> products) {
  return WaitPlacer(body, products).run();
}

/// Wraps `loop` in a guard that runs it when it has iterations, finishing
/// its results with `finish` on the loop's own exit path (ptxas serializes
/// every wgmma when a wait sits where the loop's exit meets the path that
/// skips a loop of zero iterations), and passes its inits otherwise.
static Operation *
guardLoop(scf::ForOp loop,
          function_ref<void(OpBuilder &, SmallVectorImpl<Value> &)> finish) {
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  Value runs = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                     loop.getLowerBound(), loop.getUpperBound());
  auto guard = scf::IfOp::create(builder, loc, loop.getResultTypes(), runs,
                                 /*withElseRegion=*/true);
  loop->moveBefore(guard.thenBlock(), guard.thenBlock()->end());
  builder.setInsertionPointToEnd(guard.thenBlock());
  SmallVector<Value> results(loop.getResults());
  finish(builder, results);
  scf::YieldOp::create(builder, loc, results);
  builder.setInsertionPointToEnd(guard.elseBlock());
  scf::YieldOp::create(builder, loc, loop.getInitArgs());
  return guard;
}

Operation *tilelang::tilegpu::waitAfterLoop(scf::ForOp loop,
                                            ArrayRef<AsyncProduct> products) {
  SmallVector<unsigned> carried;
  for (const AsyncProduct &product : products)
    if (product.carriedIndex >= 0)
      carried.push_back(product.carriedIndex);
  if (carried.empty())
    return loop;
  return guardLoop(loop, [&](OpBuilder &builder, SmallVectorImpl<Value> &results) {
    SmallVector<Value> inputs;
    for (unsigned index : carried)
      inputs.push_back(results[index]);
    auto wait = WarpGroupDotWaitOp::create(builder, loop.getLoc(), inputs,
                                           /*pendings=*/0);
    for (auto [index, output] : llvm::zip_equal(carried, wait.getOutputs()))
      results[index] = output;
  });
}

//===----------------------------------------------------------------------===//
// Deferred products
//===----------------------------------------------------------------------===//

/// `operand` (a view of a stage) rebuilt at `builder` for stage `stage`: its
/// memdesc_index and the transposed views over it, cloned.
static Value viewOfStage(OpBuilder &builder, Value operand, Value stage) {
  SmallVector<Operation *> chain;
  while (auto view = operand.getDefiningOp<MemDescTransOp>()) {
    chain.push_back(view);
    operand = view.getSrc();
  }
  auto index = operand.getDefiningOp<MemDescIndexOp>();
  IRMapping mapping;
  mapping.map(index.getIndex(), stage);
  Operation *last = builder.clone(*index, mapping);
  for (Operation *view : llvm::reverse(chain))
    last = builder.clone(*view, mapping);
  return last->getResult(0);
}

bool tilelang::tilegpu::shouldRefillEarly(ArrayRef<AsyncProduct> products,
                                          unsigned numStages) {
  if (numStages < 3 || products.size() != 1 || products[0].carriedIndex < 0)
    return false;
  // Operands are tensors (A in registers) or shared-memory descriptors.
  auto shapeAndElement = [](Type type) -> std::pair<ArrayRef<int64_t>, Type> {
    if (auto memdesc = dyn_cast<MemDescType>(type))
      return {memdesc.getShape(), memdesc.getElementType()};
    auto tensor = cast<RankedTensorType>(type);
    return {tensor.getShape(), tensor.getElementType()};
  };
  int64_t byteMacs = 0;
  for (AsyncProduct product : products) {
    auto [a, element] = shapeAndElement(product.dot.getA().getType());
    ArrayRef<int64_t> b = shapeAndElement(product.dot.getB().getType()).first;
    byteMacs += a[a.size() - 2] * a.back() * b.back() *
                llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  }
  return int64_t(numStages - 2) * byteMacs >= kEarlyRefillByteMacs;
}

/// The ops of `body` that read `value`, directly or through each other's
/// results (an op nested in one counts as that op), except `skip` and the
/// terminator, in block order.
static SmallVector<Operation *> readersInBody(Block *body, Value value,
                                              Operation *skip) {
  SetVector<Operation *> readers;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    for (Operation *user : next.getUsers()) {
      Operation *reader = body->findAncestorOpInBlock(*user);
      if (reader && reader != skip && reader != body->getTerminator() &&
          readers.insert(reader))
        llvm::append_range(worklist, reader->getResults());
    }
  }
  SmallVector<Operation *> ordered(readers.begin(), readers.end());
  llvm::sort(ordered, [](Operation *x, Operation *y) {
    return x->isBeforeInBlock(y);
  });
  return ordered;
}

std::optional<unsigned>
tilelang::tilegpu::findDeferrableProduct(ArrayRef<AsyncProduct> products,
                                         function_ref<bool(Value)> isStage) {
  if (products.size() != 2 || products[0].carriedIndex >= 0 ||
      products[1].carriedIndex < 0)
    return std::nullopt;
  WarpGroupDotOp first = products[0].dot, carried = products[1].dot;
  Value b = carried.getB();
  while (auto view = b.getDefiningOp<MemDescTransOp>())
    b = view.getSrc();
  Operation *accumulator = carried.getC().getDefiningOp();
  if (!carried.isAInRegisters() || !isStage(b) || !accumulator ||
      accumulator->getBlock() != carried->getBlock())
    return std::nullopt;
  // The first product must not read what the deferred one makes.
  Block *body = carried->getBlock();
  Value carriedArg = body->getArgument(products[1].carriedIndex + 1);
  for (Value operand : first->getOperands())
    if (operand == carriedArg || operand == carried.getA())
      return std::nullopt;
  // What reads the accumulator moves to the end of the body when deferred:
  // only ops without memory effects may move past the rest.
  if (!llvm::all_of(readersInBody(body, carriedArg, carried),
                    [](Operation *op) { return isMemoryEffectFree(op); }))
    return std::nullopt;
  unsigned registers = registersPerThread(carried.getD().getType()) +
                       registersPerThread(first.getD().getType()) +
                       2 * registersPerThread(carried.getA().getType());
  if (registers > kDeferredProductRegisters)
    return std::nullopt;
  return 1;
}

std::pair<WarpGroupDotOp, Value>
tilelang::tilegpu::deferCarriedProduct(Block *body, const AsyncProduct &carried,
                                       WarpGroupDotOp first, Value previousA,
                                       Value previousStage) {
  WarpGroupDotOp dot = carried.dot;
  BlockArgument accumulator = body->getArgument(carried.carriedIndex + 1);
  OpBuilder builder(first->getNextNode());
  IRMapping mapping;
  mapping.map(dot.getA(), previousA);
  mapping.map(dot.getB(), viewOfStage(builder, dot.getB(), previousStage));
  mapping.map(dot.getC(), accumulator);
  auto deferred = cast<WarpGroupDotOp>(builder.clone(*dot, mapping));
  accumulator.replaceAllUsesExcept(deferred.getD(), deferred);

  // The carried accumulator is now what the product would have accumulated
  // into; the product itself goes.
  Operation *yield = body->getTerminator();
  Value a = dot.getA();
  yield->setOperand(carried.carriedIndex, dot.getC());
  dot->erase();

  // What reads the deferred product (the accumulator's rescaling) moves to
  // the end of the body: its wait comes after everything else.
  for (Operation *op : readersInBody(body, deferred.getD(), deferred))
    op->moveBefore(yield);
  return {deferred, a};
}

Operation *tilelang::tilegpu::issueDeferredAfterLoop(scf::ForOp loop,
                                                     WarpGroupDotOp deferred,
                                                     unsigned accIndex,
                                                     unsigned aIndex,
                                                     unsigned stageIndex) {
  return guardLoop(loop, [&](OpBuilder &builder, SmallVectorImpl<Value> &results) {
    IRMapping mapping;
    mapping.map(deferred.getA(), results[aIndex]);
    mapping.map(deferred.getB(),
                viewOfStage(builder, deferred.getB(), results[stageIndex]));
    mapping.map(deferred.getC(), results[accIndex]);
    auto last = cast<WarpGroupDotOp>(builder.clone(*deferred, mapping));
    last.setIsAsync(true);
    auto wait = WarpGroupDotWaitOp::create(builder, loop.getLoc(),
                                           ValueRange{last.getD()},
                                           /*pendings=*/0);
    results[accIndex] = wait.getOutputs()[0];
  });
}

//===----------------------------------------------------------------------===//
// A first product issued one iteration ahead
//===----------------------------------------------------------------------===//

/// `operand` seen through its transposed views.
static Value viewedOperand(Value operand) {
  while (auto view = operand.getDefiningOp<MemDescTransOp>())
    operand = view.getSrc();
  return operand;
}

bool tilelang::tilegpu::canIssueFirstProductAhead(
    scf::ForOp loop, ArrayRef<AsyncProduct> products,
    function_ref<bool(Value)> isStage) {
  if (products.size() != 2 || products[0].carriedIndex >= 0 ||
      products[1].carriedIndex < 0)
    return false;
  WarpGroupDotOp first = products[0].dot, second = products[1].dot;
  if (first.isAInRegisters())
    return false;
  // The next iteration's product reads nothing of this iteration but its
  // stage.
  for (Value operand : {Value(first.getA()), Value(first.getB())}) {
    Value viewed = viewedOperand(operand);
    if (!isStage(viewed) && !loop.isDefinedOutsideOfLoop(viewed))
      return false;
  }
  Value c = first.getC();
  if (!loop.isDefinedOutsideOfLoop(c) && !matchPattern(c, m_Constant()))
    return false;
  // The second product depends on the first (the softmax between them is
  // what the product in flight overlaps), and only the body reads it.
  Block *body = loop.getBody();
  if (!llvm::is_contained(readersInBody(body, first.getD(), first),
                          second.getOperation()))
    return false;
  if (llvm::is_contained(first.getD().getUsers(), body->getTerminator()))
    return false;
  unsigned registers = 2 * registersPerThread(first.getD().getType()) +
                       registersPerThread(second.getD().getType());
  if (second.isAInRegisters())
    registers += 2 * registersPerThread(second.getA().getType());
  return registers <= kAheadProductRegisters;
}

WarpGroupDotOp tilelang::tilegpu::issueProductForStage(OpBuilder &builder,
                                                       WarpGroupDotOp dot,
                                                       Value stage) {
  auto loop = cast<scf::ForOp>(dot->getParentOp());
  IRMapping mapping;
  for (Value operand : {Value(dot.getA()), Value(dot.getB())})
    if (!loop.isDefinedOutsideOfLoop(operand))
      mapping.map(operand, viewOfStage(builder, operand, stage));
  if (!loop.isDefinedOutsideOfLoop(dot.getC()))
    mapping.map(dot.getC(),
                builder.clone(*dot.getC().getDefiningOp())->getResult(0));
  auto issued = cast<WarpGroupDotOp>(builder.clone(*dot, mapping));
  issued.setIsAsync(true);
  return issued;
}

WarpGroupDotOp tilelang::tilegpu::issueFirstProductAhead(
    OpBuilder &builder, Block *body, WarpGroupDotOp first, Value nextStage,
    BlockArgument current) {
  WarpGroupDotOp ahead = issueProductForStage(builder, first, nextStage);
  Operation *yield = body->getTerminator();
  yield->insertOperands(yield->getNumOperands(), ahead.getD());
  first.getD().replaceAllUsesWith(current);
  // The views of the read stage only the product read go with it.
  SmallVector<Value> operands{first.getA(), first.getB(), first.getC()};
  first->erase();
  for (Value operand : operands) {
    while (operand.use_empty()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != body || !isMemoryEffectFree(def))
        break;
      Value source = isa<MemDescTransOp>(def) ? def->getOperand(0) : Value();
      def->erase();
      if (!source)
        break;
      operand = source;
    }
  }
  return ahead;
}
