// Terminators and ops over tensors of different shapes keep each operand's
// own layout (regression: they were unified to the first operand's).
// RUN: tilelang-opt %s --convert-tile-to-tilegpu=num-warps=4 | tilelang-opt | FileCheck %s

// CHECK-DAG: #[[L1:.*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[L2:.*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]>

// CHECK-LABEL: func private @two_shapes
// CHECK-SAME: -> (tensor<1024xf32, #[[L1]]>, tensor<64x64xf32, #[[L2]]>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return
func.func private @two_shapes() -> (tensor<1024xf32>, tensor<64x64xf32>) {
  %a = arith.constant dense<1.0> : tensor<1024xf32>
  %b = arith.constant dense<2.0> : tensor<64x64xf32>
  return %a, %b : tensor<1024xf32>, tensor<64x64xf32>
}

// CHECK-LABEL: func private @loop_two_shapes
// CHECK: scf.for {{.*}} -> (tensor<1024xf32, #[[L1]]>, tensor<64x64xf32, #[[L2]]>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: scf.yield
func.func private @loop_two_shapes(%n: i32) -> (tensor<1024xf32>, tensor<64x64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = arith.constant dense<1.0> : tensor<1024xf32>
  %b = arith.constant dense<2.0> : tensor<64x64xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (tensor<1024xf32>, tensor<64x64xf32>) : i32 {
    %x2 = arith.addf %x, %x : tensor<1024xf32>
    %y2 = arith.mulf %y, %y : tensor<64x64xf32>
    scf.yield %x2, %y2 : tensor<1024xf32>, tensor<64x64xf32>
  }
  return %r#0, %r#1 : tensor<1024xf32>, tensor<64x64xf32>
}
