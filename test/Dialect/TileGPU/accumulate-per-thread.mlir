// tilegpu-accumulate-per-thread carries a loop accumulator that is only
// combined elementwise and reduced afterwards as one partial per thread
// (tilegpu.thread_reduce), and leaves every other loop-carried tensor alone.
// RUN: tilelang-opt %s --tilegpu-accumulate-per-thread | FileCheck %s

// CHECK-DAG: #[[B8:.*]] = #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[P8:.*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[B2:.*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
// CHECK-DAG: #[[P2:.*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
// CHECK-DAG: #[[S2:.*]] = #tilegpu.slice<dim = 1, parent = #[[B2]]>

#b8 = #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#s2 = #tilegpu.slice<dim = 1, parent = #b2>

module attributes {tilegpu.num_warps = 4 : i32} {
  // A sum in blocks of 2048 (16 elements per thread): the initial zeros and
  // each block are combined per thread; the loop carries 128 partials and
  // the reduce after it combines them.
  // CHECK-LABEL: func.func @row_sum
  // CHECK: %[[INIT:.*]] = tilegpu.thread_reduce %{{.*}} axis = 0 : tensor<2048xf32, #[[B8]]> -> tensor<128xf32, #[[P8]]> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
  // CHECK-NEXT: tilegpu.thread_reduce.return %[[S]] : f32
  // CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<128xf32, #[[P8]]>)
  // CHECK: %[[X:.*]] = arith.extf
  // CHECK: %[[PX:.*]] = tilegpu.thread_reduce %[[X]] axis = 0 : tensor<2048xf32, #[[B8]]> -> tensor<128xf32, #[[P8]]>
  // CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[PX]] : tensor<128xf32, #[[P8]]>
  // CHECK: scf.yield %[[NEXT]] : tensor<128xf32, #[[P8]]>
  // CHECK: tile.reduce %[[R]] axis = 0 : tensor<128xf32, #[[P8]]> -> f32
  func.func @row_sum(%x: !tile.ptr<f16>, %out: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %step = arith.constant 2048 : i32
    %zeros = arith.constant dense<0.0> : tensor<2048xf32, #b8>
    %range = tile.make_range 0 to 2048 : tensor<2048xi32, #b8>
    %base = tile.splat %x : !tile.ptr<f16> -> tensor<2048x!tile.ptr<f16>, #b8>
    %r = scf.for %i = %c0 to %n step %step iter_args(%acc = %zeros) -> (tensor<2048xf32, #b8>) : i32 {
      %iv = tile.splat %i : i32 -> tensor<2048xi32, #b8>
      %cols = arith.addi %iv, %range : tensor<2048xi32, #b8>
      %ptrs = tile.addptr %base, %cols : tensor<2048x!tile.ptr<f16>, #b8>, tensor<2048xi32, #b8>
      %h = tile.load %ptrs : tensor<2048x!tile.ptr<f16>, #b8>
      %v = arith.extf %h : tensor<2048xf16, #b8> to tensor<2048xf32, #b8>
      %next = arith.addf %acc, %v : tensor<2048xf32, #b8>
      scf.yield %next : tensor<2048xf32, #b8>
    }
    %s = tile.reduce %r axis = 0 : tensor<2048xf32, #b8> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tile.reduce.return %t : f32
    }
    tile.store %out, %s : !tile.ptr<f32>
    return
  }

  // A 2-D maximum along the rows, the accumulator on the right of the
  // combine: 64 columns over 8 lanes and 2 warps leave 16 partials per row;
  // the reduce still gives the row layout its users expect.
  // CHECK-LABEL: func.func @row_max
  // CHECK: tilegpu.thread_reduce %{{.*}} axis = 1 : tensor<32x64xf32, #[[B2]]> -> tensor<32x16xf32, #[[P2]]>
  // CHECK: scf.for {{.*}} -> (tensor<32x16xf32, #[[P2]]>)
  // CHECK: %[[PV:.*]] = tilegpu.thread_reduce %{{.*}} axis = 1 : tensor<32x64xf32, #[[B2]]> -> tensor<32x16xf32, #[[P2]]>
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: arith.maxnumf
  // CHECK-NEXT: tilegpu.thread_reduce.return
  // CHECK-NEXT: }
  // CHECK-NEXT: arith.maxnumf %[[PV]], %{{.*}} : tensor<32x16xf32, #[[P2]]>
  // CHECK: tile.reduce %{{.*}} axis = 1 : tensor<32x16xf32, #[[P2]]> -> tensor<32xf32, #[[S2]]>
  func.func @row_max(%x: tensor<32x64x!tile.ptr<f32>, #b2>, %out: tensor<32x!tile.ptr<f32>, #s2>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ninf = arith.constant dense<0xFF800000> : tensor<32x64xf32, #b2>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %ninf) -> (tensor<32x64xf32, #b2>) : i32 {
      %v = tile.load %x : tensor<32x64x!tile.ptr<f32>, #b2>
      %next = arith.maxnumf %v, %acc : tensor<32x64xf32, #b2>
      scf.yield %next : tensor<32x64xf32, #b2>
    }
    %m = tile.reduce %r axis = 1 : tensor<32x64xf32, #b2> -> tensor<32xf32, #s2> {
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      tile.reduce.return %t : f32
    }
    tile.store %out, %m : tensor<32x!tile.ptr<f32>, #s2>
    return
  }

  // Integer sums are exact under any order: rewritten too.
  // CHECK-LABEL: func.func @count
  // CHECK: scf.for {{.*}} -> (tensor<128xi32, #[[P8]]>)
  // CHECK: arith.addi %{{.*}}, %{{.*}} : tensor<128xi32, #[[P8]]>
  func.func @count(%x: tensor<1024x!tile.ptr<i32>, #b8>, %out: !tile.ptr<i32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zeros = arith.constant dense<0> : tensor<1024xi32, #b8>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zeros) -> (tensor<1024xi32, #b8>) : i32 {
      %v = tile.load %x : tensor<1024x!tile.ptr<i32>, #b8>
      %next = arith.addi %acc, %v : tensor<1024xi32, #b8>
      scf.yield %next : tensor<1024xi32, #b8>
    }
    %s = tile.reduce %r axis = 0 : tensor<1024xi32, #b8> -> i32 {
    ^bb0(%a: i32, %b: i32):
      %t = arith.addi %a, %b : i32
      tile.reduce.return %t : i32
    }
    tile.store %out, %s : !tile.ptr<i32>
    return
  }

  // Left alone: the accumulator is also stored in the loop; the loop sums
  // but the reduce takes the maximum; the combines differ in fastmath
  // flags; each thread holds one element along the axis; the loop's result
  // has a second user.
  // CHECK-LABEL: func.func @kept
  // CHECK-NOT: tilegpu.thread_reduce
  // CHECK: return
  func.func @kept(%x: tensor<1024x!tile.ptr<f32>, #b8>, %y: tensor<128x!tile.ptr<f32>, #b1>,
                  %out: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zeros = arith.constant dense<0.0> : tensor<1024xf32, #b8>
    %zeros1 = arith.constant dense<0.0> : tensor<128xf32, #b1>
    %stored = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zeros) -> (tensor<1024xf32, #b8>) : i32 {
      %v = tile.load %x : tensor<1024x!tile.ptr<f32>, #b8>
      tile.store %x, %acc : tensor<1024x!tile.ptr<f32>, #b8>
      %next = arith.addf %acc, %v : tensor<1024xf32, #b8>
      scf.yield %next : tensor<1024xf32, #b8>
    }
    %s0 = tile.reduce %stored axis = 0 : tensor<1024xf32, #b8> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tile.reduce.return %t : f32
    }
    tile.store %out, %s0 : !tile.ptr<f32>
    %mixed = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zeros) -> (tensor<1024xf32, #b8>) : i32 {
      %v = tile.load %x : tensor<1024x!tile.ptr<f32>, #b8>
      %next = arith.addf %acc, %v : tensor<1024xf32, #b8>
      scf.yield %next : tensor<1024xf32, #b8>
    }
    %s1 = tile.reduce %mixed axis = 0 : tensor<1024xf32, #b8> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      tile.reduce.return %t : f32
    }
    tile.store %out, %s1 : !tile.ptr<f32>
    %flags = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zeros) -> (tensor<1024xf32, #b8>) : i32 {
      %v = tile.load %x : tensor<1024x!tile.ptr<f32>, #b8>
      %next = arith.addf %acc, %v fastmath<fast> : tensor<1024xf32, #b8>
      scf.yield %next : tensor<1024xf32, #b8>
    }
    %s2 = tile.reduce %flags axis = 0 : tensor<1024xf32, #b8> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tile.reduce.return %t : f32
    }
    tile.store %out, %s2 : !tile.ptr<f32>
    %single = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zeros1) -> (tensor<128xf32, #b1>) : i32 {
      %v = tile.load %y : tensor<128x!tile.ptr<f32>, #b1>
      %next = arith.addf %acc, %v : tensor<128xf32, #b1>
      scf.yield %next : tensor<128xf32, #b1>
    }
    %s3 = tile.reduce %single axis = 0 : tensor<128xf32, #b1> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tile.reduce.return %t : f32
    }
    tile.store %out, %s3 : !tile.ptr<f32>
    %twice = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zeros) -> (tensor<1024xf32, #b8>) : i32 {
      %v = tile.load %x : tensor<1024x!tile.ptr<f32>, #b8>
      %next = arith.addf %acc, %v : tensor<1024xf32, #b8>
      scf.yield %next : tensor<1024xf32, #b8>
    }
    %s4 = tile.reduce %twice axis = 0 : tensor<1024xf32, #b8> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tile.reduce.return %t : f32
    }
    tile.store %out, %s4 : !tile.ptr<f32>
    tile.store %x, %twice : tensor<1024x!tile.ptr<f32>, #b8>
    return
  }
}
