//===- LowerDescriptorAccesses.cpp - kept descriptor accesses -------------===//
//
// Part of tilelang. The tilegpu-lower-descriptor-accesses pass: after
// tilegpu-pipeline, the descriptor accesses kept for bulk copies that it
// did not take become bulk stores through a swizzled buffer or pointer
// accesses in their block's layout.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "tilelang/Dialect/Tile/Transforms/DescriptorAccess.h"
#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"
#include "tilelang/Dialect/TileGPU/Transforms/BulkCopies.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace tilelang::tilegpu {
#define GEN_PASS_DEF_TILEGPULOWERDESCRIPTORACCESSES
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilelang::tilegpu

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// store -> local_alloc of the block (swizzled as the tensor map's box
/// reads it, made visible to the async proxy), one bulk store per column
/// block, a wait until the copies have read the buffer, and its release.
/// Fails (changing nothing) when the block or tensor map does not allow it.
LogicalResult storeInBulk(tile::DescriptorStoreOp store) {
  auto desc = store.getDesc().getDefiningOp<tile::MakeTensorDescOp>();
  auto type = cast<RankedTensorType>(store.getValue().getType());
  if (!desc || !desc.getTensormap() || type.getRank() != 2)
    return failure();
  MLIRContext *context = store.getContext();
  auto encoding =
      getSwizzledSharedEncoding(context, type.getShape(), {1, 0}, 16);
  TensorMapEncodingAttr tensorMap = getBulkCopyEncoding(
      desc.getTensormap(), type.getShape(), encoding, type.getElementType());
  if (!tensorMap)
    return failure();
  recordTensorMapEncoding(desc.getTensormap(), tensorMap);
  OpBuilder builder(store);
  Location loc = store.getLoc();
  auto bufferType =
      MemDescType::get(context, type.getShape(), type.getElementType(),
                       encoding, /*mutableMemory=*/false);
  // An accumulator converted for the store goes to shared memory as it
  // is: the buffer is the layout change.
  Value block = store.getValue();
  if (auto convert = block.getDefiningOp<ConvertLayoutOp>()) {
    Attribute source = convert.getSrc().getType().getEncoding();
    if (isa<MmaEncodingAttr>(source) &&
        (getMmaV2Tile(source) || getMmaV3Tile(source)))
      block = convert.getSrc();
  }
  Value buffer = LocalAllocOp::create(builder, loc, bufferType, block);
  AsyncTMACopyLocalToGlobalOp::create(builder, loc, desc.getTensormap(),
                                      store.getOffsets(), buffer);
  AsyncTMAStoreWaitOp::create(builder, loc, /*pendings=*/0);
  LocalDeallocOp::create(builder, loc, buffer);
  store.erase();
  return success();
}

/// Lowers the kept descriptor accesses; see Passes.td.
struct TileGPULowerDescriptorAccessesPass
    : public tilelang::tilegpu::impl::TileGPULowerDescriptorAccessesBase<
          TileGPULowerDescriptorAccessesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> remaining;
    getOperation().walk([&](Operation *op) {
      if (isa<tile::DescriptorLoadOp, tile::DescriptorStoreOp>(op))
        remaining.push_back(op);
    });
    for (Operation *access : remaining) {
      auto store = dyn_cast<tile::DescriptorStoreOp>(access);
      if (store && succeeded(storeInBulk(store)))
        continue;
      Value block = store ? Value(store.getValue()) : access->getResult(0);
      auto type = cast<RankedTensorType>(block.getType());
      if (type.getRank() != 2 || !type.getEncoding()) {
        access->emitOpError("cannot be lowered: a kept descriptor access "
                            "must be 2-D with a layout");
        return signalPassFailure();
      }
      MLIRContext *context = access->getContext();
      tile::DescriptorAccessLayouts layouts{
          type.getEncoding(),
          {SliceEncodingAttr::get(context, 1, type.getEncoding()),
           SliceEncodingAttr::get(context, 0, type.getEncoding())}};
      if (failed(tile::expandDescriptorAccess(access, &layouts)))
        return signalPassFailure();
    }
  }
};

} // namespace
