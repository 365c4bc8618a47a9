// tilegpu-pipeline with two wgmma products chained through their
// accumulator: the first reads a buffer of the iteration (a copy of a tensor
// computed in the loop), the second reads only stages and is carried in
// flight across the back edge. The first product's only reader is the
// second, which accumulates into its result in flight, so no reader waits
// for it; it must still be retired before the back edge, because the next
// iteration stores its new tensor into the same buffer. A wait before the
// yield retires it and leaves the newer, carried product in flight.
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=3 target=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @chain_kernel
// CHECK: scf.for
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, {{.*}}>) -> !tilegpu.memdesc<64x64xf16, #shared>
// CHECK-NEXT: %[[FIRST:.*]] = tilegpu.warp_group_dot %{{.*}}, %[[BUF]], %{{.*}} {isAsync}
// CHECK: %[[SECOND:.*]] = tilegpu.warp_group_dot %{{.*}}, %{{.*}}, %[[FIRST]] {isAsync}
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: %[[RETIRED:.*]] = tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: scf.yield %[[RETIRED]],
// CHECK: tilegpu.warp_group_dot_wait %{{.*}}#0 {pendings = 0 : i32}
func.func @chain_kernel(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                        %o: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c4096 = arith.constant 4096 : i32
  %r64 = tile.make_range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c64_col = tile.splat %c64 : i32 -> tensor<64x1xi32>
  %row_off = arith.muli %rows, %c64_col : tensor<64x1xi32>
  %row_off_b = tile.broadcast %row_off : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols_b = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %row_off_b, %cols_b : tensor<64x64xi32>
  %a_base = tile.splat %a : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %a_ptrs0 = tile.addptr %a_base, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %b_base = tile.splat %b : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %b_ptrs0 = tile.addptr %b_base, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %c_base = tile.splat %c : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %c_ptrs = tile.addptr %c_base, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %step = tile.splat %c4096 : i32 -> tensor<64x64xi32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %a_end, %b_end = scf.for %i = %c0 to %n step %c64
      iter_args(%acc_in = %zero, %a_ptrs = %a_ptrs0, %b_ptrs = %b_ptrs0)
      -> (tensor<64x64xf32>, tensor<64x64x!tile.ptr<f16>>, tensor<64x64x!tile.ptr<f16>>) : i32 {
    %a_tile = tile.load %a_ptrs : tensor<64x64x!tile.ptr<f16>>
    %b_tile = tile.load %b_ptrs : tensor<64x64x!tile.ptr<f16>>
    %c_tile = tile.load %c_ptrs : tensor<64x64x!tile.ptr<f16>>
    %b2 = arith.addf %c_tile, %c_tile : tensor<64x64xf16>
    %acc1 = tile.dot %a_tile, %b2, %acc_in : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %acc2 = tile.dot %a_tile, %b_tile, %acc1 : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %a_next = tile.addptr %a_ptrs, %step : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %b_next = tile.addptr %b_ptrs, %step : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    scf.yield %acc2, %a_next, %b_next : tensor<64x64xf32>, tensor<64x64x!tile.ptr<f16>>, tensor<64x64x!tile.ptr<f16>>
  }
  %o_base = tile.splat %o : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %o_ptrs = tile.addptr %o_base, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %o_ptrs, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
