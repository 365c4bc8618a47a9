// A warp_group_dot whose accumulator is a zero constant (attention's
// S = Q K^T) starts each output tile with scale-d 0 (d = a * b): its first
// instruction along K overwrites the tile's registers, which are left
// undefined instead of zeroed, and the following K steps accumulate
// (scale-d 1). A product into a computed accumulator adds to it at every
// step.
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// 64x128 from K = 64 with 64-wide instructions: 2 output tiles of 4 K steps.
// CHECK-LABEL: llvm.func internal @from_zero
// CHECK: wgmma.fence.sync.aligned
// CHECK-COUNT-32: llvm.mlir.undef : f32
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $64, $65, 0, 1, 1, 0, 1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $64, $65, 1, 1, 1, 0, 1;
// CHECK-COUNT-32: llvm.mlir.undef : f32
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $64, $65, 0, 1, 1, 0, 1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $64, $65, 1, 1, 1, 0, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned
// The second product accumulates into the first's result.
// CHECK: wgmma.fence.sync.aligned
// CHECK-NOT: llvm.mlir.undef : f32
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $64, $65, 1, 1, 1, 0, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned
#a = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @from_zero(%x: tensor<64x64xf16, #a>, %y: tensor<64x128xf16, #a>) -> tensor<64x128xf32, #mma> {
    %zero = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
    %xa = tilegpu.local_alloc %x : (tensor<64x64xf16, #a>) -> !tilegpu.memdesc<64x64xf16, #shared>
    %ya = tilegpu.local_alloc %y : (tensor<64x128xf16, #a>) -> !tilegpu.memdesc<64x128xf16, #shared>
    %d = tilegpu.warp_group_dot %xa, %ya, %zero : !tilegpu.memdesc<64x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared> -> tensor<64x128xf32, #mma>
    %e = tilegpu.warp_group_dot %xa, %ya, %d : !tilegpu.memdesc<64x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared> -> tensor<64x128xf32, #mma>
    return %e : tensor<64x128xf32, #mma>
  }
}
