// convert-tilegpu-to-llvm: the occupancy floor of kernels without
// tensor-core products, nvvm.minctasm = ceil(16 / num_warps): 16 resident
// warps per SM, and one block for blocks of 16 or 32 warps (which marks
// them for the runtime's occupancy search all the same).
// RUN: tilelang-opt %s --split-input-file --convert-tilegpu-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @two_warps
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>, nvvm.minctasm = 8 : i32}
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]>
module attributes {tilegpu.num_warps = 2 : i32, tilegpu.target = "sm_90a"} {
  func.func @two_warps(%p: !tile.ptr<i32>) {
    %r = tile.make_range 0 to 64 : tensor<64xi32, #b>
    %ps = tile.splat %p : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>, #b>
    %a = tile.addptr %ps, %r : tensor<64x!tile.ptr<i32>, #b>, tensor<64xi32, #b>
    tile.store %a, %r : tensor<64x!tile.ptr<i32>, #b>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @sixteen_warps
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 512, 1, 1>, nvvm.minctasm = 1 : i32}
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [16], order = [0]>
module attributes {tilegpu.num_warps = 16 : i32, tilegpu.target = "sm_90a"} {
  func.func @sixteen_warps(%p: !tile.ptr<i32>) {
    %r = tile.make_range 0 to 512 : tensor<512xi32, #b>
    %ps = tile.splat %p : !tile.ptr<i32> -> tensor<512x!tile.ptr<i32>, #b>
    %a = tile.addptr %ps, %r : tensor<512x!tile.ptr<i32>, #b>, tensor<512xi32, #b>
    tile.store %a, %r : tensor<512x!tile.ptr<i32>, #b>
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @thirty_two_warps
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 1024, 1, 1>, nvvm.minctasm = 1 : i32}
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [32], order = [0]>
module attributes {tilegpu.num_warps = 32 : i32, tilegpu.target = "sm_90a"} {
  func.func @thirty_two_warps(%p: !tile.ptr<i32>) {
    %r = tile.make_range 0 to 1024 : tensor<1024xi32, #b>
    %ps = tile.splat %p : !tile.ptr<i32> -> tensor<1024x!tile.ptr<i32>, #b>
    %a = tile.addptr %ps, %r : tensor<1024x!tile.ptr<i32>, #b>, tensor<1024xi32, #b>
    tile.store %a, %r : tensor<1024x!tile.ptr<i32>, #b>
    return
  }
}
