//===- CarriedPointers.cpp - pointer tensors carried as a scalar ---------===//
//
// Part of tilelang. Rewrites a loop that carries a pointer tensor advanced
// by a uniform step (`k_ptrs += BLOCK_N * stride_kn`) to carry the tensor's
// scalar base pointer instead, the tensor being recomputed in the body as
// splat(base) + its loop-invariant offset tensors. Used by tilegpu-pipeline
// on the pointers of the copies it issues; see CarriedPointers.h.
//
//===----------------------------------------------------------------------===//

#include "CarriedPointers.h"

#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// A pointer tensor as splat(base) + terms[0] + terms[1] + ..., each term
/// an i32 tensor of the pointer tensor's shape and layout counting elements
/// (sign-extended, as tile.addptr adds them).
struct PointerSum {
  Value base;
  SmallVector<Value> terms;
};

} // namespace

/// Splits `ptrs` into a PointerSum, building at `builder` the broadcast or
/// expanded offset tensors it needs and the scalar additions of offsets
/// that are splats (which move the base and are no term); nullopt (and
/// nothing built) when `ptrs` is not such a sum of at most
/// kMaxRebasedTerms terms.
static std::optional<PointerSum> splitPointerTensor(Value ptrs,
                                                    OpBuilder &builder) {
  // From the tensor back to the splat: tile.addptr adds a term, the shape
  // ops apply to the terms added before them.
  SmallVector<Operation *> chain;
  unsigned terms = 0;
  Value value = ptrs;
  Value base;
  while (!base) {
    Operation *def = value.getDefiningOp();
    if (auto splat = dyn_cast_or_null<tile::SplatOp>(def)) {
      base = splat.getSrc();
    } else if (auto addptr = dyn_cast_or_null<tile::AddPtrOp>(def);
               addptr && addptr.getOffset().getDefiningOp<tile::SplatOp>()) {
      // The same offset for every element moves the base instead.
      chain.push_back(def);
      value = addptr.getPtr();
    } else if (auto addptr = dyn_cast_or_null<tile::AddPtrOp>(def)) {
      auto offset = dyn_cast<RankedTensorType>(addptr.getOffset().getType());
      if (!offset || !offset.getElementType().isInteger(32) ||
          ++terms > kMaxRebasedTerms)
        return std::nullopt;
      chain.push_back(def);
      value = addptr.getPtr();
    } else if (isa_and_nonnull<tile::BroadcastOp, tile::ExpandDimsOp>(def)) {
      chain.push_back(def);
      value = def->getOperand(0);
    } else {
      return std::nullopt;
    }
  }
  if (!isa<tile::PointerType>(base.getType()) || terms == 0)
    return std::nullopt;
  PointerSum sum{base, {}};
  for (Operation *op : llvm::reverse(chain)) {
    if (auto addptr = dyn_cast<tile::AddPtrOp>(op)) {
      if (auto splat = addptr.getOffset().getDefiningOp<tile::SplatOp>())
        sum.base =
            tile::AddPtrOp::create(builder, op->getLoc(), sum.base.getType(),
                                   sum.base, splat.getSrc());
      else
        sum.terms.push_back(addptr.getOffset());
      continue;
    }
    auto type = cast<RankedTensorType>(op->getResult(0).getType())
                    .clone(builder.getI32Type());
    for (Value &term : sum.terms) {
      if (auto expand = dyn_cast<tile::ExpandDimsOp>(op))
        term = tile::ExpandDimsOp::create(builder, op->getLoc(), type, term,
                                          expand.getAxisAttr());
      else
        term = tile::BroadcastOp::create(builder, op->getLoc(), type, term);
    }
  }
  return sum;
}

/// splat(base) + terms... as a tensor of `type`, at `builder`.
static Value buildPointerSum(OpBuilder &builder, Location loc,
                             RankedTensorType type, Value base,
                             ArrayRef<Value> terms) {
  Value ptrs = tile::SplatOp::create(builder, loc, type, base);
  for (Value term : terms)
    ptrs = tile::AddPtrOp::create(builder, loc, type, ptrs, term);
  return ptrs;
}

/// Whether scalar `value` is the same in every iteration of `loop`: defined
/// outside it, or computed in its body by pure scalar ops from such values
/// (`BLOCK_N * stride_kn` before loop-invariant code motion).
static bool isInvariantScalar(scf::ForOp loop, Value value) {
  if (loop.isDefinedOutsideOfLoop(value))
    return true;
  Operation *def = value.getDefiningOp();
  return def && def->getBlock() == loop.getBody() && isPure(def) &&
         def->getNumRegions() == 0 && def->getNumResults() == 1 &&
         value.getType().isIntOrIndex() &&
         llvm::all_of(def->getOperands(), [&](Value operand) {
           return isInvariantScalar(loop, operand);
         });
}

/// Moves the body ops computing an invariant scalar before `loop`.
static void hoistInvariantScalar(scf::ForOp loop, Value value) {
  if (loop.isDefinedOutsideOfLoop(value))
    return;
  Operation *def = value.getDefiningOp();
  for (Value operand : def->getOperands())
    hoistInvariantScalar(loop, operand);
  def->moveBefore(loop);
}

/// Whether every element of `offset` is one loop-invariant scalar: a splat
/// of such a scalar, or a constant splat.
static bool isUniformStep(scf::ForOp loop, Value offset) {
  if (auto splat = offset.getDefiningOp<tile::SplatOp>())
    return isInvariantScalar(loop, splat.getSrc());
  SplatElementsAttr constant;
  return matchPattern(offset, m_Constant(&constant));
}

/// That scalar, available before the loop (hoisted, or built for a
/// constant).
static Value getUniformStep(scf::ForOp loop, Value offset) {
  if (auto splat = offset.getDefiningOp<tile::SplatOp>()) {
    hoistInvariantScalar(loop, splat.getSrc());
    return splat.getSrc();
  }
  SplatElementsAttr constant;
  matchPattern(offset, m_Constant(&constant));
  OpBuilder builder(loop);
  return arith::ConstantOp::create(builder, loop.getLoc(),
                                   constant.getSplatValue<TypedAttr>());
}

Value tilelang::tilegpu::rebaseCarriedPointerTensor(scf::ForOp loop,
                                                    BlockArgument arg) {
  Block *body = loop.getBody();
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  if (arg.getOwner() != body || arg.getArgNumber() == 0 || !type ||
      !isa<tile::PointerType>(type.getElementType()))
    return Value();
  unsigned index = arg.getArgNumber() - 1;
  Operation *yield = body->getTerminator();
  auto update = yield->getOperand(index).getDefiningOp<tile::AddPtrOp>();
  if (!update || update.getPtr() != arg)
    return Value();
  // A step that differs between elements (or iterations) keeps the tensor.
  if (!isUniformStep(loop, update.getOffset()))
    return Value();
  OpBuilder builder(loop);
  std::optional<PointerSum> sum =
      splitPointerTensor(loop.getInitArgs()[index], builder);
  if (!sum)
    return Value();
  Value step = getUniformStep(loop, update.getOffset());

  // The loop carries the base; the sums are equal modulo 2^64 whatever the
  // order of the additions, so nothing can overflow differently: the base
  // and the step add in 64 bits, and each term is sign-extended on its own
  // as before.
  Location loc = update.getLoc();
  Type baseType = sum->base.getType();
  loop.getInitArgsMutable()[index].set(sum->base);
  arg.setType(baseType);
  OpResult result = loop->getResult(index);
  result.setType(baseType);
  builder.setInsertionPoint(yield);
  Operation *advance =
      tile::AddPtrOp::create(builder, loc, baseType, arg, step);
  yield->setOperand(index, advance->getResult(0));
  builder.setInsertionPointToStart(body);
  Value rebuilt = buildPointerSum(builder, loc, type, arg, sum->terms);
  // The splat that starts the sum, the body's first op now.
  Operation *root = &body->front();
  arg.replaceUsesWithIf(rebuilt, [&](OpOperand &use) {
    return use.getOwner() != root && use.getOwner() != advance;
  });
  if (update->use_empty())
    update->erase();
  // Readers after the loop get the tensor rebuilt from the final base.
  if (!result.use_empty()) {
    builder.setInsertionPointAfter(loop);
    Value after = buildPointerSum(builder, loc, type, result, sum->terms);
    Operation *afterRoot = after.getDefiningOp();
    while (auto addptr = dyn_cast<tile::AddPtrOp>(afterRoot))
      afterRoot = addptr.getPtr().getDefiningOp();
    result.replaceAllUsesExcept(after, afterRoot);
  }
  return rebuilt;
}
