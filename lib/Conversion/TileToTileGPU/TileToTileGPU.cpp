//===- TileToTileGPU.cpp - give every tensor a layout ---------------------===//
//
// Part of tilelang. The convert-tile-to-tilegpu pass: rewrites the types of
// a tile program in place so that every tensor carries a distributed layout,
// deriving each op's result layout from its operands and inserting
// tilegpu.convert_layout where an op needs an operand in another layout.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Conversion/Passes.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace tilelang {
#define GEN_PASS_DEF_CONVERTTILETOTILEGPU
#include "tilelang/Conversion/Passes.h.inc"
} // namespace tilelang

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// Walks a function in program order and assigns layouts.
class LayoutAssigner {
public:
  LayoutAssigner(MLIRContext *context, unsigned numWarps)
      : context(context), numWarps(numWarps), builder(context) {}

  LogicalResult assign(func::FuncOp func);

private:
  LogicalResult assignBlock(Block &block);
  LogicalResult assignOp(Operation *op);

  /// The default layout for a tensor type (or the type itself for scalars).
  Type withDefaultLayout(Type type) const;
  /// The layout of `value`'s tensor type.
  Attribute layoutOf(Value value) const {
    return cast<RankedTensorType>(value.getType()).getEncoding();
  }
  /// Makes operand `index` of `op` have `type`, converting it if needed.
  void convertOperand(Operation *op, unsigned index, Type type);
  /// Gives every tensor operand of `op` the layout of the first one and
  /// returns that layout (null if there are no tensor operands).
  Attribute unifyOperandLayouts(Operation *op);
  /// Sets result `index` of `op` to its tensor type in `layout`.
  void setResultLayout(Operation *op, unsigned index, Attribute layout);
  /// Re-types an arith.constant whose result type changed.
  void retypeConstant(arith::ConstantOp op, Type type);
  /// Makes the values yielded by `terminator` match `types`.
  void matchYield(Operation *terminator, TypeRange types,
                  unsigned firstOperand = 0);

  MLIRContext *context;
  unsigned numWarps;
  OpBuilder builder;
};

} // namespace

Type LayoutAssigner::withDefaultLayout(Type type) const {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return type;
  return withEncoding(tensor, getDefaultBlockedEncoding(
                                  context, tensor.getShape(), numWarps));
}

void LayoutAssigner::convertOperand(Operation *op, unsigned index, Type type) {
  Value operand = op->getOperand(index);
  if (operand.getType() == type)
    return;
  builder.setInsertionPoint(op);
  auto convert =
      ConvertLayoutOp::create(builder, op->getLoc(), type, operand);
  op->setOperand(index, convert);
}

Attribute LayoutAssigner::unifyOperandLayouts(Operation *op) {
  Attribute layout;
  for (OpOperand &operand : op->getOpOperands()) {
    auto tensor = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!tensor)
      continue;
    if (!layout) {
      layout = tensor.getEncoding();
      continue;
    }
    convertOperand(op, operand.getOperandNumber(),
                   withEncoding(tensor, layout));
  }
  return layout;
}

void LayoutAssigner::setResultLayout(Operation *op, unsigned index,
                                     Attribute layout) {
  Value result = op->getResult(index);
  if (auto tensor = dyn_cast<RankedTensorType>(result.getType()))
    result.setType(withEncoding(tensor, layout));
}

void LayoutAssigner::retypeConstant(arith::ConstantOp op, Type type) {
  auto value = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!value)
    return;
  op.setValueAttr(value.reshape(cast<ShapedType>(type)));
  op.getResult().setType(type);
}

void LayoutAssigner::matchYield(Operation *terminator, TypeRange types,
                                unsigned firstOperand) {
  for (auto [index, type] : llvm::enumerate(types))
    convertOperand(terminator, firstOperand + index, type);
}

LogicalResult LayoutAssigner::assign(func::FuncOp func) {
  if (func.isExternal())
    return success();
  // Tensor arguments (rare in kernels) get default layouts.
  Block &entry = func.getBody().front();
  for (BlockArgument arg : entry.getArguments())
    arg.setType(withDefaultLayout(arg.getType()));
  if (failed(assignBlock(entry)))
    return failure();
  // Results follow what the function returns.
  SmallVector<Type> resultTypes;
  func.walk([&](func::ReturnOp ret) {
    resultTypes.assign(ret.getOperandTypes().begin(),
                       ret.getOperandTypes().end());
  });
  func.setFunctionType(FunctionType::get(
      context, entry.getArgumentTypes(),
      resultTypes.empty() ? func.getResultTypes() : TypeRange(resultTypes)));
  return success();
}

LogicalResult LayoutAssigner::assignBlock(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block))
    if (failed(assignOp(&op)))
      return failure();
  return success();
}

LogicalResult LayoutAssigner::assignOp(Operation *op) {
  // Ops that create tensors from scalars or attributes: default layouts.
  if (isa<tile::MakeRangeOp, tile::SplatOp>(op)) {
    op->getResult(0).setType(withDefaultLayout(op->getResult(0).getType()));
    return success();
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    Type type = withDefaultLayout(constant.getType());
    if (type != constant.getType())
      retypeConstant(constant, type);
    return success();
  }

  // Control flow: block arguments follow the values that enter them.
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    for (auto [init, arg, result] :
         llvm::zip_equal(forOp.getInitArgs(), forOp.getRegionIterArgs(),
                         forOp.getResults())) {
      arg.setType(init.getType());
      result.setType(init.getType());
    }
    if (failed(assignBlock(*forOp.getBody())))
      return failure();
    matchYield(forOp.getBody()->getTerminator(),
               forOp.getResultTypes());
    return success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    if (failed(assignBlock(ifOp.getThenRegion().front())))
      return failure();
    Operation *thenYield = ifOp.thenYield();
    for (auto [result, type] :
         llvm::zip_equal(ifOp.getResults(), thenYield->getOperandTypes()))
      result.setType(type);
    if (!ifOp.getElseRegion().empty()) {
      if (failed(assignBlock(ifOp.getElseRegion().front())))
        return failure();
      matchYield(ifOp.elseYield(), ifOp.getResultTypes());
    }
    return success();
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
    Block &before = whileOp.getBefore().front();
    for (auto [init, arg] :
         llvm::zip_equal(whileOp.getInits(), before.getArguments()))
      arg.setType(init.getType());
    if (failed(assignBlock(before)))
      return failure();
    auto condition = whileOp.getConditionOp();
    Block &after = whileOp.getAfter().front();
    for (auto [forwarded, arg, result] :
         llvm::zip_equal(condition.getArgs(), after.getArguments(),
                         whileOp.getResults())) {
      arg.setType(forwarded.getType());
      result.setType(forwarded.getType());
    }
    if (failed(assignBlock(after)))
      return failure();
    matchYield(whileOp.getAfter().front().getTerminator(),
               before.getArgumentTypes());
    return success();
  }

  // Reductions slice their operand's layout; the combine region is scalar.
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    Attribute layout = unifyOperandLayouts(op);
    for (unsigned index = 0; index < op->getNumResults(); ++index)
      if (isa<RankedTensorType>(op->getResult(index).getType()))
        setResultLayout(op, index,
                        SliceEncodingAttr::get(context, reduce.getAxis(),
                                               layout));
    return success();
  }
  if (isa<tile::ScanOp>(op)) {
    Attribute layout = unifyOperandLayouts(op);
    for (unsigned index = 0; index < op->getNumResults(); ++index)
      setResultLayout(op, index, layout);
    return success();
  }

  // expand_dims un-slices: a slice of the right parent passes through.
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
    auto resultType = expand.getType();
    auto slice = dyn_cast<SliceEncodingAttr>(layoutOf(expand.getSrc()));
    if (slice && slice.getDim() == expand.getAxis() &&
        cast<DistributedEncodingAttr>(slice.getParent()).getRank() ==
            resultType.getRank()) {
      setResultLayout(op, 0, slice.getParent());
      return success();
    }
    auto parent = getDefaultBlockedEncoding(context, resultType.getShape(),
                                            numWarps);
    convertOperand(op, 0,
                   withEncoding(expand.getSrc().getType(),
                                SliceEncodingAttr::get(
                                    context, expand.getAxis(), parent)));
    setResultLayout(op, 0, parent);
    return success();
  }

  // broadcast keeps a blocked layout: it fits both shapes of one rank.
  if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
    Attribute layout = layoutOf(broadcast.getSrc());
    if (!isa<BlockedEncodingAttr>(layout)) {
      layout = getDefaultBlockedEncoding(
          context, broadcast.getType().getShape(), numWarps);
      convertOperand(op, 0, withEncoding(broadcast.getSrc().getType(), layout));
    }
    setResultLayout(op, 0, layout);
    return success();
  }

  if (auto trans = dyn_cast<tile::TransOp>(op)) {
    Attribute layout = layoutOf(trans.getSrc());
    if (auto blocked = dyn_cast<BlockedEncodingAttr>(layout))
      setResultLayout(op, 0, permuteBlockedEncoding(blocked, trans.getOrder()));
    else
      op->getResult(0).setType(withDefaultLayout(trans.getType()));
    return success();
  }

  if (isa<tile::ReshapeOp>(op)) {
    op->getResult(0).setType(withDefaultLayout(op->getResult(0).getType()));
    return success();
  }

  // dot: the accumulator's layout is the result's; operands feed it.
  if (auto dot = dyn_cast<tile::DotOp>(op)) {
    Attribute layout = layoutOf(dot.getC());
    convertOperand(op, 0, withEncoding(dot.getA().getType(),
                                       DotOperandEncodingAttr::get(
                                           context, 0, layout, 0)));
    convertOperand(op, 1, withEncoding(dot.getB().getType(),
                                       DotOperandEncodingAttr::get(
                                           context, 1, layout, 0)));
    setResultLayout(op, 0, layout);
    return success();
  }

  // Terminators pass values on; their users decide (see matchYield).
  if (op->hasTrait<OpTrait::IsTerminator>())
    return success();
  if (op->getNumRegions() != 0)
    return op->emitOpError("has regions tile -> tilegpu does not know how to "
                           "lay out");
  // Elementwise ops (all tensors of one shape) share one layout; other ops
  // (calls, prints of several tensors) keep their operands as they are.
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                      op->getResultTypes()))
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      shapes.push_back(tensor.getShape());
  bool elementwise = llvm::all_equal(shapes);
  Attribute layout = elementwise ? unifyOperandLayouts(op) : Attribute();
  for (unsigned index = 0; index < op->getNumResults(); ++index) {
    if (!isa<RankedTensorType>(op->getResult(index).getType()))
      continue;
    if (layout)
      setResultLayout(op, index, layout);
    else
      op->getResult(index).setType(
          withDefaultLayout(op->getResult(index).getType()));
  }
  return success();
}

namespace {
/// Gives every tensor a layout; see Passes.td.
struct ConvertTileToTileGPUPass
    : public tilelang::impl::ConvertTileToTileGPUBase<
          ConvertTileToTileGPUPass> {
  using ConvertTileToTileGPUBase::ConvertTileToTileGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (numWarps == 0 || numWarps > 32 || !llvm::isPowerOf2_32(numWarps)) {
      module.emitError("num-warps must be a power of two from 1 to 32, got ")
          << static_cast<unsigned>(numWarps);
      return signalPassFailure();
    }
    // Tensors are distributed to threads from here on.
    if (failed(tile::verifyTensorSizes(module)))
      return signalPassFailure();
    if (failed(tile::verifyElementsPerThread(module, numWarps)))
      return signalPassFailure();
    if (failed(tile::verifyControlFlowCount(module)))
      return signalPassFailure();
    Builder builder(context);
    module->setAttr(TileGPUDialect::kNumWarpsAttrName,
                    builder.getI32IntegerAttr(numWarps));
    module->setAttr(TileGPUDialect::kTargetAttrName,
                    builder.getStringAttr(target));
    LayoutAssigner assigner(context, numWarps);
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(assigner.assign(func)))
        return signalPassFailure();
  }
};
} // namespace
