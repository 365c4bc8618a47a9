// tilegpu-pipeline with two wgmma products per iteration, the loop of flash
// attention reduced to its dependences: S = Q K^T from a Q block that does
// not change, then P = f(S), a rescale of the running O, and O += P V.
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=3 target=sm_90a" | FileCheck %s --check-prefix=DEFER
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=2 target=sm_90a" | FileCheck %s --check-prefix=CARRY
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=4 target=sm_90a" | FileCheck %s --check-prefix=DEFER4

// Three stages: P V is deferred (findDeferrableProduct; 96 registers a
// thread in flight over the softmax). Q goes to shared memory once, before
// the loop; the loop carries P (a zero dot operand at first) and the stage
// P V reads. After the stage wait and its barrier, S is issued from zero,
// then the previous iteration's P V into the carried O; the copies follow
// at once (they refill the stage read two iterations before: one barrier);
// the first reader of S waits for S alone (pendings = 1), the rescale of
// O, moved to the end, for P V. The last P V is issued and waited for on
// the loop's exit path.
// DEFER-LABEL: func.func @two_products_kernel
// DEFER: %[[ZERO_P:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #dot_op>
// DEFER: %[[Q:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, {{.*}}>) -> !tilegpu.memdesc<64x64xf16
// DEFER: %[[V:.*]] = tilegpu.local_alloc  : () -> !tilegpu.memdesc<3x64x64xf16, #shared, mutable>
// DEFER: scf.if
// DEFER: scf.for {{.*}} iter_args(%[[O:[^ ]*]] = %{{[^,]*}}, {{.*}}, %[[P:[^ ]*]] = %[[ZERO_P]], %[[STAGE:[^ ]*]] = %c0_i32)
// DEFER: tilegpu.async_wait {pending = 0 : i32}
// DEFER-NEXT: tilegpu.barrier
// DEFER-NOT: tilegpu.local_alloc %
// DEFER: %[[S:.*]] = tilegpu.warp_group_dot %[[Q]], %{{.*}}, %{{[^ ]*}} {isAsync}
// DEFER-NEXT: %[[VIEW:.*]] = tilegpu.memdesc_index %[[V]][%[[STAGE]]]
// DEFER-NEXT: %[[PV:.*]] = tilegpu.warp_group_dot %[[P]], %[[VIEW]], %[[O]] {isAsync}
// DEFER-NOT: tilegpu.barrier
// DEFER: tilegpu.async_copy_global_to_local
// DEFER: tilegpu.async_copy_global_to_local
// DEFER: %[[W:.*]]:2 = tilegpu.warp_group_dot_wait %[[S]], %[[PV]] {pendings = 1 : i32}
// DEFER: math.exp2 %[[W]]#0
// DEFER: %[[WO:.*]] = tilegpu.warp_group_dot_wait %[[W]]#1 {pendings = 0 : i32}
// DEFER-NEXT: %[[SCALED:.*]] = arith.mulf %[[WO]]
// DEFER-NEXT: scf.yield %[[SCALED]], {{.*}}, %[[READ:[^ ]*]] : 
// DEFER: %[[LAST_VIEW:.*]] = tilegpu.memdesc_index %[[V]][%{{.*}}#8]
// DEFER-NEXT: %[[LAST:.*]] = tilegpu.warp_group_dot %{{.*}}#7, %[[LAST_VIEW]], %{{.*}}#0 {isAsync}
// DEFER-NEXT: %[[DONE:.*]] = tilegpu.warp_group_dot_wait %[[LAST]] {pendings = 0 : i32}
// DEFER-NEXT: scf.yield %[[DONE]]

// Four stages, deferred: the copies run num_stages - 2 = 2 iterations ahead
// (two prologue groups into stages 0 and 1, the first refill into stage 2),
// so the stage wait leaves distance - 1 = 1 group pending; a refill at
// iteration i writes stage (i + 2) mod 4, the one iteration i - 2 read.
// DEFER4-LABEL: func.func @two_products_kernel
// DEFER4: %[[V:.*]] = tilegpu.local_alloc  : () -> !tilegpu.memdesc<4x64x64xf16, #shared, mutable>
// DEFER4: tilegpu.memdesc_index %[[V]][%c0_i32]
// DEFER4: tilegpu.async_commit_group
// DEFER4: tilegpu.memdesc_index %[[V]][%c1_i32]
// DEFER4: tilegpu.async_commit_group
// DEFER4-NOT: tilegpu.async_commit_group
// DEFER4: scf.for {{.*}} iter_args({{.*}}, %[[READ:[^ ]*]] = %c0_i32, %[[WRITE:[^ ]*]] = %c2_i32, %[[P:[^ ]*]] = %{{[^,]*}}, %[[STAGE:[^ ]*]] = %c0_i32)
// DEFER4-NEXT: tilegpu.async_wait {pending = 1 : i32}
// DEFER4-NEXT: tilegpu.barrier
// DEFER4: tilegpu.warp_group_dot %[[P]], %{{.*}}, %{{.*}} {isAsync}
// DEFER4-NOT: tilegpu.barrier
// DEFER4: tilegpu.memdesc_index %[[V]][%[[WRITE]]]
// DEFER4: tilegpu.async_commit_group
// DEFER4-NOT: tilegpu.barrier
// DEFER4: scf.yield

// Two stages (deferring takes three): the first reader of S waits for it
// and, with the same wait (groups retire in order), for the previous
// iteration's P V, which arrives in flight through the iter_arg: one wait
// per iteration. The rescale reads O through that wait; P V is issued
// asynchronously and yielded in flight. The copies refill the stage the
// previous P V read: after it was retired, after this iteration's last
// product and a second barrier. The last P V is waited for on the loop's
// exit path.
// CARRY-LABEL: func.func @two_products_kernel
// CARRY: %[[Q:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, {{.*}}>) -> !tilegpu.memdesc<64x64xf16
// CARRY: scf.if
// CARRY: scf.for {{.*}} iter_args(%[[O:[^ ]*]] = %{{[^,]*}},
// CARRY: tilegpu.async_wait {pending = 0 : i32}
// CARRY-NEXT: tilegpu.barrier
// CARRY-NOT: tilegpu.local_alloc %
// CARRY: %[[S:.*]] = tilegpu.warp_group_dot %[[Q]], %{{.*}}, %[[ZERO:[^ ]*]] {isAsync}
// CARRY-NEXT: %[[W:.*]]:2 = tilegpu.warp_group_dot_wait %[[O]], %[[S]] {pendings = 0 : i32}
// CARRY-NOT: warp_group_dot_wait
// CARRY: arith.mulf %[[W]]#0
// CARRY-NOT: warp_group_dot_wait
// CARRY: %[[PV:.*]] = tilegpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync} : tensor<64x64xf16, #{{.*}}dot_op
// CARRY-NEXT: tilegpu.barrier
// CARRY: tilegpu.async_copy_global_to_local
// CARRY-NOT: warp_group_dot_wait
// CARRY: scf.yield %[[PV]],
// CARRY: %[[LAST:.*]] = tilegpu.warp_group_dot_wait %{{.*}}#0 {pendings = 0 : i32}
// CARRY-NEXT: scf.yield %[[LAST]]

func.func @two_products_kernel(%q: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                               %v: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                               %n: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c4096 = arith.constant 4096 : i32
  %r64 = tile.make_range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c64_col = tile.splat %c64 : i32 -> tensor<64x1xi32>
  %c64_row = tile.splat %c64 : i32 -> tensor<1x64xi32>
  // Row-major offsets r * 64 + c, and their transpose c * 64 + r (K^T).
  %row_off = arith.muli %rows, %c64_col : tensor<64x1xi32>
  %row_off_b = tile.broadcast %row_off : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols_b = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %row_off_b, %cols_b : tensor<64x64xi32>
  %col_off = arith.muli %cols, %c64_row : tensor<1x64xi32>
  %col_off_b = tile.broadcast %col_off : tensor<1x64xi32> -> tensor<64x64xi32>
  %rows_b = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %offs_t = arith.addi %col_off_b, %rows_b : tensor<64x64xi32>

  %q_base = tile.splat %q : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %q_ptrs = tile.addptr %q_base, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %q_tile = tile.load %q_ptrs : tensor<64x64x!tile.ptr<f16>>
  %k_base = tile.splat %k : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %k_ptrs0 = tile.addptr %k_base, %offs_t : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %v_base = tile.splat %v : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %v_ptrs0 = tile.addptr %v_base, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>

  // Each iteration takes the next 64 keys and values.
  %step = tile.splat %c4096 : i32 -> tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %half = arith.constant dense<0.5> : tensor<64x64xf32>
  %acc, %k_end, %v_end = scf.for %i = %c0 to %n step %c64
      iter_args(%o_in = %zero, %k_ptrs = %k_ptrs0, %v_ptrs = %v_ptrs0)
      -> (tensor<64x64xf32>, tensor<64x64x!tile.ptr<f16>>, tensor<64x64x!tile.ptr<f16>>) : i32 {
    %k_tile = tile.load %k_ptrs : tensor<64x64x!tile.ptr<f16>>
    %s = tile.dot %q_tile, %k_tile, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %e = math.exp2 %s : tensor<64x64xf32>
    %p = arith.truncf %e : tensor<64x64xf32> to tensor<64x64xf16>
    %o_scaled = arith.mulf %o_in, %half : tensor<64x64xf32>
    %v_tile = tile.load %v_ptrs : tensor<64x64x!tile.ptr<f16>>
    %o_out = tile.dot %p, %v_tile, %o_scaled : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %k_next = tile.addptr %k_ptrs, %step : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %v_next = tile.addptr %v_ptrs, %step : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    scf.yield %o_out, %k_next, %v_next : tensor<64x64xf32>, tensor<64x64x!tile.ptr<f16>>, tensor<64x64x!tile.ptr<f16>>
  }

  %o_base = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %o_ptrs = tile.addptr %o_base, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %o_ptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
