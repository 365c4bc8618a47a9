//===- LayoutUtils.cpp - building and measuring layouts -------------------===//
//
// Part of tilelang. Blocked-layout construction for a shape, and the sizes
// that follow from a layout (CTA tile, elements per thread).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutMap.h"

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
  if (std::optional<LayoutMap> map = LayoutMap::get(layout, shape))
    return map->getRegistersPerDim();
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

/// The tile of a tensor-core layout, read off its LayoutMap: the extent of
/// one repetition and the registers a thread holds of it.
static std::optional<MmaV2Tile> getTensorCoreTile(Attribute layout) {
  std::optional<LayoutMap> tile = LayoutMap::getTile(layout);
  if (!tile)
    return std::nullopt;
  MmaV2Tile result;
  for (int64_t extent : tile->shape)
    result.ctaTile.push_back(extent);
  result.perThread = tile->getRegistersPerDim();
  return result;
}

/// The 2-D mma layout of `version` that `layout` is, or is an operand of.
static MmaEncodingAttr getMmaOf(Attribute layout, unsigned version) {
  if (auto operand = dyn_cast_if_present<DotOperandEncodingAttr>(layout))
    layout = operand.getParent();
  auto mma = dyn_cast_if_present<MmaEncodingAttr>(layout);
  if (!mma || mma.getVersion() != version || mma.getRank() != 2)
    return {};
  return mma;
}

std::optional<MmaV2Tile> tilelang::tilegpu::getMmaV3Tile(Attribute layout) {
  if (!isa_and_present<MmaEncodingAttr>(layout) || !getMmaOf(layout, 3))
    return std::nullopt;
  return getTensorCoreTile(layout);
}

std::optional<MmaV2Tile>
tilelang::tilegpu::getWgmmaOperandTile(Attribute layout) {
  if (!isa_and_present<DotOperandEncodingAttr>(layout) || !getMmaOf(layout, 3))
    return std::nullopt;
  return getTensorCoreTile(layout);
}

std::optional<MmaV2Tile> tilelang::tilegpu::getMmaV2Tile(Attribute layout) {
  if (!getMmaOf(layout, 2))
    return std::nullopt;
  return getTensorCoreTile(layout);
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
