// A warp_group_dot with descriptorsAtIssue (set by tilegpu-pipeline on a
// product of a loop bound by registers that reads a loop-invariant shared
// operand) passes each operand's base descriptor to every instruction and
// adds the position's offset (16-byte units) inside the instruction's own
// assembly, where LLVM cannot hoist it as one 64-bit value per
// instruction. Without the attribute the offsets are added before (the
// second product).
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// CHECK-LABEL: llvm.func internal @at_issue
// CHECK: "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $64, $65, 0, 1, 1, 0, 1;", "{{[^"]*}}" {{.*}}, %[[A:[0-9]+]], %[[B:[0-9]+]] : (
// CHECK-NOT: llvm.add
// CHECK: "{\0A.reg .b64 %wgmma_a;\0Aadd.s64 %wgmma_a, $64, 2;\0A.reg .b64 %wgmma_b;\0Aadd.s64 %wgmma_b, $65, 128;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %wgmma_a, %wgmma_b, 1, 1, 1, 0, 1;\0A}", "{{[^"]*}}" {{.*}}, %[[A]], %[[B]] : (
// CHECK-NOT: llvm.add
// CHECK: add.s64 %wgmma_a, $64, 4;{{.*}}add.s64 %wgmma_b, $65, 256;{{.*}}", "{{[^"]*}}" {{.*}}, %[[A]], %[[B]] : (
// CHECK-NOT: llvm.add
// CHECK: add.s64 %wgmma_a, $64, 6;{{.*}}add.s64 %wgmma_b, $65, 384;{{.*}}", "{{[^"]*}}" {{.*}}, %[[A]], %[[B]] : (
// CHECK: wgmma.commit_group.sync.aligned
// CHECK: "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $64, $65, 1, 1, 1, 0, 1;"
// CHECK: llvm.add %{{.*}} : i64
// CHECK-NOT: wgmma_a
// CHECK: wgmma.commit_group.sync.aligned
#a = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @at_issue(%x: tensor<64x64xf16, #a>, %y: tensor<64x64xf16, #a>) -> tensor<64x64xf32, #mma> {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %xa = tilegpu.local_alloc %x : (tensor<64x64xf16, #a>) -> !tilegpu.memdesc<64x64xf16, #shared>
    %ya = tilegpu.local_alloc %y : (tensor<64x64xf16, #a>) -> !tilegpu.memdesc<64x64xf16, #shared>
    %d = tilegpu.warp_group_dot %xa, %ya, %zero {descriptorsAtIssue} : !tilegpu.memdesc<64x64xf16, #shared> * !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %e = tilegpu.warp_group_dot %xa, %ya, %d : !tilegpu.memdesc<64x64xf16, #shared> * !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    return %e : tensor<64x64xf32, #mma>
  }
}
