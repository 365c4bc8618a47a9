//===- LayoutUtils.cpp - building and measuring layouts -------------------===//
//
// Part of tilelang. Blocked-layout construction for a shape, and the sizes
// that follow from a layout (CTA tile, elements per thread).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilelang::tilegpu;

/// The largest power of two that is at most `value` (and at least 1).
static unsigned floorPowerOf2(int64_t value) {
  return value <= 1 ? 1 : llvm::bit_floor(static_cast<uint64_t>(value));
}

BlockedEncodingAttr tilelang::tilegpu::getBlockedEncoding(
    MLIRContext *context, ArrayRef<int64_t> shape,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> order,
    unsigned numWarps) {
  size_t rank = shape.size();
  SmallVector<unsigned> threadsPerWarp(rank, 1), warpsPerCTA(rank, 1);
  unsigned lanesLeft = TileGPUDialect::kThreadsPerWarp, warpsLeft = numWarps;
  // Fill dimensions fastest first, each with as many threads as it has
  // thread-sized chunks; the slowest dimension takes whatever is left.
  for (size_t i = 0; i + 1 < rank; ++i) {
    unsigned dim = order[i];
    unsigned chunks = floorPowerOf2(
        llvm::divideCeil(shape[dim], static_cast<int64_t>(sizePerThread[dim])));
    threadsPerWarp[dim] = std::min(chunks, lanesLeft);
    lanesLeft /= threadsPerWarp[dim];
    unsigned chunksLeft = std::max(1u, chunks / threadsPerWarp[dim]);
    warpsPerCTA[dim] = std::min(chunksLeft, warpsLeft);
    warpsLeft /= warpsPerCTA[dim];
  }
  unsigned slowest = order[rank - 1];
  threadsPerWarp[slowest] = lanesLeft;
  warpsPerCTA[slowest] = warpsLeft;
  return BlockedEncodingAttr::get(context, sizePerThread, threadsPerWarp,
                                  warpsPerCTA, order);
}

BlockedEncodingAttr tilelang::tilegpu::getDefaultBlockedEncoding(
    MLIRContext *context, ArrayRef<int64_t> shape, unsigned numWarps) {
  size_t rank = shape.size();
  SmallVector<unsigned> sizePerThread(rank, 1), order;
  for (size_t dim = rank; dim-- > 0;)
    order.push_back(dim);
  return getBlockedEncoding(context, shape, sizePerThread, order, numWarps);
}

SmallVector<unsigned>
tilelang::tilegpu::getShapePerCTATile(BlockedEncodingAttr layout) {
  SmallVector<unsigned> tile;
  for (size_t dim = 0; dim < layout.getRank(); ++dim)
    tile.push_back(layout.getSizePerThread()[dim] *
                   layout.getThreadsPerWarp()[dim] *
                   layout.getWarpsPerCTA()[dim]);
  return tile;
}

SmallVector<unsigned>
tilelang::tilegpu::getElemsPerThread(DistributedEncodingAttr layout,
                                     ArrayRef<int64_t> shape) {
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(layout)) {
    SmallVector<unsigned> tile = getShapePerCTATile(blocked);
    SmallVector<unsigned> elems;
    for (size_t dim = 0; dim < shape.size(); ++dim)
      elems.push_back(
          llvm::divideCeil(shape[dim], static_cast<int64_t>(tile[dim])) *
          blocked.getSizePerThread()[dim]);
    return elems;
  }
  if (auto slice = dyn_cast<SliceEncodingAttr>(layout)) {
    // A slice holds the parent's elements at index 0 of the sliced dimension.
    SmallVector<int64_t> parentShape(shape);
    parentShape.insert(parentShape.begin() + slice.getDim(), 1);
    SmallVector<unsigned> elems = getElemsPerThread(
        cast<DistributedEncodingAttr>(slice.getParent()), parentShape);
    elems.erase(elems.begin() + slice.getDim());
    return elems;
  }
  std::optional<MmaV2Tile> tile = getMmaV2Tile(layout);
  if (!tile)
    tile = getMmaV3Tile(layout);
  if (!tile)
    tile = getWgmmaOperandTile(layout);
  if (tile) {
    SmallVector<unsigned> elems;
    for (size_t dim = 0; dim < shape.size(); ++dim)
      elems.push_back(llvm::divideCeil(shape[dim], static_cast<int64_t>(
                                                       tile->ctaTile[dim])) *
                      tile->perThread[dim]);
    return elems;
  }
  // Layouts the lowering cannot index hold nothing it could address.
  return SmallVector<unsigned>(shape.size(), 0);
}

unsigned tilelang::tilegpu::getComputeCapability(StringRef target) {
  unsigned number = 0;
  if (target.starts_with("sm_"))
    (void)target.drop_front(3).take_while(llvm::isDigit).getAsInteger(10,
                                                                       number);
  return number;
}

unsigned tilelang::tilegpu::getComputeCapability(Operation *op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  auto target = module ? module->getAttrOfType<StringAttr>(
                             TileGPUDialect::kTargetAttrName)
                       : StringAttr();
  return target ? getComputeCapability(target.getValue()) : 0;
}

int64_t tilelang::tilegpu::getSwizzleBlockLength(SharedEncodingAttr encoding,
                                                 int64_t rowLength) {
  return std::min<int64_t>(rowLength,
                           encoding.getVec() * encoding.getMaxPhase());
}

SharedEncodingAttr tilelang::tilegpu::getSwizzledSharedEncoding(
    MLIRContext *context, ArrayRef<int64_t> shape, ArrayRef<unsigned> order,
    unsigned elementBits) {
  unsigned vec = std::max(1u, 128 / elementBits);
  int64_t rowLength = shape[order[0]];
  int64_t rowBytes = rowLength * elementBits / 8;
  unsigned perPhase =
      std::max<int64_t>(1, 128 / std::max<int64_t>(1, rowBytes));
  unsigned maxPhase =
      std::max<int64_t>(1, std::min<int64_t>(rowLength / vec, 8 / perPhase));
  return SharedEncodingAttr::get(context, vec, perPhase, maxPhase, order);
}

std::optional<MmaV2Tile> tilelang::tilegpu::getMmaV3Tile(Attribute layout) {
  auto mma = dyn_cast_if_present<MmaEncodingAttr>(layout);
  if (!mma || mma.getVersion() != 3 || mma.getRank() != 2)
    return std::nullopt;
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  unsigned n = mma.getInstrShape()[1];
  return MmaV2Tile{{16 * warps[0], n * warps[1]}, {2, n / 4}};
}

std::optional<MmaV2Tile>
tilelang::tilegpu::getWgmmaOperandTile(Attribute layout) {
  auto operand = dyn_cast_if_present<DotOperandEncodingAttr>(layout);
  if (!operand || operand.getOpIdx() != 0 || operand.getKWidth() != 2 ||
      !getMmaV3Tile(operand.getParent()))
    return std::nullopt;
  ArrayRef<unsigned> warps =
      cast<MmaEncodingAttr>(operand.getParent()).getWarpsPerCTA();
  return MmaV2Tile{{16 * warps[0], 16}, {2, 4}};
}

std::optional<MmaV2Tile> tilelang::tilegpu::getMmaV2Tile(Attribute layout) {
  // Per warp, an accumulator tile is 16x8 (2x2 per lane); operand A is
  // 16 x 8*kWidth (2 x 2*kWidth per lane), operand B 8*kWidth x 8
  // (2*kWidth x 1 per lane). Warps tile M and N; operands replicate over
  // the warps of the other dimension.
  auto asMma = [](Attribute attr) -> MmaEncodingAttr {
    auto mma = dyn_cast_if_present<MmaEncodingAttr>(attr);
    if (!mma || mma.getVersion() != 2 || mma.getRank() != 2)
      return {};
    return mma;
  };
  if (MmaEncodingAttr mma = asMma(layout)) {
    ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
    return MmaV2Tile{{16 * warps[0], 8 * warps[1]}, {2, 2}};
  }
  auto operand = dyn_cast_if_present<DotOperandEncodingAttr>(layout);
  if (!operand)
    return std::nullopt;
  MmaEncodingAttr mma = asMma(operand.getParent());
  if (!mma)
    return std::nullopt;
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  unsigned kWidth = operand.getKWidth();
  if (operand.getOpIdx() == 0)
    return MmaV2Tile{{16 * warps[0], 8 * kWidth}, {2, 2 * kWidth}};
  return MmaV2Tile{{8 * kWidth, 8 * warps[1]}, {2 * kWidth, 1}};
}

unsigned tilelang::tilegpu::getTotalElemsPerThread(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 1;
  unsigned total = 1;
  for (unsigned count :
       getElemsPerThread(getDistributedEncoding(tensor), tensor.getShape()))
    total *= count;
  return total;
}

BlockedEncodingAttr
tilelang::tilegpu::permuteBlockedEncoding(BlockedEncodingAttr layout,
                                          ArrayRef<int32_t> permutation) {
  auto permute = [&](ArrayRef<unsigned> values) {
    SmallVector<unsigned> result;
    for (int32_t dim : permutation)
      result.push_back(values[dim]);
    return result;
  };
  // Dimension d of the source is dimension inverse[d] of the result.
  SmallVector<unsigned> inverse(permutation.size());
  for (auto [index, dim] : llvm::enumerate(permutation))
    inverse[dim] = index;
  SmallVector<unsigned> order;
  for (unsigned dim : layout.getOrder())
    order.push_back(inverse[dim]);
  return BlockedEncodingAttr::get(layout.getContext(),
                                  permute(layout.getSizePerThread()),
                                  permute(layout.getThreadsPerWarp()),
                                  permute(layout.getWarpsPerCTA()), order);
}

RankedTensorType tilelang::tilegpu::withEncoding(RankedTensorType type,
                                                 Attribute layout) {
  return RankedTensorType::get(type.getShape(), type.getElementType(), layout);
}

FailureOr<RankedTensorType>
tilelang::tilegpu::getThreadPartialType(RankedTensorType type, unsigned axis) {
  auto layout = dyn_cast_if_present<BlockedEncodingAttr>(type.getEncoding());
  if (!layout || axis >= type.getRank() || type.isDynamicDim(axis))
    return failure();
  int64_t repetition = getShapePerCTATile(layout)[axis];
  if (type.getDimSize(axis) % repetition != 0)
    return failure();
  SmallVector<unsigned> sizePerThread(layout.getSizePerThread());
  sizePerThread[axis] = 1;
  auto partialLayout = BlockedEncodingAttr::get(
      type.getContext(), sizePerThread, layout.getThreadsPerWarp(),
      layout.getWarpsPerCTA(), layout.getOrder());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = int64_t(layout.getThreadsPerWarp()[axis]) *
                layout.getWarpsPerCTA()[axis];
  return RankedTensorType::get(shape, type.getElementType(), partialLayout);
}
