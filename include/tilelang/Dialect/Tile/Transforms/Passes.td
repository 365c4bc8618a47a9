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

def TileL2ReuseHints : Pass<"tile-l2-reuse-hints", "mlir::ModuleOp"> {
  let summary = "L2 priorities for global data a program reads again later";
  let description = [{
    Finds, within one program, a `tile.load` whose addresses a later load
    reads again after a loop (the looped layer norm's passes over its row:
    sum, sum of squares, normalize), and sets the accesses' eviction
    priority, which the lowering gives L1 and L2 (`createpolicy` +
    `.L2::cache_hint`):

    - a load whose addresses a later load reads again: `evict_last` (the
      data is wanted again; other programs' read-once data goes first);
    - the last of those re-reads: `evict_first` (nothing reads it again);
    - a store in the loop of such a last re-read, to a pointer argument no
      load of the function reads: `evict_first` (the output is not read
      back, and would otherwise push the kept input out of L2).

    Two loads read the same addresses when their pointers are offset from
    the same function argument by the same expression: equal SSA values,
    pure ops of the same name, attributes and types on such operands, or
    induction variables of `scf.for` loops with such bounds and steps (two
    loops over the same range). The later load must be in a later op of
    the block holding both, with a loop between them (one of the two sits in
    an `scf.for` of that block), and only `scf.for` ops may enclose either
    below that block (no branch, no `scf.while`). The data must be the
    program's own: the address depends on `tile.program_id`, so that data
    every program reads (a layer norm's weights) keeps its normal priority.

    Conservative where it cannot tell: a store or atomic between the two
    loads (in, or between, the ops of that block that hold them) to the same
    argument, or to a pointer it cannot trace to an argument, or any other
    op that may write global memory, leaves the pair unhinted. Accesses that
    already have a cache modifier, an eviction policy or `volatile` (the
    user's) are never changed. Hints change no result, only speed; a wrong
    one costs speed (a read-once input made evict_first), hence the proofs.
  }];
}

#endif // TILELANG_DIALECT_TILE_TRANSFORMS_PASSES_TD
