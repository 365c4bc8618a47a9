// A 2-D convert_layout goes through shared memory with its rows padded by
// 16 bytes when they are 128 bytes or longer: the rows of an mma
// accumulator then start in different banks, and 16-byte vectors along a
// row stay aligned. Shorter rows, and 1-D conversions, are not padded.
// RUN: tilelang-opt %s -split-input-file --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// (Device functions, so that they may return the result.)
// 16 rows of 64 f32 (256 bytes) take 16 x (64 + 4) x 4 = 4352 bytes, and a
// row starts every 68 elements.
// CHECK: tilegpu.shared = 4352 : i32
// CHECK-LABEL: llvm.func internal @padded
// CHECK: llvm.mlir.constant(68 : i32)
#rows = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#cols = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func private @padded(%v: tensor<16x64xf32, #cols>) -> tensor<16x64xf32, #rows> {
    %c = tilegpu.convert_layout %v : tensor<16x64xf32, #cols> -> tensor<16x64xf32, #rows>
    return %c : tensor<16x64xf32, #rows>
  }
}

// -----

// 16 rows of 16 f32 (64 bytes): 1024 bytes, rows 16 elements apart.
// CHECK: tilegpu.shared = 1024 : i32
// CHECK-LABEL: llvm.func internal @unpadded
// CHECK-NOT: llvm.mlir.constant(20 : i32)
// CHECK: llvm.return
#rows = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]>
#cols = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [0, 1]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func private @unpadded(%v: tensor<16x16xf32, #cols>) -> tensor<16x16xf32, #rows> {
    %c = tilegpu.convert_layout %v : tensor<16x16xf32, #cols> -> tensor<16x16xf32, #rows>
    return %c : tensor<16x16xf32, #rows>
  }
}
