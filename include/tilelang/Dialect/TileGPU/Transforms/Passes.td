//===- Passes.td - tilegpu transformation passes -----------*- tablegen -*-===//
//
// Part of tilelang. Passes over tilegpu programs: choosing memory-friendly
// layouts, removing the layout conversions they make unnecessary, and putting
// matrix products on the tensor cores.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
#define TILELANG_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileGPUCoalesce : Pass<"tilegpu-coalesce", "mlir::ModuleOp"> {
  let summary = "Choose layouts that give each thread wide, coalesced accesses";
  let description = [{
    For every load, store and atomic on a tensor of pointers, the axis-info
    analysis tells how many elements are contiguous and how well aligned
    they are along each dimension. The pass orders dimensions by contiguity
    and gives each thread up to 16 bytes along the most contiguous one, in a
    blocked layout whose lanes walk that dimension first, so a warp's
    accesses fall on consecutive addresses.

    The chosen layout is then spread over every tensor that must share it
    (operands and results of elementwise ops, addptr, memory ops, loop-carried
    values, and both sides of a broadcast): each such group takes the layout
    of its widest memory access. Reductions and expand_dims keep their
    derived (slice) layouts, with conversions inserted only where a group
    meets a value of another layout.
  }];
  let dependentDialects = ["::tilelang::tilegpu::TileGPUDialect"];
}

def TileGPURemoveLayoutConversions
    : Pass<"tilegpu-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "Remove layout conversions by recomputing cheap values";
  let description = [{
    A conversion whose source is computed only from scalars by cheap ops
    (splat, make_range, constants, elementwise arithmetic, addptr,
    broadcast, expand_dims) is replaced by recomputing that slice directly
    in the target layout; conversions of conversions collapse, and
    conversions to the same layout fold away. What is left needs data
    movement between threads.
  }];
  let dependentDialects = ["::tilelang::tilegpu::TileGPUDialect"];
}

def TileGPUAccelerateMatmul
    : Pass<"tilegpu-accelerate-matmul", "mlir::ModuleOp"> {
  let summary = "Put every tile.dot on the tensor cores";
  let description = [{
    Gives each 2-D `tile.dot` an mma accumulator layout and its operands
    the layouts that layout reads. On sm_90a, 16-bit products with M >= 64
    and warps in groups of 4 become `tilegpu.warp_group_dot` (wgmma
    m64nNk16), and so do 8-bit ones (fp8 into f32, i8 into i32; m64nNk32)
    whose operands are both K-major: version-3 accumulators with warpgroups along M and one
    instruction over each warpgroup's N (at most 256), operands written to
    128/64/32-byte-swizzled shared tiles (local_alloc) that wgmma reads
    through matrix descriptors. Otherwise, version 2: mma.sync m16n8k16 for
    f16/bf16, m16n8k8 tf32 for f32, m16n8k32 for i8 (sm_80 and newer), with
    warps spread so that each warp's tile is as square as the shape allows,
    and dot-operand layouts on the operands. A loop-carried accumulator (`acc = tl.dot(a, b, acc)` in a
    loop) is kept in the mma layout across iterations, and
    `acc + tl.dot(a, b)` becomes `tl.dot(a, b, acc)`. An f16 accumulator is
    widened to f32 for the product and narrowed after it.

    fp8 products wgmma cannot take are widened to f16 products. Products
    the tensor cores cannot do yet (f64, f32 with inputPrecision = ieee,
    batched 3-D dots, i8 with K < 32, targets before sm_80) are reported at
    the dot's location.
  }];
  let dependentDialects = ["::tilelang::tilegpu::TileGPUDialect"];
}

def TileGPUAccumulatePerThread
    : Pass<"tilegpu-accumulate-per-thread", "mlir::ModuleOp"> {
  let summary = "Carry a loop's reduction accumulator as one partial per "
                "thread";
  let description = [{
    Triton's way of summing a row in blocks keeps a block-sized accumulator
    across the loop and reduces it after:

    ```python
    acc = tl.zeros([BLOCK], tl.float32)
    for off in range(0, N, BLOCK):
        acc += tl.load(X + off + tl.arange(0, BLOCK), mask=..., other=0.)
    total = tl.sum(acc, axis=0)
    ```

    so every thread holds BLOCK / threads accumulator registers for the
    whole loop. When an scf.for iter_arg of a blocked tensor is only
    combined with one elementwise op (`acc = op(acc, x)`, or `op(x, acc)`)
    whose result is only yielded, and the loop's result is only reduced by a
    tile.reduce whose combine region is that same op, the accumulator
    becomes the tilegpu.thread_reduce of the initial value and each
    iteration adds the thread_reduce of `x`: one partial per thread along
    the reduced axis instead of BLOCK / threads, with no communication in
    the loop, and the tile.reduce after it combines the partials. This
    reassociates the combine, as tile.reduce already may; it applies when a
    thread holds more than one element along the axis and the layout's
    repetition divides it.
  }];
  let dependentDialects = ["::tilelang::tilegpu::TileGPUDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileGPUPipeline : Pass<"tilegpu-pipeline", "mlir::ModuleOp"> {
  let summary = "Software-pipeline the global loads that feed tensor-core dots "
                "(cp.async or bulk tensor copies)";
  let description = [{
    In an scf.for whose body loads a tile from global memory and converts it
    to an mma.sync operand or writes it to a shared tile for wgmma
    (local_alloc), the load becomes an asynchronous copy (cp.async)
    into one of `num-stages` shared-memory buffers, issued `num-stages - 1`
    iterations ahead (`num-stages - 2` where a product is deferred or the
    stage is refilled early, docs/lowering.md): a prologue fills the first
    stages, and each iteration
    waits for its own stage, reads it with local_load (ldmatrix) or hands it
    to wgmma directly, then
    starts the copy for iteration i + num-stages - 1 into the stage the
    previous iteration has finished reading, so global memory latency
    overlaps the tensor-core work. One barrier per iteration orders a
    stage's reads before it is refilled and publishes each copy to the CTA.

    First, at any `num-stages`: a local_alloc in a loop's body that copies a
    tensor defined outside the loop into an immutable buffer (a wgmma
    operand that does not change, such as attention's Q block) moves before
    the loop, so the tensor is written to shared memory once; the buffer is
    then live across the loop. Allocations the loop frees stay. A copy of a
    tensor that a dominating copy of the same type already holds reuses its
    buffer (causal attention's two loops read one Q buffer).

    The wgmma products of a pipelined loop whose shared operands are stages,
    loop invariants or buffers of the iteration become asynchronous
    warp_group_dots. Each one is waited for (warp_group_dot_wait, which
    retires it and every older group) right before the first op that reads
    its result; a later product may accumulate into a result in flight. A
    product whose only reader is the yield (an accumulator), with operands
    that outlive the iteration, stays in flight across the back edge and is
    retired by the first wait of the next iteration that needs it: in flash
    attention the wait for S = Q K^T also retires the previous O += P V, one
    wait per iteration. The copies of the loop follow its last product, so
    they are issued while the products run; when a product was carried in
    from the previous iteration, its stage is refilled only after the wait
    that retires it and a second barrier (the other warpgroups' products).
    Products still in flight at the exit are waited for on the loop's exit
    path, inside an scf.if that skips a loop of zero iterations: a wait
    where the exit meets the zero-trip path makes ptxas serialize every
    wgmma of the kernel.

    With `overlap-products`, a loop of two dependent products (flash
    attention's S = Q K^T, the softmax, O += P V) whose first product reads
    only stages and loop invariants issues that product one iteration ahead
    instead (canIssueFirstProductAhead, docs/lowering.md): S_{j+1} right
    after the stage wait, while the softmax of S_j (issued by the previous
    iteration) runs; the rescale of the accumulator waits for the previous
    product and S_{j+1} together, the loop waits for the next iteration's
    stage too, and a prologue issues S_0.

    The addresses and masks of future iterations come from cloning the ops
    that compute them, with the induction variable advanced and the
    loop-carried pointers stepped ahead (carried as extra iter_args); copies
    for iterations past the end are masked off entirely. Loads are
    pipelined when their addresses depend only on the induction variable,
    loop invariants and loop-carried values updated by pure ops, their
    element type is 16-bit, their `other` is absent or zero, and axis info
    proves at least 4 contiguous, aligned bytes per thread (cp.async's
    smallest copy). `num-stages` below 2 leaves loops alone.

    Bulk tensor copies (sm_90). When every such load of a loop is a
    tile.descriptor_load kept by tile-expand-tensor-descriptors, the stages
    are filled by async_tma_copy_global_to_local instead: one copy per
    column block of the stage's swizzled tile (its rows of 32, 64 or 128
    bytes are the tensor map's box and swizzle), issued by thread 0 and
    signalling the stage's mbarrier, which barrier_expect arms with the
    stage's bytes. The loop waits on its stage's barrier with a parity it
    carries (flipped each time the read stage wraps); without a product in
    flight a CTA barrier follows, so that a stage is refilled only after
    every thread has read it. The barriers are initialized before the
    prologue and invalidated after the loop. The box, swizzle and element
    type are recorded on the tensor map argument as its `tilegpu.tma`
    attribute (#tilegpu.tma<box, swizzle, element>), which the launcher
    encodes the map with; a map needed with two different boxes is copied
    in bulk for the first loop only.

    The descriptor accesses this pass does not take are left for
    tilegpu-lower-descriptor-accesses.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "::tilelang::kDefaultNumStages",
           "Shared-memory buffers per pipelined load (loads in flight + 1)">,
    Option<"overlapProducts", "overlap-products", "bool", "false",
           "Issue the first of two dependent products one iteration ahead "
           "(flash attention's S = Q K^T of the next key block during the "
           "softmax), where canIssueFirstProductAhead allows">
  ];
  let dependentDialects = ["::tilelang::tilegpu::TileGPUDialect"];
}

def TileGPULowerDescriptorAccesses
    : Pass<"tilegpu-lower-descriptor-accesses", "mlir::ModuleOp"> {
  let summary = "Lower the descriptor accesses kept for bulk copies that "
                "tilegpu-pipeline did not take";
  let description = [{
    tile-expand-tensor-descriptors keeps, on sm_90 with pipelining, the
    descriptor accesses that can become bulk tensor copies (see
    `keepsBulkCopies` in BulkCopies.h). After tilegpu-pipeline has turned
    the loads it pipelines into bulk copies, this pass lowers the rest:

    - a tile.descriptor_store becomes a local_alloc of its block, swizzled
      as the tensor map's box reads it (an mma accumulator converted for
      the store is taken before the conversion: the buffer is the layout
      change), one async_tma_copy_local_to_global, an
      async_tma_store_wait until the copies have read the buffer, and its
      release; the map's `tilegpu.tma` encoding is recorded;
    - a store whose block or tensor map does not allow that (the map is
      already encoded with another box), and a load that no pipeline took
      (num-stages below 2, a loop that also has pointer loads, an address
      the pipeline cannot recompute), becomes a masked pointer access in the
      block's own layout.

    A kept access that is not 2-D or has no layout is an error.
  }];
  let dependentDialects = ["::tilelang::tilegpu::TileGPUDialect"];
}

def TileGPUTestLayoutMap
    : Pass<"tilegpu-test-layout-map", "mlir::ModuleOp"> {
  let summary = "Print the LayoutMap of each function argument (tests)";
  let description = [{
    For every distributed tensor among a function's arguments, a remark at
    the function with what the lowering reads off the layout's LayoutMap:
    the layout's tile across the CTA and the registers a thread holds of it
    (LayoutMap::getTile), the registers a thread holds of the tensor along
    each dimension, each register's constant offset and per-dimension index,
    and the coordinates each lane bit and warp bit adds to a thread's start.
    lit tests check every layout family's fragment against the PTX ISA with
    it. Changes nothing.
  }];
}

#endif // TILELANG_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
