//===- TileGPUOps.cpp - tilegpu op definitions ----------------------------===//
//
// Part of tilelang. Verifiers, folders and canonicalizations of the layout
// conversion, thread-local reduction, shared-memory and asynchronous-copy
// ops.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

#define GET_OP_CLASSES
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

/// Checks that a tensor and a shared buffer hold the same elements.
static LogicalResult verifyTensorMatchesBuffer(Operation *op,
                                               RankedTensorType tensor,
                                               MemDescType buffer) {
  if (tensor.getShape() != buffer.getShape())
    return op->emitOpError("tensor shape (")
           << tensor.getShape() << ") differs from the buffer's ("
           << buffer.getShape() << ")";
  if (tensor.getElementType() != buffer.getElementType())
    return op->emitOpError("tensor element type ")
           << tensor.getElementType() << " differs from the buffer's "
           << buffer.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  auto srcType = getSrc().getType(), resultType = getType();
  if (srcType.getShape() != resultType.getShape() ||
      srcType.getElementType() != resultType.getElementType())
    return emitOpError("can only change the layout: ")
           << srcType << " and " << resultType
           << " differ in shape or element type";
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  // convert(convert(x)) is one conversion.
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>()) {
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  // A splat constant has every layout.
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(getType());
  return {};
}

namespace {
/// convert_layout(splat(x)) -> splat(x) in the target layout.
struct ConvertSplat : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().getDefiningOp<tile::SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<tile::SplatOp>(op, op.getType(),
                                               splat.getSrc());
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                  MLIRContext *context) {
  patterns.add<ConvertSplat>(context);
}

//===----------------------------------------------------------------------===//
// ThreadReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ThreadReduceOp::verifyRegions() {
  RankedTensorType srcType = getSrc().getType();
  FailureOr<RankedTensorType> expected =
      getThreadPartialType(srcType, getAxis());
  if (failed(expected))
    return emitOpError("needs a blocked source whose repetition divides "
                       "axis ")
           << getAxis() << ", got " << srcType;
  if (getType() != *expected)
    return emitOpError("result must be ") << *expected << ", got "
                                           << getType();
  Type element = srcType.getElementType();
  Block &block = getCombineOp().front();
  if (block.getArgumentTypes() != ArrayRef<Type>{element, element})
    return emitOpError("combine region must take two ")
           << element << " arguments: the running value, then the new one";
  auto terminator =
      dyn_cast_if_present<ThreadReduceReturnOp>(
      block.empty() ? nullptr : &block.back());
  if (!terminator || terminator.getResult().getType() != element)
    return emitOpError("combine region must return one ")
           << element << " with '" << ThreadReduceReturnOp::getOperationName()
           << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

LogicalResult LocalAllocOp::verify() {
  MemDescType buffer = getType();
  if (!getSrc()) {
    if (!buffer.getMutableMemory())
      return emitOpError("an uninitialized buffer must be mutable");
    return success();
  }
  return verifyTensorMatchesBuffer(*this, getSrc().getType(), buffer);
}

LogicalResult LocalLoadOp::verify() {
  return verifyTensorMatchesBuffer(*this, getType(), getSrc().getType());
}

LogicalResult LocalStoreOp::verify() {
  if (!getDst().getType().getMutableMemory())
    return emitOpError("cannot store to an immutable buffer");
  return verifyTensorMatchesBuffer(*this, getSrc().getType(),
                                   getDst().getType());
}

MemDescType MemDescTransOp::getTransposedType(MemDescType src) {
  ArrayRef<int64_t> shape = src.getShape();
  auto shared = cast<SharedEncodingAttr>(src.getEncoding());
  // Dimension d of the source is dimension 1 - d of the view.
  SmallVector<unsigned> order;
  for (unsigned dim : shared.getOrder())
    order.push_back(1 - dim);
  auto encoding =
      SharedEncodingAttr::get(src.getContext(), shared.getVec(),
                              shared.getPerPhase(), shared.getMaxPhase(), order);
  return MemDescType::get(src.getContext(), {shape[1], shape[0]},
                          src.getElementType(), encoding,
                          src.getMutableMemory());
}

void MemDescTransOp::build(OpBuilder &builder, OperationState &state,
                           Value src) {
  build(builder, state,
        getTransposedType(cast<MemDescType>(src.getType())), src);
}

LogicalResult MemDescTransOp::verify() {
  MemDescType src = getSrc().getType();
  if (src.getShape().size() != 2 ||
      !isa_and_nonnull<SharedEncodingAttr>(src.getEncoding()))
    return emitOpError("transposes 2-D tiles with a #tilegpu.shared layout");
  MemDescType expected = getTransposedType(src);
  if (getType() != expected)
    return emitOpError("result must be ") << expected << ", got " << getType();
  return success();
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (src.getShape().size() < 2)
    return emitOpError("source must have a leading stage dimension");
  MemDescType expected = src.getStageType();
  if (result != expected)
    return emitOpError("result must be ") << expected << ", got " << result;
  return success();
}

//===----------------------------------------------------------------------===//
// Warpgroup matrix product
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> WarpGroupDotOp::getAShape() {
  if (auto registers = dyn_cast<RankedTensorType>(getA().getType()))
    return registers.getShape();
  return cast<MemDescType>(getA().getType()).getShape();
}

Type WarpGroupDotOp::getAElementType() {
  if (auto registers = dyn_cast<RankedTensorType>(getA().getType()))
    return registers.getElementType();
  return cast<MemDescType>(getA().getType()).getElementType();
}

LogicalResult WarpGroupDotOp::verify() {
  ArrayRef<int64_t> a = getAShape();
  MemDescType b = getB().getType();
  auto c = cast<RankedTensorType>(getC().getType());
  if (a.size() != 2 || b.getShape().size() != 2 || c.getRank() != 2)
    return emitOpError("operands and accumulator must be 2-D");
  if (a[1] != b.getShape()[0] || a[0] != c.getDimSize(0) ||
      b.getShape()[1] != c.getDimSize(1))
    return emitOpError("shapes do not form a product: ")
           << getA().getType() << " * " << b << " -> " << c;
  auto mma = dyn_cast<MmaEncodingAttr>(c.getEncoding());
  if (!mma || mma.getVersion() != 3)
    return emitOpError("the accumulator needs an mma version-3 layout");
  // wgmma's operand kinds: f16 or bf16 pairs or fp8 of either format
  // (e4m3 and e5m2 mix) into f32, i8 pairs (signed) into i32; the 8-bit
  // ones read K-major from shared memory.
  auto isFp8 = [](Type type) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(type);
  };
  Type aElement = getAElementType(), bElement = b.getElementType();
  bool fp8 = isFp8(aElement) && isFp8(bElement);
  bool i8 = aElement.isInteger(8) && bElement.isInteger(8);
  if (!fp8 && !i8 &&
      (aElement != bElement || !(aElement.isF16() || aElement.isBF16())))
    return emitOpError("operands must both be f16, both bf16, both fp8 "
                       "(f8E4M3FN, f8E5M2) or both i8, got ")
           << aElement << " and " << bElement;
  Type accElement = c.getElementType();
  if (i8 ? !accElement.isInteger(32) : !accElement.isF32())
    return emitOpError("the accumulator of ")
           << aElement << " operands must be " << (i8 ? "i32" : "f32")
           << ", got " << accElement;
  if ((fp8 || i8) && isa<RankedTensorType>(getA().getType()))
    return emitOpError("an 8-bit A operand must be in shared memory");
  if (auto registers = dyn_cast<RankedTensorType>(getA().getType())) {
    auto operand =
        dyn_cast_if_present<DotOperandEncodingAttr>(registers.getEncoding());
    if (!operand || operand.getOpIdx() != 0 || operand.getParent() != mma ||
        operand.getKWidth() != 2)
      return emitOpError("an operand in registers needs the layout "
                         "#tilegpu.dot_op<opIdx = 0, parent = ")
             << mma << ", kWidth = 2>, got " << registers.getEncoding();
  }
  return success();
}

LogicalResult WarpGroupDotWaitOp::verify() {
  // I32Attr accessors return unsigned values; the IR's are signed.
  auto pendings = static_cast<int32_t>(getPendings());
  if (pendings < 0)
    return emitOpError("pendings must be non-negative, got ") << pendings;
  for (Value input : getInputs()) {
    auto mma = dyn_cast_or_null<MmaEncodingAttr>(
        cast<RankedTensorType>(input.getType()).getEncoding());
    if (!mma || mma.getVersion() != 3)
      return emitOpError("waits for wgmma accumulators, which have an mma "
                         "version-3 layout; got ")
             << input.getType();
  }
  return success();
}

LogicalResult WarpGroupDotWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, operands.getTypes());
  return success();
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  MemDescType buffer = getDst().getType();
  if (!buffer.getMutableMemory())
    return emitOpError("cannot copy into an immutable buffer");
  auto ptrType = getPtrs().getType();
  auto valueType = cast<RankedTensorType>(tile::getPointeeType(ptrType));
  if (failed(verifyTensorMatchesBuffer(*this, valueType, buffer)))
    return failure();
  if (getOther() && !getMask())
    return emitOpError("'other' requires a 'mask'");
  unsigned bytes = valueType.getElementType().getIntOrFloatBitWidth() / 8;
  if (bytes == 0)
    return emitOpError("cp.async copies whole bytes; i1 elements cannot be "
                       "copied");
  return success();
}

LogicalResult AsyncWaitOp::verify() {
  // I32Attr accessors return unsigned values; the IR's are signed.
  auto pending = static_cast<int32_t>(getPending());
  if (pending < 0)
    return emitOpError("pending must be non-negative, got ") << pending;
  return success();
}
