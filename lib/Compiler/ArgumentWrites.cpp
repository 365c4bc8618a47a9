//===- ArgumentWrites.cpp - which arguments a kernel writes through -------===//
//
// Part of tilelang. Follows each kernel argument forward through every value
// computed from it until it reaches an op that may write memory. What a load
// returns is memory's contents, not an address derived from its operands, so
// loads end the walk; everything else passes it on, to its results and,
// through regions and their terminators, to loop-carried values and the
// results of the ops that hold them. An address that reaches a write as
// data (stored into a table) counts as written through: whoever loads it
// back may write through it, and this analysis does not follow memory.
//
//===----------------------------------------------------------------------===//

#include "ArgumentWrites.h"

#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;

namespace tilelang {

namespace {

/// Whether `op` may write memory an address operand points at. Promises
/// (tile.assume, tile.hint) and the debug stream (tile.print, tile.assert)
/// are not memory; any other write is, and so is an op whose effects are
/// unknown (a call). Ops whose effects are those of the ops they hold
/// (scf.for, scf.if) write nothing themselves: their bodies are walked.
bool mayWrite(Operation *op) {
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &it) {
    SideEffects::Resource *resource = it.getResource();
    return isa<MemoryEffects::Write>(it.getEffect()) &&
           !isa<tile::Promises, tile::DebugStream>(resource);
  });
}

/// Whether `op`'s results are what it read from memory (and so carry no
/// address computed from its operands).
bool resultsAreMemoryContents(Operation *op) {
  return isa<tile::LoadOp, tile::DescriptorLoadOp>(op);
}

/// Whether an address computed from `argument` may reach a write.
bool isWrittenThrough(BlockArgument argument) {
  llvm::DenseSet<Value> reached;
  SmallVector<Value> worklist;
  auto reach = [&](Value value) {
    if (reached.insert(value).second)
      worklist.push_back(value);
  };
  // What `op` (or the op whose region it ends) passes the address on to:
  // its results and the arguments of every block of its regions (loop
  // iteration arguments, the bodies of scf.while and tile.reduce).
  auto reachResultsAndBlockArguments = [&](Operation *op) {
    for (Value result : op->getResults())
      reach(result);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument blockArgument : block.getArguments())
          reach(blockArgument);
  };
  reach(argument);
  func::FuncOp kernel = cast<func::FuncOp>(argument.getOwner()->getParentOp());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (mayWrite(user))
        return true;
      if (resultsAreMemoryContents(user))
        continue;
      reachResultsAndBlockArguments(user);
      Operation *parent = user->getParentOp();
      if (user->hasTrait<OpTrait::IsTerminator>() && parent != kernel)
        reachResultsAndBlockArguments(parent);
    }
  }
  return false;
}

} // namespace

std::vector<bool> findWrittenArguments(func::FuncOp kernel) {
  std::vector<bool> written;
  for (BlockArgument argument : kernel.getArguments())
    written.push_back(isWrittenThrough(argument));
  return written;
}

} // namespace tilelang
