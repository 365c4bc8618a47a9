// tilegpu-coalesce gives each memory access a layout with up to 16 bytes per
// thread along its most contiguous dimension, as far as axis info proves
// contiguity and alignment, and spreads it over the values that feed it.
// RUN: tilelang-opt %s --convert-tile-to-tilegpu=num-warps=4 --tilegpu-coalesce --canonicalize --cse | FileCheck %s

// CHECK-DAG: #[[V4:.*]] = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[V8:.*]] = #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[V2:.*]] = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[V1:.*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[ROW:.*]] = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[COL:.*]] = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-DAG: #[[ROW_SLICE:.*]] = #tilegpu.slice<dim = 1, parent = #[[ROW]]>

// f32 with 16-byte aligned pointers and offsets: 4 elements (16 bytes) per
// thread, shared by the offsets, the mask, both loads, the sum and the store
// (each op uses the previous results directly: no conversions).
// CHECK-LABEL: func @add_f32
// CHECK: %[[R:.*]] = tile.make_range 0 to 1024 : tensor<1024xi32, #[[V4]]>
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %[[R]] : tensor<1024xi32, #[[V4]]>
// CHECK: %[[M:.*]] = arith.cmpi slt, %[[OFF]], %{{.*}} : tensor<1024xi32, #[[V4]]>
// CHECK: %[[XP:.*]] = tile.addptr %{{.*}}, %[[OFF]] : tensor<1024x!tile.ptr<f32>, #[[V4]]>, tensor<1024xi32, #[[V4]]>
// CHECK: %[[X:.*]] = tile.load %[[XP]], %[[M]] : tensor<1024x!tile.ptr<f32>, #[[V4]]>
// CHECK: %[[YP:.*]] = tile.addptr %{{.*}}, %[[OFF]] : tensor<1024x!tile.ptr<f32>, #[[V4]]>, tensor<1024xi32, #[[V4]]>
// CHECK: %[[Y:.*]] = tile.load %[[YP]], %[[M]] : tensor<1024x!tile.ptr<f32>, #[[V4]]>
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : tensor<1024xf32, #[[V4]]>
// CHECK: tile.store %[[YP]], %[[S]], %[[M]] : tensor<1024x!tile.ptr<f32>, #[[V4]]>
func.func @add_f32(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                   %n: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x : i32
  %c1024 = arith.constant 1024 : i32
  %start = arith.muli %pid, %c1024 : i32
  %r = tile.make_range 0 to 1024 : tensor<1024xi32>
  %sv = tile.splat %start : i32 -> tensor<1024xi32>
  %off = arith.addi %sv, %r : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %off, %nv : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %off : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %xv = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %off : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %yv = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>
  %s = arith.addf %xv, %yv : tensor<1024xf32>
  tile.store %yp, %s, %mask : tensor<1024x!tile.ptr<f32>>
  return
}

// f16: 16 bytes are 8 elements.
// CHECK-LABEL: func @copy_f16
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f16>, #[[V8]]>, tensor<1024xi32, #[[V8]]>
// CHECK: %[[V:.*]] = tile.load %[[P]] : tensor<1024x!tile.ptr<f16>, #[[V8]]>
// CHECK: tile.store %{{.*}}, %[[V]] : tensor<1024x!tile.ptr<f16>, #[[V8]]>
func.func @copy_f16(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %y: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0 to 1024 : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  %xp = tile.addptr %xb, %r : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f16>>
  %yb = tile.splat %y : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  %yp = tile.addptr %yb, %r : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  tile.store %yp, %v : tensor<1024x!tile.ptr<f16>>
  return
}

// Pointers with no known alignment: one element per access.
// CHECK-LABEL: func @copy_unaligned
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[V1]]>, tensor<1024xi32, #[[V1]]>
// CHECK: %[[V:.*]] = tile.load %[[P]] : tensor<1024x!tile.ptr<f32>, #[[V1]]>
// CHECK: tile.store %{{.*}}, %[[V]] : tensor<1024x!tile.ptr<f32>, #[[V1]]>
func.func @copy_unaligned(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 1024 : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %yp, %v : tensor<1024x!tile.ptr<f32>>
  return
}

// Small tensors keep every thread busy first: 256 f32 over 128 threads is 2
// per thread, and 64 f32 give each thread (at most) one.
// CHECK-LABEL: func @copy_small
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<256x!tile.ptr<f32>, #[[V2]]>, tensor<256xi32, #[[V2]]>
// CHECK: %[[V:.*]] = tile.load %[[P]] : tensor<256x!tile.ptr<f32>, #[[V2]]>
// CHECK: %[[Q:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>, #[[V1]]>, tensor<64xi32, #[[V1]]>
// CHECK: %[[W:.*]] = tile.load %[[Q]] : tensor<64x!tile.ptr<f32>, #[[V1]]>
// CHECK: tile.store %[[Q]], %[[W]] : tensor<64x!tile.ptr<f32>, #[[V1]]>
// CHECK: tile.store %[[P]], %[[V]] : tensor<256x!tile.ptr<f32>, #[[V2]]>
func.func @copy_small(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0 to 256 : tensor<256xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %xp : tensor<256x!tile.ptr<f32>>
  %r2 = tile.make_range 0 to 64 : tensor<64xi32>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %r2 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %w = tile.load %yp : tensor<64x!tile.ptr<f32>>
  tile.store %yp, %w : tensor<64x!tile.ptr<f32>>
  tile.store %xp, %v : tensor<256x!tile.ptr<f32>>
  return
}

// A row-major f16 tile, p + rows[:, None] * stride + cols[None, :], with a
// 16-aligned stride: 8 elements per thread along dim 1, lanes along dim 1
// first (order [1, 0]). The row sums are reduced in a slice of that layout,
// then converted for the 1-D store (64 elements: one per thread).
// CHECK-LABEL: func @row_major
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f16>, #[[ROW]]>, tensor<64x64xi32, #[[ROW]]>
// CHECK: %[[V:.*]] = tile.load %[[P]] : tensor<64x64x!tile.ptr<f16>, #[[ROW]]>
// CHECK: %[[F:.*]] = arith.extf %[[V]] : tensor<64x64xf16, #[[ROW]]> to tensor<64x64xf32, #[[ROW]]>
// CHECK: %[[S:.*]] = tile.reduce %[[F]] axis = 1 : tensor<64x64xf32, #[[ROW]]> -> tensor<64xf32, #[[ROW_SLICE]]>
// CHECK: %[[O:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>, #[[V1]]>, tensor<64xi32, #[[V1]]>
// CHECK: %[[SC:.*]] = tilegpu.convert_layout %[[S]] : tensor<64xf32, #[[ROW_SLICE]]> -> tensor<64xf32, #[[V1]]>
// CHECK: tile.store %[[O]], %[[SC]] : tensor<64x!tile.ptr<f32>, #[[V1]]>
func.func @row_major(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %stride: i32 {tile.divisibility = 16 : i32},
                     %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %re = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %sv = tile.splat %stride : i32 -> tensor<64x1xi32>
  %rs = arith.muli %re, %sv : tensor<64x1xi32>
  %rb = tile.broadcast %rs : tensor<64x1xi32> -> tensor<64x64xi32>
  %ce = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %pv = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %ptrs = tile.addptr %pv, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %v = tile.load %ptrs : tensor<64x64x!tile.ptr<f16>>
  %f = arith.extf %v : tensor<64x64xf16> to tensor<64x64xf32>
  %sum = tile.reduce %f axis = 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.reduce.return %t : f32
  }
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %ob, %rows : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %sum : tensor<64x!tile.ptr<f32>>
  return
}

// Column-major access, p + rows[:, None] + cols[None, :] * stride: contiguous
// along dim 0, so dim 0 comes first in the order and holds the 8 elements.
// CHECK-LABEL: func @col_major
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f16>, #[[COL]]>, tensor<64x64xi32, #[[COL]]>
// CHECK: %[[V:.*]] = tile.load %[[P]] : tensor<64x64x!tile.ptr<f16>, #[[COL]]>
// CHECK: tile.store %[[P]], %[[V]] : tensor<64x64x!tile.ptr<f16>, #[[COL]]>
func.func @col_major(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %stride: i32 {tile.divisibility = 16 : i32}) {
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %cols = tile.make_range 0 to 64 : tensor<64xi32>
  %re = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rb = tile.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
  %ce = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %sv = tile.splat %stride : i32 -> tensor<1x64xi32>
  %cs = arith.muli %ce, %sv : tensor<1x64xi32>
  %cb = tile.broadcast %cs : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %pv = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %ptrs = tile.addptr %pv, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %v = tile.load %ptrs : tensor<64x64x!tile.ptr<f16>>
  tile.store %ptrs, %v : tensor<64x64x!tile.ptr<f16>>
  return
}

// A K^T block (contiguous along dimension 0) and a V block (contiguous along
// dimension 1) of one size, whose offsets share a range, its expand_dims
// and a constant mask and `other` (as CSE leaves them): the shared index
// computations are copied per user, so that each load gets its own layout.
// CHECK-LABEL: func @shared_index_computations
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f16>, #[[COL]]>
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f16>, #[[ROW]]>
func.func @shared_index_computations(%k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                                     %v: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                                     %stride: i32 {tile.divisibility = 16 : i32},
                                     %valid: i1) -> (tensor<64x64xf16>, tensor<64x64xf16>) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %mask = tile.splat %valid : i1 -> tensor<64x64xi1>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf16>
  // K^T: element (d, n) at d + n * stride.
  %sc = tile.splat %stride : i32 -> tensor<1x64xi32>
  %kcols = arith.muli %cols, %sc : tensor<1x64xi32>
  %kr = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %kc = tile.broadcast %kcols : tensor<1x64xi32> -> tensor<64x64xi32>
  %koff = arith.addi %kr, %kc : tensor<64x64xi32>
  %kb = tile.splat %k : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %kp = tile.addptr %kb, %koff : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %kt = tile.load %kp, %mask, %zero : tensor<64x64x!tile.ptr<f16>>
  // V: element (n, d) at n * stride + d.
  %sr = tile.splat %stride : i32 -> tensor<64x1xi32>
  %vrows = arith.muli %rows, %sr : tensor<64x1xi32>
  %vr = tile.broadcast %vrows : tensor<64x1xi32> -> tensor<64x64xi32>
  %vc = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %voff = arith.addi %vr, %vc : tensor<64x64xi32>
  %vb = tile.splat %v : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %vp = tile.addptr %vb, %voff : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %vt = tile.load %vp, %mask, %zero : tensor<64x64x!tile.ptr<f16>>
  return %kt, %vt : tensor<64x64xf16>, tensor<64x64xf16>
}

// One row per program as RMSNorm's users write it: x at p + row * stride +
// cols (the stride's divisibility unknown, so 2-byte aligned), the weight at
// w + cols (16-byte aligned, 8 elements), all masked by cols < n with n of
// unknown divisibility, and y stored like x. The weight's pointers alone
// would ask for 8 elements per thread; but the mask changes at every
// element, so no access can be wider than one element, and 8 per thread
// would only leave each warp-wide store instruction writing 2 bytes in
// every 16 (8 partial writes per sector instead of one whole one). The
// group takes one element per thread: every load and store instruction
// covers 64 contiguous bytes per warp.
// CHECK-LABEL: func @row_masked_unaligned
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V1]]>
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V1]]>
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V1]]>
func.func @row_masked_unaligned(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                                %w: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                                %y: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                                %stride: i32, %n: i32) {
  %row = tile.program_id x : i32
  %start = arith.muli %row, %stride : i32
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %nv : tensor<1024xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<1024xbf16>
  %sv = tile.splat %start : i32 -> tensor<1024xi32>
  %off = arith.addi %sv, %cols : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %xp = tile.addptr %xb, %off : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %xv = tile.load %xp, %mask, %zero : tensor<1024x!tile.ptr<bf16>>
  %wb = tile.splat %w : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %wp = tile.addptr %wb, %cols : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %wv = tile.load %wp, %mask, %zero : tensor<1024x!tile.ptr<bf16>>
  %prod = arith.mulf %xv, %wv : tensor<1024xbf16>
  %yb = tile.splat %y : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %yp = tile.addptr %yb, %off : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  tile.store %yp, %prod, %mask : tensor<1024x!tile.ptr<bf16>>
  return
}

// The same row with n and the stride divisible by 16: the mask is constant
// over runs of 16 and the rows are aligned, so every access is 8 elements
// (16 bytes) wide and the group keeps 8 per thread.
// CHECK-LABEL: func @row_masked_aligned
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V8]]>
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V8]]>
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V8]]>
func.func @row_masked_aligned(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                              %w: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                              %y: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                              %stride: i32 {tile.divisibility = 16 : i32},
                              %n: i32 {tile.divisibility = 16 : i32}) {
  %row = tile.program_id x : i32
  %start = arith.muli %row, %stride : i32
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %nv : tensor<1024xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<1024xbf16>
  %sv = tile.splat %start : i32 -> tensor<1024xi32>
  %off = arith.addi %sv, %cols : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %xp = tile.addptr %xb, %off : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %xv = tile.load %xp, %mask, %zero : tensor<1024x!tile.ptr<bf16>>
  %wb = tile.splat %w : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %wp = tile.addptr %wb, %cols : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %wv = tile.load %wp, %mask, %zero : tensor<1024x!tile.ptr<bf16>>
  %prod = arith.mulf %xv, %wv : tensor<1024xbf16>
  %yb = tile.splat %y : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %yp = tile.addptr %yb, %off : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  tile.store %yp, %prod, %mask : tensor<1024x!tile.ptr<bf16>>
  return
}

// Where one member can use wide accesses, the group keeps them: the weight
// is loaded unmasked, 8 elements at a time, so the group takes 8 per thread
// although the unaligned store is left writing one element at a time.
// CHECK-LABEL: func @row_wide_load_kept
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V8]]>
// CHECK: tile.load %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V8]]>
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V8]]>
func.func @row_wide_load_kept(%x: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                              %w: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                              %y: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                              %stride: i32, %n: i32) {
  %row = tile.program_id x : i32
  %start = arith.muli %row, %stride : i32
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %nv : tensor<1024xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<1024xbf16>
  %sv = tile.splat %start : i32 -> tensor<1024xi32>
  %off = arith.addi %sv, %cols : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %xp = tile.addptr %xb, %off : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %xv = tile.load %xp, %mask, %zero : tensor<1024x!tile.ptr<bf16>>
  %wb = tile.splat %w : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %wp = tile.addptr %wb, %cols : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %wv = tile.load %wp : tensor<1024x!tile.ptr<bf16>>
  %prod = arith.mulf %xv, %wv : tensor<1024xbf16>
  %yb = tile.splat %y : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %yp = tile.addptr %yb, %off : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  tile.store %yp, %prod, %mask : tensor<1024x!tile.ptr<bf16>>
  return
}

// Loads alone keep their pointers' width under a mask that splits them
// (as Triton's coalescing: L1 serves the later instructions' gaps): the row
// sum's group has no store.
// CHECK-LABEL: func @row_sum_masked
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<bf16>, #[[V8]]>
func.func @row_sum_masked(%w: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                          %out: !tile.ptr<bf16>, %n: i32) {
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %nv = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %nv : tensor<1024xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<1024xbf16>
  %wb = tile.splat %w : !tile.ptr<bf16> -> tensor<1024x!tile.ptr<bf16>>
  %wp = tile.addptr %wb, %cols : tensor<1024x!tile.ptr<bf16>>, tensor<1024xi32>
  %wv = tile.load %wp, %mask, %zero : tensor<1024x!tile.ptr<bf16>>
  %sum = tile.reduce %wv axis = 0 : tensor<1024xbf16> -> bf16 {
  ^bb0(%a: bf16, %b: bf16):
    %t = arith.addf %a, %b : bf16
    tile.reduce.return %t : bf16
  }
  tile.store %out, %sum : !tile.ptr<bf16>
  return
}

// A scan's results have its sources' layouts: its source (an aligned f32
// load, 4 per thread) and its result (stored through unaligned pointers, 1
// per thread) are one group, which takes the load's 4.
// CHECK-LABEL: func @scan_one_group
// CHECK: %[[V:.*]] = tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[V4]]>
// CHECK: tile.scan %[[V]] axis = 0 : tensor<1024xf32, #[[V4]]>
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[V4]]>
func.func @scan_one_group(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %y: !tile.ptr<f32>) {
  %r = tile.make_range 0 to 1024 : tensor<1024xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>>
  %c = tile.scan %v axis = 0 : tensor<1024xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.scan.return %t : f32
  }
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %yp, %c : tensor<1024x!tile.ptr<f32>>
  return
}
