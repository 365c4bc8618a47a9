//===- BulkCopyOps.cpp - mbarrier and bulk tensor copy ops ----------------===//
//
// Part of tilelang. Verifiers of init_barrier, inval_barrier,
// barrier_expect, wait_barrier and the bulk tensor copies.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

/// An mbarrier is one 64-bit word of shared memory.
static LogicalResult verifyBarrier(Operation *op, MemDescType barrier) {
  if (barrier.getShape() != ArrayRef<int64_t>{1} ||
      !barrier.getElementType().isInteger(64))
    return op->emitOpError("barrier must be a buffer of one i64, got ")
           << barrier;
  if (!barrier.getMutableMemory())
    return op->emitOpError("barrier must be mutable");
  return success();
}

LogicalResult InitBarrierOp::verify() {
  if (static_cast<int32_t>(getCount()) < 1)
    return emitOpError("count must be positive, got ")
           << static_cast<int32_t>(getCount());
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult InvalBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult BarrierExpectOp::verify() {
  if (static_cast<int32_t>(getBytes()) < 0)
    return emitOpError("bytes must be non-negative, got ")
           << static_cast<int32_t>(getBytes());
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult WaitBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}

/// A bulk tensor copy moves a 2-D tile of 16-bit elements whose rows run
/// along dimension 1 of a swizzled layout, to or from `coords`, through
/// `map`; when the map's `tilegpu.tma` encoding is known, it is the one
/// that fills this tile (the launcher encodes the map with it, the
/// lowering copies the tile's column blocks).
static LogicalResult verifyBulkTile(Operation *op, Value map, MemDescType tile,
                                    ValueRange coords, StringRef role) {
  if (tile.getShape().size() != 2 || coords.size() != 2)
    return op->emitOpError("copies 2-D blocks: needs a 2-D ")
           << role << " and two coordinates";
  if (tile.getElementType().getIntOrFloatBitWidth() != 16)
    return op->emitOpError("copies 16-bit elements, got ")
           << tile.getElementType();
  auto shared = dyn_cast<SharedEncodingAttr>(tile.getEncoding());
  if (!shared || shared.getOrder()[0] != 1)
    return op->emitOpError()
           << role
           << " must have a #tilegpu.shared layout with rows along dimension 1";
  TensorMapEncodingAttr encoding = getTensorMapEncoding(map);
  if (encoding &&
      encoding != TensorMapEncodingAttr::getForTile(
                      tile.getShape(), shared, tile.getElementType()))
    return op->emitOpError("tensor map encoded as ")
           << encoding << " cannot copy the " << role << " " << tile;
  return success();
}

LogicalResult AsyncTMACopyGlobalToLocalOp::verify() {
  MemDescType dst = getDst().getType();
  if (failed(verifyBulkTile(*this, getTensormap(), dst, getCoords(),
                            "destination")))
    return failure();
  if (!dst.getMutableMemory())
    return emitOpError("destination must be mutable");
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult AsyncTMACopyLocalToGlobalOp::verify() {
  return verifyBulkTile(*this, getTensormap(), getSrc().getType(), getCoords(),
                        "source");
}
