//===- Coalesce.cpp - layouts for wide, coalesced memory access -----------===//
//
// Part of tilelang. The tilegpu-coalesce pass: proposes a layout for every
// memory op from axis info, groups the tensors that must share a layout,
// gives each group its best proposal, and repairs the ops whose layouts are
// derived (reductions, expand_dims) with conversions at group boundaries.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "tilelang/Analysis/AxisInfo.h"
#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/MapVector.h"

namespace tilelang::tilegpu {
#define GEN_PASS_DEF_TILEGPUCOALESCE
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilelang::tilegpu

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// Union-find over tensor values that must share one layout.
class LayoutGroups {
public:
  /// The representative of `value`'s group. Iterative: a chain of dependent
  /// elementwise ops builds a parent chain as long as itself, and a recursive
  /// walk of 50,000 of them overflows the stack.
  Value find(Value value) {
    auto [it, inserted] = parent.try_emplace(value, value);
    if (inserted)
      return value;
    Value root = it->second;
    for (Value up = parent.lookup(root); up != root; up = parent.lookup(root))
      root = up;
    // Path compression: every value on the way now points at the root.
    while (value != root) {
      Value &up = parent[value];
      value = std::exchange(up, root);
    }
    return root;
  }
  void unite(Value lhs, Value rhs) {
    if (!isa<RankedTensorType>(lhs.getType()) ||
        !isa<RankedTensorType>(rhs.getType()))
      return;
    Value a = find(lhs), b = find(rhs);
    if (a != b)
      parent[a] = b;
  }
  /// Every value seen, in no particular order.
  SmallVector<Value> values() const {
    SmallVector<Value> result;
    for (auto &entry : parent)
      result.push_back(entry.first);
    return result;
  }

private:
  llvm::DenseMap<Value, Value> parent;
};

/// A memory op's proposed layout and how wide its accesses would be.
struct Proposal {
  BlockedEncodingAttr layout;
  /// Elements per access as far as the pointers allow (contiguity and
  /// alignment along the layout's fastest dimension).
  unsigned elementsPerAccess = 0;
  /// Of those, what one access can cover once the mask is applied: a mask
  /// that changes every element (`cols < N` for an N of unknown
  /// divisibility) splits every vector into single-element accesses.
  unsigned usableElementsPerAccess = 0;
  bool isStore = false;
};

/// Whether `op` pairs the elements of its tensor operands and results one
/// to one (MLIR's `Elementwise` trait: arith, math, and the tile ops that
/// carry it, loads, atomics and inline assembly included, which touch
/// memory but still pair elements), so that they may share a layout.
bool isElementwise(Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() == 0)
    return false;
  return llvm::all_of(op->getOperandTypes(), [](Type type) {
    return !isa<ShapedType>(type) || isa<RankedTensorType>(type);
  });
}

/// Gives every user of a tensor computed from scalars alone (splats,
/// ranges, constants and what elementwise ops, expand_dims, broadcasts and
/// conversions make of them) a copy of its own: index computations that CSE shared
/// between two memory ops (a K^T block's row offsets and a V block's column
/// offsets, when both blocks have one size) would otherwise tie the two to
/// one layout. Canonicalization merges the copies that end up alike.
void unshareScalarComputations(ModuleOp module) {
  // Bounded: a diamond-shaped computation copied per path could grow
  // without limit.
  constexpr unsigned kMaxUsers = 8;
  int budget = 4096;
  llvm::DenseMap<Operation *, bool> fromScalars;
  auto isFromScalars = [&](Operation *op) {
    auto it = fromScalars.find(op);
    if (it != fromScalars.end())
      return it->second;
    bool result = false;
    if (isa<tile::SplatOp, tile::MakeRangeOp>(op)) {
      result = true;
    } else if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      result = isa<SplatElementsAttr>(constant.getValue());
    } else if (op->getNumRegions() == 0 && op->getNumResults() == 1 &&
               isPure(op) &&
               isa<RankedTensorType>(op->getResult(0).getType()) &&
               (isElementwise(op) || isa<tile::ExpandDimsOp, tile::BroadcastOp,
                                         ConvertLayoutOp>(op))) {
      // Operands come first in program order: already classified.
      result = llvm::all_of(op->getOperands(), [&](Value operand) {
        if (!isa<RankedTensorType>(operand.getType()))
          return true;
        Operation *def = operand.getDefiningOp();
        return def && fromScalars.lookup(def);
      });
    }
    fromScalars[op] = result;
    return result;
  };
  SmallVector<Operation *> candidates;
  module.walk([&](Operation *op) {
    if (isFromScalars(op))
      candidates.push_back(op);
  });
  // Users before definitions, so that the copies' operands are unshared
  // in turn.
  for (Operation *op : llvm::reverse(candidates)) {
    Value result = op->getResult(0);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : result.getUses())
      uses.push_back(&use);
    if (uses.size() < 2 || uses.size() > kMaxUsers)
      continue;
    OpBuilder builder(op);
    builder.setInsertionPointAfter(op);
    for (OpOperand *use : llvm::drop_begin(uses)) {
      if (--budget < 0)
        return;
      use->set(builder.clone(*op)->getResult(0));
    }
  }
}

class Coalescer {
public:
  Coalescer(ModuleOp module, unsigned numWarps)
      : module(module), numWarps(numWarps), axisInfo(module) {}

  void run();

private:
  /// The layout giving `ptr`'s accesses the widest coalesced vectors.
  Proposal propose(Value ptr, Value mask, bool isStore);
  /// The layout a group of memory ops takes.
  BlockedEncodingAttr choose(ArrayRef<std::pair<Value, Proposal>> members);
  void collectGroups();
  void retype(Value value, Attribute layout);
  void repairDerivedLayouts();
  void convertOperand(Operation *op, unsigned index, Type type);

  ModuleOp module;
  unsigned numWarps;
  ModuleAxisInfo axisInfo;
  LayoutGroups groups;
  /// Every memory op's pointer with the layout it proposes.
  SmallVector<std::pair<Value, Proposal>> proposals;
};

} // namespace

Proposal Coalescer::propose(Value ptr, Value mask, bool isStore) {
  auto type = cast<RankedTensorType>(ptr.getType());
  AxisInfo axis = axisInfo.get(ptr);
  unsigned rank = type.getRank();
  // Dimensions by decreasing contiguity; ties keep the current order.
  SmallVector<unsigned> order(
      cast<BlockedEncodingAttr>(type.getEncoding()).getOrder());
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return axis.getContiguity(a) > axis.getContiguity(b);
  });
  Type pointee = getElementTypeOrSelf(tile::getPointeeType(type));
  unsigned bytes = std::max(1u, tile::getElementBitWidth(pointee) / 8);
  unsigned width = axisInfo.getPointerVectorWidth(ptr, order[0], bytes);
  // Keep every thread busy before making vectors wider.
  int64_t elementsPerThread = std::max<int64_t>(
      1, type.getNumElements() / (numWarps * TileGPUDialect::kThreadsPerWarp));
  width = std::min<unsigned>(width, llvm::bit_floor(
                                        static_cast<uint64_t>(elementsPerThread)));
  unsigned usable = llvm::bit_floor(
      std::min(width, axisInfo.getMaskConstancy(mask, order[0])));
  SmallVector<unsigned> sizePerThread(rank, 1);
  sizePerThread[order[0]] = width;
  return {getBlockedEncoding(module.getContext(), type.getShape(),
                             sizePerThread, order, numWarps),
          width, std::max(1u, usable), isStore};
}

BlockedEncodingAttr
Coalescer::choose(ArrayRef<std::pair<Value, Proposal>> members) {
  // The widest proposal; the first in program order on ties, so loads
  // written before stores lead.
  const std::pair<Value, Proposal> *best = &members.front();
  for (const auto &member : members)
    if (member.second.elementsPerAccess > best->second.elementsPerAccess)
      best = &member;
  BlockedEncodingAttr layout = best->second.layout;
  unsigned width = best->second.elementsPerAccess;
  // A store whose accesses are narrower than the elements a thread holds
  // contiguously writes with gaps: each warp-wide store instruction touches
  // `width / usable` times as many sectors as it fills, partially, and the
  // L2 takes every partial write (loads with gaps are mostly served by L1
  // on the later instructions). When no member of the group can use more
  // than `usable` elements per access anyway (masks that change every
  // element, unaligned rows), the group takes that width: loads and stores
  // then cover whole sectors per instruction, and no access loses a vector.
  unsigned fastest = layout.getOrder().front();
  bool gappedStore = false;
  unsigned usable = 1;
  for (const auto &member : members) {
    const Proposal &proposal = member.second;
    if (proposal.layout.getOrder().front() != fastest)
      return layout;
    usable = std::max(usable, proposal.usableElementsPerAccess);
    gappedStore |= proposal.isStore && proposal.usableElementsPerAccess < width;
  }
  if (!gappedStore || usable >= width)
    return layout;
  SmallVector<unsigned> sizePerThread(layout.getRank(), 1);
  sizePerThread[fastest] = usable;
  return getBlockedEncoding(
      module.getContext(),
      cast<RankedTensorType>(best->first.getType()).getShape(), sizePerThread,
      SmallVector<unsigned>(layout.getOrder()), numWarps);
}

void Coalescer::collectGroups() {
  module.walk([&](Operation *op) {
    // Memory ops propose layouts for their group.
    Value ptr, mask;
    if (auto load = dyn_cast<tile::LoadOp>(op)) {
      ptr = load.getPtr();
      mask = load.getMask();
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      ptr = store.getPtr();
      mask = store.getMask();
    } else if (auto rmw = dyn_cast<tile::AtomicRMWOp>(op))
      ptr = rmw.getPtr();
    else if (auto cas = dyn_cast<tile::AtomicCASOp>(op))
      ptr = cas.getPtr();
    if (ptr && isa<RankedTensorType>(ptr.getType()) &&
        isa<BlockedEncodingAttr>(
            cast<RankedTensorType>(ptr.getType()).getEncoding())) {
      proposals.push_back({ptr, propose(ptr, mask, isa<tile::StoreOp>(op))});
    }

    // Values that must share a layout.
    if (isElementwise(op) || isa<tile::StoreOp>(op)) {
      Value first;
      for (Value value : llvm::concat<Value>(op->getOperands(),
                                             op->getResults())) {
        if (!isa<RankedTensorType>(value.getType()))
          continue;
        if (first)
          groups.unite(first, value);
        else
          first = value;
      }
    }
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(op))
      groups.unite(broadcast.getSrc(), broadcast.getResult());
    // A scan's results have its sources' types, layouts included: one group
    // (its sources and results may otherwise land in groups that choose
    // differently, and nothing repairs a scan).
    if (auto scan = dyn_cast<tile::ScanOp>(op))
      for (Value value : llvm::concat<Value>(scan.getSrcs(), scan.getResult()))
        groups.unite(scan.getSrcs().front(), value);
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, yielded, result] : llvm::zip_equal(
               forOp.getInitArgs(), forOp.getRegionIterArgs(),
               forOp.getBody()->getTerminator()->getOperands(),
               forOp.getResults())) {
        groups.unite(init, arg);
        groups.unite(arg, yielded);
        groups.unite(arg, result);
      }
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      for (auto [index, result] : llvm::enumerate(ifOp.getResults())) {
        groups.unite(result, ifOp.thenYield()->getOperand(index));
        if (!ifOp.getElseRegion().empty())
          groups.unite(result, ifOp.elseYield()->getOperand(index));
      }
    }
  });
}

void Coalescer::retype(Value value, Attribute layout) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getEncoding() == layout)
    return;
  auto newType = withEncoding(type, layout);
  if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      constant.setValueAttr(dense.reshape(newType));
  }
  value.setType(newType);
}

void Coalescer::convertOperand(Operation *op, unsigned index, Type type) {
  Value operand = op->getOperand(index);
  if (operand.getType() == type)
    return;
  OpBuilder builder(op);
  op->setOperand(index,
                 ConvertLayoutOp::create(builder, op->getLoc(), type, operand));
}

void Coalescer::repairDerivedLayouts() {
  module.walk([&](Operation *op) {
    if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
      // All sources in the first one's layout; results are its slices.
      Attribute layout =
          cast<RankedTensorType>(reduce.getSrcs().front().getType())
              .getEncoding();
      for (unsigned index = 1; index < reduce.getSrcs().size(); ++index)
        convertOperand(op, index,
                       withEncoding(cast<RankedTensorType>(
                                        op->getOperand(index).getType()),
                                    layout));
      for (OpResult result : reduce.getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type)
          continue;
        auto sliced = withEncoding(
            type, SliceEncodingAttr::get(op->getContext(), reduce.getAxis(),
                                         layout));
        if (sliced == type)
          continue;
        // Users keep the group's layout through a conversion.
        OpBuilder builder(op->getContext());
        builder.setInsertionPointAfter(op);
        result.setType(sliced);
        auto convert =
            ConvertLayoutOp::create(builder, op->getLoc(), type, result);
        result.replaceAllUsesExcept(convert, convert);
      }
      return;
    }
    if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
      auto parent = expand.getType().getEncoding();
      auto wanted = withEncoding(
          expand.getSrc().getType(),
          SliceEncodingAttr::get(op->getContext(), expand.getAxis(), parent));
      convertOperand(op, 0, wanted);
      return;
    }
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
      convertOperand(op, 0,
                     withEncoding(broadcast.getSrc().getType(),
                                  broadcast.getType().getEncoding()));
      return;
    }
    if (auto dot = dyn_cast<tile::DotOp>(op)) {
      Attribute layout = dot.getType().getEncoding();
      convertOperand(op, 0,
                     withEncoding(dot.getA().getType(),
                                  DotOperandEncodingAttr::get(
                                      op->getContext(), 0, layout, 0)));
      convertOperand(op, 1,
                     withEncoding(dot.getB().getType(),
                                  DotOperandEncodingAttr::get(
                                      op->getContext(), 1, layout, 0)));
      convertOperand(op, 2, dot.getType());
      return;
    }
  });
}

void Coalescer::run() {
  unshareScalarComputations(module);
  collectGroups();
  // Each group's proposals, in program order.
  llvm::MapVector<Value, SmallVector<std::pair<Value, Proposal>>> members;
  for (auto &entry : proposals)
    members[groups.find(entry.first)].push_back(entry);
  llvm::DenseMap<Value, BlockedEncodingAttr> chosen;
  for (auto &[root, group] : members)
    chosen[root] = choose(group);
  for (Value value : groups.values()) {
    auto it = chosen.find(groups.find(value));
    if (it == chosen.end())
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    // Blocked layouts of one rank fit every shape of that rank.
    if (it->second.getRank() == type.getRank())
      retype(value, it->second);
  }
  // Function signatures follow their arguments and returned values.
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    func.walk([&](func::ReturnOp ret) {
      func.setFunctionType(FunctionType::get(
          func.getContext(), func.getBody().front().getArgumentTypes(),
          ret.getOperandTypes()));
    });
  });
  repairDerivedLayouts();
}

namespace {
/// Chooses coalesced layouts; see Passes.td.
struct TileGPUCoalescePass
    : public tilelang::tilegpu::impl::TileGPUCoalesceBase<
          TileGPUCoalescePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<unsigned> numWarps = getNumWarps(module);
    if (!numWarps) {
      module.emitError("tilegpu-coalesce needs the module attribute '")
          << TileGPUDialect::kNumWarpsAttrName
          << "' (run convert-tile-to-tilegpu first)";
      return signalPassFailure();
    }
    Coalescer(module, *numWarps).run();
  }
};
} // namespace
