// tilegpu-pipeline's overlap-products option on the loop of flash attention
// reduced to its dependences (S = Q K^T from a Q block that does not change,
// P = f(S), a rescale of the running O, O += P V): the first product is
// issued one iteration ahead (canIssueFirstProductAhead), so that the
// softmax of S_j runs while the tensor cores compute the carried
// P_{j-1} V_{j-1} and S_{j+1}.
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=4 target=sm_90a overlap-products=true" | FileCheck %s --check-prefix=AHEAD
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=3 target=sm_90a overlap-products=true" | FileCheck %s --check-prefix=THREE

// Four stages. The copies run num_stages - 2 = 2 iterations ahead: the
// prologue copies stages 0 and 1; on the path that runs the loop, it waits
// for stage 0 alone (pending = 1) and a barrier, then issues S_0 from stage
// 0 and waits for it. The loop carries S after its own iter_args, complete.
// Each iteration waits for every copy group (the next stage's too: pending
// = 0), issues S_{j+1} from the next stage, then the copies, which refill
// the stage of iteration j - 2 (every thread retired its P V before the
// loop's first barrier: one barrier per iteration); runs the softmax of S_j
// with no wait (the tensor cores hold the previous P V and S_{j+1}); waits
// for both (pendings = 0: a wait that retires the P V carried in from the
// previous iteration leaves nothing pending, or ptxas serializes every
// wgmma, C7514) before the rescale of O, and issues P V into it. P V is
// yielded in flight, S_{j+1} through the wait, and the last P V is waited
// for on the loop's exit path.
// AHEAD-LABEL: func.func @two_products_kernel
// AHEAD: %[[Q:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, {{.*}}>) -> !tilegpu.memdesc<64x64xf16
// AHEAD: %[[K:.*]] = tilegpu.local_alloc  : () -> !tilegpu.memdesc<4x64x64xf16, #shared1, mutable>
// AHEAD: %[[V:.*]] = tilegpu.local_alloc  : () -> !tilegpu.memdesc<4x64x64xf16, #shared, mutable>
// AHEAD: %[[K0:.*]] = tilegpu.memdesc_index %[[K]][%c0_i32]
// AHEAD: tilegpu.async_commit_group
// AHEAD: tilegpu.async_commit_group
// AHEAD-NOT: tilegpu.async_commit_group
// AHEAD: scf.if
// AHEAD-NEXT: tilegpu.async_wait {pending = 1 : i32}
// AHEAD-NEXT: tilegpu.barrier
// AHEAD-NEXT: %[[S0:.*]] = tilegpu.warp_group_dot %[[Q]], %[[K0]], %[[ZERO:[^ ]*]] {isAsync}
// AHEAD-NEXT: %[[S0DONE:.*]] = tilegpu.warp_group_dot_wait %[[S0]] {pendings = 0 : i32}
// AHEAD-NEXT: scf.for {{.*}} iter_args(%[[O:[^ ]*]] = %[[ZERO]], %{{[^,]*}}, %{{[^,]*}}, %[[S:[^ ]*]] = %[[S0DONE]], {{.*}}, %[[READ:[^ ]*]] = %c0_i32, %[[WRITE:[^ ]*]] = %c2_i32)
// AHEAD-NEXT: tilegpu.async_wait {pending = 0 : i32}
// AHEAD-NEXT: tilegpu.barrier
// AHEAD-NEXT: %[[PLUS:.*]] = arith.addi %[[READ]], %c1_i32
// AHEAD-NEXT: %[[WRAPS:.*]] = arith.cmpi eq, %[[PLUS]], %c4_i32
// AHEAD-NEXT: %[[NEXT:.*]] = arith.select %[[WRAPS]], %c0_i32, %[[PLUS]]
// AHEAD-NEXT: %[[KNEXT:.*]] = tilegpu.memdesc_index %[[K]][%[[NEXT]]]
// AHEAD-NEXT: %[[SNEXT:.*]] = tilegpu.warp_group_dot %[[Q]], %[[KNEXT]], %[[ZERO]] {isAsync}
// AHEAD-NOT: tilegpu.barrier
// AHEAD: tilegpu.memdesc_index %[[K]][%[[WRITE]]]
// AHEAD: tilegpu.memdesc_index %[[V]][%[[WRITE]]]
// AHEAD: tilegpu.async_commit_group
// AHEAD-NOT: warp_group_dot
// AHEAD: math.exp2 %[[S]]
// AHEAD-NOT: warp_group_dot
// AHEAD: %[[W:.*]]:2 = tilegpu.warp_group_dot_wait %[[O]], %[[SNEXT]] {pendings = 0 : i32}
// AHEAD-NEXT: %[[SCALED:.*]] = arith.mulf %[[W]]#0
// AHEAD-NEXT: %[[VIEW:.*]] = tilegpu.memdesc_index %[[V]][%[[READ]]]
// AHEAD-NOT: warp_group_dot_wait
// AHEAD: %[[PV:.*]] = tilegpu.warp_group_dot %{{.*}}, %[[VIEW]], %[[SCALED]] {isAsync}
// AHEAD-NOT: tilegpu.barrier
// AHEAD-NOT: warp_group_dot
// AHEAD: scf.yield %[[PV]], %{{[^,]*}}, %{{[^,]*}}, %[[W]]#1, {{.*}}, %[[NEXT]], %{{[^ ]*}} :
// AHEAD: %[[DONE:.*]] = tilegpu.warp_group_dot_wait %{{.*}}#0 {pendings = 0 : i32}
// AHEAD-NEXT: scf.yield %[[DONE]]
// AHEAD: } else {
// AHEAD-NEXT: scf.yield %[[ZERO]]

// Three stages: the only stage the copies could refill is the previous
// P V's, after that product and a second barrier, and the next iteration
// would wait for them just issued; the loop defers P V as without the
// option (pipeline-two-products.mlir's DEFER: waits 1 then 0, nothing
// issued before the loop).
// THREE-LABEL: func.func @two_products_kernel
// THREE: scf.if
// THREE-NEXT: scf.for
// THREE-NOT: scf.yield
// THREE: warp_group_dot_wait {{.*}} {pendings = 1 : i32}
// THREE-NOT: scf.yield
// THREE: warp_group_dot_wait {{.*}} {pendings = 0 : i32}
// THREE: scf.yield

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

// The first product accumulates into a value the iteration computes (a
// bias from the induction variable): the next iteration's S depends on more
// than its stage, so it is not issued ahead (canIssueFirstProductAhead); P V
// is deferred as without the option (waits 1 then 0, nothing issued before
// the loop).
// AHEAD-LABEL: func.func @accumulator_of_the_iteration
// AHEAD: scf.if
// AHEAD-NEXT: scf.for
// AHEAD-NOT: scf.yield
// AHEAD: warp_group_dot_wait {{.*}} {pendings = 1 : i32}
// AHEAD-NOT: scf.yield
// AHEAD: warp_group_dot_wait {{.*}} {pendings = 0 : i32}
// AHEAD: scf.yield

func.func @accumulator_of_the_iteration(%q: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
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
    %i_f = arith.sitofp %i : i32 to f32
    %bias = tile.splat %i_f : f32 -> tensor<64x64xf32>
    %s = tile.dot %q_tile, %k_tile, %bias : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
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
