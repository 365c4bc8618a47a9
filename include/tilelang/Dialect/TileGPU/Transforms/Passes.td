//===- Passes.td - tilegpu transformation passes -----------*- tablegen -*-===//
//
// Part of tilelang. Passes over tilegpu programs: choosing memory-friendly
// layouts and removing the layout conversions they make unnecessary.
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

#endif // TILELANG_DIALECT_TILEGPU_TRANSFORMS_PASSES_TD
