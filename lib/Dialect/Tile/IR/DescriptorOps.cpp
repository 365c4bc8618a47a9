//===- DescriptorOps.cpp - tensor descriptor type and ops -----------------===//
//
// Part of tilelang. Verifiers of the tensor descriptor type and of
// make_tensor_descriptor, descriptor_load and descriptor_store.
//
//===----------------------------------------------------------------------===//

#include "TileOpUtils.h"
#include "tilelang/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace tilelang::tile;
using namespace tilelang::tile::detail;

/// The bulk tensor copy engine moves tensors of 1 to 5 dimensions; the
/// descriptors follow it so that any of them can be lowered to it.
static constexpr int64_t kMaxDescriptorRank = 5;

LogicalResult
TensorDescType::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                       RankedTensorType blockType) {
  if (blockType.getRank() < 1 || blockType.getRank() > kMaxDescriptorRank)
    return emitError() << "tensor descriptor blocks have 1 to "
                       << kMaxDescriptorRank << " dimensions, got "
                       << blockType;
  if (!isBlockShape(blockType))
    return emitError() << "tensor descriptor block dimensions must be powers "
                          "of two, got "
                       << blockType;
  Type element = blockType.getElementType();
  if (!isa<IntegerType, FloatType>(element) || element.isInteger(1))
    return emitError() << "tensor descriptor elements are integers of 8 to 64 "
                          "bits or floats, got "
                       << element;
  return success();
}

LogicalResult MakeTensorDescOp::verify() {
  RankedTensorType block = getResult().getType().getBlockType();
  size_t rank = block.getRank();
  if (getShape().size() != rank || getStrides().size() != rank)
    return emitOpError("a descriptor of ")
           << rank << "-dimensional blocks needs " << rank
           << " extents and strides, got " << getShape().size() << " and "
           << getStrides().size();
  Type pointee = getBase().getType().getPointeeType();
  if (pointee != block.getElementType())
    return emitOpError("base points to ")
           << pointee << " but the blocks hold " << block.getElementType();
  if (getBase().getType().getAddressSpace() != 1)
    return emitOpError("base must point to global memory (address space 1)");
  return success();
}

/// One i32 offset per dimension of `desc`'s blocks.
static LogicalResult verifyOffsets(Operation *op, TensorDescType desc,
                                   ValueRange offsets) {
  int64_t rank = desc.getBlockType().getRank();
  if (int64_t(offsets.size()) != rank)
    return op->emitOpError("takes ")
           << rank << " offsets for " << desc << ", got " << offsets.size();
  return success();
}

/// `value` is a block of `desc`: its shape and element type, any layout.
static bool isBlockOf(TensorDescType desc, Type value) {
  return haveSameShapeAndElementType(desc.getBlockType(), value);
}

LogicalResult DescriptorLoadOp::verify() {
  TensorDescType desc = getDesc().getType();
  if (!isBlockOf(desc, getResult().getType()))
    return emitOpError("result type ")
           << getResult().getType() << " is not the descriptor's block type "
           << desc.getBlockType();
  return verifyOffsets(*this, desc, getOffsets());
}

LogicalResult DescriptorStoreOp::verify() {
  TensorDescType desc = getDesc().getType();
  if (!isBlockOf(desc, getValue().getType()))
    return emitOpError("stored type ")
           << getValue().getType() << " is not the descriptor's block type "
           << desc.getBlockType();
  return verifyOffsets(*this, desc, getOffsets());
}
