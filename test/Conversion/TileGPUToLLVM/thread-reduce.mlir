// convert-tilegpu-to-llvm lowers tilegpu.thread_reduce to register work
// only: each thread combines the elements it holds along the axis, keyed by
// their other indices, and no lane or warp communicates.
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#r2 = #tilegpu.blocked<sizePerThread = [2, 2], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [1, 0]>
#p2 = #tilegpu.blocked<sizePerThread = [2, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [1, 0]>

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // 1024 elements over 128 threads, 4 contiguous per repetition: a thread's
  // 8 elements fold into one partial with 7 adds, the first two elements
  // first, then the rest in register order.
  // CHECK-LABEL: llvm.func @sum_1d
  // CHECK: %[[E0:.*]] = llvm.extractvalue %[[SRC:.*]][0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
  // CHECK-NEXT: %[[E1:.*]] = llvm.extractvalue %[[SRC]][1]
  // CHECK-NEXT: %[[E2:.*]] = llvm.extractvalue %[[SRC]][2]
  // CHECK: %[[S1:.*]] = llvm.fadd %[[E0]], %[[E1]] : f32
  // CHECK-NEXT: llvm.fadd %[[S1]], %[[E2]] : f32
  // CHECK-COUNT-5: llvm.fadd
  // CHECK-NOT: llvm.fadd
  // CHECK-NOT: nvvm.shfl
  // CHECK-NOT: nvvm.barrier
  // CHECK: llvm.insertvalue %{{.*}}, %{{.*}}[0] : !llvm.struct<(f32)>
  func.func @sum_1d(%p: tensor<1024x!tile.ptr<f32>, #b4>, %q: tensor<128x!tile.ptr<f32>, #b1>) {
    %x = tile.load %p : tensor<1024x!tile.ptr<f32>, #b4>
    %s = tilegpu.thread_reduce %x axis = 0 : tensor<1024xf32, #b4> -> tensor<128xf32, #b1> {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tilegpu.thread_reduce.return %t : f32
    }
    tile.store %q, %s : tensor<128x!tile.ptr<f32>, #b1>
    return
  }

  // 2-D, along the rows: a thread holds 4 rows (2 per repetition of 4
  // rows) x 4 columns (2 per repetition of 128 columns) of 8x256; each
  // row's 4 fold into one partial: 4 partials, 12 maxima.
  // CHECK-LABEL: llvm.func @max_2d
  // CHECK-COUNT-12: llvm.intr.maxnum
  // CHECK-NOT: llvm.intr.maxnum
  // CHECK-NOT: nvvm.shfl
  // CHECK: llvm.insertvalue %{{.*}}, %{{.*}}[3] : !llvm.struct<(f32, f32, f32, f32)>
  func.func @max_2d(%p: tensor<8x256x!tile.ptr<f32>, #r2>, %q: tensor<8x64x!tile.ptr<f32>, #p2>) {
    %x = tile.load %p : tensor<8x256x!tile.ptr<f32>, #r2>
    %m = tilegpu.thread_reduce %x axis = 1 : tensor<8x256xf32, #r2> -> tensor<8x64xf32, #p2> {
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      tilegpu.thread_reduce.return %t : f32
    }
    tile.store %q, %m : tensor<8x64x!tile.ptr<f32>, #p2>
    return
  }
}
