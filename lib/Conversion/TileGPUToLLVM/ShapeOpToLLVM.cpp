//===- ShapeOpToLLVM.cpp - tensor construction and layout changes ---------===//
//
// Part of tilelang. Lowers constants, splat, make_range, broadcast and
// expand_dims (register moves within a thread), convert_layout between
// layouts that give every thread the same elements (register moves too),
// and reshape, trans and the conversions ConvertLayoutToLLVM.cpp leaves
// (a round trip through shared memory, element by element: every thread
// writes its elements at their coordinates, then reads the ones it needs).
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <map>

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

/// Maps each element index of `layout` over `shape` to its struct position.
std::map<SmallVector<unsigned>, unsigned>
indexPositions(DistributedEncodingAttr layout, ArrayRef<int64_t> shape) {
  std::map<SmallVector<unsigned>, unsigned> positions;
  for (auto [position, index] :
       llvm::enumerate(getElementIndices(layout, shape)))
    positions.try_emplace(index, position);
  return positions;
}

/// A dense splat constant tensor -> a struct of the scalar constant.
struct ConstantLowering : public ConvertOpToLLVMPattern<arith::ConstantOp> {
  ConstantLowering(TileGPUTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    // A splat is the same in every element, so any layout the type
    // converter takes will do, the registers of a dot operand included (a
    // deferred product's first, zero operand).
    if (!type || !(isLowerableLayout(type.getEncoding()) ||
                   isa_and_present<DotOperandEncodingAttr>(type.getEncoding())))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !dense.isSplat())
      return op.emitError("only splat constant tensors are supported");
    Type elementType = getTypeConverter()->convertType(type.getElementType());
    Value scalar = LLVM::ConstantOp::create(
        rewriter, op.getLoc(), elementType,
        getLLVMConstantAttr(cast<TypedAttr>(dense.getSplatValue<Attribute>())));
    SmallVector<Value> elements(getTotalElemsPerThread(type), scalar);
    replaceWithElements(rewriter, op, type, elements,
                        *getTypeConverter());
    return success();
  }
};

/// splat -> the scalar in every element.
struct SplatLowering : public ConvertOpToLLVMPattern<tile::SplatOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> elements(getTotalElemsPerThread(op.getType()),
                                adaptor.getSrc());
    replaceWithElements(rewriter, op, op.getType(), elements,
                        *getTypeConverter());
    return success();
  }
};

/// make_range -> start + the coordinate of each element.
struct MakeRangeLowering : public ConvertOpToLLVMPattern<tile::MakeRangeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::MakeRangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (!isLowerableLayout(op.getType().getEncoding()))
      return op.emitError("make_range in this layout cannot be lowered yet");
    Value start =
        i32Constant(rewriter, loc, static_cast<int32_t>(op.getStart()));
    SmallVector<Value> elements;
    for (auto &coords : emitElementCoordinates(rewriter, loc, op.getType()))
      elements.push_back(LLVM::AddOp::create(rewriter, loc, start, coords[0]));
    replaceWithElements(rewriter, op, op.getType(), elements,
                        *getTypeConverter());
    return success();
  }
};

/// broadcast within one blocked layout: each result element reads the
/// source element at index 0 of every broadcast dimension.
struct BroadcastLowering : public ConvertOpToLLVMPattern<tile::BroadcastOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = op.getSrc().getType(), resultType = op.getType();
    if (srcType.getEncoding() != resultType.getEncoding())
      return op.emitError("broadcast between different layouts reached the "
                          "LLVM lowering (a tilegpu pass should have "
                          "converted the source)");
    auto layout = getDistributedEncoding(resultType);
    if (!isLowerableLayout(layout))
      return op.emitError("broadcast in this layout cannot be lowered yet");
    auto srcPositions = indexPositions(layout, srcType.getShape());
    SmallVector<Value> srcElements =
        unpackStruct(rewriter, op.getLoc(), adaptor.getSrc());
    SmallVector<Value> elements;
    for (SmallVector<unsigned> index :
         getElementIndices(layout, resultType.getShape())) {
      for (unsigned dim = 0; dim < index.size(); ++dim)
        if (srcType.getDimSize(dim) == 1)
          index[dim] = 0;
      elements.push_back(srcElements[srcPositions.at(index)]);
    }
    replaceWithElements(rewriter, op, resultType, elements,
                        *getTypeConverter());
    return success();
  }
};

/// expand_dims from slice(P, axis) to P: the new dimension has size 1, so
/// every result element is the source element with the axis index dropped.
struct ExpandDimsLowering : public ConvertOpToLLVMPattern<tile::ExpandDimsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = op.getSrc().getType(), resultType = op.getType();
    auto slice = dyn_cast<SliceEncodingAttr>(srcType.getEncoding());
    if (!slice || slice.getParent() != resultType.getEncoding() ||
        slice.getDim() != op.getAxis() || !isLowerableLayout(slice))
      return op.emitError("expand_dims source must be a slice of the result "
                          "layout along the new axis");
    auto srcPositions =
        indexPositions(cast<DistributedEncodingAttr>(slice), srcType.getShape());
    SmallVector<Value> srcElements =
        unpackStruct(rewriter, op.getLoc(), adaptor.getSrc());
    SmallVector<Value> elements;
    for (SmallVector<unsigned> index : getElementIndices(
             getDistributedEncoding(resultType), resultType.getShape())) {
      index.erase(index.begin() + op.getAxis());
      elements.push_back(srcElements[srcPositions.at(index)]);
    }
    replaceWithElements(rewriter, op, resultType, elements,
                        *getTypeConverter());
    return success();
  }
};

/// convert_layout between layouts whose threads hold the same elements
/// (their LayoutMaps differ only in register order): a permutation of each
/// thread's registers, no shared memory.
struct RegisterPermutationLowering
    : public ConvertOpToLLVMPattern<ConvertLayoutOp> {
  RegisterPermutationLowering(TileGPUTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/3) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    std::optional<SmallVector<unsigned>> permutation = getRegisterPermutation(
        srcType.getEncoding(), type.getEncoding(), type.getShape());
    if (!permutation)
      return failure();
    SmallVector<Value> srcElements =
        unpackStruct(rewriter, op.getLoc(), adaptor.getSrc());
    SmallVector<Value> elements;
    for (unsigned reg : *permutation)
      elements.push_back(srcElements[reg]);
    replaceWithElements(rewriter, op, type, elements, *getTypeConverter());
    return success();
  }
};

/// Row-major linear index of `coords` in `shape`.
Value linearize(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                ArrayRef<int64_t> shape) {
  Value linear = i32Constant(b, loc, 0);
  for (auto [coord, size] : llvm::zip_equal(coords, shape))
    linear = LLVM::AddOp::create(
        b, loc, LLVM::MulOp::create(b, loc, linear, i32Constant(b, loc, size)),
        coord);
  return linear;
}

/// Moves a tensor between layouts through shared memory. `writeIndex`
/// gives the linear slot of a source element from its coordinates; each
/// result element reads the slot of its row-major index in
/// getScratchShape(op) (the result's shape, rows padded for conversions).
Value redistribute(ConversionPatternRewriter &rewriter, Location loc,
                   Operation *op, Value srcStruct, RankedTensorType srcType,
                   RankedTensorType resultType, Type resultStructType,
                   llvm::function_ref<Value(ArrayRef<Value>)> writeIndex,
                   const TypeConverter &converter) {
  SmallVector<int64_t> scratchShape = getScratchShape(op);
  Type elementType = converter.convertType(resultType.getElementType());
  Type storageType = getStorageType(elementType);
  Value base = getSharedMemoryBase(rewriter, loc, op);
  auto sharedPtr = LLVM::LLVMPointerType::get(rewriter.getContext(), 3);
  auto slot = [&](Value index) -> Value {
    return LLVM::GEPOp::create(rewriter, loc, sharedPtr, storageType, base,
                               ValueRange{index});
  };
  // Wait until earlier users of the scratch space are done with it.
  emitBarrier(rewriter, loc);
  SmallVector<Value> srcElements = unpackStruct(rewriter, loc, srcStruct);
  for (auto [element, coords] : llvm::zip_equal(
           srcElements, emitElementCoordinates(rewriter, loc, srcType)))
    LLVM::StoreOp::create(rewriter, loc, toStorage(rewriter, loc, element),
                          slot(writeIndex(coords)));
  emitBarrier(rewriter, loc);
  SmallVector<Value> elements;
  for (auto &coords : emitElementCoordinates(rewriter, loc, resultType)) {
    Value index = linearize(rewriter, loc, coords, scratchShape);
    Value stored = LLVM::LoadOp::create(rewriter, loc, storageType, slot(index));
    elements.push_back(fromStorage(rewriter, loc, stored, elementType));
  }
  return packStruct(rewriter, loc, resultStructType, elements);
}

/// convert_layout (where ConvertLayoutToLLVM.cpp's vectors do not apply),
/// reshape and trans through shared memory.
template <typename OpT>
struct RedistributeLowering : public ConvertOpToLLVMPattern<OpT> {
  using ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    // Elements are addressed by their coordinates: any layout that has
    // them will do.
    auto hasCoordinates = [](RankedTensorType type) {
      return isLowerableLayout(type.getEncoding()) ||
             LayoutMap::get(type.getEncoding(), type.getShape());
    };
    if (!hasCoordinates(srcType) || !hasCoordinates(resultType))
      return op.emitError("only blocked, mma and mma operand layouts (and "
                          "slices of them) can be redistributed yet");
    auto writeIndex = [&](ArrayRef<Value> coords) -> Value {
      if constexpr (std::is_same_v<OpT, tile::TransOp>) {
        SmallVector<Value> permuted;
        for (int32_t dim : op.getOrder())
          permuted.push_back(coords[dim]);
        return linearize(rewriter, loc, permuted, resultType.getShape());
      } else if constexpr (std::is_same_v<OpT, ConvertLayoutOp>) {
        // Same shape, rows padded as the reads expect.
        return linearize(rewriter, loc, coords, getScratchShape(op));
      } else {
        // Same row-major order (reshape).
        return linearize(rewriter, loc, coords, srcType.getShape());
      }
    };
    rewriter.replaceOp(op, redistribute(rewriter, loc, op, adaptor.getSrc(),
                                        srcType, resultType,
                                        this->getTypeConverter()->convertType(
                                            resultType),
                                        writeIndex, *this->getTypeConverter()));
    return success();
  }
};

} // namespace

void tilelang::lowering::populateShapeOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, SplatLowering, MakeRangeLowering,
               BroadcastLowering, ExpandDimsLowering,
               RegisterPermutationLowering,
               RedistributeLowering<ConvertLayoutOp>,
               RedistributeLowering<tile::ReshapeOp>,
               RedistributeLowering<tile::TransOp>>(converter);
}
