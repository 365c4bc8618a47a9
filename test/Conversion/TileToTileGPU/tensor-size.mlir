// Tensors hold at most 2^20 elements (Triton's cap): the lowering refuses
// larger ones, at the op that makes them, before distributing them. (At 32
// warps a tensor of 2^20 elements puts the most a thread may hold in each:
// elements-per-thread.mlir.)
// RUN: tilelang-opt %s --convert-tile-to-tilegpu=num-warps=32 -split-input-file -verify-diagnostics | FileCheck %s

// 2^20 elements are accepted.
// CHECK-LABEL: func @at_the_cap
// CHECK: tensor<1024x1024xf32, #
func.func @at_the_cap(%p: !tile.ptr<f32>) {
  %c = arith.constant dense<1.0> : tensor<1024x1024xf32>
  %s = "tile.reduce"(%c) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.reduce.return %t : f32
  }) : (tensor<1024x1024xf32>) -> tensor<1024xf32>
  return
}

// -----

// One more doubling is refused.
func.func @over_the_cap(%x: f32) {
  // expected-error @+1 {{'tensor<2048x1024xf32>' has more than 1048576 (2^20) elements, the most a tensor may hold}}
  %s = tile.splat %x : f32 -> tensor<2048x1024xf32>
  return
}

// -----

// Extents whose product overflows 64 bits are refused too.
func.func @overflowing(%x: f32) {
  // expected-error @+1 {{'tensor<4611686018427387904x4xf32>' has more than 1048576 (2^20) elements}}
  %s = tile.splat %x : f32 -> tensor<4611686018427387904x4xf32>
  return
}

// -----

// Block arguments count: a loop carrying a large tensor.
func.func @carried(%init: tensor<2097152xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{'tensor<2097152xf32>' has more than 1048576 (2^20) elements}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<2097152xf32>) : i32 {
    scf.yield %acc : tensor<2097152xf32>
  }
  return
}
