//===- RemoveRedundantBarriers.cpp - barriers that order nothing ----------===//
//
// Part of tilelang. The tilelang-remove-redundant-barriers pass: a kernel's
// block-wide barrier goes where no memory access before it can conflict with
// one after it (see Passes.td). Shared-memory accesses conflict unless both
// record disjoint bytes (tilegpu.shared_range, SharedRange.h) or both read.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Conversion/Passes.h"
#include "tilelang/Dialect/TileGPU/IR/SharedRange.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Attributes.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"

#include <limits>

namespace tilelang {
#define GEN_PASS_DEF_REMOVEREDUNDANTBARRIERS
#include "tilelang/Conversion/Passes.h.inc"
} // namespace tilelang

using namespace mlir;

namespace {

/// What an operation may do to memory that another thread can see, as a set
/// of bits. Unknown stands for everything (and for any ordering effect).
enum Effect : unsigned {
  kNone = 0,
  kSharedRead = 1,  // reads shared memory
  kGlobalRead = 2,  // reads global memory
  kGlobalWrite = 4, // writes global memory (atomics are Unknown)
  kUnknown = 8,
  kSharedWrite = 16, // writes shared memory
  kShared = kSharedRead | kSharedWrite,
};

/// The effects of a PTX state space's access: global, shared or generic;
/// none for a read of the kernel's parameters or constant bank (no thread
/// writes them during a launch); Unknown for any other space or access.
unsigned spaceEffect(StringRef space, bool isWrite) {
  unsigned global = isWrite ? kGlobalWrite : kGlobalRead;
  unsigned shared = isWrite ? kSharedWrite : kSharedRead;
  if ((space == "param" || space == "const") && !isWrite)
    return kNone;
  if (space == "global")
    return global;
  if (space == "shared" || space == "shared::cta")
    return shared;
  if (space.empty())
    return shared | global;
  return kUnknown;
}

/// One PTX instruction of inline assembly (predicate stripped, no `;`).
/// Only moves, bit reversals, cache policies, register declarations, weak
/// loads and stores, and loads of the kernel's parameters or constant bank
/// are recognized; a `{ ... }` scope's braces are dropped.
unsigned ptxInstructionEffect(StringRef instruction) {
  instruction = instruction.trim();
  if (instruction.consume_front("{"))
    instruction = instruction.ltrim();
  if (instruction.consume_back("}"))
    instruction = instruction.rtrim();
  if (instruction.empty())
    return kNone;
  // A register of the scope (RematerializePastLoops's parameter reads).
  if (instruction.starts_with(".reg") &&
      (instruction.size() == 4 || llvm::isSpace(instruction[4])))
    return kNone;
  if (instruction.starts_with("@"))
    instruction = instruction.drop_until(llvm::isSpace).trim();
  StringRef opcode = instruction.take_until(llvm::isSpace);
  SmallVector<StringRef> parts;
  opcode.split(parts, '.');
  StringRef base = parts.front();
  if (base == "mov" || base == "brev" || base == "createpolicy")
    return kNone;
  if (base != "ld" && base != "st")
    return kUnknown;
  bool isWrite = base == "st";
  StringRef space;
  for (StringRef part : llvm::drop_begin(parts)) {
    if (part == "global" || part == "shared" || part == "shared::cta" ||
        part == "param" || part == "const") {
      space = part;
      continue;
    }
    // Vector widths, register types and cache operators or priorities;
    // anything else (volatile, relaxed, acquire, release, scopes, other
    // state spaces) is an ordering or a space this does not model.
    bool isVector = part == "v2" || part == "v4" || part == "v8";
    bool isType = part.size() >= 2 && StringRef("bsuf").contains(part[0]) &&
                  llvm::all_of(part.drop_front(), llvm::isDigit);
    bool isCache = part == "ca" || part == "cg" || part == "cs" ||
                   part == "lu" || part == "cv" || part == "nc" ||
                   part == "wb" || part == "wt" || part == "weak" ||
                   part.starts_with("L1::") || part.starts_with("L2::");
    if (!isVector && !isType && !isCache)
      return kUnknown;
  }
  return spaceEffect(space, isWrite);
}

/// Inline assembly, instruction by instruction (comments dropped).
unsigned inlineAsmEffect(LLVM::InlineAsmOp op) {
  unsigned effect = kNone;
  SmallVector<StringRef> lines;
  op.getAsmString().split(lines, '\n');
  for (StringRef line : lines) {
    SmallVector<StringRef> instructions;
    line.take_front(line.find("//")).split(instructions, ';');
    for (StringRef instruction : instructions)
      effect |= ptxInstructionEffect(instruction);
  }
  return effect;
}

/// An LLVM dialect access through a pointer of `type`: global, shared,
/// generic, or thread-local (local memory, no other thread sees it).
unsigned pointerEffect(Type type, bool isWrite) {
  switch (cast<LLVM::LLVMPointerType>(type).getAddressSpace()) {
  case 0:
    return spaceEffect("", isWrite);
  case 1:
    return spaceEffect("global", isWrite);
  case 3:
    return spaceEffect("shared", isWrite);
  case 5:
    return kNone;
  default:
    return kUnknown;
  }
}

/// The effects of one operation other than nvvm.barrier0.
unsigned operationEffect(Operation *op, llvm::LLVMContext &llvmContext) {
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return load.getVolatile_() ||
                   load.getOrdering() != LLVM::AtomicOrdering::not_atomic
               ? kUnknown
               : pointerEffect(load.getAddr().getType(), /*isWrite=*/false);
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    return store.getVolatile_() ||
                   store.getOrdering() != LLVM::AtomicOrdering::not_atomic
               ? kUnknown
               : pointerEffect(store.getAddr().getType(), /*isWrite=*/true);
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op))
    return inlineAsmEffect(asmOp);
  if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
    // LLVM's own table says which intrinsics touch no memory.
    llvm::Intrinsic::ID id =
        llvm::Intrinsic::lookupIntrinsicID(call.getIntrin());
    if (id != llvm::Intrinsic::not_intrinsic &&
        llvm::Intrinsic::getFnAttributes(llvmContext, id)
            .getMemoryEffects()
            .doesNotAccessMemory())
      return kNone;
    return kUnknown;
  }
  // Warp-level register exchanges and special-register reads touch no
  // memory; so do the control-flow terminators.
  if (isa<NVVM::ShflOp, NVVM::VoteSyncOp, LLVM::BrOp, LLVM::CondBrOp,
          LLVM::SwitchOp, LLVM::ReturnOp, LLVM::UnreachableOp>(op) ||
      op->getName().getStringRef().starts_with("nvvm.read.ptx.sreg."))
    return kNone;
  return isMemoryEffectFree(op) ? kNone : kUnknown;
}

/// The effects of a path between barriers: their union, and each shared
/// access's bytes (the whole array where the access records none).
struct PathEffects {
  struct SharedAccess {
    bool isWrite;
    int64_t begin, end;
  };
  unsigned effect = kNone;
  SmallVector<SharedAccess> shared;

  void add(Operation *op, unsigned opEffect) {
    effect |= opEffect;
    if (!(opEffect & kShared))
      return;
    auto range = tilelang::tilegpu::getSharedRange(op);
    int64_t begin = range ? range->first : 0;
    int64_t end = range ? range->second : std::numeric_limits<int64_t>::max();
    // An access that both reads and writes (generic or unrecognized) is
    // recorded as a write: it conflicts with everything a write does.
    shared.push_back({bool(opEffect & kSharedWrite), begin, end});
  }
};

/// Whether some shared access in `a` may conflict with one in `b`: both
/// touch a common byte and one of them writes.
bool sharedConflict(const PathEffects &a, const PathEffects &b) {
  for (const PathEffects::SharedAccess &x : a.shared)
    for (const PathEffects::SharedAccess &y : b.shared)
      if ((x.isWrite || y.isWrite) && x.begin < y.end && y.begin < x.end)
        return true;
  return false;
}

/// The block-wide barrier the lowering emits (bar.sync 0); other barriers
/// are classified as unknown effects.
bool isBarrier(Operation &op) { return isa<NVVM::Barrier0Op>(op); }

/// Which way a walk from a barrier goes: to the previous barrier or the
/// kernel's entry (through predecessors, each block scanned from its end),
/// or to the next barrier or the kernel's exit (through successors).
enum class Direction { Backward, Forward };

/// The effects on every path from `barrier` in `direction` to the next
/// barrier on that path or the kernel's entry or exit.
PathEffects effectsAround(NVVM::Barrier0Op barrier, Direction direction,
                          llvm::LLVMContext &llvmContext) {
  bool backward = direction == Direction::Backward;
  PathEffects effects;
  SmallVector<Block *> worklist;
  llvm::SmallPtrSet<Block *, 8> scanned;
  // Scans `ops` in order; true where a barrier ended the path.
  auto scan = [&](auto &&ops) {
    for (Operation &op : ops) {
      if (isBarrier(op))
        return true;
      effects.add(&op, operationEffect(&op, llvmContext));
    }
    return false;
  };
  // Scans `block` in the walk's direction, past `from` where it is given
  // (the barrier, in its own block), else whole.
  auto scanBlock = [&](Block *block, Operation *from) {
    if (backward)
      return scan(llvm::make_range(from ? std::next(from->getReverseIterator())
                                        : block->rbegin(),
                                   block->rend()));
    return scan(llvm::make_range(
        from ? std::next(from->getIterator()) : block->begin(), block->end()));
  };
  auto enqueueNeighbours = [&](Block *block) {
    auto enqueue = [&](auto &&blocks) {
      for (Block *neighbour : blocks)
        if (scanned.insert(neighbour).second)
          worklist.push_back(neighbour);
    };
    if (backward)
      enqueue(block->getPredecessors());
    else
      enqueue(block->getSuccessors());
  };
  Block *home = barrier->getBlock();
  if (!scanBlock(home, barrier))
    enqueueNeighbours(home);
  while (!worklist.empty() && !(effects.effect & kUnknown)) {
    Block *block = worklist.pop_back_val();
    if (!scanBlock(block, nullptr))
      enqueueNeighbours(block);
  }
  return effects;
}

/// Whether `barrier` orders no pair of accesses that may conflict: only
/// global reads and shared accesses (or nothing) before it; no global write
/// after it where there are global reads before; and no shared access after
/// it that touches a byte a shared access before it touches, one of the two
/// writing.
bool ordersNothing(NVVM::Barrier0Op barrier, llvm::LLVMContext &llvmContext) {
  PathEffects before = effectsAround(barrier, Direction::Backward, llvmContext);
  if (before.effect & ~unsigned(kGlobalRead | kShared))
    return false;
  if (before.effect == kNone)
    return true;
  PathEffects after = effectsAround(barrier, Direction::Forward, llvmContext);
  if (after.effect & kUnknown)
    return false;
  if ((before.effect & kGlobalRead) && (after.effect & kGlobalWrite))
    return false;
  return !sharedConflict(before, after);
}

struct RemoveRedundantBarriersPass
    : public tilelang::impl::RemoveRedundantBarriersBase<
          RemoveRedundantBarriersPass> {
  void runOnOperation() override {
    LLVM::LLVMFuncOp func = getOperation();
    if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) ||
        func.isExternal())
      return;
    llvm::LLVMContext llvmContext;
    // One barrier at a time: removing one widens its neighbours' regions.
    bool removed = true;
    while (removed) {
      removed = false;
      func.walk([&](NVVM::Barrier0Op barrier) {
        // A barrier the user wrote is kept for what it does besides
        // ordering memory (aligning warps before a clock read, say); it
        // still ends its neighbours' paths.
        if (barrier->hasAttr(
                tilelang::tilegpu::TileGPUDialect::kUserBarrierAttrName) ||
            !ordersNothing(barrier, llvmContext))
          return WalkResult::advance();
        barrier.erase();
        removed = true;
        return WalkResult::interrupt();
      });
    }
  }
};

} // namespace
