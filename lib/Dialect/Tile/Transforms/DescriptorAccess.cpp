//===- DescriptorAccess.cpp - descriptor blocks as pointer tensors --------===//
//
// Part of tilelang. Implements DescriptorAccess.h: the pointers and
// in-bounds mask of a descriptor's block, built per dimension on a 1-D
// range and broadcast once.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/Tile/Transforms/DescriptorAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

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
  BlockAccessBuilder(OpBuilder &builder, Location loc, MakeTensorDescOp desc,
                     const DescriptorAccessLayouts *layouts)
      : builder(builder), loc(loc), desc(desc),
        block(desc.getType().getBlockType()), layouts(layouts) {}

  BlockAccess build(ValueRange offsets) {
    auto pointerType = blockType(desc.getBase().getType());
    BlockAccess access;
    access.pointers = SplatOp::create(builder, loc, pointerType, desc.getBase());
    for (int64_t dim = 0; dim < block.getRank(); ++dim) {
      // Indices, bounds test and element offsets along `dim`: block-size
      // work on a 1-D range, broadcast once.
      int64_t size = block.getDimSize(dim);
      auto indexType = RankedTensorType::get(
          {size}, builder.getI32Type(),
          layouts ? layouts->vectors[dim] : Attribute());
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

  /// A tensor of the block's shape and layout holding `element`s.
  RankedTensorType blockType(Type element) const {
    return RankedTensorType::get(block.getShape(), element,
                                 layouts ? layouts->block : Attribute());
  }

private:
  Value splat(Value scalar, RankedTensorType type) {
    return SplatOp::create(builder, loc, type, scalar);
  }

  /// The 1-D `vector` as dimension `dim` of a tensor of the block's shape
  /// (with layouts, the vector's is a slice of the block's: one expand_dims
  /// restores it).
  Value broadcastAlong(Value vector, int64_t dim) {
    auto type = cast<RankedTensorType>(vector.getType());
    if (block.getRank() == 1)
      return vector;
    SmallVector<int64_t> shape{type.getDimSize(0)};
    for (int64_t axis = 0; axis < block.getRank(); ++axis) {
      if (axis == dim)
        continue;
      shape.insert(shape.begin() + axis, 1);
      auto expanded = RankedTensorType::get(
          shape, type.getElementType(), layouts ? layouts->block : Attribute());
      vector = ExpandDimsOp::create(builder, loc, expanded, vector,
                                    builder.getI32IntegerAttr(axis));
    }
    return BroadcastOp::create(builder, loc,
                               blockType(type.getElementType()), vector);
  }

  OpBuilder &builder;
  Location loc;
  MakeTensorDescOp desc;
  RankedTensorType block;
  const DescriptorAccessLayouts *layouts;
};

} // namespace

FailureOr<MakeTensorDescOp> tilelang::tile::getTensorDescriptor(Operation *user,
                                                                Value value) {
  if (auto made = value.getDefiningOp<MakeTensorDescOp>())
    return made;
  return user->emitOpError("needs a descriptor that is a kernel argument or "
                           "made by tl.make_tensor_descriptor, not one chosen "
                           "at run time");
}

LogicalResult
tilelang::tile::expandDescriptorAccess(Operation *op,
                                       const DescriptorAccessLayouts *layouts) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
    FailureOr<MakeTensorDescOp> desc = getTensorDescriptor(op, load.getDesc());
    if (failed(desc))
      return failure();
    BlockAccess access =
        BlockAccessBuilder(builder, loc, *desc, layouts).build(load.getOffsets());
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
  FailureOr<MakeTensorDescOp> desc = getTensorDescriptor(op, store.getDesc());
  if (failed(desc))
    return failure();
  BlockAccess access =
      BlockAccessBuilder(builder, loc, *desc, layouts).build(store.getOffsets());
  StoreOp::create(builder, loc, access.pointers, store.getValue(),
                  access.mask);
  store.erase();
  return success();
}

