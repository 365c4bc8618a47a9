//===- AccelerateMatmul.cpp - tile.dot on the tensor cores ----------------===//
//
// Part of tilelang. The tilegpu-accelerate-matmul pass: gives every dot an
// mma accumulator layout and dot-operand layouts on its operands, keeps
// loop-carried accumulators in the mma layout, folds `acc + dot(a, b)`
// into the dot, and narrows accumulators before converting them.
//
//===----------------------------------------------------------------------===//

#include "LayoutConversions.h"

#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tilelang::tilegpu {
#define GEN_PASS_DEF_TILEGPUACCELERATEMATMUL
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilelang::tilegpu

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

/// Warps along M and N for an MxN accumulator: each split goes to the
/// dimension whose per-warp tile is larger, as long as it keeps at least one
/// instruction tile (16 rows, 8 columns) per warp, so warp tiles stay square
/// and operands loaded from shared memory are reused by as many
/// instructions as possible.
static SmallVector<unsigned> chooseWarpsPerCTA(int64_t m, int64_t n,
                                               unsigned numWarps) {
  unsigned warpsM = 1, warpsN = 1;
  while (warpsM * warpsN < numWarps) {
    bool mFits = m / (2 * warpsM) >= 16, nFits = n / (2 * warpsN) >= 8;
    bool preferM = m / warpsM >= n / warpsN;
    if (mFits && (preferM || !nFits))
      warpsM *= 2;
    else if (nFits)
      warpsN *= 2;
    else
      warpsM *= 2; // Too small for all warps: the extra ones replicate.
  }
  return {warpsM, warpsN};
}

static bool isFloat8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// Whether a dot of `a` x `b` into `acc` elements is one of wgmma's 8-bit
/// forms (32 deep, both operands K-major): fp8 of either format into f32,
/// or i8 (signed) into i32.
static bool isByteWgmmaProduct(Type a, Type b, Type acc) {
  return (isFloat8(a) && isFloat8(b) && acc.isF32()) ||
         (a.isInteger(8) && b.isInteger(8) && acc.isInteger(32));
}

/// Elements of `type` per 32-bit register of an mma.sync operand, or 0 when
/// mma.sync has no form for it. Reports why at `dot`.
static unsigned getKWidth(tile::DotOp dot, Type type) {
  if (type.isF16() || type.isBF16())
    return 2;
  if (type.isF32()) {
    if (dot.getInputPrecision() == tile::InputPrecision::IEEE) {
      dot.emitError("tile.dot with inputPrecision = ieee (exact f32 "
                    "products) cannot be lowered yet: use tf32 or tf32x3");
      return 0;
    }
    return 1;
  }
  if (type.isInteger(8) || isFloat8(type))
    return 4;
  dot.emitError("tile.dot on ")
      << type << " operands cannot be lowered yet (the tensor-core lowering "
      << "takes f16, bf16, f32 through tf32, and i8)";
  return 0;
}

/// The wgmma layout for an MxN accumulator, or null where wgmma does not
/// fit: warpgroups go along M while each keeps 64 rows, the rest along N;
/// one instruction covers a warpgroup's whole N (at most 256).
static MmaEncodingAttr chooseWgmmaLayout(MLIRContext *context, int64_t m,
                                         int64_t n, unsigned numWarps,
                                         unsigned instrK) {
  if (numWarps % 4 != 0 || m < 64)
    return {};
  unsigned warpgroups = numWarps / 4;
  unsigned alongM = std::min<int64_t>(warpgroups, m / 64);
  unsigned alongN = warpgroups / alongM;
  int64_t instrN = std::min<int64_t>(256, n / alongN);
  if (instrN < 16 || instrN % 16 != 0)
    return {};
  return MmaEncodingAttr::get(context, /*version=*/3, {4 * alongM, alongN},
                              {64, unsigned(instrN), instrK});
}

/// The value before any layout conversion: what a dot operand was computed
/// as (layout assignment converts operands to provisional dot_op layouts).
static Value lookThroughConversions(Value value) {
  while (auto convert = value.getDefiningOp<ConvertLayoutOp>())
    value = convert.getSrc();
  return value;
}

/// The row order of a tile in shared memory: its register layout's, so
/// that each thread's contiguous run stays contiguous.
static SmallVector<unsigned> getSharedOrder(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(type.getEncoding()))
    return SmallVector<unsigned>(blocked.getOrder());
  return {1, 0};
}

/// The order `value` is seen in from shared memory: its own, or for a
/// transpose (stored as its source, read through a transposed view) its
/// source's with the dimensions swapped.
static SmallVector<unsigned> getViewOrder(Value value) {
  auto trans = value.getDefiningOp<tile::TransOp>();
  if (!trans || trans.getOrder() != ArrayRef<int32_t>{1, 0})
    return getSharedOrder(value);
  SmallVector<unsigned> order;
  for (unsigned dim : getSharedOrder(trans.getSrc()))
    order.push_back(1 - dim);
  return order;
}

/// Whether wgmma's matrix descriptors can address `value` in its shared
/// layout: swizzled rows of 32 bytes or more, and N-major instructions that
/// start on a swizzle pattern; 8-bit tiles only K-major (wgmma transposes
/// 16-bit operands only).
static bool fitsWgmmaDescriptors(Value value, unsigned instrN, bool isB) {
  auto type = cast<RankedTensorType>(value.getType());
  unsigned bits = type.getElementTypeBitWidth();
  SmallVector<unsigned> order = getViewOrder(value);
  int64_t blockLength = getSwizzleBlockLength(
      getSwizzledSharedEncoding(value.getContext(), type.getShape(), order,
                                bits),
      type.getDimSize(order[0]));
  if (blockLength * bits < 32 * 8)
    return false;
  bool kContiguous = order[0] == (isB ? 0u : 1u);
  if (kContiguous)
    return true;
  if (bits != 16)
    return false;
  int64_t instrExtent = isB ? instrN : 64;
  return instrExtent % blockLength == 0;
}

/// Whether `value` is computed from a tensor-core product through
/// elementwise ops, broadcasts and conversions (a softmax's probabilities
/// before their second product, say): once layouts propagate, it sits in
/// the product's accumulator layout, from which wgmma's register operand
/// is a reordering of each thread's registers, where a copy to shared
/// memory would be a round trip per use.
static bool isComputedFromProduct(Value value) {
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    Operation *def = next.getDefiningOp();
    if (!def || !seen.insert(def).second || seen.size() > 64)
      continue;
    if (isa<WarpGroupDotOp>(def) ||
        isa_and_present<MmaEncodingAttr>(
            cast<RankedTensorType>(next.getType()).getEncoding()))
      return true;
    if (!isElementwiseTensorOp(def) &&
        !isa<ConvertLayoutOp, tile::BroadcastOp, tile::ExpandDimsOp>(def))
      continue;
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        worklist.push_back(operand);
  }
  return false;
}

namespace {

/// Rewrites one dot onto tensor-core layouts; see the pass description.
class DotAccelerator {
public:
  DotAccelerator(unsigned numWarps, bool useWgmma)
      : numWarps(numWarps), useWgmma(useWgmma) {}

  LogicalResult accelerate(tile::DotOp dot);

private:
  /// Whether an 8-bit dot (fp8 or i8) can run on wgmma: the target has it,
  /// the element types form one of its 8-bit products, the shape fits a
  /// warpgroup layout with 32-deep instructions, and both operands are read
  /// K-major from shared memory.
  bool canUseByteWgmma(tile::DotOp dot) const;
  /// The same product on f16 operands widened from fp8 (exact).
  tile::DotOp widenToF16(tile::DotOp dot) const;
  /// Keeps iter_arg `index` of `loop` in `layout` across iterations.
  void carryInLayout(scf::ForOp loop, unsigned index, Attribute layout);

  unsigned numWarps;
  bool useWgmma;
};

} // namespace

bool DotAccelerator::canUseByteWgmma(tile::DotOp dot) const {
  RankedTensorType aType = dot.getA().getType(), dType = dot.getType();
  if (!useWgmma ||
      !isByteWgmmaProduct(aType.getElementType(),
                          dot.getB().getType().getElementType(),
                          dType.getElementType()) ||
      aType.getDimSize(1) % 32 != 0)
    return false;
  MmaEncodingAttr mma =
      chooseWgmmaLayout(dot.getContext(), dType.getDimSize(0),
                        dType.getDimSize(1), numWarps, /*instrK=*/32);
  if (!mma)
    return false;
  unsigned instrN = mma.getInstrShape()[1];
  return fitsWgmmaDescriptors(lookThroughConversions(dot.getA()), instrN,
                              /*isB=*/false) &&
         fitsWgmmaDescriptors(lookThroughConversions(dot.getB()), instrN,
                              /*isB=*/true);
}

tile::DotOp DotAccelerator::widenToF16(tile::DotOp dot) const {
  OpBuilder builder(dot);
  Location loc = dot.getLoc();
  auto widen = [&](Value value) -> Value {
    Value source = lookThroughConversions(value);
    auto type = cast<RankedTensorType>(source.getType());
    return arith::ExtFOp::create(
        builder, loc, type.clone(builder.getF16Type()), source);
  };
  auto wide = tile::DotOp::create(builder, loc, dot.getType(),
                                  widen(dot.getA()), widen(dot.getB()),
                                  dot.getC(), dot.getInputPrecision(),
                                  /*maxNumImpreciseAcc=*/0);
  dot.replaceAllUsesWith(wide.getResult());
  dot.erase();
  return wide;
}

LogicalResult DotAccelerator::accelerate(tile::DotOp dot) {
  RankedTensorType aType = dot.getA().getType(), bType = dot.getB().getType();
  RankedTensorType dType = dot.getType();
  if (dType.getRank() != 2)
    return dot.emitError("batched (3-D) tile.dot cannot be lowered yet");
  Type aElement = aType.getElementType(), bElement = bType.getElementType();
  // fp8: wgmma where it reads both operands K-major from shared memory;
  // elsewhere the operands widen to f16 (exactly) for the f16 product.
  bool byteWgmma = canUseByteWgmma(dot);
  if (isFloat8(aElement) && isFloat8(bElement) && !byteWgmma)
    return accelerate(widenToF16(dot));
  if (aElement != bElement && !(isFloat8(aElement) && isFloat8(bElement)))
    return dot.emitError("tile.dot operands of different types (")
           << aElement << " and " << bElement << ") cannot be lowered yet";
  unsigned kWidth = getKWidth(dot, aElement);
  if (kWidth == 0)
    return failure();
  int64_t k = aType.getDimSize(1);
  if (k < 8 * kWidth)
    return dot.emitError("tile.dot on ")
           << aElement << " needs K >= " << 8 * kWidth << ", got K = " << k;

  MLIRContext *context = dot.getContext();
  OpBuilder builder(dot);
  Location loc = dot.getLoc();
  // Hopper: wgmma on operands in shared memory, for 16-bit types and the
  // 8-bit ones (instructions 16 and 32 deep: 32 bytes of K). An i8 product
  // that wgmma cannot read stays on mma.sync.
  MmaEncodingAttr mma;
  if (useWgmma && (kWidth == 2 || byteWgmma))
    mma = chooseWgmmaLayout(context, dType.getDimSize(0), dType.getDimSize(1),
                            numWarps, byteWgmma ? 32 : 16);
  Value aSource = lookThroughConversions(dot.getA());
  Value bSource = lookThroughConversions(dot.getB());
  bool aInRegisters =
      mma && !byteWgmma && k % 16 == 0 && isComputedFromProduct(aSource);
  if (mma && !((aInRegisters ||
                fitsWgmmaDescriptors(aSource, mma.getInstrShape()[1],
                                     /*isB=*/false)) &&
               fitsWgmmaDescriptors(bSource, mma.getInstrShape()[1],
                                    /*isB=*/true)))
    mma = {};
  if (!mma)
    mma = MmaEncodingAttr::get(
        context, /*version=*/2,
        chooseWarpsPerCTA(dType.getDimSize(0), dType.getDimSize(1), numWarps),
        {16, 8});
  auto convert = [&](Value value, Attribute layout) -> Value {
    auto type = withEncoding(cast<RankedTensorType>(value.getType()), layout);
    return ConvertLayoutOp::create(builder, loc, type, value);
  };
  // The tensor cores accumulate f16 products in f32 here: widen, then narrow.
  Value c = convert(dot.getC(), mma);
  Type accElement = dType.getElementType();
  auto wideType = withEncoding(
      RankedTensorType::get(dType.getShape(), builder.getF32Type()), mma);
  if (accElement.isF16())
    c = arith::ExtFOp::create(builder, loc, wideType, c);
  Value d;
  if (mma.getVersion() == 3) {
    // A transposed tile (b.T of a tile loaded as N x K) goes to shared
    // memory as computed and is read through a transposed view: the same
    // bytes as a copy of the transpose, without the trip through registers
    // a transpose takes, and the load stays one a pipeline can take.
    auto toShared = [&](Value value) -> Value {
      auto trans = value.getDefiningOp<tile::TransOp>();
      bool viewTransposed =
          trans && trans.getOrder() == ArrayRef<int32_t>{1, 0};
      Value stored = viewTransposed ? trans.getSrc() : value;
      auto type = cast<RankedTensorType>(stored.getType());
      auto encoding =
          getSwizzledSharedEncoding(context, type.getShape(),
                                    getSharedOrder(stored),
                                    type.getElementTypeBitWidth());
      auto bufferType =
          MemDescType::get(context, type.getShape(), type.getElementType(),
                           encoding, /*mutableMemory=*/false);
      Value buffer = LocalAllocOp::create(builder, loc, bufferType, stored);
      if (viewTransposed)
        buffer = MemDescTransOp::create(builder, loc, buffer);
      return buffer;
    };
    Value a = aInRegisters
                  ? convert(dot.getA(),
                            DotOperandEncodingAttr::get(context, 0, mma, 2))
                  : toShared(aSource);
    d = WarpGroupDotOp::create(builder, loc, c.getType(), a, toShared(bSource),
                               c);
  } else {
    Value a = convert(dot.getA(),
                      DotOperandEncodingAttr::get(context, 0, mma, kWidth));
    Value b = convert(dot.getB(),
                      DotOperandEncodingAttr::get(context, 1, mma, kWidth));
    d = tile::DotOp::create(builder, loc, c.getType(), a, b, c,
                            dot.getInputPrecision(),
                            dot.getMaxNumImpreciseAcc());
  }
  if (accElement.isF16())
    d = arith::TruncFOp::create(builder, loc, withEncoding(dType, mma), d);
  Value result = convert(d, dType.getEncoding());
  dot.replaceAllUsesWith(result);

  // acc = dot(a, b, acc) in a loop: keep acc in the mma layout throughout.
  Value acc = dot.getC();
  dot.erase();
  auto iterArg = dyn_cast<BlockArgument>(acc);
  auto loop = iterArg ? dyn_cast<scf::ForOp>(iterArg.getOwner()->getParentOp())
                      : scf::ForOp();
  if (!loop || iterArg.getArgNumber() == 0 ||
      !(accElement.isF32() || accElement.isInteger(32)))
    return success();
  unsigned index = iterArg.getArgNumber() - 1;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (yield.getOperand(index) == result && acc.hasOneUse())
    carryInLayout(loop, index, mma);
  return success();
}

void DotAccelerator::carryInLayout(scf::ForOp loop, unsigned index,
                                   Attribute layout) {
  BlockArgument iterArg = loop.getRegionIterArg(index);
  auto oldType = cast<RankedTensorType>(iterArg.getType());
  auto newType = withEncoding(oldType, layout);
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  // Into the loop: the initial value.
  OpOperand &init = loop.getInitArgsMutable()[index];
  init.set(ConvertLayoutOp::create(builder, loc, newType, init.get()));
  // Inside: users see the old layout until conversions fold away.
  iterArg.setType(newType);
  builder.setInsertionPointToStart(loop.getBody());
  auto inside = ConvertLayoutOp::create(builder, loc, oldType, iterArg);
  iterArg.replaceAllUsesExcept(inside, inside);
  // Around the back edge: the yielded value.
  Operation *yield = loop.getBody()->getTerminator();
  builder.setInsertionPoint(yield);
  OpOperand &yielded = yield->getOpOperand(index);
  yielded.set(ConvertLayoutOp::create(builder, loc, newType, yielded.get()));
  // Out of the loop: the result.
  Value result = loop.getResult(index);
  result.setType(newType);
  builder.setInsertionPointAfter(loop);
  auto outside = ConvertLayoutOp::create(builder, loc, oldType, result);
  result.replaceAllUsesExcept(outside, outside);
}

namespace {

/// acc + dot(a, b, 0) -> dot(a, b, acc) when the dot has no other use.
template <typename AddOp>
struct FoldAddIntoDot : public OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (unsigned side = 0; side < 2; ++side) {
      auto dot = add->getOperand(side).template getDefiningOp<tile::DotOp>();
      if (!dot || !dot->hasOneUse() ||
          !(matchPattern(dot.getC(), m_Zero()) ||
            matchPattern(dot.getC(), m_AnyZeroFloat())))
        continue;
      Value acc = add->getOperand(1 - side);
      if (acc.getType() != dot.getType())
        continue;
      rewriter.modifyOpInPlace(dot, [&] { dot.getCMutable().assign(acc); });
      // The accumulator must exist before the dot.
      if (Operation *def = acc.getDefiningOp();
          def && def->getBlock() == dot->getBlock() &&
          dot->isBeforeInBlock(def))
        rewriter.moveOpAfter(dot, def);
      rewriter.replaceOp(add, dot.getResult());
      return success();
    }
    return failure();
  }
};

/// cast(convert(x: mma)) -> convert(cast(x)): an epilogue narrowing the
/// accumulator (f32 -> f16, say) moves half the bytes through shared memory.
struct SinkConversionThroughCast : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvertLayoutOp convert,
                                PatternRewriter &rewriter) const override {
    if (!isa<MmaEncodingAttr>(convert.getSrc().getType().getEncoding()) ||
        !convert->hasOneUse())
      return failure();
    Operation *narrow = *convert->getUsers().begin();
    if (!isa<arith::TruncFOp, arith::TruncIOp, arith::FPToSIOp,
             arith::FPToUIOp>(narrow))
      return failure();
    auto narrowType = cast<RankedTensorType>(narrow->getResult(0).getType());
    rewriter.setInsertionPoint(narrow);
    Operation *early = rewriter.clone(*narrow);
    early->setOperand(0, convert.getSrc());
    early->getResult(0).setType(
        withEncoding(narrowType, convert.getSrc().getType().getEncoding()));
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(narrow, narrowType,
                                                 early->getResult(0));
    return success();
  }
};

/// Puts tile.dot on the tensor cores; see Passes.td.
struct TileGPUAccelerateMatmulPass
    : public tilelang::tilegpu::impl::TileGPUAccelerateMatmulBase<
          TileGPUAccelerateMatmulPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<tile::DotOp> dots;
    module.walk([&](tile::DotOp dot) { dots.push_back(dot); });
    if (dots.empty())
      return;
    std::optional<unsigned> numWarps = getNumWarps(module);
    if (!numWarps) {
      module.emitError("tilegpu-accelerate-matmul needs ")
          << TileGPUDialect::kNumWarpsAttrName << " on the module";
      return signalPassFailure();
    }
    unsigned capability = getComputeCapability(module);
    if (capability < 80) {
      dots.front().emitError("tile.dot needs tensor cores of sm_80 or newer; "
                             "the target is ")
          << module->getAttr(TileGPUDialect::kTargetAttrName);
      return signalPassFailure();
    }

    RewritePatternSet folds(&getContext());
    folds.add<FoldAddIntoDot<arith::AddFOp>, FoldAddIntoDot<arith::AddIOp>>(
        &getContext());
    if (failed(applyPatternsGreedily(module, std::move(folds))))
      return signalPassFailure();

    dots.clear();
    module.walk([&](tile::DotOp dot) { dots.push_back(dot); });
    // wgmma needs the architecture-specific target (sm_90a).
    auto target =
        module->getAttrOfType<StringAttr>(TileGPUDialect::kTargetAttrName);
    bool useWgmma =
        capability == 90 && target && target.getValue().ends_with("a");
    DotAccelerator accelerator(*numWarps, useWgmma);
    bool failed = false;
    for (tile::DotOp dot : dots)
      failed |= mlir::failed(accelerator.accelerate(dot));
    if (failed)
      return signalPassFailure();

    // Fold the conversions that met their inverses.
    RewritePatternSet patterns(&getContext());
    ConvertLayoutOp::getCanonicalizationPatterns(patterns, &getContext());
    patterns.add<SinkConversionThroughCast>(&getContext());
    if (mlir::failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
