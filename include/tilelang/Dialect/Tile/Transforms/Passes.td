//===- Passes.td - tile dialect transformation passes ------*- tablegen -*-===//
//
// Part of tilelang. Passes over tile programs before they get layouts.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILELANG_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileExpandTensorDescriptors
    : Pass<"tile-expand-tensor-descriptors", "mlir::ModuleOp"> {
  let summary = "Lower descriptor loads and stores to pointer tensors";
  let description = [{
    Rewrites `tile.descriptor_load` and `tile.descriptor_store` into a
    `tile.load` or `tile.store` on the tensor of pointers that the
    descriptor's base, strides and the block's offsets give, masked by the
    tensor's extents (a masked-off load reads zero). Each dimension's
    indices, bounds test and offsets are computed on a 1-D range and then
    broadcast, so the block-wide work is one addptr per dimension and one
    mask. The coalescing and vectorization of ordinary loads then apply: a
    descriptor's last stride is 1, its base is 16-byte aligned and its other
    strides are multiples of 16 bytes.

    With `keep-bulk-copies` (set by the named pipeline where
    tilegpu::keepsBulkCopies says so: sm_90 targets with pipelining), the
    accesses that tilegpu-pipeline and tilegpu-lower-descriptor-accesses
    can instead make bulk tensor copies stay: those of
    2-D blocks of 16-bit floats with at least 8 rows of at least 32 bytes,
    through a descriptor with a host-encoded tensor map, that are stores or
    loads in a loop whose only use is a tl.dot operand, directly or through
    a 2-D transpose (`b.T` of a block loaded as N x K: the block is copied as
    loaded and the product reads it through a transposed view).

    Descriptors left without uses are erased.
  }];
  let options = [
    Option<"keepBulkCopies", "keep-bulk-copies", "bool", /*default=*/"false",
           "Keep the descriptor accesses that can become bulk tensor copies">,
  ];
}

#endif // TILELANG_DIALECT_TILE_TRANSFORMS_PASSES_TD
