// Reductions and conversions on tensor-core accumulator layouts, as the
// LayoutMap of each layout dictates: a row reduction of a wgmma accumulator
// combines a lane's elements of each row, then the 4 lanes of a row
// (shuffle masks 1 and 2), without shared memory since one warp holds the
// whole row; a column reduction also crosses the 8 row groups of a warp
// (masks 4, 8, 16) and its warps through shared memory. Conversions between
// layouts that give every thread the same elements (wgmma accumulators of
// different instruction widths, the row slices of either) only reorder
// registers.
// RUN: tilelang-opt %s -split-input-file --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// Each thread holds 2 rows: 2 shuffles each.
// CHECK: tilegpu.shared = 0 : i32
// CHECK-LABEL: llvm.func internal @row_max
// CHECK-NOT: llvm.store
// CHECK-COUNT-4: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#rows = #tilegpu.slice<dim = 1, parent = #mma>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @row_max(%v: tensor<64x64xf32, #mma>) -> tensor<64xf32, #rows> {
    %r = tile.reduce %v axis = 1 : tensor<64x64xf32, #mma> -> tensor<64xf32, #rows> {
    ^bb0(%a: f32, %b: f32):
      %m = arith.maxnumf %a, %b : f32
      tile.reduce.return %m : f32
    }
    return %r : tensor<64xf32, #rows>
  }
}

// -----

// A column sum: 3 shuffles within the warp for each of a thread's 16
// columns, then the 4 warps' partials of the 64 columns through shared
// memory (4 x 64 x 4 bytes), which 4 lanes of a column share out and
// complete with 2 more shuffles.
// CHECK: tilegpu.shared = 1024 : i32
// CHECK-LABEL: llvm.func internal @column_sum
// CHECK-COUNT-48: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier
// CHECK-COUNT-16: "@$2 st.shared.b32 [ $0 ], $1;"
// CHECK: nvvm.barrier
// CHECK-COUNT-32: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#cols = #tilegpu.slice<dim = 0, parent = #mma>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @column_sum(%v: tensor<64x64xf32, #mma>) -> tensor<64xf32, #cols> {
    %r = tile.reduce %v axis = 0 : tensor<64x64xf32, #mma> -> tensor<64xf32, #cols> {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tile.reduce.return %s : f32
    }
    return %r : tensor<64xf32, #cols>
  }
}

// -----

// m64n64 and m64n128 accumulators of a 128x128 tile, and their row slices,
// place every element in the same thread: no shared memory.
// CHECK: tilegpu.shared = 0 : i32
// CHECK-LABEL: llvm.func internal @between_widths
// CHECK-NOT: llvm.store
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
// CHECK-LABEL: llvm.func internal @between_row_slices
// CHECK-NOT: llvm.store
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
#narrow = #tilegpu.mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64, 16]>
#wide = #tilegpu.mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>
#narrow_rows = #tilegpu.slice<dim = 1, parent = #narrow>
#wide_rows = #tilegpu.slice<dim = 1, parent = #wide>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_90a"} {
  func.func private @between_widths(%v: tensor<128x128xf32, #narrow>) -> tensor<128x128xf32, #wide> {
    %c = tilegpu.convert_layout %v : tensor<128x128xf32, #narrow> -> tensor<128x128xf32, #wide>
    return %c : tensor<128x128xf32, #wide>
  }
  func.func private @between_row_slices(%v: tensor<128xf32, #narrow_rows>) -> tensor<128xf32, #wide_rows> {
    %c = tilegpu.convert_layout %v : tensor<128xf32, #narrow_rows> -> tensor<128xf32, #wide_rows>
    return %c : tensor<128xf32, #wide_rows>
  }
}

// -----

// A blocked layout spreads threads differently: that conversion still goes
// through shared memory.
// CHECK-LABEL: llvm.func internal @to_blocked
// CHECK: nvvm.barrier
// CHECK: llvm.store
// CHECK: nvvm.barrier
// CHECK: llvm.load
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @to_blocked(%v: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #blocked> {
    %c = tilegpu.convert_layout %v : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    return %c : tensor<64x64xf32, #blocked>
  }
}
