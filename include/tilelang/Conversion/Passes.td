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
    Option<"numWarps", "num-warps", "unsigned", "::tilelang::kDefaultNumWarps",
           "Warps per CTA (a power of two from 1 to 32)">,
    Option<"target", "target", "std::string", "\"sm_90a\"",
           "Target GPU, e.g. sm_80 or sm_90a">
  ];
  let dependentDialects = ["::tilelang::tilegpu::TileGPUDialect"];
}

def ConvertTileGPUToLLVM : Pass<"convert-tilegpu-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower tilegpu programs to the LLVM and NVVM dialects";
  let description = [{
    Every distributed tensor becomes, in each thread, a struct of the
    elements that thread holds; every op is lowered per thread from its
    operands' layouts: elementwise ops element by element, loads and stores
    as vectors of up to 16 bytes (predicated PTX when masked), reductions
    with warp shuffles and shared memory, layout conversions through shared
    memory. Public functions become kernels. Shared memory is one dynamic
    array (`@tilelang_smem`) in which buffers (local_alloc) and the scratch
    space of the ops that need it are placed by liveness: two share bytes
    only when they are never live together. Each one's offset is recorded as
    `tilegpu.offset` on its op, and the peak as the module attribute
    `tilegpu.shared`. Expects scf to be lowered to cf first
    (convert-scf-to-cf).

    Kernels get `nvvm.maxntid` (the block's threads) and either
    `nvvm.maxnreg` (with `max-registers`, Triton's `maxnreg`) or, without
    tensor-core products, `nvvm.minctasm` asking for at least 16 resident
    warps per SM, and at least one block for blocks of 16 or 32 warps (the
    floor the runtime's occupancy search starts from).
  }];
  let options = [
    Option<"maxRegisters", "max-registers", "unsigned", "0",
           "Registers a thread may use at most (PTX .maxnreg); 0 leaves it "
           "to ptxas and the occupancy floor">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def RematerializePastLoops
    : Pass<"tilelang-rematerialize-past-loops", "mlir::LLVM::LLVMFuncOp"> {
  let summary = "Compute again after a loop the cheap values computed "
                "before it";
  let description = [{
    A value computed before an outermost loop and used after it occupies
    registers through every iteration. In a loop that issues tensor-core
    products (whose accumulators make it bound by registers), where it is
    a short computation
    (at most `kMaxRematerializedOps` integer and pointer operations) from
    the thread's special registers (thread and program ids, grid sizes),
    the kernel's integer and pointer parameters and constants, such as the
    rows a thread owns, their masks, or a head's base pointer, each block
    past the loop that uses it gets its own copy of the computation,
    placed before its first use (before a later loop, in that loop's
    preheader). The copies read the special registers and parameters
    through inline assembly numbered per block: LLVM merges neither them
    with the originals nor one block's with another's, so the original is
    no longer held through the loop. Computations from constants alone
    are left to LLVM. Runs after the last CSE of the lowering.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def RemoveRedundantBarriers
    : Pass<"tilelang-remove-redundant-barriers", "mlir::LLVM::LLVMFuncOp"> {
  let summary = "Remove block-wide barriers that order no memory access";
  let description = [{
    A block-wide barrier (`nvvm.barrier0`, PTX `bar.sync 0`) in a kernel
    orders every thread's memory accesses before it against every thread's
    accesses after it. It is removed where no such pair can conflict: on
    every path to it from the kernel's entry or from the previous barrier
    the threads only read global memory (or touch no memory at all), and,
    where they do read global memory, no path from it to the next barrier
    or to the kernel's exit writes global or generic memory or performs an
    atomic. Typically the first barrier of a cross-warp reduction, placed
    before it writes its shared scratch, when only the kernel's global
    loads precede it.

    The paths are followed through the control-flow graph, around loops
    too. Each operation is classified conservatively, as docs/lowering.md
    ("Barriers that order nothing") lists: what is not recognized counts as
    touching all memory, so the barriers around it stay. Barriers are
    removed one at a time, each decision made on the
    program without the barriers removed before it. Only kernels
    (`nvvm.kernel`) are visited: a device function's entry is not the
    kernel's. A barrier the user wrote (`tl.debug_barrier()`, marked
    `tilegpu.user_barrier`) is kept.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif // TILELANG_CONVERSION_PASSES_TD
