// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}

// A 32x64 f16 tile is transposed through shared memory (st.shared /
// ld.shared between barriers) and stored as 64x32; a reshape to 2048
// elements and a cumulative sum (scan) of a 128-element i32 slice follow.
// CHECK: .entry transpose
// CHECK: st.shared
// CHECK: bar.sync 0
// CHECK: ld.shared
func.func @transpose(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %y: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %flat: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %counts: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                     %cumsum: !tile.ptr<i32> {tile.divisibility = 16 : i32}) {
  %r32 = tile.make_range 0 to 32 : tensor<32xi32>
  %r64 = tile.make_range 0 to 64 : tensor<64xi32>
  // x is 32x64 row-major.
  %rows = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %row_off = arith.muli %rows, %c64 : tensor<32x1xi32>
  %row_off_b = tile.broadcast %row_off : tensor<32x1xi32> -> tensor<32x64xi32>
  %cols = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cols_b = tile.broadcast %cols : tensor<1x64xi32> -> tensor<32x64xi32>
  %offs = arith.addi %row_off_b, %cols_b : tensor<32x64xi32>
  %x_base = tile.splat %x : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %x_ptrs = tile.addptr %x_base, %offs : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %v = tile.load %x_ptrs : tensor<32x64x!tile.ptr<f16>>
  %t = tile.trans %v {order = array<i32: 1, 0>} : tensor<32x64xf16> -> tensor<64x32xf16>
  // y is 64x32 row-major.
  %t_rows = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %t_row_off = arith.muli %t_rows, %c32 : tensor<64x1xi32>
  %t_row_off_b = tile.broadcast %t_row_off : tensor<64x1xi32> -> tensor<64x32xi32>
  %t_cols = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %t_cols_b = tile.broadcast %t_cols : tensor<1x32xi32> -> tensor<64x32xi32>
  %t_offs = arith.addi %t_row_off_b, %t_cols_b : tensor<64x32xi32>
  %y_base = tile.splat %y : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %y_ptrs = tile.addptr %y_base, %t_offs : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  tile.store %y_ptrs, %t : tensor<64x32x!tile.ptr<f16>>
  // The tile flattened (row-major order).
  %f = tile.reshape %v : tensor<32x64xf16> -> tensor<2048xf16>
  %r2048 = tile.make_range 0 to 2048 : tensor<2048xi32>
  %f_base = tile.splat %flat : !tile.ptr<f16> -> tensor<2048x!tile.ptr<f16>>
  %f_ptrs = tile.addptr %f_base, %r2048 : tensor<2048x!tile.ptr<f16>>, tensor<2048xi32>
  tile.store %f_ptrs, %f : tensor<2048x!tile.ptr<f16>>
  // Inclusive prefix sum of 128 counts.
  %r128 = tile.make_range 0 to 128 : tensor<128xi32>
  %c_base = tile.splat %counts : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %c_ptrs = tile.addptr %c_base, %r128 : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %c = tile.load %c_ptrs : tensor<128x!tile.ptr<i32>>
  %s = tile.scan %c axis = 0 : tensor<128xi32> {
  ^bb0(%a: i32, %b: i32):
    %sum = arith.addi %a, %b : i32
    tile.scan.return %sum : i32
  }
  %s_base = tile.splat %cumsum : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %s_ptrs = tile.addptr %s_base, %r128 : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  tile.store %s_ptrs, %s : tensor<128x!tile.ptr<i32>>
  return
}
