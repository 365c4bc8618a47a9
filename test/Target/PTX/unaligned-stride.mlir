// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s

// A 2-D tile whose row stride has no known alignment: rows are contiguous
// but may start anywhere, so accesses stay scalar. (Regression: 16-byte
// vectors were chosen here and faulted with a misaligned address.)
// CHECK: .entry unaligned_rows
// CHECK-NOT: .v4
// CHECK-NOT: .v2
// CHECK: ld.global
func.func @unaligned_rows(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %stride: i32) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %stride_v = tile.splat %stride : i32 -> tensor<64x1xi32>
  %row_off = arith.muli %rows, %stride_v : tensor<64x1xi32>
  %row_off_b = tile.broadcast %row_off : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cols_b = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %row_off_b, %cols_b : tensor<64x64xi32>
  %pb = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %pp = tile.addptr %pb, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %v = tile.load %pp : tensor<64x64x!tile.ptr<f16>>
  %qb = tile.splat %q : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %qp = tile.addptr %qb, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  tile.store %qp, %v : tensor<64x64x!tile.ptr<f16>>
  return
}
