// warp_group_dot of i8 tiles into an i32 accumulator: wgmma's integer form
// m64nNk32.s32.s8.s8, whose accumulators are 32-bit integer registers ("r"
// constraints, i32 values) and which takes neither input scales nor
// transpose flags: `d, a-desc, b-desc, scale-d`. A product from a zero
// accumulator starts with scale-d 0 on undefined i32 registers, as the
// floating-point forms do; warp_group_dot_wait ties i32 registers through
// wgmma.wait_group.
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// 64x64 from K = 64 with 32-deep instructions: one output tile of 2 K steps.
// CHECK-LABEL: llvm.func internal @from_zero
// CHECK: wgmma.fence.sync.aligned
// CHECK-COUNT-32: llvm.mlir.undef : i32
// CHECK-NOT: wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {$0,{{(\$[0-9]+,)+}}$31}, $64, $65, 0;", "{{(=r,)+}}0,{{([0-9]+,)+}}l,l"
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{.*}}, $64, $65, 1;"
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned
// The asynchronous product accumulates into the first one's result and is
// handed back by the wait, its i32 registers tied through it.
// CHECK: wgmma.fence.sync.aligned
// CHECK-NOT: llvm.mlir.undef : i32
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{.*}}, $64, $65, 1;"
// CHECK: wgmma.commit_group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "{{(=r,)+}}0,{{.*}}" {{.*}} -> !llvm.struct<(i32,
#a = #tilegpu.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#bk = #tilegpu.blocked<sizePerThread = [16, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
#rows = #tilegpu.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]>
#cols = #tilegpu.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func private @from_zero(%x: tensor<64x64xi8, #a>, %y: tensor<64x64xi8, #bk>) -> tensor<64x64xi32, #mma> {
    %zero = arith.constant dense<0> : tensor<64x64xi32, #mma>
    %xa = tilegpu.local_alloc %x : (tensor<64x64xi8, #a>) -> !tilegpu.memdesc<64x64xi8, #rows>
    %ya = tilegpu.local_alloc %y : (tensor<64x64xi8, #bk>) -> !tilegpu.memdesc<64x64xi8, #cols>
    %d = tilegpu.warp_group_dot %xa, %ya, %zero : !tilegpu.memdesc<64x64xi8, #rows> * !tilegpu.memdesc<64x64xi8, #cols> -> tensor<64x64xi32, #mma>
    %e = tilegpu.warp_group_dot %xa, %ya, %d {isAsync} : !tilegpu.memdesc<64x64xi8, #rows> * !tilegpu.memdesc<64x64xi8, #cols> -> tensor<64x64xi32, #mma>
    %w = tilegpu.warp_group_dot_wait %e {pendings = 0 : i32} : tensor<64x64xi32, #mma>
    return %w : tensor<64x64xi32, #mma>
  }
}
