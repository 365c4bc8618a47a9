// tilegpu-pipeline on a 128x128x32 f16 matmul (the kernel of
// Target/PTX/matmul-pipelined.mlir), after the passes that run before it.
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=3 target=sm_80" | FileCheck %s
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=4 target=sm_90a" | FileCheck %s --check-prefix=ASYNC
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=2 target=sm_90a" | FileCheck %s --check-prefix=TWO

// mma.sync (sm_80), 3 stages: buffers of 3 tiles, a prologue of 2 copy
// groups, and in the loop a wait for all but the newest group, a barrier,
// the stage read back through local_load and the copies of iteration k + 2.
// A CTA barrier first: the buffers may take the room of shared memory used
// before the loop.
// CHECK-LABEL: func.func @matmul_kernel
// CHECK-NOT: fence_async_shared
// CHECK: tilegpu.barrier
// CHECK-DAG: %[[A:.*]] = tilegpu.local_alloc {{.*}}memdesc<3x128x32xf16
// CHECK-DAG: %[[B:.*]] = tilegpu.local_alloc {{.*}}memdesc<3x32x128xf16
// CHECK-COUNT-2: tilegpu.async_commit_group
// CHECK: scf.for
// CHECK: tilegpu.async_wait {pending = 1 : i32}
// CHECK-NEXT: tilegpu.barrier
// CHECK: tilegpu.local_load
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.async_commit_group
// CHECK: tile.dot
// CHECK-NOT: warp_group_dot_wait
// CHECK: tilegpu.async_wait {pending = 0 : i32}
// CHECK: tilegpu.local_dealloc %[[A]]

// wgmma (sm_90a), 4 stages: copies 3 iterations ahead as well, but the
// product stays in flight while the next iteration starts. The stage it
// reads is refilled only after the wait for it (all but the newest product)
// and a barrier; the wait for the last product is on the loop's own exit
// path, inside a guard that skips loops of zero iterations.
// ASYNC-LABEL: func.func @matmul_kernel
// ASYNC: tilegpu.local_alloc {{.*}}memdesc<4x128x32xf16
// ASYNC-COUNT-3: tilegpu.async_commit_group
// ASYNC-NOT: tilegpu.async_commit_group
// ASYNC: scf.if %{{.*}} -> (tensor<128x128xf32, #mma>)
// ASYNC: scf.for
// ASYNC: tilegpu.async_wait {pending = 2 : i32}
// ASYNC-NEXT: tilegpu.barrier
// ASYNC: %[[D:.*]] = tilegpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync}
// ASYNC-NEXT: %[[W:.*]] = tilegpu.warp_group_dot_wait %[[D]] {pendings = 1 : i32}
// ASYNC-NEXT: tilegpu.barrier
// ASYNC: tilegpu.async_copy_global_to_local
// ASYNC: tilegpu.async_commit_group
// ASYNC: scf.yield %[[W]]
// ASYNC: %[[LAST:.*]] = tilegpu.warp_group_dot_wait %{{.*}}#0 {pendings = 0 : i32}
// ASYNC-NEXT: scf.yield %[[LAST]]
// ASYNC: } else {
// ASYNC: tilegpu.async_wait {pending = 0 : i32}

// Two stages work the same way: the copies for iteration k + 1 go into the
// stage iteration k - 1 read, after the wait for its product.
// TWO-LABEL: func.func @matmul_kernel
// TWO-COUNT-1: tilegpu.async_commit_group
// TWO: scf.if
// TWO: tilegpu.async_wait {pending = 0 : i32}
// TWO: tilegpu.warp_group_dot {{.*}} {isAsync}
// TWO-NEXT: tilegpu.warp_group_dot_wait {{.*}} {pendings = 1 : i32}
// TWO-NEXT: tilegpu.barrier
// TWO: tilegpu.async_copy_global_to_local

func.func @matmul_kernel(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                         %M: i32 {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x : i32
  %c128 = arith.constant 128 : i32
  %c32 = arith.constant 32 : i32
  %grid_n = arith.ceildivsi %N, %c128 : i32
  %pid_m = arith.divsi %pid, %grid_n : i32
  %pid_n = arith.remsi %pid, %grid_n : i32

  // Row offsets of the A tile and column offsets of the B tile.
  %r128 = tile.make_range 0 to 128 : tensor<128xi32>
  %r32 = tile.make_range 0 to 32 : tensor<32xi32>
  %m0 = arith.muli %pid_m, %c128 : i32
  %n0 = arith.muli %pid_n, %c128 : i32
  %m0_v = tile.splat %m0 : i32 -> tensor<128xi32>
  %n0_v = tile.splat %n0 : i32 -> tensor<128xi32>
  %rows = arith.addi %m0_v, %r128 : tensor<128xi32>
  %cols = arith.addi %n0_v, %r128 : tensor<128xi32>

  // A pointers: a + rows[:, None] * K + ks[None, :]
  %rows_2d = tile.expand_dims %rows {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %K_col = tile.splat %K : i32 -> tensor<128x1xi32>
  %a_row_off = arith.muli %rows_2d, %K_col : tensor<128x1xi32>
  %a_row_off_b = tile.broadcast %a_row_off : tensor<128x1xi32> -> tensor<128x32xi32>
  %ks_row = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ks_a = tile.broadcast %ks_row : tensor<1x32xi32> -> tensor<128x32xi32>
  %a_off = arith.addi %a_row_off_b, %ks_a : tensor<128x32xi32>
  %a_base = tile.splat %a : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>>
  %a_ptrs0 = tile.addptr %a_base, %a_off : tensor<128x32x!tile.ptr<f16>>, tensor<128x32xi32>

  // B pointers: b + ks[:, None] * N + cols[None, :]
  %ks_col = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %N_col = tile.splat %N : i32 -> tensor<32x1xi32>
  %b_row_off = arith.muli %ks_col, %N_col : tensor<32x1xi32>
  %b_row_off_b = tile.broadcast %b_row_off : tensor<32x1xi32> -> tensor<32x128xi32>
  %cols_row = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cols_b = tile.broadcast %cols_row : tensor<1x128xi32> -> tensor<32x128xi32>
  %b_off = arith.addi %b_row_off_b, %cols_b : tensor<32x128xi32>
  %b_base = tile.splat %b : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>>
  %b_ptrs0 = tile.addptr %b_base, %b_off : tensor<32x128x!tile.ptr<f16>>, tensor<32x128xi32>

  // The K loop: each step advances A by 32 columns and B by 32 rows.
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a_step = tile.splat %c32 : i32 -> tensor<128x32xi32>
  %b_stride = arith.muli %c32, %N : i32
  %b_step = tile.splat %b_stride : i32 -> tensor<32x128xi32>
  %c0_i = arith.constant 0 : i32
  %acc, %a_end, %b_end = scf.for %k = %c0_i to %K step %c32
      iter_args(%acc_in = %zero, %a_ptrs = %a_ptrs0, %b_ptrs = %b_ptrs0)
      -> (tensor<128x128xf32>, tensor<128x32x!tile.ptr<f16>>, tensor<32x128x!tile.ptr<f16>>) : i32 {
    %a_tile = tile.load %a_ptrs : tensor<128x32x!tile.ptr<f16>>
    %b_tile = tile.load %b_ptrs : tensor<32x128x!tile.ptr<f16>>
    %acc_out = tile.dot %a_tile, %b_tile, %acc_in : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    %a_next = tile.addptr %a_ptrs, %a_step : tensor<128x32x!tile.ptr<f16>>, tensor<128x32xi32>
    %b_next = tile.addptr %b_ptrs, %b_step : tensor<32x128x!tile.ptr<f16>>, tensor<32x128xi32>
    scf.yield %acc_out, %a_next, %b_next : tensor<128x128xf32>, tensor<128x32x!tile.ptr<f16>>, tensor<32x128x!tile.ptr<f16>>
  }

  // C pointers: c + rows[:, None] * N + cols[None, :]
  %N_c = tile.splat %N : i32 -> tensor<128x1xi32>
  %c_row_off = arith.muli %rows_2d, %N_c : tensor<128x1xi32>
  %c_row_off_b = tile.broadcast %c_row_off : tensor<128x1xi32> -> tensor<128x128xi32>
  %cols_c = tile.broadcast %cols_row : tensor<1x128xi32> -> tensor<128x128xi32>
  %c_off = arith.addi %c_row_off_b, %cols_c : tensor<128x128xi32>
  %c_base = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %c_ptrs = tile.addptr %c_base, %c_off : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  tile.store %c_ptrs, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}
