//===- SharedMemoryAllocation.cpp - shared memory by liveness -------------===//
//
// Part of tilelang. Places every shared-memory buffer (local_alloc) and
// every op's scratch space in the kernel's one dynamic shared-memory array,
// so that two of them share bytes only when they are never live at the same
// time; the array's size is the peak that placement reaches.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/Analysis/Liveness.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

/// One claim on shared memory: a buffer or an op's scratch space, live
/// over the program positions [start, end] (inclusive), `bytes` long at an
/// offset that is a multiple of `alignment`.
struct Claim {
  Operation *owner;
  int64_t start, end;
  int64_t bytes, alignment;
  bool isScratch = false;
  int64_t offset = 0;

  bool overlapsInTime(const Claim &other) const {
    return start <= other.end && other.start <= end;
  }
};

/// Program positions: every op gets the range of preorder numbers that it
/// and the ops nested in it take. In the CFG that scf -> cf leaves, a loop's
/// blocks sit between the blocks before and after it, so the positions an
/// SSA value is live at lie within [first, last] of its live ops: that range
/// is a conservative interval, and two values whose intervals are disjoint
/// are never live together.
class ProgramOrder {
public:
  explicit ProgramOrder(ModuleOp module) {
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      span[op] = {next, next};
      ++next;
    });
    // An op with regions ends where its last nested op does (a reduce's
    // combine region, a function's body).
    module.walk([&](Operation *op) {
      if (op->getNumRegions() == 0)
        return;
      int64_t last = span[op].second;
      op->walk([&](Operation *nested) {
        last = std::max(last, span[nested].second);
      });
      span[op].second = last;
    });
  }

  int64_t first(Operation *op) const { return span.lookup(op).first; }
  int64_t last(Operation *op) const { return span.lookup(op).second; }
  /// One past every position.
  int64_t end() const { return next; }

private:
  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> span;
  int64_t next = 0;
};

/// Every value through which the buffer `alloc` is reached or still read:
/// the buffer itself; memdescs derived from one of these (memdesc_index and
/// any other op with a memdesc result); block arguments a branch passes one
/// of these to (a loop-carried buffer after scf -> cf); and the result of an
/// asynchronous warp_group_dot that reads one, which stands for the product
/// still reading the buffer until a warp_group_dot_wait retires it (a wait
/// that leaves groups pending may leave this one, so its outputs go on
/// standing for it). The buffer is live wherever one of these values is.
SmallVector<Value> collectBufferValues(LocalAllocOp alloc) {
  llvm::SetVector<Value> values;
  values.insert(alloc.getResult());
  for (unsigned index = 0; index < values.size(); ++index) {
    Value value = values[index];
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      for (Value result : user->getResults())
        if (isa<MemDescType>(result.getType()))
          values.insert(result);
      if (auto dot = dyn_cast<WarpGroupDotOp>(user); dot && dot.getIsAsync())
        values.insert(dot.getD());
      if (auto wait = dyn_cast<WarpGroupDotWaitOp>(user);
          wait && wait.getPendings() > 0)
        values.insert(wait.getOutputs()[use.getOperandNumber()]);
      if (auto branch = dyn_cast<BranchOpInterface>(user))
        if (std::optional<BlockArgument> argument =
                branch.getSuccessorBlockArgument(use.getOperandNumber()))
          values.insert(*argument);
    }
  }
  return values.takeVector();
}

/// The alignment a buffer's offset needs: swizzled tiles start on 1024
/// bytes, where the 128-byte swizzle pattern repeats, as wgmma's matrix
/// descriptors and the bulk copy engine assume; other buffers on 128 bytes
/// (the bulk copy engine's minimum, and a whole line of banks).
int64_t getBufferAlignment(MemDescType type) {
  auto shared = dyn_cast<SharedEncodingAttr>(type.getEncoding());
  if (shared && shared.getMaxPhase() == 1)
    return 128;
  return 1024;
}

/// The alignment of an op's scratch space: conversions lay tiles out by
/// rows (swizzled for ldmatrix), which stay bank-aligned on 128 bytes;
/// reductions, scans and atomics store scalars, 16 bytes suffice.
int64_t getScratchAlignment(Operation *op) {
  if (isa<ConvertLayoutOp, tile::ReshapeOp, tile::TransOp>(op))
    return 128;
  return 16;
}

/// The most bytes of shared memory a kernel may take for its scratch spaces
/// to be placed apart (scratchApart): below it, shared memory never bounds
/// the resident blocks (32 per SM on sm_80 and sm_90, each also taking the
/// driver's 1 KB: 32 x 5 KB fits sm_80's 164 KB), so the extra bytes cost
/// nothing.
constexpr int64_t kApartPeakBytes = 4096;

/// Places `claims` in the given order, each at the lowest offset (rounded up
/// to its alignment) where it overlaps no claim placed before it that is
/// live at the same time (first fit), and returns the peak end.
int64_t placeFirstFit(MutableArrayRef<Claim> claims, ArrayRef<unsigned> order) {
  SmallVector<unsigned> placed;
  int64_t peak = 0;
  for (unsigned index : order) {
    Claim &claim = claims[index];
    SmallVector<unsigned> busy;
    for (unsigned other : placed)
      if (claims[other].overlapsInTime(claim))
        busy.push_back(other);
    llvm::sort(busy, [&](unsigned a, unsigned b) {
      return claims[a].offset < claims[b].offset;
    });
    // Every busy range passed so far ends at or below `offset`.
    int64_t offset = 0;
    for (unsigned other : busy) {
      if (offset + claim.bytes <= claims[other].offset)
        break;
      int64_t above = llvm::alignTo(claims[other].offset + claims[other].bytes,
                                    claim.alignment);
      offset = std::max(offset, above);
    }
    claim.offset = offset;
    placed.push_back(index);
    peak = std::max(peak, offset + claim.bytes);
  }
  return peak;
}

/// First fit in the usual few orders (program order, largest first,
/// longest-lived first), keeping the lowest peak; ties go to the earlier
/// order, so that buffers are laid out as the program allocates them unless
/// another order saves room. Returns the peak and each claim's offset.
std::pair<int64_t, SmallVector<int64_t>>
placeBestOf(MutableArrayRef<Claim> claims) {
  auto byKey = [&](auto key) {
    auto indices = llvm::to_vector(llvm::seq<unsigned>(0, claims.size()));
    llvm::stable_sort(indices, [&](unsigned a, unsigned b) {
      return key(claims[a]) < key(claims[b]);
    });
    return indices;
  };
  SmallVector<SmallVector<unsigned>> orders = {
      byKey([](const Claim &c) { return std::make_tuple(c.start, -c.bytes); }),
      byKey([](const Claim &c) { return std::make_tuple(-c.bytes, c.start); }),
      byKey([](const Claim &c) {
        return std::make_tuple(c.start - c.end, -c.bytes);
      })};
  int64_t best = std::numeric_limits<int64_t>::max();
  SmallVector<int64_t> bestOffsets;
  for (ArrayRef<unsigned> candidate : orders) {
    int64_t peak = placeFirstFit(claims, candidate);
    if (peak < best) {
      best = peak;
      bestOffsets =
          llvm::map_to_vector(claims, [](Claim &c) { return c.offset; });
    }
  }
  return {best, bestOffsets};
}

/// `claims` with the scratch space of each op also live from where the
/// previous op with scratch space in the same function starts, so that
/// placement puts the two apart. An op writes its scratch space after a
/// barrier that is there for the previous op's reads of the same bytes;
/// with the two apart that barrier orders nothing, and
/// tilelang-remove-redundant-barriers removes it (two block-wide barriers
/// per cross-warp reduction instead of three in a row softmax or layer
/// norm).
SmallVector<Claim> scratchApart(ArrayRef<Claim> claims) {
  SmallVector<Claim> apart(claims);
  SmallVector<unsigned> scratch;
  for (auto [index, claim] : llvm::enumerate(apart))
    if (claim.isScratch)
      scratch.push_back(index);
  llvm::stable_sort(scratch, [&](unsigned a, unsigned b) {
    return apart[a].start < apart[b].start;
  });
  // From the previous op's own start (`claims`), not the one it got here:
  // only neighbours are kept apart, an op's scratch space may take the
  // bytes of the one before the previous (whose barriers order the two).
  for (unsigned i = 1; i < scratch.size(); ++i) {
    const Claim &previous = claims[scratch[i - 1]];
    Claim &claim = apart[scratch[i]];
    if (previous.owner->getParentOfType<FunctionOpInterface>() ==
        claim.owner->getParentOfType<FunctionOpInterface>())
      claim.start = std::min(claim.start, previous.start);
  }
  return apart;
}

} // namespace

int64_t tilelang::lowering::allocateSharedMemory(ModuleOp module) {
  ProgramOrder order(module);
  Liveness liveness(module);
  // Kernels are launched on their own and share nothing; a device function
  // runs in the middle of its callers, so what it claims is kept apart from
  // everything, for the whole program.
  auto inKernel = [](Operation *op) {
    auto function = op->getParentOfType<FunctionOpInterface>();
    return function && function.isPublic();
  };
  SmallVector<Claim> claims;
  auto addClaim = [&](Operation *owner, int64_t start, int64_t end,
                      int64_t bytes, int64_t alignment, bool isScratch) {
    if (!inKernel(owner)) {
      start = 0;
      end = order.end();
    }
    claims.push_back({owner, start, end, bytes, alignment, isScratch});
  };

  // A buffer from its local_alloc to the last position any of its values
  // is live at: its last use within one iteration of a loop when it is
  // allocated there, the whole loop when it is used there but allocated
  // before (it is then live around the back-edge).
  module.walk([&](LocalAllocOp alloc) {
    int64_t start = order.first(alloc), end = order.last(alloc);
    for (Value value : collectBufferValues(alloc))
      for (Operation *live : liveness.resolveLiveness(value)) {
        start = std::min(start, order.first(live));
        end = std::max(end, order.last(live));
      }
    MemDescType type = alloc.getType();
    addClaim(alloc, start, end, type.getSizeInBytes(), getBufferAlignment(type),
             /*isScratch=*/false);
  });
  // Scratch space only for the duration of its op: each op that needs it
  // writes it after a barrier (earlier users of those bytes are done) and
  // has read it back before it ends.
  module.walk([&](Operation *op) {
    if (int64_t bytes = getScratchBytes(op))
      addClaim(op, order.first(op), order.last(op), bytes,
               getScratchAlignment(op), /*isScratch=*/true);
  });
  if (claims.empty())
    return 0;

  // First fit depends on the order claims are placed in, and no one order
  // is best for every program: placeBestOf tries the usual few. Where the
  // kernel's shared memory stays small either way, consecutive scratch
  // spaces go apart (scratchApart), for the barriers that saves.
  auto [best, bestOffsets] = placeBestOf(claims);
  if (best <= kApartPeakBytes) {
    SmallVector<Claim> apart = scratchApart(claims);
    auto [apartPeak, apartOffsets] = placeBestOf(apart);
    if (apartPeak <= kApartPeakBytes) {
      best = apartPeak;
      bestOffsets = apartOffsets;
    }
  }

  Builder builder(module.getContext());
  for (auto [claim, offset] : llvm::zip_equal(claims, bestOffsets))
    claim.owner->setAttr(kSharedOffsetAttrName,
                         builder.getI64IntegerAttr(offset));
  return best;
}
