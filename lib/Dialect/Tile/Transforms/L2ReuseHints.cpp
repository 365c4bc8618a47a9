//===- L2ReuseHints.cpp - L2 priorities for data read again ---------------===//
//
// Part of tilelang. The tile-l2-reuse-hints pass: a program that walks its
// input in one loop and reads the same addresses again in a later loop (the
// looped layer norm) keeps that input in L2 (evict_last) until its last read
// (evict_first), and writes its output evict_first. See Passes.td for the
// rules and docs/lowering.md for the lowering of the priorities.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/Tile/Transforms/Passes.h"

#include "tilelang/Dialect/Tile/IR/TileDialect.h"
#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tilelang::tile {
#define GEN_PASS_DEF_TILEL2REUSEHINTS
#include "tilelang/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilelang::tile

using namespace mlir;
using namespace tilelang::tile;

namespace {

/// The function argument that `ptr` (a pointer or a tensor of pointers) is
/// offset from, through addptr and the shape ops; null where the chain
/// leaves those (a loop-carried pointer, a select, an int_to_ptr).
BlockArgument pointerBase(Value ptr) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(ptr)) {
      if (isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
        return arg;
      return {};
    }
    Operation *def = ptr.getDefiningOp();
    if (auto add = dyn_cast<AddPtrOp>(def))
      ptr = add.getPtr();
    else if (isa<SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp>(def))
      ptr = def->getOperand(0);
    else
      return {};
  }
}

/// Whether the user chose how this access uses the caches.
bool hasUserHint(LoadOp load) {
  return load.getCache() != CacheModifier::None ||
         load.getEvict() != EvictionPolicy::Normal || load.getIsVolatile();
}
bool hasUserHint(StoreOp store) {
  return store.getCache() != CacheModifier::None ||
         store.getEvict() != EvictionPolicy::Normal;
}

/// Decides whether two values are the same address expression up to the
/// induction variables of loops over the same range: across all iterations
/// of their loops, two such pointers reach the same addresses. Memoized per
/// pair; only pure ops without regions are looked through.
class SameAddresses {
public:
  bool operator()(Value a, Value b) {
    if (a == b)
      return true;
    if (a.getType() != b.getType())
      return false;
    auto key = std::make_pair(a.getAsOpaquePointer(), b.getAsOpaquePointer());
    if (auto it = known.find(key); it != known.end())
      return it->second;
    bool same = compare(a, b);
    known[key] = same;
    return same;
  }

private:
  bool compare(Value a, Value b) {
    auto argA = dyn_cast<BlockArgument>(a);
    auto argB = dyn_cast<BlockArgument>(b);
    if (argA || argB) {
      if (!argA || !argB)
        return false;
      auto forA = dyn_cast<scf::ForOp>(argA.getOwner()->getParentOp());
      auto forB = dyn_cast<scf::ForOp>(argB.getOwner()->getParentOp());
      // Other block arguments (loop-carried values, function arguments
      // other than the same one) may differ.
      if (!forA || !forB || argA != forA.getInductionVar() ||
          argB != forB.getInductionVar())
        return false;
      return (*this)(forA.getLowerBound(), forB.getLowerBound()) &&
             (*this)(forA.getUpperBound(), forB.getUpperBound()) &&
             (*this)(forA.getStep(), forB.getStep());
    }
    Operation *opA = a.getDefiningOp();
    Operation *opB = b.getDefiningOp();
    if (opA->getName() != opB->getName() ||
        cast<OpResult>(a).getResultNumber() !=
            cast<OpResult>(b).getResultNumber() ||
        opA->getNumOperands() != opB->getNumOperands() ||
        opA->getNumRegions() != 0 || opB->getNumRegions() != 0 ||
        opA->getAttrDictionary() != opB->getAttrDictionary() ||
        opA->getResultTypes() != opB->getResultTypes() ||
        !isMemoryEffectFree(opA))
      return false;
    for (auto [x, y] : llvm::zip_equal(opA->getOperands(), opB->getOperands()))
      if (!(*this)(x, y))
        return false;
    return true;
  }

  llvm::DenseMap<std::pair<void *, void *>, bool> known;
};

/// Whether `value` differs between programs: it is computed from
/// tile.program_id (through pure ops and loop induction variables).
class PerProgram {
public:
  bool operator()(Value value) {
    if (auto it = known.find(value); it != known.end())
      return it->second;
    known[value] = false;
    bool depends = compute(value);
    known[value] = depends;
    return depends;
  }

private:
  bool compute(Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      return loop && arg == loop.getInductionVar() &&
             ((*this)(loop.getLowerBound()) || (*this)(loop.getUpperBound()) ||
              (*this)(loop.getStep()));
    }
    Operation *def = value.getDefiningOp();
    if (isa<ProgramIdOp>(def))
      return true;
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return false;
    return llvm::any_of(def->getOperands(),
                        [&](Value operand) { return (*this)(operand); });
  }

  llvm::DenseMap<Value, bool> known;
};

/// Whether `op` (not its nested ops) may write global memory other than
/// through a store or atomic whose pointer is offset from an argument
/// other than `base`.
bool mayWrite(Operation *op, BlockArgument base) {
  if (isMemoryEffectFree(op) || isa<LoadOp>(op) ||
      op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  Value ptr;
  if (auto store = dyn_cast<StoreOp>(op))
    ptr = store.getPtr();
  else if (auto rmw = dyn_cast<AtomicRMWOp>(op))
    ptr = rmw.getPtr();
  else if (auto cas = dyn_cast<AtomicCASOp>(op))
    ptr = cas.getPtr();
  if (ptr) {
    BlockArgument written = pointerBase(ptr);
    return !written || written == base;
  }
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect()) &&
           !isa<Promises, DebugStream>(e.getResource());
  });
}

/// The ops of one block that hold `first` and `second` (first's before
/// second's), when second re-reads first's data after a loop: only scf.for
/// ops lie between each access and that block, and one of the two is in
/// such a loop. Otherwise {nullptr, nullptr}.
std::pair<Operation *, Operation *> reuseSpan(Operation *first,
                                              Operation *second) {
  SmallVector<Operation *> firstChain;
  for (Operation *op = first; op && !isa<FunctionOpInterface>(op);
       op = op->getParentOp())
    firstChain.push_back(op);
  for (Operation *op2 = second; op2 && !isa<FunctionOpInterface>(op2);
       op2 = op2->getParentOp()) {
    for (Operation *op1 : firstChain) {
      if (op1->getBlock() != op2->getBlock())
        continue;
      if (op1 == op2 || !op1->isBeforeInBlock(op2) ||
          (op1 == first && op2 == second))
        return {nullptr, nullptr};
      auto onlyLoops = [](Operation *access, Operation *holder) {
        for (Operation *op = access->getParentOp(); op != holder->getParentOp();
             op = op->getParentOp())
          if (!isa<scf::ForOp>(op))
            return false;
        return true;
      };
      if (!onlyLoops(first, op1) || !onlyLoops(second, op2))
        return {nullptr, nullptr};
      return {op1, op2};
    }
  }
  return {nullptr, nullptr};
}

/// Whether an op from `from` to `to` (ops of one block, inclusive, with
/// everything nested in them) may write the data offset from `base`.
bool writtenBetween(Operation *from, Operation *to, BlockArgument base) {
  for (Operation *op = from;; op = op->getNextNode()) {
    WalkResult result = op->walk([&](Operation *nested) {
      return mayWrite(nested, base) ? WalkResult::interrupt()
                                    : WalkResult::advance();
    });
    if (result.wasInterrupted())
      return true;
    if (op == to)
      return false;
  }
}

void hintFunction(FunctionOpInterface function) {
  SmallVector<LoadOp> loads;
  function->walk<WalkOrder::PreOrder>(
      [&](LoadOp load) { loads.push_back(load); });
  SameAddresses same;
  PerProgram perProgram;
  // readAgain[i]: a later load reads load i's addresses again; reRead[i]:
  // load i reads an earlier load's addresses again.
  SmallVector<bool> readAgain(loads.size()), reRead(loads.size());
  for (auto [i, first] : llvm::enumerate(loads)) {
    BlockArgument base = pointerBase(first.getPtr());
    if (!base || !perProgram(first.getPtr()))
      continue;
    for (size_t j = i + 1; j < loads.size(); ++j) {
      LoadOp second = loads[j];
      if (pointerBase(second.getPtr()) != base ||
          !same(first.getPtr(), second.getPtr()))
        continue;
      auto [from, to] = reuseSpan(first, second);
      if (!from || writtenBetween(from, to, base))
        continue;
      readAgain[i] = true;
      reRead[j] = true;
    }
  }

  // The loops that hold a last re-read: their stores of data this function
  // never reads back go evict_first.
  llvm::SmallPtrSet<Operation *, 4> lastReadLoops;
  for (auto [i, load] : llvm::enumerate(loads)) {
    if (hasUserHint(load) || !(readAgain[i] || reRead[i]))
      continue;
    if (readAgain[i]) {
      load.setEvict(EvictionPolicy::EvictLast);
    } else {
      load.setEvict(EvictionPolicy::EvictFirst);
      if (auto loop = load->getParentOfType<scf::ForOp>())
        lastReadLoops.insert(loop);
    }
  }
  if (lastReadLoops.empty())
    return;
  llvm::SmallPtrSet<BlockArgument, 8> readBases;
  for (LoadOp load : loads) {
    BlockArgument base = pointerBase(load.getPtr());
    if (!base)
      return; // A load from anywhere: no store is proved write-only.
    readBases.insert(base);
  }
  function->walk([&](StoreOp store) {
    BlockArgument base = pointerBase(store.getPtr());
    if (hasUserHint(store) || !base || readBases.contains(base) ||
        !isa<RankedTensorType>(store.getPtr().getType()) ||
        !perProgram(store.getPtr()) ||
        !lastReadLoops.contains(store->getParentOfType<scf::ForOp>()))
      return;
    store.setEvict(EvictionPolicy::EvictFirst);
  });
}

/// Sets the priorities in every function; see Passes.td.
struct TileL2ReuseHintsPass
    : public tilelang::tile::impl::TileL2ReuseHintsBase<TileL2ReuseHintsPass> {
  void runOnOperation() override {
    getOperation()->walk(
        [](FunctionOpInterface function) { hintFunction(function); });
  }
};

} // namespace
