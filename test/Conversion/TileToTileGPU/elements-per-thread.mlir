// A tensor puts at most 1024 elements in each thread (tile::kMaxElementsPerThread):
// its elements over the program's 32 * num-warps threads. convert-tile-to-tilegpu
// refuses more before choosing layouts, at the op that makes the tensor (a splat
// constant only when no other op is over), naming the num-warps that would hold it.
// RUN: tilelang-opt %s --convert-tile-to-tilegpu=num-warps=1 -split-input-file -verify-diagnostics | FileCheck %s

// 1024 a thread at one warp: accepted, in any shape.
// CHECK-LABEL: func @at_the_limit
// CHECK: tensor<32768xi32, #
// CHECK: tensor<64x512xf32, #
func.func @at_the_limit(%x: f32) {
  %r = tile.make_range 0 to 32768 : tensor<32768xi32>
  %s = tile.splat %x : f32 -> tensor<64x512xf32>
  return
}

// -----

func.func @over_the_limit(%x: f32) {
  // expected-error @+1 {{this 'tensor<65536xi32>' puts 2048 elements in each thread at num_warps=1 (65536 elements over 32 threads), more than the 1024 one tensor may put in a thread}}
  %r = tile.make_range 0 to 65536 : tensor<65536xi32>
  return
}

// -----

// The constant is hoisted to the top; the add is where the shape was chosen.
func.func @past_the_constant(%x: tensor<128x1024xf32>) {
  %c = arith.constant dense<2.0> : tensor<128x1024xf32>
  // expected-error @+1 {{launch with num_warps=4 or more, use a smaller block, or loop over smaller blocks}}
  %s = arith.addf %x, %c : tensor<128x1024xf32>
  return
}

// -----

// Nothing but the constant is over: it is named.
func.func @only_a_constant() {
  // expected-error @+1 {{this 'tensor<1048576xf32>' puts 32768 elements in each thread at num_warps=1 (1048576 elements over 32 threads)}}
  %c = arith.constant dense<2.0> : tensor<1048576xf32>
  return
}

// -----

// Block arguments count: a function's.
// expected-error @+1 {{an argument 'tensor<65536xf32>' puts 2048 elements in each thread}}
func.func @argument(%x: tensor<65536xf32>) {
  return
}

// -----

// The loop is visited before the function whose argument starts it; its
// results come before its block's arguments.
func.func @carried(%init: tensor<65536xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{this 'tensor<65536xf32>' puts 2048 elements in each thread}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<65536xf32>) : i32 {
    scf.yield %acc : tensor<65536xf32>
  }
  return
}
