// tilegpu-pipeline does not defer a product whose accumulator is read by an
// op with memory effects: deferring moves the accumulator's readers to the
// end of the body, past the iteration's other memory operations. The loop of
// pipeline-two-products.mlir, whose rescaled O is also stored in the loop.
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=3 target=sm_90a" | FileCheck %s

// P V stays carried in flight: the wait before the softmax retires S and the
// previous P V together, and no product is issued after the loop.
// CHECK-LABEL: func.func @rescale_with_a_store_kernel
// CHECK: scf.for
// CHECK: tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}}, %{{.*}} {pendings = 0 : i32}
// CHECK-NOT: {pendings = 1 : i32}
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}}#0 {pendings = 0 : i32}

func.func @rescale_with_a_store_kernel(%q: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
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
    %dbg_base = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
    %dbg_ptrs = tile.addptr %dbg_base, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
    tile.store %dbg_ptrs, %o_scaled : tensor<64x64x!tile.ptr<f32>>
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
