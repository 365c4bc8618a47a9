// convert-tile-to-tilegpu gives every tensor a layout: default blocked
// layouts for values built from scalars, derived layouts (slices, permuted
// and dot-operand layouts) elsewhere, and tilegpu.convert_layout where an op
// needs an operand in another layout.
// RUN: tilelang-opt %s --convert-tile-to-tilegpu="num-warps=4 target=sm_80" | FileCheck %s
// RUN: tilelang-opt %s --convert-tile-to-tilegpu="num-warps=8" | FileCheck %s --check-prefix=W8
// RUN: not tilelang-opt %s --convert-tile-to-tilegpu="num-warps=3" 2>&1 | FileCheck %s --check-prefix=ERR

// Default layouts with 4 warps. Lanes fill the fastest dimension first (one
// per element, up to 32); warps go along it too while it has elements left
// over, and the slowest dimension takes the remaining lanes and warps.
// CHECK-DAG: #[[B1D:.*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[B64X64:.*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]>
// CHECK-DAG: #[[B16X128:.*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK-DAG: #[[B128X16:.*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B64X1:.*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B64X32:.*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B3D:.*]] = #tilegpu.blocked<sizePerThread = [1, 1, 1], threadsPerWarp = [1, 1, 32], warpsPerCTA = [1, 2, 2], order = [2, 1, 0]>
// trans [2, 0, 1] of B3D: every field permuted, order renumbered.
// CHECK-DAG: #[[B3D_T:.*]] = #tilegpu.blocked<sizePerThread = [1, 1, 1], threadsPerWarp = [32, 1, 1], warpsPerCTA = [2, 1, 2], order = [0, 2, 1]>
// CHECK-DAG: #[[S64X64:.*]] = #tilegpu.slice<dim = 1, parent = #[[B64X64]]>
// CHECK-DAG: #[[S64X1:.*]] = #tilegpu.slice<dim = 1, parent = #[[B64X1]]>
// CHECK-DAG: #[[S64X32:.*]] = #tilegpu.slice<dim = 1, parent = #[[B64X32]]>
// CHECK-DAG: #[[S128X16:.*]] = #tilegpu.slice<dim = 1, parent = #[[B128X16]]>
// CHECK-DAG: #[[DOT_A:.*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[B64X64]]>
// CHECK-DAG: #[[DOT_B:.*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[B64X64]]>
// The pass records the warp count and target on the module.
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"}

// With 8 warps the extra warps go to the slowest dimension once the fastest
// one is covered; the target defaults to sm_90a.
// W8-DAG: #{{.*}} = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
// W8-DAG: #{{.*}} = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
// W8-DAG: #{{.*}} = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 4], order = [1, 0]>
// W8-DAG: #{{.*}} = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
// W8: module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"}

// A warp count that is not a power of two is rejected.
// ERR: error: num-warps must be a power of two from 1 to 32, got

// 1-D: 32 lanes and all warps along the only dimension.
// CHECK-LABEL: func @shape_1d
// CHECK-SAME: -> tensor<1024xf32, #[[B1D]]>
// CHECK: tile.splat %{{.*}} : f32 -> tensor<1024xf32, #[[B1D]]>
func.func @shape_1d(%x: f32) -> tensor<1024xf32> {
  %a = tile.splat %x : f32 -> tensor<1024xf32>
  return %a : tensor<1024xf32>
}

// 64x64: 32 lanes along dim 1 leave 2 chunks there, so 2 warps along each.
// CHECK-LABEL: func @shape_64x64
// CHECK: tile.splat %{{.*}} : f32 -> tensor<64x64xf32, #[[B64X64]]>
func.func @shape_64x64(%x: f32) -> tensor<64x64xf32> {
  %a = tile.splat %x : f32 -> tensor<64x64xf32>
  return %a : tensor<64x64xf32>
}

// 16x128: dim 1 has 4 chunks of 32, so all 4 warps go along it.
// CHECK-LABEL: func @shape_16x128
// CHECK: tile.splat %{{.*}} : f32 -> tensor<16x128xf32, #[[B16X128]]>
func.func @shape_16x128(%x: f32) -> tensor<16x128xf32> {
  %a = tile.splat %x : f32 -> tensor<16x128xf32>
  return %a : tensor<16x128xf32>
}

// 128x16: 16 lanes cover dim 1, the other 2 lanes and 4 warps take dim 0.
// CHECK-LABEL: func @shape_128x16
// CHECK: tile.splat %{{.*}} : f32 -> tensor<128x16xf32, #[[B128X16]]>
func.func @shape_128x16(%x: f32) -> tensor<128x16xf32> {
  %a = tile.splat %x : f32 -> tensor<128x16xf32>
  return %a : tensor<128x16xf32>
}

// Elementwise ops (arith, addptr, load) take their operands' layout.
// CHECK-LABEL: func @elementwise
// CHECK: %[[R:.*]] = tile.make_range 0 to 64 : tensor<64xi32, #[[B1D]]>
// CHECK: %[[N:.*]] = tile.splat %{{.*}} : i32 -> tensor<64xi32, #[[B1D]]>
// CHECK: %[[OFF:.*]] = arith.addi %[[R]], %[[N]] : tensor<64xi32, #[[B1D]]>
// CHECK: %[[M:.*]] = arith.cmpi slt, %[[OFF]], %[[N]] : tensor<64xi32, #[[B1D]]>
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %[[OFF]] : tensor<64x!tile.ptr<f32>, #[[B1D]]>, tensor<64xi32, #[[B1D]]>
// CHECK: %[[V:.*]] = tile.load %[[P]], %[[M]] : tensor<64x!tile.ptr<f32>, #[[B1D]]>
// CHECK: return %[[V]] : tensor<64xf32, #[[B1D]]>
func.func @elementwise(%p: !tile.ptr<f32>, %n: i32) -> tensor<64xf32> {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %nv = tile.splat %n : i32 -> tensor<64xi32>
  %off = arith.addi %r, %nv : tensor<64xi32>
  %m = arith.cmpi slt, %off, %nv : tensor<64xi32>
  %pv = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %ptrs = tile.addptr %pv, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %ptrs, %m : tensor<64x!tile.ptr<f32>>
  return %v : tensor<64xf32>
}

// A reduction's result is a slice of its operand's layout; an elementwise
// op then converts its other operands to the first one's layout; a full
// reduction gives a scalar.
// CHECK-LABEL: func @reduce
// CHECK: %[[X:.*]] = tile.splat %{{.*}} : f32 -> tensor<64x64xf32, #[[B64X64]]>
// CHECK: %[[S:.*]] = tile.reduce %[[X]] axis = 1 : tensor<64x64xf32, #[[B64X64]]> -> tensor<64xf32, #[[S64X64]]>
// CHECK: %[[Y:.*]] = tile.splat %{{.*}} : f32 -> tensor<64xf32, #[[B1D]]>
// CHECK: %[[YC:.*]] = tilegpu.convert_layout %[[Y]] : tensor<64xf32, #[[B1D]]> -> tensor<64xf32, #[[S64X64]]>
// CHECK: %[[SUM:.*]] = arith.addf %[[S]], %[[YC]] : tensor<64xf32, #[[S64X64]]>
// CHECK: tile.reduce %[[SUM]] axis = 0 : tensor<64xf32, #[[S64X64]]> -> f32
func.func @reduce(%x: f32) -> f32 {
  %a = tile.splat %x : f32 -> tensor<64x64xf32>
  %s = tile.reduce %a axis = 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.reduce.return %t : f32
  }
  %b = tile.splat %x : f32 -> tensor<64xf32>
  %c = arith.addf %s, %b : tensor<64xf32>
  %m = tile.reduce %c axis = 0 : tensor<64xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %u = arith.maxnumf %l, %r : f32
    tile.reduce.return %u : f32
  }
  return %m : f32
}

// expand_dims of a slice along its own dimension gives back the parent,
// with no conversion; broadcast keeps that layout.
// CHECK-LABEL: func @expand_slice
// CHECK: %[[X:.*]] = tile.splat %{{.*}} : f32 -> tensor<64x64xf32, #[[B64X64]]>
// CHECK: %[[S:.*]] = tile.reduce %[[X]] axis = 1 : tensor<64x64xf32, #[[B64X64]]> -> tensor<64xf32, #[[S64X64]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[E:.*]] = tile.expand_dims %[[S]] {axis = 1 : i32} : tensor<64xf32, #[[S64X64]]> -> tensor<64x1xf32, #[[B64X64]]>
// CHECK: %[[B:.*]] = tile.broadcast %[[E]] : tensor<64x1xf32, #[[B64X64]]> -> tensor<64x64xf32, #[[B64X64]]>
// CHECK: arith.subf %[[X]], %[[B]] : tensor<64x64xf32, #[[B64X64]]>
func.func @expand_slice(%x: f32) -> tensor<64x64xf32> {
  %a = tile.splat %x : f32 -> tensor<64x64xf32>
  %s = tile.reduce %a axis = 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.reduce.return %t : f32
  }
  %e = tile.expand_dims %s {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %b = tile.broadcast %e : tensor<64x1xf32> -> tensor<64x64xf32>
  %d = arith.subf %a, %b : tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// expand_dims of a blocked tensor converts it to the slice of the result's
// default layout first; broadcast keeps the 64x1 layout rather than taking
// the 64x64 default.
// CHECK-LABEL: func @expand_blocked
// CHECK: %[[R:.*]] = tile.make_range 0 to 64 : tensor<64xi32, #[[B1D]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[R]] : tensor<64xi32, #[[B1D]]> -> tensor<64xi32, #[[S64X1]]>
// CHECK: %[[E:.*]] = tile.expand_dims %[[C]] {axis = 1 : i32} : tensor<64xi32, #[[S64X1]]> -> tensor<64x1xi32, #[[B64X1]]>
// CHECK: tile.broadcast %[[E]] : tensor<64x1xi32, #[[B64X1]]> -> tensor<64x64xi32, #[[B64X1]]>
func.func @expand_blocked() -> tensor<64x64xi32> {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %e = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %b = tile.broadcast %e : tensor<64x1xi32> -> tensor<64x64xi32>
  return %b : tensor<64x64xi32>
}

// trans permutes a blocked layout: field d of the result is field order[d]
// of the source, and the order lists the same dimensions renumbered.
// CHECK-LABEL: func @trans
// CHECK: %[[X:.*]] = tile.splat %{{.*}} : f32 -> tensor<2x4x64xf32, #[[B3D]]>
// CHECK: tile.trans %[[X]] {order = array<i32: 2, 0, 1>} : tensor<2x4x64xf32, #[[B3D]]> -> tensor<64x2x4xf32, #[[B3D_T]]>
func.func @trans(%x: f32) -> tensor<64x2x4xf32> {
  %a = tile.splat %x : f32 -> tensor<2x4x64xf32>
  %t = tile.trans %a {order = array<i32: 2, 0, 1>} : tensor<2x4x64xf32> -> tensor<64x2x4xf32>
  return %t : tensor<64x2x4xf32>
}

// dot keeps the accumulator's layout and converts A and B to dot operands
// of it.
// CHECK-LABEL: func @dot
// CHECK: %[[A:.*]] = tile.splat %{{.*}} : f16 -> tensor<64x32xf16, #[[B64X32]]>
// CHECK: %[[B:.*]] = tile.splat %{{.*}} : f16 -> tensor<32x64xf16, #[[B64X64]]>
// CHECK: %[[C:.*]] = tile.splat %{{.*}} : f32 -> tensor<64x64xf32, #[[B64X64]]>
// CHECK: %[[AC:.*]] = tilegpu.convert_layout %[[A]] : tensor<64x32xf16, #[[B64X32]]> -> tensor<64x32xf16, #[[DOT_A]]>
// CHECK: %[[BC:.*]] = tilegpu.convert_layout %[[B]] : tensor<32x64xf16, #[[B64X64]]> -> tensor<32x64xf16, #[[DOT_B]]>
// CHECK: tile.dot %[[AC]], %[[BC]], %[[C]] : tensor<64x32xf16, #[[DOT_A]]> * tensor<32x64xf16, #[[DOT_B]]> -> tensor<64x64xf32, #[[B64X64]]>
func.func @dot(%x: f16, %y: f32) -> tensor<64x64xf32> {
  %a = tile.splat %x : f16 -> tensor<64x32xf16>
  %b = tile.splat %x : f16 -> tensor<32x64xf16>
  %c = tile.splat %y : f32 -> tensor<64x64xf32>
  %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// Loop-carried values take their init's layout; a body value in another
// layout is converted back before the yield.
// CHECK-LABEL: func @loop
// CHECK: %[[INIT:.*]] = tile.splat %{{.*}} : f32 -> tensor<64xf32, #[[B1D]]>
// CHECK: %[[RES:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<64xf32, #[[B1D]]>)
// CHECK: %[[S:.*]] = tile.reduce %{{.*}} axis = 1 : tensor<64x32xf32, #[[B64X32]]> -> tensor<64xf32, #[[S64X32]]>
// CHECK: %[[ACCC:.*]] = tilegpu.convert_layout %[[ACC]] : tensor<64xf32, #[[B1D]]> -> tensor<64xf32, #[[S64X32]]>
// CHECK: %[[NEXT:.*]] = arith.addf %[[S]], %[[ACCC]] : tensor<64xf32, #[[S64X32]]>
// CHECK: %[[Y:.*]] = tilegpu.convert_layout %[[NEXT]] : tensor<64xf32, #[[S64X32]]> -> tensor<64xf32, #[[B1D]]>
// CHECK: scf.yield %[[Y]] : tensor<64xf32, #[[B1D]]>
// CHECK: return %[[RES]] : tensor<64xf32, #[[B1D]]>
func.func @loop(%x: f32, %n: i32) -> tensor<64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = tile.splat %x : f32 -> tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64xf32>) : i32 {
    %a = tile.splat %x : f32 -> tensor<64x32xf32>
    %s = tile.reduce %a axis = 1 : tensor<64x32xf32> -> tensor<64xf32> {
    ^bb0(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      tile.reduce.return %t : f32
    }
    %next = arith.addf %s, %acc : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// scf.if results take the then-branch's layouts; the else branch converts
// to them (64x16 has the same default layout as 128x16).
// CHECK-LABEL: func @branch
// CHECK: %[[RES:.*]] = scf.if %{{.*}} -> (tensor<64xf32, #[[B1D]]>)
// CHECK: %[[T:.*]] = tile.splat %{{.*}} : f32 -> tensor<64xf32, #[[B1D]]>
// CHECK: scf.yield %[[T]] : tensor<64xf32, #[[B1D]]>
// CHECK: } else {
// CHECK: %[[S:.*]] = tile.reduce %{{.*}} axis = 1 : tensor<64x16xf32, #[[B128X16]]> -> tensor<64xf32, #[[S128X16]]>
// CHECK: %[[E:.*]] = tilegpu.convert_layout %[[S]] : tensor<64xf32, #[[S128X16]]> -> tensor<64xf32, #[[B1D]]>
// CHECK: scf.yield %[[E]] : tensor<64xf32, #[[B1D]]>
// CHECK: return %[[RES]] : tensor<64xf32, #[[B1D]]>
func.func @branch(%c: i1, %x: f32) -> tensor<64xf32> {
  %r = scf.if %c -> (tensor<64xf32>) {
    %a = tile.splat %x : f32 -> tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  } else {
    %a = tile.splat %x : f32 -> tensor<64x16xf32>
    %s = tile.reduce %a axis = 1 : tensor<64x16xf32> -> tensor<64xf32> {
    ^bb0(%l: f32, %r: f32):
      %t = arith.addf %l, %r : f32
      tile.reduce.return %t : f32
    }
    scf.yield %s : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// A dense splat constant is re-typed with the default layout, keeping its
// value.
// CHECK-LABEL: func @constant
// CHECK: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<128xf32, #[[B1D]]>
// CHECK: return %[[C]] : tensor<128xf32, #[[B1D]]>
func.func @constant() -> tensor<128xf32> {
  %c = arith.constant dense<1.0> : tensor<128xf32>
  return %c : tensor<128xf32>
}
