//===- RemoveLayoutConversions.cpp - recompute instead of converting ------===//
//
// Part of tilelang. The tilegpu-remove-layout-conversions pass: replaces a
// layout conversion by recomputing its source directly in the target layout
// when the source comes from scalars through cheap ops only.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
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

  bool isCheapElementwise(Operation *op) const;

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

bool Rematerializer::isCheapElementwise(Operation *op) const {
  if (op->getNumRegions() != 0 || op->getNumResults() != 1 || !isPure(op))
    return false;
  if (isa<tile::ReduceOp, tile::ScanOp, tile::ExpandDimsOp, tile::BroadcastOp,
          tile::ReshapeOp, tile::TransOp, tile::DotOp, ConvertLayoutOp>(op))
    return false;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType)
    return false;
  return llvm::all_of(op->getOperandTypes(), [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return !tensor || tensor.getShape() == resultType.getShape();
  });
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
  if (isa<tile::SplatOp, tile::MakeRangeOp>(def))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    return isa<DenseElementsAttr>(constant.getValue());
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(def))
    return isa<BlockedEncodingAttr>(layout) &&
           plan(broadcast.getSrc(), layout);
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(def)) {
    auto parent = dyn_cast<DistributedEncodingAttr>(layout);
    if (!parent || parent.getRank() < 2)
      return false;
    return plan(expand.getSrc(), SliceEncodingAttr::get(
                                     def->getContext(), expand.getAxis(),
                                     layout));
  }
  if (!isCheapElementwise(def))
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

namespace {
/// Recomputes cheap conversion sources; see Passes.td.
struct TileGPURemoveLayoutConversionsPass
    : public tilelang::tilegpu::impl::TileGPURemoveLayoutConversionsBase<
          TileGPURemoveLayoutConversionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<ConvertLayoutOp> converts;
    module.walk([&](ConvertLayoutOp op) { converts.push_back(op); });
    OpBuilder builder(&getContext());
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
    RewritePatternSet patterns(&getContext());
    ConvertLayoutOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
