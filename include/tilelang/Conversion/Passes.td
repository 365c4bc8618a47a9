//===- Passes.td - tilelang conversion passes --------------*- tablegen -*-===//
//
// Part of tilelang. Passes that move a program from one dialect level to the
// next: tile -> tilegpu -> LLVM + NVVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_CONVERSION_PASSES_TD
#define TILELANG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToTileGPU : Pass<"convert-tile-to-tilegpu", "mlir::ModuleOp"> {
  let summary = "Give every tensor a distributed layout for a warp count";
  let description = [{
    Assigns every tensor a layout, walking each function in program order:
    values created from scalars (make_range, splat, constants) get the
    default blocked layout of their shape, and every other op derives its
    result layout from its operands (elementwise ops keep them, reductions
    slice them, expand_dims un-slices them, trans permutes them). Where an
    op needs an operand in another layout, a tilegpu.convert_layout is
    inserted; later passes (coalesce, remove-layout-conversions) choose
    better layouts. Sets the module attributes `tilegpu.num_warps` and
    `tilegpu.target`.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4",
           "Warps per CTA (a power of two from 1 to 32)">,
    Option<"target", "target", "std::string", "\"sm_90a\"",
           "Target GPU, e.g. sm_80 or sm_90a">
  ];
  let dependentDialects = ["::tilelang::tilegpu::TileGPUDialect"];
}

#endif // TILELANG_CONVERSION_PASSES_TD
