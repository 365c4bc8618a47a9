//===- ExpandTensorDescriptors.cpp - descriptor accesses as pointers ------===//
//
// Part of tilelang. The tile-expand-tensor-descriptors pass: lowers block
// loads and stores through tensor descriptors to masked loads and stores on
// tensors of pointers, which every target can run.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/Tile/Transforms/Passes.h"

#include "tilelang/Dialect/Tile/Transforms/DescriptorAccess.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace tilelang::tile {
#define GEN_PASS_DEF_TILEEXPANDTENSORDESCRIPTORS
#include "tilelang/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilelang::tile

using namespace mlir;
using namespace tilelang::tile;

namespace {

/// Whether the blocks of `descValue` can move by bulk tensor copies: 2-D
/// blocks of 16-bit floats with at least 8 rows of at least 32 bytes, from a
/// descriptor with a host-encoded tensor map.
bool hasBulkCopyBlocks(Value descValue) {
  auto desc = descValue.getDefiningOp<MakeTensorDescOp>();
  RankedTensorType block = cast<TensorDescType>(descValue.getType())
                               .getBlockType();
  return desc && desc.getTensormap() && block.getRank() == 2 &&
         (block.getElementType().isF16() || block.getElementType().isBF16()) &&
         block.getDimSize(0) % 8 == 0 && block.getDimSize(1) * 2 >= 32;
}

/// A load that tilegpu-pipeline can turn into bulk copies of a tensor-core
/// operand, or a store it can write with one; see Passes.td.
bool isBulkCopy(Operation *access) {
  if (auto store = dyn_cast<DescriptorStoreOp>(access))
    return hasBulkCopyBlocks(store.getDesc());
  auto load = cast<DescriptorLoadOp>(access);
  if (!hasBulkCopyBlocks(load.getDesc()) ||
      !isa_and_nonnull<scf::ForOp>(load->getParentOp()) || !load->hasOneUse())
    return false;
  // The operand read transposed (b.T of a block loaded as N x K) is the
  // block as loaded, seen through a transposed view in shared memory.
  Value operand = load.getResult();
  if (auto trans = dyn_cast<TransOp>(*load->getUsers().begin());
      trans && trans.getOrder() == ArrayRef<int32_t>{1, 0})
    operand = trans.getResult();
  if (!operand.hasOneUse())
    return false;
  OpOperand &use = *operand.getUses().begin();
  return isa<DotOp>(use.getOwner()) && use.getOperandNumber() < 2;
}

/// Expands every descriptor access; see Passes.td.
struct TileExpandTensorDescriptorsPass
    : public tilelang::tile::impl::TileExpandTensorDescriptorsBase<
          TileExpandTensorDescriptorsPass> {
  using TileExpandTensorDescriptorsBase::TileExpandTensorDescriptorsBase;

  void runOnOperation() override {
    SmallVector<Operation *> accesses;
    getOperation().walk([&](Operation *op) {
      if (isa<DescriptorLoadOp, DescriptorStoreOp>(op) &&
          !(keepBulkCopies && isBulkCopy(op)))
        accesses.push_back(op);
    });
    for (Operation *op : accesses)
      if (failed(expandDescriptorAccess(op)))
        return signalPassFailure();
    getOperation().walk([](MakeTensorDescOp desc) {
      if (desc->use_empty())
        desc.erase();
    });
  }
};

} // namespace
