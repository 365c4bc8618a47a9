// tilegpu-pipeline alone on an int8 product that tilegpu-accelerate-matmul
// put on wgmma (both operands K-major, an i32 accumulator), with its K edge
// masked and an integer zero as `other`, as Triton's tutorial writes int8
// matmuls. The 8-bit operand loads take the fp8 path's rules: cp.async
// copies into rotating 8-bit swizzled stages (zero-filling what the mask
// leaves out), and the product becomes asynchronous: in flight across the
// back edge, waited for before the barrier that lets its stage be refilled.
// RUN: tilelang-opt %s --tilegpu-pipeline=num-stages=3 | FileCheck %s

// CHECK-LABEL: func.func @matmul_int8
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x128x64xi8, #shared, mutable>
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x128xi8, #shared1, mutable>
// CHECK-COUNT-2: tilegpu.async_commit_group
// CHECK: scf.for
// CHECK: tilegpu.async_wait {pending = 1 : i32}
// CHECK-NOT: tile.load
// CHECK: %[[D:.*]] = tilegpu.warp_group_dot {{.*}} {isAsync} : !tilegpu.memdesc<128x64xi8, #shared{{.*}}> * !tilegpu.memdesc<64x128xi8, #shared1{{.*}}> -> tensor<128x128xi32, #mma>
// CHECK-NEXT: %[[W:.*]] = tilegpu.warp_group_dot_wait %[[D]] {pendings = 1 : i32} : tensor<128x128xi32, #mma>
// CHECK-NEXT: tilegpu.barrier
// CHECK: tilegpu.async_copy_global_to_local {{.*}} mask {{.*}}tensor<128x64x!tile.ptr<i8>, #blocked1>
// CHECK: tilegpu.async_copy_global_to_local {{.*}} mask {{.*}}tensor<64x128x!tile.ptr<i8>, #blocked>
// CHECK-NOT: tile.load
// CHECK: scf.yield %[[W]]
#blocked = #tilegpu.blocked<sizePerThread = [16, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#blocked1 = #tilegpu.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 32]>
#shared = #tilegpu.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]>
#shared1 = #tilegpu.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]>
#slice = #tilegpu.slice<dim = 1, parent = #blocked1>
#slice1 = #tilegpu.slice<dim = 0, parent = #blocked>
#slice4 = #tilegpu.slice<dim = 0, parent = #blocked1>
#slice5 = #tilegpu.slice<dim = 1, parent = #blocked>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @matmul_int8(%a: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %b: !tile.ptr<i8> {tile.divisibility = 16 : i32},
                         %K: i32 {tile.divisibility = 16 : i32}) -> tensor<128x128xi32, #mma> {
    %b_step = arith.constant dense<64> : tensor<64x128xi32, #blocked>
    %a_step = arith.constant dense<64> : tensor<128x64xi32, #blocked1>
    %c0_i32 = arith.constant 0 : i32
    %b_zero = arith.constant dense<0> : tensor<64x128xi8, #blocked>
    %a_zero = arith.constant dense<0> : tensor<128x64xi8, #blocked1>
    %zero = arith.constant dense<0> : tensor<128x128xi32, #mma>
    %c64_i32 = arith.constant 64 : i32
    // A: a + rows[:, None] * K + ks[None, :]; B: b + ks[:, None] + cols[None, :] * K.
    %rows = tile.make_range 0 to 128 : tensor<128xi32, #slice>
    %cols = tile.make_range 0 to 128 : tensor<128xi32, #slice1>
    %ks_a = tile.make_range 0 to 64 : tensor<64xi32, #slice4>
    %ks_b = tile.make_range 0 to 64 : tensor<64xi32, #slice5>
    %K_col = tile.splat %K : i32 -> tensor<128x1xi32, #blocked1>
    %rows_2d = tile.expand_dims %rows {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked1>
    %a_rows = arith.muli %rows_2d, %K_col : tensor<128x1xi32, #blocked1>
    %a_rows_b = tile.broadcast %a_rows : tensor<128x1xi32, #blocked1> -> tensor<128x64xi32, #blocked1>
    %ks_row = tile.expand_dims %ks_a {axis = 0 : i32} : tensor<64xi32, #slice4> -> tensor<1x64xi32, #blocked1>
    %ks_row_b = tile.broadcast %ks_row : tensor<1x64xi32, #blocked1> -> tensor<128x64xi32, #blocked1>
    %a_off = arith.addi %a_rows_b, %ks_row_b : tensor<128x64xi32, #blocked1>
    %a_base = tile.splat %a : !tile.ptr<i8> -> tensor<128x64x!tile.ptr<i8>, #blocked1>
    %a_ptrs0 = tile.addptr %a_base, %a_off : tensor<128x64x!tile.ptr<i8>, #blocked1>, tensor<128x64xi32, #blocked1>
    %ks_col = tile.expand_dims %ks_b {axis = 1 : i32} : tensor<64xi32, #slice5> -> tensor<64x1xi32, #blocked>
    %ks_col_b = tile.broadcast %ks_col : tensor<64x1xi32, #blocked> -> tensor<64x128xi32, #blocked>
    %cols_2d = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #slice1> -> tensor<1x128xi32, #blocked>
    %K_row = tile.splat %K : i32 -> tensor<1x128xi32, #blocked>
    %b_cols = arith.muli %cols_2d, %K_row : tensor<1x128xi32, #blocked>
    %b_cols_b = tile.broadcast %b_cols : tensor<1x128xi32, #blocked> -> tensor<64x128xi32, #blocked>
    %b_off = arith.addi %ks_col_b, %b_cols_b : tensor<64x128xi32, #blocked>
    %b_base = tile.splat %b : !tile.ptr<i8> -> tensor<64x128x!tile.ptr<i8>, #blocked>
    %b_ptrs0 = tile.addptr %b_base, %b_off : tensor<64x128x!tile.ptr<i8>, #blocked>, tensor<64x128xi32, #blocked>
    %r:3 = scf.for %k = %c0_i32 to %K step %c64_i32 iter_args(%acc = %zero, %a_ptrs = %a_ptrs0, %b_ptrs = %b_ptrs0)
        -> (tensor<128x128xi32, #mma>, tensor<128x64x!tile.ptr<i8>, #blocked1>, tensor<64x128x!tile.ptr<i8>, #blocked>) : i32 {
      %left = arith.subi %K, %k : i32
      %left_row = tile.splat %left : i32 -> tensor<1x64xi32, #blocked1>
      %a_in = arith.cmpi slt, %ks_row, %left_row : tensor<1x64xi32, #blocked1>
      %a_mask = tile.broadcast %a_in : tensor<1x64xi1, #blocked1> -> tensor<128x64xi1, #blocked1>
      %left_col = tile.splat %left : i32 -> tensor<64x1xi32, #blocked>
      %b_in = arith.cmpi slt, %ks_col, %left_col : tensor<64x1xi32, #blocked>
      %b_mask = tile.broadcast %b_in : tensor<64x1xi1, #blocked> -> tensor<64x128xi1, #blocked>
      %a_tile = tile.load %a_ptrs, %a_mask, %a_zero : tensor<128x64x!tile.ptr<i8>, #blocked1>
      %b_tile = tile.load %b_ptrs, %b_mask, %b_zero : tensor<64x128x!tile.ptr<i8>, #blocked>
      %a_smem = tilegpu.local_alloc %a_tile : (tensor<128x64xi8, #blocked1>) -> !tilegpu.memdesc<128x64xi8, #shared>
      %b_smem = tilegpu.local_alloc %b_tile : (tensor<64x128xi8, #blocked>) -> !tilegpu.memdesc<64x128xi8, #shared1>
      %d = tilegpu.warp_group_dot %a_smem, %b_smem, %acc : !tilegpu.memdesc<128x64xi8, #shared> * !tilegpu.memdesc<64x128xi8, #shared1> -> tensor<128x128xi32, #mma>
      %a_next = tile.addptr %a_ptrs, %a_step : tensor<128x64x!tile.ptr<i8>, #blocked1>, tensor<128x64xi32, #blocked1>
      %b_next = tile.addptr %b_ptrs, %b_step : tensor<64x128x!tile.ptr<i8>, #blocked>, tensor<64x128xi32, #blocked>
      scf.yield %d, %a_next, %b_next : tensor<128x128xi32, #mma>, tensor<128x64x!tile.ptr<i8>, #blocked1>, tensor<64x128x!tile.ptr<i8>, #blocked>
    }
    return %r#0 : tensor<128x128xi32, #mma>
  }
}
