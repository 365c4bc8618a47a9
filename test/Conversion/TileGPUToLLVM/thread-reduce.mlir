// convert-tilegpu-to-llvm lowers tilegpu.thread_reduce to register work
// only: each thread combines the elements it holds along the axis, keyed by
// their other indices, in up to four independent runs joined pairwise, and
// no lane or warp communicates.
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#r2 = #tilegpu.blocked<sizePerThread = [2, 2], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [1, 0]>
#p2 = #tilegpu.blocked<sizePerThread = [2, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 4], order = [1, 0]>

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // 2048 elements over 128 threads, 4 contiguous per repetition: a thread's
  // 16 elements fold into four runs of four in register order (3 adds
  // each), then the runs join pairwise: 15 adds as in one chain, but the
  // longest dependent chain is 5 adds instead of 15.
  // CHECK-LABEL: llvm.func @sum_1d
  // CHECK: %[[E0:.*]] = llvm.extractvalue %[[SRC:.*]][0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
  // CHECK-NEXT: %[[E1:.*]] = llvm.extractvalue %[[SRC]][1]
  // CHECK-NEXT: %[[E2:.*]] = llvm.extractvalue %[[SRC]][2]
  // CHECK-NEXT: %[[E3:.*]] = llvm.extractvalue %[[SRC]][3]
  // CHECK-NEXT: %[[E4:.*]] = llvm.extractvalue %[[SRC]][4]
  // CHECK-NEXT: %[[E5:.*]] = llvm.extractvalue %[[SRC]][5]
  // CHECK: %[[A1:.*]] = llvm.fadd %[[E0]], %[[E1]] : f32
  // CHECK-NEXT: %[[A2:.*]] = llvm.fadd %[[A1]], %[[E2]] : f32
  // CHECK-NEXT: %[[RUN0:.*]] = llvm.fadd %[[A2]], %[[E3]] : f32
  // CHECK-NEXT: %[[B1:.*]] = llvm.fadd %[[E4]], %[[E5]] : f32
  // CHECK-NEXT: %[[B2:.*]] = llvm.fadd %[[B1]], %{{.*}} : f32
  // CHECK-NEXT: %[[RUN1:.*]] = llvm.fadd %[[B2]], %{{.*}} : f32
  // CHECK-NEXT: %[[C1:.*]] = llvm.fadd %{{.*}}, %{{.*}} : f32
  // CHECK-NEXT: %[[C2:.*]] = llvm.fadd %[[C1]], %{{.*}} : f32
  // CHECK-NEXT: %[[RUN2:.*]] = llvm.fadd %[[C2]], %{{.*}} : f32
  // CHECK-NEXT: %[[D1:.*]] = llvm.fadd %{{.*}}, %{{.*}} : f32
  // CHECK-NEXT: %[[D2:.*]] = llvm.fadd %[[D1]], %{{.*}} : f32
  // CHECK-NEXT: %[[RUN3:.*]] = llvm.fadd %[[D2]], %{{.*}} : f32
  // CHECK-NEXT: %[[J0:.*]] = llvm.fadd %[[RUN0]], %[[RUN1]] : f32
  // CHECK-NEXT: %[[J1:.*]] = llvm.fadd %[[RUN2]], %[[RUN3]] : f32
  // CHECK-NEXT: %[[SUM:.*]] = llvm.fadd %[[J0]], %[[J1]] : f32
  // CHECK-NOT: llvm.fadd
  // CHECK-NOT: nvvm.shfl
  // CHECK-NOT: nvvm.barrier
  // CHECK: llvm.insertvalue %[[SUM]], %{{.*}}[0] : !llvm.struct<(f32)>
  func.func @sum_1d(%p: tensor<2048x!tile.ptr<f32>, #b4>, %q: tensor<128x!tile.ptr<f32>, #b1>) {
    %x = tile.load %p : tensor<2048x!tile.ptr<f32>, #b4>
    %s = tilegpu.thread_reduce %x axis = 0 : tensor<2048xf32, #b4> -> tensor<128xf32, #b1> {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      tilegpu.thread_reduce.return %t : f32
    }
    tile.store %q, %s : tensor<128x!tile.ptr<f32>, #b1>
    return
  }

  // 2-D, along the rows: a thread holds 4 rows (2 per repetition of 4
  // rows) x 4 columns (2 per repetition of 128 columns) of 8x256; each
  // row's 4 fold into one partial, pairwise: 4 partials, 12 maxima.
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
