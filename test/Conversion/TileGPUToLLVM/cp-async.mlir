// The cp.async lowering on IR that already carries its layouts (what
// tilegpu-pipeline leaves for an sm_80 operand): a 32x32 f16 tile, 8
// contiguous halves a thread along rows that axis info proves contiguous
// and 16-byte aligned, is copied to a stage of a swizzled shared buffer with
// one 16-byte cp.async.cg a thread (the source size operand 16: no mask, so
// no zero fill); commit_group and wait_group follow, and local_load reads
// the stage back for an mma operand with ldmatrix (transposed, for B).
// RUN: tilelang-opt %s --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// Two stages of 2048 bytes, then the conversion's scratch for the store.
// CHECK: tilegpu.shared = 6144 : i32
// CHECK-LABEL: llvm.func @copy
// CHECK: %[[DST:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: %[[SIZE:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %[[DST]], %{{.*}}, %[[SIZE]] : (i32, !llvm.ptr<1>, i32) -> ()
// CHECK-NOT: cp.async.cg
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.commit_group;"
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "cp.async.wait_group 0;"
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#rows = #tilegpu.slice<dim = 1, parent = #blocked>
#cols = #tilegpu.slice<dim = 0, parent = #blocked>
#shared = #tilegpu.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#mma = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#dot_op1 = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @copy(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant dense<32> : tensor<32x1xi32, #blocked>
    %r = tile.make_range 0 to 32 : tensor<32xi32, #rows>
    %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #rows> -> tensor<32x1xi32, #blocked>
    %roff = arith.muli %r2, %c32 : tensor<32x1xi32, #blocked>
    %splat = tile.splat %base : !tile.ptr<f16> -> tensor<32x1x!tile.ptr<f16>, #blocked>
    %rowptr = tile.addptr %splat, %roff : tensor<32x1x!tile.ptr<f16>, #blocked>, tensor<32x1xi32, #blocked>
    %c = tile.make_range 0 to 32 : tensor<32xi32, #cols>
    %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #cols> -> tensor<1x32xi32, #blocked>
    %cb = tile.broadcast %c2 : tensor<1x32xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %rb = tile.broadcast %rowptr : tensor<32x1x!tile.ptr<f16>, #blocked> -> tensor<32x32x!tile.ptr<f16>, #blocked>
    %ptrs = tile.addptr %rb, %cb : tensor<32x32x!tile.ptr<f16>, #blocked>, tensor<32x32xi32, #blocked>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x32x32xf16, #shared, mutable>
    %stage = tilegpu.memdesc_index %buf[%c1] : !tilegpu.memdesc<2x32x32xf16, #shared, mutable> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
    %copy = tilegpu.async_copy_global_to_local %ptrs, %stage : tensor<32x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
    %group = tilegpu.async_commit_group %copy
    %done = tilegpu.async_wait {pending = 0 : i32}
    tilegpu.barrier
    %v = tilegpu.local_load %stage : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #dot_op1>
    %w = tilegpu.convert_layout %v : tensor<32x32xf16, #dot_op1> -> tensor<32x32xf16, #blocked>
    tile.store %ptrs, %w : tensor<32x32x!tile.ptr<f16>, #blocked>
    tilegpu.local_dealloc %buf : !tilegpu.memdesc<2x32x32xf16, #shared, mutable>
    return
  }
}
