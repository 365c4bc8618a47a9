//===- ExpandTensorDescriptors.cpp - descriptor accesses as pointers ------===//
//
// Part of tilelang. The tile-expand-tensor-descriptors pass: lowers block
// loads and stores through tensor descriptors to masked loads and stores on
// tensors of pointers, which every target can run.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/Tile/Transforms/Passes.h"

#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace tilelang::tile {
#define GEN_PASS_DEF_TILEEXPANDTENSORDESCRIPTORS
#include "tilelang/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilelang::tile

using namespace mlir;
using namespace tilelang::tile;

namespace {

/// The pointers and the in-bounds mask of one block of a descriptor.
struct BlockAccess {
  Value pointers;
  Value mask;
};

/// Builds the pointers and mask of the block at `offsets` of `desc`.
class BlockAccessBuilder {
public:
  BlockAccessBuilder(OpBuilder &builder, Location loc, MakeTensorDescOp desc)
      : builder(builder), loc(loc), desc(desc),
        block(desc.getType().getBlockType()) {}

  BlockAccess build(ValueRange offsets) {
    auto pointerType =
        RankedTensorType::get(block.getShape(), desc.getBase().getType());
    BlockAccess access;
    access.pointers = SplatOp::create(builder, loc, pointerType, desc.getBase());
    for (int64_t dim = 0; dim < block.getRank(); ++dim) {
      // Indices, bounds test and element offsets along `dim`: block-size
      // work on a 1-D range, broadcast once.
      int64_t size = block.getDimSize(dim);
      auto indexType = RankedTensorType::get({size}, builder.getI32Type());
      Value range = MakeRangeOp::create(builder, loc, indexType, 0, size);
      Value index = arith::AddIOp::create(
          builder, loc, splat(offsets[dim], indexType), range);
      // (Each operand in its own statement: the ops come out in this order.)
      Value zero = arith::ConstantOp::create(builder, loc,
                                             builder.getZeroAttr(indexType));
      Value aboveStart = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::sge, index, zero);
      Value extent = splat(desc.getShape()[dim], indexType);
      Value belowEnd = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::slt, index, extent);
      Value inBounds =
          arith::AndIOp::create(builder, loc, aboveStart, belowEnd);
      // 64-bit element offsets: a large tensor's rows overflow 32 bits.
      auto offsetType = indexType.clone(builder.getI64Type());
      Value wideIndex = arith::ExtSIOp::create(builder, loc, offsetType, index);
      Value stride = splat(desc.getStrides()[dim], offsetType);
      Value offset = arith::MulIOp::create(builder, loc, wideIndex, stride);
      access.pointers = AddPtrOp::create(builder, loc, pointerType,
                                         access.pointers,
                                         broadcastAlong(offset, dim));
      Value dimMask = broadcastAlong(inBounds, dim);
      access.mask = access.mask ? arith::AndIOp::create(builder, loc,
                                                        access.mask, dimMask)
                                      .getResult()
                                : dimMask;
    }
    return access;
  }

private:
  Value splat(Value scalar, RankedTensorType type) {
    return SplatOp::create(builder, loc, type, scalar);
  }

  /// The 1-D `vector` as dimension `dim` of a tensor of the block's shape.
  Value broadcastAlong(Value vector, int64_t dim) {
    auto type = cast<RankedTensorType>(vector.getType());
    SmallVector<int64_t> shape{type.getDimSize(0)};
    for (int64_t axis = 0; axis < block.getRank(); ++axis) {
      if (axis == dim)
        continue;
      shape.insert(shape.begin() + axis, 1);
      vector = ExpandDimsOp::create(builder, loc, type.clone(shape), vector,
                                    builder.getI32IntegerAttr(axis));
    }
    if (block.getRank() == 1)
      return vector;
    return BroadcastOp::create(builder, loc, type.clone(block.getShape()),
                               vector);
  }

  OpBuilder &builder;
  Location loc;
  MakeTensorDescOp desc;
  RankedTensorType block;
};

/// The op that made the descriptor `value`; an error at `user` when it is not
/// known here (descriptors are arguments or made in the kernel, and are not
/// selected at run time).
FailureOr<MakeTensorDescOp> getDescriptor(Operation *user, Value value) {
  if (auto made = value.getDefiningOp<MakeTensorDescOp>())
    return made;
  return user->emitOpError("needs a descriptor that is a kernel argument or "
                           "made by tl.make_tensor_descriptor, not one chosen "
                           "at run time");
}

/// Lowers one descriptor_load or descriptor_store; fails with an error.
LogicalResult expand(Operation *op) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
    FailureOr<MakeTensorDescOp> desc = getDescriptor(op, load.getDesc());
    if (failed(desc))
      return failure();
    BlockAccess access =
        BlockAccessBuilder(builder, loc, *desc).build(load.getOffsets());
    auto type = cast<RankedTensorType>(load.getType());
    Value zero = arith::ConstantOp::create(builder, loc, type,
                                           builder.getZeroAttr(type));
    Value loaded =
        LoadOp::create(builder, loc, type, access.pointers, access.mask, zero);
    load.replaceAllUsesWith(loaded);
    load.erase();
    return success();
  }
  auto store = cast<DescriptorStoreOp>(op);
  FailureOr<MakeTensorDescOp> desc = getDescriptor(op, store.getDesc());
  if (failed(desc))
    return failure();
  BlockAccess access =
      BlockAccessBuilder(builder, loc, *desc).build(store.getOffsets());
  StoreOp::create(builder, loc, access.pointers, store.getValue(),
                  access.mask);
  store.erase();
  return success();
}

/// Expands every descriptor access; see Passes.td.
struct TileExpandTensorDescriptorsPass
    : public tilelang::tile::impl::TileExpandTensorDescriptorsBase<
          TileExpandTensorDescriptorsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> accesses;
    getOperation().walk([&](Operation *op) {
      if (isa<DescriptorLoadOp, DescriptorStoreOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses)
      if (failed(expand(op)))
        return signalPassFailure();
    getOperation().walk([](MakeTensorDescOp desc) {
      if (desc->use_empty())
        desc.erase();
    });
  }
};

} // namespace
