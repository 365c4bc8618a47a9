//===- LayoutAttrs.cpp - tilegpu layout encodings -------------------------===//
//
// Part of tilelang. Verifiers of the layout encodings, their checks against
// the tensors they encode, and the DistributedEncodingAttr queries.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/Tile/IR/TileDialect.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace tilelang::tilegpu;

using EmitErrorFn = llvm::function_ref<InFlightDiagnostic()>;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Checks that every entry of `values` is a positive power of two.
static LogicalResult verifyPowersOfTwo(EmitErrorFn emitError, StringRef name,
                                       ArrayRef<unsigned> values) {
  for (unsigned value : values)
    if (!llvm::isPowerOf2_32(value))
      return emitError() << name << " entries must be positive powers of two, "
                         << "got " << value;
  return success();
}

/// Checks that `warpsPerCTA` fits one CTA: CUDA gives a block at most 1024
/// threads (and larger products overflowed the verifiers' and lowerings'
/// 32-bit shape arithmetic: warpsPerCTA = [2^31] crashed one).
static LogicalResult verifyWarpsFitCTA(EmitErrorFn emitError,
                                       ArrayRef<unsigned> warpsPerCTA) {
  constexpr int64_t kMaxWarps = 1024 / TileGPUDialect::kThreadsPerWarp;
  int64_t warps = 1;
  for (unsigned count : warpsPerCTA) {
    warps *= count;
    if (warps > kMaxWarps)
      return emitError() << "warpsPerCTA multiplies to more than " << kMaxWarps
                         << " warps, the most a block may have";
  }
  return success();
}

/// Checks that `order` is a permutation of [0, rank).
static LogicalResult verifyOrder(EmitErrorFn emitError,
                                 ArrayRef<unsigned> order, size_t rank) {
  if (order.size() != rank)
    return emitError() << "order has " << order.size()
                       << " entries, expected " << rank;
  SmallVector<bool> seen(rank, false);
  for (unsigned dim : order) {
    if (dim >= rank)
      return emitError() << "order entry " << dim << " is out of range [0, "
                         << rank << ")";
    if (seen[dim])
      return emitError() << "order is not a permutation: " << dim
                         << " appears twice";
    seen[dim] = true;
  }
  return success();
}

static unsigned product(ArrayRef<unsigned> values) {
  unsigned result = 1;
  for (unsigned value : values)
    result *= value;
  return result;
}

/// Checks that a distributed layout of `rank` fits a tensor shape.
static LogicalResult verifyRankMatches(EmitErrorFn emitError, StringRef name,
                                       unsigned rank,
                                       ArrayRef<int64_t> shape) {
  if (shape.size() != rank)
    return emitError() << "#tilegpu." << name << " layout of rank " << rank
                       << " cannot encode a tensor of rank " << shape.size();
  return success();
}

/// Removes entry `dim` of a per-dimension vector.
static SmallVector<unsigned> dropDim(SmallVector<unsigned> values,
                                     unsigned dim) {
  values.erase(values.begin() + dim);
  return values;
}

unsigned tilelang::tilegpu::getNumWarps(DistributedEncodingAttr layout) {
  // A slice keeps all of its parent's warps: those along the sliced
  // dimension hold replicas.
  if (auto slice = dyn_cast<SliceEncodingAttr>(layout))
    return getNumWarps(cast<DistributedEncodingAttr>(slice.getParent()));
  return product(layout.getWarpsPerCTAVector());
}

DistributedEncodingAttr tilelang::tilegpu::getDistributedEncoding(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_if_present<DistributedEncodingAttr>(
                      tensor.getEncoding())
                : DistributedEncodingAttr();
}

//===----------------------------------------------------------------------===//
// BlockedEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult BlockedEncodingAttr::verify(EmitErrorFn emitError,
                                          ArrayRef<unsigned> sizePerThread,
                                          ArrayRef<unsigned> threadsPerWarp,
                                          ArrayRef<unsigned> warpsPerCTA,
                                          ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0)
    return emitError() << "blocked layout needs at least one dimension";
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank)
    return emitError() << "sizePerThread, threadsPerWarp and warpsPerCTA "
                       << "must have one entry per dimension, got "
                       << sizePerThread.size() << ", " << threadsPerWarp.size()
                       << " and " << warpsPerCTA.size();
  if (failed(verifyPowersOfTwo(emitError, "sizePerThread", sizePerThread)) ||
      failed(verifyPowersOfTwo(emitError, "threadsPerWarp", threadsPerWarp)) ||
      failed(verifyPowersOfTwo(emitError, "warpsPerCTA", warpsPerCTA)) ||
      failed(verifyWarpsFitCTA(emitError, warpsPerCTA)))
    return failure();
  if (product(threadsPerWarp) != TileGPUDialect::kThreadsPerWarp)
    return emitError() << "threadsPerWarp must multiply to "
                       << TileGPUDialect::kThreadsPerWarp << ", got "
                       << product(threadsPerWarp);
  // A thread holds at least sizePerThread's product of elements of every
  // tensor of this layout; past the tensor cap, lowering would spend its
  // time and memory on registers no kernel can have.
  int64_t perThread = 1;
  for (unsigned size : sizePerThread) {
    perThread *= size;
    if (perThread > tile::kMaxTensorElements)
      return emitError() << "sizePerThread multiplies to more than "
                         << tile::kMaxTensorElements
                         << " (2^20) elements, the most a tensor may hold";
  }
  return verifyOrder(emitError, order, rank);
}

LogicalResult BlockedEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape,
                                                  Type,
                                                  EmitErrorFn emitError) const {
  if (failed(verifyRankMatches(emitError, "blocked", getRank(), shape)))
    return failure();
  // The elements each thread holds (its sizePerThread block, once per
  // repetition of the CTA tile), against the tensor's own size: more means
  // copies of elements, which only a layout written by hand asks for, and
  // lowering prints and compiles every copy (a 16x16 tensor whose threads
  // held 4096 took tilelang-opt seconds, 65536 minutes). A small floor
  // leaves the few copies of size-1 dimensions alone.
  constexpr int64_t kCopiesFloor = 1024;
  int64_t elements = 1, perThread = 1;
  constexpr int64_t kPastCap = tile::kMaxTensorElements + 1;
  for (auto [dim, rawExtent] : llvm::enumerate(shape)) {
    // Clamped so that nothing overflows (dynamic and huge extents too).
    int64_t extent = std::clamp<int64_t>(rawExtent, 1, kPastCap);
    int64_t tile = int64_t(getSizePerThread()[dim]) * getThreadsPerWarp()[dim] *
                   getWarpsPerCTA()[dim];
    elements = std::min(elements * extent, kPastCap);
    perThread = std::min(perThread * getSizePerThread()[dim] *
                             int64_t(llvm::divideCeil(extent, tile)),
                         kPastCap);
  }
  if (perThread > std::max(elements, kCopiesFloor))
    return emitError() << "a thread of this blocked layout holds " << perThread
                       << " elements of a tensor of " << elements
                       << ": more than the tensor has";
  return success();
}

unsigned BlockedEncodingAttr::getRank() const {
  return getSizePerThread().size();
}
SmallVector<unsigned> BlockedEncodingAttr::getWarpsPerCTAVector() const {
  return SmallVector<unsigned>(getWarpsPerCTA());
}
SmallVector<unsigned> BlockedEncodingAttr::getThreadsPerWarpVector() const {
  return SmallVector<unsigned>(getThreadsPerWarp());
}
SmallVector<unsigned> BlockedEncodingAttr::getSizePerThreadVector() const {
  return SmallVector<unsigned>(getSizePerThread());
}
SmallVector<unsigned> BlockedEncodingAttr::getOrderVector() const {
  return SmallVector<unsigned>(getOrder());
}

//===----------------------------------------------------------------------===//
// SliceEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult SliceEncodingAttr::verify(EmitErrorFn emitError, unsigned dim,
                                        Attribute parent) {
  auto distributed = dyn_cast<DistributedEncodingAttr>(parent);
  if (!distributed)
    return emitError() << "slice parent must be a distributed layout, got "
                       << parent;
  if (distributed.getRank() < 2)
    return emitError() << "slice parent must have rank 2 or more, got "
                       << distributed.getRank();
  if (dim >= distributed.getRank())
    return emitError() << "slice dim " << dim << " is out of range [0, "
                       << distributed.getRank() << ")";
  return success();
}

LogicalResult SliceEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                EmitErrorFn emitError) const {
  return verifyRankMatches(emitError, "slice", getRank(), shape);
}

static DistributedEncodingAttr getSliceParent(SliceEncodingAttr slice) {
  return cast<DistributedEncodingAttr>(slice.getParent());
}

unsigned SliceEncodingAttr::getRank() const {
  return getSliceParent(*this).getRank() - 1;
}
SmallVector<unsigned> SliceEncodingAttr::getWarpsPerCTAVector() const {
  return dropDim(getSliceParent(*this).getWarpsPerCTAVector(), getDim());
}
SmallVector<unsigned> SliceEncodingAttr::getThreadsPerWarpVector() const {
  return dropDim(getSliceParent(*this).getThreadsPerWarpVector(), getDim());
}
SmallVector<unsigned> SliceEncodingAttr::getSizePerThreadVector() const {
  return dropDim(getSliceParent(*this).getSizePerThreadVector(), getDim());
}
SmallVector<unsigned> SliceEncodingAttr::getOrderVector() const {
  // The parent's order without `dim`, renumbered.
  SmallVector<unsigned> order;
  for (unsigned dim : getSliceParent(*this).getOrderVector())
    if (dim != getDim())
      order.push_back(dim > getDim() ? dim - 1 : dim);
  return order;
}

//===----------------------------------------------------------------------===//
// MmaEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult MmaEncodingAttr::verify(EmitErrorFn emitError, unsigned version,
                                      ArrayRef<unsigned> warpsPerCTA,
                                      ArrayRef<unsigned> instrShape) {
  if (version != 2 && version != 3)
    return emitError() << "mma version must be 2 (mma.sync) or 3 (wgmma), got "
                       << version;
  if (warpsPerCTA.size() != 2 && warpsPerCTA.size() != 3)
    return emitError() << "mma warpsPerCTA must have 2 entries (or 3 with a "
                       << "batch dimension), got " << warpsPerCTA.size();
  if (failed(verifyPowersOfTwo(emitError, "warpsPerCTA", warpsPerCTA)) ||
      failed(verifyWarpsFitCTA(emitError, warpsPerCTA)))
    return failure();
  if (version == 2) {
    if (instrShape != ArrayRef<unsigned>{16, 8})
      return emitError() << "mma version 2 needs instrShape = [16, 8]";
    return success();
  }
  if (instrShape.size() != 3 || instrShape[0] != 64)
    return emitError() << "mma version 3 needs instrShape = [64, N, K]";
  unsigned n = instrShape[1], k = instrShape[2];
  if (n < 8 || n > 256 || n % 8 != 0)
    return emitError() << "wgmma N must be a multiple of 8 in [8, 256], got "
                       << n;
  if (k != 8 && k != 16 && k != 32)
    return emitError() << "wgmma K must be 8, 16 or 32, got " << k;
  unsigned mDim = warpsPerCTA.size() - 2;
  if (warpsPerCTA[mDim] % 4 != 0)
    return emitError() << "wgmma is issued by warpgroups of 4 warps along M: "
                       << "warpsPerCTA[" << mDim << "] must be a multiple of "
                       << "4, got " << warpsPerCTA[mDim];
  return success();
}

LogicalResult MmaEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                              EmitErrorFn emitError) const {
  return verifyRankMatches(emitError, "mma", getRank(), shape);
}

unsigned MmaEncodingAttr::getRank() const { return getWarpsPerCTA().size(); }
SmallVector<unsigned> MmaEncodingAttr::getWarpsPerCTAVector() const {
  return SmallVector<unsigned>(getWarpsPerCTA());
}
SmallVector<unsigned> MmaEncodingAttr::getThreadsPerWarpVector() const {
  // Both mma.sync and wgmma accumulators spread a warp as 8 rows x 4 lanes.
  SmallVector<unsigned> result(getRank(), 1);
  result[getRank() - 2] = 8;
  result[getRank() - 1] = 4;
  return result;
}
SmallVector<unsigned> MmaEncodingAttr::getSizePerThreadVector() const {
  // Each lane holds 2x2 accumulators per 16x8 tile.
  SmallVector<unsigned> result(getRank(), 1);
  result[getRank() - 2] = 2;
  result[getRank() - 1] = 2;
  return result;
}
SmallVector<unsigned> MmaEncodingAttr::getOrderVector() const {
  SmallVector<unsigned> order;
  for (unsigned dim = getRank(); dim-- > 0;)
    order.push_back(dim);
  return order;
}

//===----------------------------------------------------------------------===//
// DotOperandEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult DotOperandEncodingAttr::verify(EmitErrorFn emitError,
                                             unsigned opIdx, Attribute parent,
                                             unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "dot operand index must be 0 (A) or 1 (B), got "
                       << opIdx;
  if (auto mma = dyn_cast<MmaEncodingAttr>(parent)) {
    if (mma.getVersion() == 3 && opIdx == 1)
      return emitError() << "wgmma reads operand B from shared memory; it "
                            "has no register layout";
    if (kWidth == 0)
      return emitError() << "dot operands of an mma layout need kWidth > 0";
    return success();
  }
  if (isa<BlockedEncodingAttr>(parent)) {
    if (kWidth != 0)
      return emitError() << "kWidth applies to mma parents only";
    return success();
  }
  return emitError() << "dot operand parent must be an mma or blocked "
                        "layout, got "
                     << parent;
}

LogicalResult
DotOperandEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                       EmitErrorFn emitError) const {
  return verifyRankMatches(emitError, "dot_op", getRank(), shape);
}

static DistributedEncodingAttr getDotParent(DotOperandEncodingAttr attr) {
  return cast<DistributedEncodingAttr>(attr.getParent());
}

unsigned DotOperandEncodingAttr::getRank() const {
  return getDotParent(*this).getRank();
}
SmallVector<unsigned> DotOperandEncodingAttr::getWarpsPerCTAVector() const {
  return getDotParent(*this).getWarpsPerCTAVector();
}
SmallVector<unsigned> DotOperandEncodingAttr::getThreadsPerWarpVector() const {
  return getDotParent(*this).getThreadsPerWarpVector();
}
SmallVector<unsigned> DotOperandEncodingAttr::getSizePerThreadVector() const {
  return getDotParent(*this).getSizePerThreadVector();
}
SmallVector<unsigned> DotOperandEncodingAttr::getOrderVector() const {
  return getDotParent(*this).getOrderVector();
}

//===----------------------------------------------------------------------===//
// Shared layouts
//===----------------------------------------------------------------------===//

LogicalResult SharedEncodingAttr::verify(EmitErrorFn emitError, unsigned vec,
                                         unsigned perPhase, unsigned maxPhase,
                                         ArrayRef<unsigned> order) {
  if (failed(verifyPowersOfTwo(emitError, "vec/perPhase/maxPhase",
                               {vec, perPhase, maxPhase})))
    return failure();
  // One swizzle period covers vec * perPhase * maxPhase elements; past the
  // tensor cap it covers nothing a kernel holds, and the lowering's 32-bit
  // index arithmetic overflows (vec or maxPhase 2^30 crashed it; found by
  // fuzzing the layouts' numbers).
  if (int64_t(vec) * perPhase * maxPhase > tile::kMaxTensorElements)
    return emitError() << "vec * perPhase * maxPhase must be at most "
                       << tile::kMaxTensorElements << " (2^20), got " << vec
                       << " * " << perPhase << " * " << maxPhase;
  if (order.empty())
    return emitError() << "shared layout needs an order";
  return verifyOrder(emitError, order, order.size());
}

LogicalResult NVMMASharedEncodingAttr::verify(EmitErrorFn emitError,
                                              unsigned swizzle,
                                              unsigned elementBitWidth, bool) {
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  if (elementBitWidth != 8 && elementBitWidth != 16 && elementBitWidth != 32 &&
      elementBitWidth != 64)
    return emitError() << "elementBitWidth must be 8, 16, 32 or 64, got "
                       << elementBitWidth;
  return success();
}
