//===- RemoveLayoutConversions.cpp - recompute instead of converting ------===//
//
// Part of tilelang. The tilegpu-remove-layout-conversions pass: tries
// carrying tensor-core layouts forward (LayoutPropagation.cpp) and keeps
// that where it leaves less data to move; replaces a layout conversion by
// recomputing its source directly in the target layout when the source
// comes from scalars through cheap ops only.
//
//===----------------------------------------------------------------------===//

#include "LayoutConversions.h"

#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutMap.h"
#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tilelang::tilegpu {
#define GEN_PASS_DEF_TILEGPUREMOVELAYOUTCONVERSIONS
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilelang::tilegpu

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// Plans and performs the recomputation of one value in another layout.
class Rematerializer {
public:
  explicit Rematerializer(OpBuilder &builder) : builder(builder) {}

  /// Whether `value` can be recomputed in `layout`; fills the plan.
  bool plan(Value value, Attribute layout);
  /// Recomputes `value` as planned and returns the new value.
  Value materialize(Value value, Attribute layout);

private:
  /// Ops recomputed at most per conversion: keeps the cost bounded.
  static constexpr int kMaxOps = 64;

  OpBuilder &builder;
  llvm::DenseMap<Value, Attribute> planned;
  llvm::DenseMap<std::pair<Value, Attribute>, Value> done;
  int budget = kMaxOps;
};

} // namespace

static Attribute layoutOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? type.getEncoding() : Attribute();
}

bool tilelang::tilegpu::isElementwiseTensorOp(Operation *op) {
  // The trait's verifier gives every tensor operand the result's shape.
  return op->hasTrait<OpTrait::Elementwise>() && isPure(op) &&
         op->getNumResults() == 1 &&
         isa<RankedTensorType>(op->getResult(0).getType());
}

bool Rematerializer::plan(Value value, Attribute layout) {
  if (layoutOf(value) == layout)
    return true;
  auto it = planned.find(value);
  if (it != planned.end())
    return it->second == layout;
  if (--budget < 0)
    return false;
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  planned[value] = layout;
  // Another conversion: convert its source directly instead.
  if (isa<ConvertLayoutOp>(def))
    return true;
  // wgmma's register operand layout is for conversions only.
  if (getWgmmaOperandTile(layout))
    return false;
  if (isa<tile::SplatOp, tile::MakeRangeOp>(def))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return isa<DenseElementsAttr>(constant.getValue());
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(def))
    return !isa<DotOperandEncodingAttr>(layout) &&
           plan(broadcast.getSrc(), layout);
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(def)) {
    auto parent = dyn_cast<DistributedEncodingAttr>(layout);
    if (!parent || parent.getRank() < 2)
      return false;
    return plan(expand.getSrc(), SliceEncodingAttr::get(
                                     def->getContext(), expand.getAxis(),
                                     layout));
  }
  if (!isElementwiseTensorOp(def))
    return false;
  for (Value operand : def->getOperands())
    if (isa<RankedTensorType>(operand.getType()) && !plan(operand, layout))
      return false;
  return true;
}

Value Rematerializer::materialize(Value value, Attribute layout) {
  if (layoutOf(value) == layout)
    return value;
  auto key = std::make_pair(value, layout);
  if (Value existing = done.lookup(key))
    return existing;
  Operation *def = value.getDefiningOp();
  auto type = withEncoding(cast<RankedTensorType>(value.getType()), layout);
  Value result;
  if (auto convert = dyn_cast<ConvertLayoutOp>(def)) {
    Value src = convert.getSrc();
    if (layoutOf(src) == layout) {
      result = src;
    } else {
      builder.setInsertionPointAfter(def);
      result = ConvertLayoutOp::create(builder, def->getLoc(), type, src);
    }
  } else {
    // Operands first, then a clone of the op in the new layout.
    IRMapping mapping;
    for (Value operand : def->getOperands()) {
      if (!isa<RankedTensorType>(operand.getType()))
        continue;
      Attribute operandLayout = layout;
      if (auto expand = dyn_cast<tile::ExpandDimsOp>(def))
        operandLayout = SliceEncodingAttr::get(def->getContext(),
                                               expand.getAxis(), layout);
      mapping.map(operand, materialize(operand, operandLayout));
    }
    builder.setInsertionPointAfter(def);
    Operation *clone = builder.clone(*def, mapping);
    clone->getResult(0).setType(type);
    if (auto constant = dyn_cast<arith::ConstantOp>(clone))
      constant.setValueAttr(
          cast<DenseElementsAttr>(constant.getValue()).reshape(type));
    result = clone->getResult(0);
  }
  done[key] = result;
  return result;
}

LogicalResult tilelang::tilegpu::removeCheapConversions(Operation *root) {
  SmallVector<ConvertLayoutOp> converts;
  root->walk([&](ConvertLayoutOp op) { converts.push_back(op); });
  OpBuilder builder(root->getContext());
  for (ConvertLayoutOp convert : converts) {
    Attribute layout = convert.getType().getEncoding();
    Rematerializer planner(builder);
    if (!planner.plan(convert.getSrc(), layout))
      continue;
    Value replacement = planner.materialize(convert.getSrc(), layout);
    convert.replaceAllUsesWith(replacement);
    convert.erase();
  }
  // Fold what is left (same-layout and chained conversions) and drop the
  // originals nothing uses any more.
  RewritePatternSet patterns(root->getContext());
  ConvertLayoutOp::getCanonicalizationPatterns(patterns, root->getContext());
  return applyPatternsGreedily(root, std::move(patterns));
}

int64_t tilelang::tilegpu::estimateConversionCost(Operation *root) {
  int64_t cost = 0;
  root->walk([&](ConvertLayoutOp convert) {
    RankedTensorType type = convert.getType();
    if (getRegisterPermutation(convert.getSrc().getType().getEncoding(),
                               type.getEncoding(), type.getShape()))
      return;
    Type element = type.getElementType();
    int64_t bytes =
        element.isIntOrFloat()
            ? std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8)
            : 8;
    int64_t weight = 1;
    for (Operation *parent = convert->getParentOp(); parent && parent != root;
         parent = parent->getParentOp())
      if (isa<LoopLikeOpInterface>(parent))
        weight *= 8;
    cost += type.getNumElements() * bytes * weight;
  });
  return cost;
}

namespace {
/// Carries tensor-core layouts forward where that pays, then recomputes
/// cheap conversion sources; see Passes.td.
struct TileGPURemoveLayoutConversionsPass
    : public tilelang::tilegpu::impl::TileGPURemoveLayoutConversionsBase<
          TileGPURemoveLayoutConversionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      // Propagate on a copy, and keep whichever version moves less data.
      OpBuilder builder(func);
      builder.setInsertionPointAfter(func);
      auto candidate = cast<func::FuncOp>(builder.clone(*func));
      propagateLayoutsForward(candidate);
      if (failed(removeCheapConversions(candidate)) ||
          failed(removeCheapConversions(func))) {
        candidate.erase();
        return signalPassFailure();
      }
      if (estimateConversionCost(candidate) < estimateConversionCost(func)) {
        func.getBody().takeBody(candidate.getBody());
      }
      candidate.erase();
    }
  }
};
} // namespace
