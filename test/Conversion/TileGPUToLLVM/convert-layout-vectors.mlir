// A convert_layout through shared memory moves whole vectors on both
// sides, read off the two layouts: each thread's runs of consecutive
// elements along the last dimension (up to 16 bytes) are one store or one
// load. On sm_90 a 16-bit source placed as an mma fragment (a wgmma
// accumulator) is written with stmatrix.x4, four 8x8 matrices at a time,
// where its rows (padded to an odd number of 16-byte units) keep the eight
// rows of a matrix in different banks.
// RUN: tilelang-opt %s -split-input-file --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// The matmul epilogue: a 128x128 bf16 wgmma accumulator (128 elements per
// thread) to the blocked layout of a coalesced store (8 per thread along a
// row). 16 stmatrix.x4, then 16 loads of 8 elements; rows of 128 + 8
// elements (33 units of 16 bytes), 128 x 136 x 2 bytes of scratch.
// CHECK: tilegpu.shared = 34816 : i32
// CHECK-LABEL: llvm.func internal @wgmma_epilogue
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK-COUNT-16: nvvm.stmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT: nvvm.stmatrix
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-16: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-NOT: llvm.load
// CHECK: llvm.return
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @wgmma_epilogue(%v: tensor<128x128xbf16, #mma>) -> tensor<128x128xbf16, #blocked> {
    %c = tilegpu.convert_layout %v : tensor<128x128xbf16, #mma> -> tensor<128x128xbf16, #blocked>
    return %c : tensor<128x128xbf16, #blocked>
  }
}

// -----

// Before sm_90 (no stmatrix) the same fragment is stored as the thread's
// pairs: an mma.sync accumulator of 64x64 f16, 32 elements per thread, 16
// stores of 2; 4 loads of 8.
// CHECK-LABEL: llvm.func internal @mma_sync_epilogue
// CHECK-NOT: nvvm.stmatrix
// CHECK-COUNT-16: llvm.store {{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
// CHECK-NOT: llvm.load
// CHECK: llvm.return
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func private @mma_sync_epilogue(%v: tensor<64x64xf16, #mma>) -> tensor<64x64xf16, #blocked> {
    %c = tilegpu.convert_layout %v : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
    return %c : tensor<64x64xf16, #blocked>
  }
}

// -----

// Rows of 64 bytes are not padded: consecutive rows start 4 units of 16
// bytes apart, so a matrix's eight rows would share banks and stmatrix is
// not used; the pairs are stored instead (64x32 bf16, 16 per thread).
// CHECK: tilegpu.shared = 4096 : i32
// CHECK-LABEL: llvm.func internal @short_rows
// CHECK-NOT: nvvm.stmatrix
// CHECK-COUNT-8: llvm.store {{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: llvm.return
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32, 16]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @short_rows(%v: tensor<64x32xbf16, #mma>) -> tensor<64x32xbf16, #blocked> {
    %c = tilegpu.convert_layout %v : tensor<64x32xbf16, #mma> -> tensor<64x32xbf16, #blocked>
    return %c : tensor<64x32xbf16, #blocked>
  }
}

// -----

// Blocked to blocked, f32: the columns layout holds no run along the rows
// (4 elements down a column each): 32 scalar stores; the rows layout runs
// of 4 consecutive elements, 8 loads of 16 bytes.
// CHECK-LABEL: llvm.func internal @transpose_blocked
// CHECK-COUNT-32: llvm.store {{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK: llvm.return
#rows = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#cols = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func private @transpose_blocked(%v: tensor<64x64xf32, #cols>) -> tensor<64x64xf32, #rows> {
    %c = tilegpu.convert_layout %v : tensor<64x64xf32, #cols> -> tensor<64x64xf32, #rows>
    return %c : tensor<64x64xf32, #rows>
  }
}
