//===- LayoutPropagation.cpp - carry tensor-core layouts forward ----------===//
//
// Part of tilelang. The forward half of tilegpu-remove-layout-conversions:
// what is computed from a tensor-core product (a softmax over attention
// scores, an epilogue) runs in the product's own layout instead of being
// converted back to a blocked layout first, and the values loops carry
// (running maxima, accumulators) keep that layout across iterations.
//
//===----------------------------------------------------------------------===//

#include "LayoutConversions.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

static Attribute layoutOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? type.getEncoding() : Attribute();
}

namespace {

/// Chooses a layout for every value reachable forward from a tensor-core
/// result, then retypes those values and converts where a user needs
/// something else.
class LayoutPropagation {
public:
  void run(Operation *root);

private:
  /// Gives `value` `layout` unless it already has a choice.
  void assign(Value value, Attribute layout);
  /// Follows `value`'s layout into the users that can take it.
  void propagateToUsers(Value value, Attribute layout);
  /// The type operand `index` of `op` must have once the values are
  /// retyped: null where any layout will do, nullopt where `op` does not
  /// follow its operands' layouts (it keeps what it had).
  std::optional<Type> getExpectedOperandType(Operation *op,
                                             unsigned index) const;
  /// Retypes the chosen values and inserts the conversions users need.
  void rewrite(Operation *root);

  llvm::MapVector<Value, Attribute> chosen;
  SmallVector<Value> worklist;
  llvm::DenseMap<Value, Type> originalTypes;
};

} // namespace

void LayoutPropagation::assign(Value value, Attribute layout) {
  if (!isa<RankedTensorType>(value.getType()) || chosen.count(value))
    return;
  chosen[value] = layout;
  worklist.push_back(value);
}

void LayoutPropagation::propagateToUsers(Value value, Attribute layout) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isElementwiseTensorOp(user) || isa<tile::BroadcastOp>(user) ||
        isa<ConvertLayoutOp>(user)) {
      assign(user->getResult(0), layout);
    } else if (auto reduce = dyn_cast<tile::ReduceOp>(user)) {
      auto slice =
          SliceEncodingAttr::get(user->getContext(), reduce.getAxis(), layout);
      for (Value result : reduce->getResults())
        assign(result, slice);
    } else if (auto expand = dyn_cast<tile::ExpandDimsOp>(user)) {
      auto slice = dyn_cast<SliceEncodingAttr>(layout);
      if (slice && slice.getDim() == expand.getAxis())
        assign(expand.getResult(), slice.getParent());
    } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
      unsigned index = use.getOperandNumber();
      if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp())) {
        assign(loop.getRegionIterArg(index), layout);
        assign(loop.getResult(index), layout);
      } else if (auto branch = dyn_cast<scf::IfOp>(yield->getParentOp())) {
        assign(branch.getResult(index), layout);
      }
    } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
      // An initial value: the loop carries it in this layout.
      unsigned first = loop.getNumControlOperands();
      if (use.getOperandNumber() >= first) {
        unsigned index = use.getOperandNumber() - first;
        assign(loop.getRegionIterArg(index), layout);
        assign(loop.getResult(index), layout);
      }
    }
  }
}

std::optional<Type>
LayoutPropagation::getExpectedOperandType(Operation *op,
                                          unsigned index) const {
  auto operandType = dyn_cast<RankedTensorType>(op->getOperand(index).getType());
  // Conversions, and copies into shared memory (each thread stores what it
  // holds), take any layout.
  if (!operandType || isa<ConvertLayoutOp, LocalAllocOp>(op))
    return Type();
  auto resultLayout = [&]() { return layoutOf(op->getResult(0)); };
  if (isElementwiseTensorOp(op) || isa<tile::BroadcastOp>(op))
    return withEncoding(operandType, resultLayout());
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op))
    return withEncoding(operandType,
                        SliceEncodingAttr::get(op->getContext(),
                                               expand.getAxis(),
                                               resultLayout()));
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    auto slice = dyn_cast_if_present<SliceEncodingAttr>(resultLayout());
    if (!slice || slice.getDim() != reduce.getAxis())
      return std::nullopt;
    return withEncoding(operandType, slice.getParent());
  }
  if (auto yield = dyn_cast<scf::YieldOp>(op)) {
    if (auto loop = dyn_cast<scf::ForOp>(yield->getParentOp()))
      return loop.getRegionIterArg(index).getType();
    if (auto branch = dyn_cast<scf::IfOp>(yield->getParentOp()))
      return branch.getResult(index).getType();
    return std::nullopt;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    unsigned first = loop.getNumControlOperands();
    if (index >= first)
      return loop.getRegionIterArg(index - first).getType();
  }
  return std::nullopt;
}

void LayoutPropagation::rewrite(Operation *root) {
  for (auto [value, layout] : chosen) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getEncoding() == layout)
      continue;
    originalTypes[value] = type;
    value.setType(withEncoding(type, layout));
  }
  // Every operand that no longer has the type its user needs: the type
  // the user's (new) result implies, or for the other users the type the
  // value had before.
  OpBuilder builder(root->getContext());
  root->walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      Type expected = getExpectedOperandType(op, operand.getOperandNumber())
                          .value_or(originalTypes.lookup(value));
      if (!expected || expected == value.getType())
        continue;
      builder.setInsertionPoint(op);
      operand.set(ConvertLayoutOp::create(builder, op->getLoc(), expected,
                                          value));
    }
  });
}

void LayoutPropagation::run(Operation *root) {
  // Seeds: every value in an mma layout keeps it.
  root->walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (isa_and_present<MmaEncodingAttr>(layoutOf(result)))
        assign(result, layoutOf(result));
  });
  // Breadth-first, so that a value takes the layout of the nearest product.
  for (size_t next = 0; next < worklist.size(); ++next) {
    Value value = worklist[next];
    propagateToUsers(value, chosen.lookup(value));
  }
  rewrite(root);
}

void tilelang::tilegpu::propagateLayoutsForward(Operation *root) {
  LayoutPropagation().run(root);
}
