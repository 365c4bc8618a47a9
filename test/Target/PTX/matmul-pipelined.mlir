// RUN: tilelang-compile %s --arch=sm_80 --num-warps=4 --num-stages=3 -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: tilelang-compile %s --arch=sm_90a --num-warps=4 --num-stages=4 -o %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=HOPPER < %t.sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90a.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS --allow-empty %}
// RUN: tilelang-compile %s --arch=sm_80 --num-warps=4 --num-stages=1 | FileCheck %s --check-prefix=ONE
// RUN: tilelang-compile %s --arch=sm_90a --num-warps=4 --num-stages=4 --report -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: FileCheck %s --check-prefix=OFFSETS < %t.sm90a.ptx
// RUN: FileCheck %s --check-prefix=SM80-OFFSETS < %t.sm80.ptx

// In a kernel with wgmma products, element offsets are scaled to bytes by a
// shift of their 64-bit extension, never by a mul.wide that ptxas would fold
// into every use as an IMAD.WIDE, competing with the copies' arithmetic
// next to the products (lib/Target/PTXPeephole.cpp); mma.sync kernels keep
// LLVM's spelling:
// OFFSETS-NOT: mul.wide.s32
// OFFSETS: cvt.s64.s32 [[OFFSET:%rd[0-9]+]], %r{{[0-9]+}};
// OFFSETS-NEXT: shl.b64 [[OFFSET]], [[OFFSET]], 1;
// OFFSETS-NOT: mul.wide.s32
// SM80-OFFSETS: mul.wide.s32 %rd{{[0-9]+}}, %r{{[0-9]+}}, 2;

// The matmul of matmul.mlir with 16-byte aligned arguments, so that each
// thread's 8 f16 along K (A) and N (B) are one aligned 16-byte piece:
// tilegpu-pipeline turns the loads into cp.async copies into 3 rotating
// buffers, two iterations ahead (a prologue of 2 commit groups, then one
// per iteration after waiting for all but the newest group).
// CHECK-LABEL: .entry matmul_kernel
// CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 1;
// CHECK: bar.sync 0;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: cp.async.wait_group 0;
// On sm_90a the same loop feeds wgmma: the copies land in 64-byte (A, K = 32)
// and 128-byte (B, N = 128) swizzled stages, and one warpgroup issues
// 2 (M) x 2 (K) m64n128k16 products per iteration. Completed copies need no
// proxy fence before wgmma reads them (cp.async.wait_group and the barrier
// order them, as in CUTLASS's and Triton's cp.async mainloops). The
// descriptors after a stage's first are that one plus constants (no
// address is shifted into a descriptor again), and a thread's copies of
// one operand go to one address plus immediate offsets (its rows a whole
// swizzle period apart share their phase). Each iteration's products stay
// in flight until the next iteration has issued its own (wait_group 1),
// which then refills their stage after a barrier; the last ones are waited
// for on the loop's exit branch. ptxas keeps the wgmmas asynchronous (no
// C7514 warning).
// HOPPER-LABEL: .entry matmul_kernel
// HOPPER: cp.async.cg.shared.global
// HOPPER: cp.async.wait_group 2;
// HOPPER-NOT: fence.proxy.async
// HOPPER: wgmma.fence.sync.aligned;
// HOPPER: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// HOPPER-NOT: shr.u32
// HOPPER-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// HOPPER-NOT: shr.u32
// HOPPER: wgmma.commit_group.sync.aligned;
// HOPPER: wgmma.wait_group.sync.aligned 1;
// HOPPER: bar.sync 0;
// HOPPER: cp.async.cg.shared.global [[[FIRST:%r[0-9]+]]], [%rd{{[0-9]+}}], 16,
// HOPPER: add.s32 %r{{[0-9]+}}, [[FIRST]], 2048;
// HOPPER: add.s32 %r{{[0-9]+}}, [[FIRST]], 4096;
// HOPPER: add.s32 %r{{[0-9]+}}, [[FIRST]], 6144;
// HOPPER: @%p{{[0-9]+}} bra $L__BB0_{{[0-9]+}};
// HOPPER-NEXT: // begin inline asm
// HOPPER-NEXT: wgmma.wait_group.sync.aligned 0;
// HOPPER-NOT: ldmatrix
// PTXAS-NOT: Performance Loss
// Shared memory: 4 stages of A (128x32 f16) and B (32x128 f16) take 64 KiB;
// the epilogue's conversion of the f32 result (128 rows of 128 + 4 padding
// elements, 67584 bytes) runs after the loop, when the stages are dead, and
// reuses their space.
// SHARED: 67584 bytes of shared memory
// One stage: no pipelining, loads go through registers.
// ONE-NOT: cp.async
func.func @matmul_kernel(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                         %M: i32 {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x : i32
  %c128 = arith.constant 128 : i32
  %c32 = arith.constant 32 : i32
  %grid_n = arith.ceildivsi %N, %c128 : i32
  %pid_m = arith.divsi %pid, %grid_n : i32
  %pid_n = arith.remsi %pid, %grid_n : i32

  // Row offsets of the A tile and column offsets of the B tile.
  %r128 = tile.make_range 0 to 128 : tensor<128xi32>
  %r32 = tile.make_range 0 to 32 : tensor<32xi32>
  %m0 = arith.muli %pid_m, %c128 : i32
  %n0 = arith.muli %pid_n, %c128 : i32
  %m0_v = tile.splat %m0 : i32 -> tensor<128xi32>
  %n0_v = tile.splat %n0 : i32 -> tensor<128xi32>
  %rows = arith.addi %m0_v, %r128 : tensor<128xi32>
  %cols = arith.addi %n0_v, %r128 : tensor<128xi32>

  // A pointers: a + rows[:, None] * K + ks[None, :]
  %rows_2d = tile.expand_dims %rows {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %K_col = tile.splat %K : i32 -> tensor<128x1xi32>
  %a_row_off = arith.muli %rows_2d, %K_col : tensor<128x1xi32>
  %a_row_off_b = tile.broadcast %a_row_off : tensor<128x1xi32> -> tensor<128x32xi32>
  %ks_row = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %ks_a = tile.broadcast %ks_row : tensor<1x32xi32> -> tensor<128x32xi32>
  %a_off = arith.addi %a_row_off_b, %ks_a : tensor<128x32xi32>
  %a_base = tile.splat %a : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>>
  %a_ptrs0 = tile.addptr %a_base, %a_off : tensor<128x32x!tile.ptr<f16>>, tensor<128x32xi32>

  // B pointers: b + ks[:, None] * N + cols[None, :]
  %ks_col = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %N_col = tile.splat %N : i32 -> tensor<32x1xi32>
  %b_row_off = arith.muli %ks_col, %N_col : tensor<32x1xi32>
  %b_row_off_b = tile.broadcast %b_row_off : tensor<32x1xi32> -> tensor<32x128xi32>
  %cols_row = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cols_b = tile.broadcast %cols_row : tensor<1x128xi32> -> tensor<32x128xi32>
  %b_off = arith.addi %b_row_off_b, %cols_b : tensor<32x128xi32>
  %b_base = tile.splat %b : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>>
  %b_ptrs0 = tile.addptr %b_base, %b_off : tensor<32x128x!tile.ptr<f16>>, tensor<32x128xi32>

  // The K loop: each step advances A by 32 columns and B by 32 rows.
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a_step = tile.splat %c32 : i32 -> tensor<128x32xi32>
  %b_stride = arith.muli %c32, %N : i32
  %b_step = tile.splat %b_stride : i32 -> tensor<32x128xi32>
  %c0_i = arith.constant 0 : i32
  %acc, %a_end, %b_end = scf.for %k = %c0_i to %K step %c32
      iter_args(%acc_in = %zero, %a_ptrs = %a_ptrs0, %b_ptrs = %b_ptrs0)
      -> (tensor<128x128xf32>, tensor<128x32x!tile.ptr<f16>>, tensor<32x128x!tile.ptr<f16>>) : i32 {
    %a_tile = tile.load %a_ptrs : tensor<128x32x!tile.ptr<f16>>
    %b_tile = tile.load %b_ptrs : tensor<32x128x!tile.ptr<f16>>
    %acc_out = tile.dot %a_tile, %b_tile, %acc_in : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
    %a_next = tile.addptr %a_ptrs, %a_step : tensor<128x32x!tile.ptr<f16>>, tensor<128x32xi32>
    %b_next = tile.addptr %b_ptrs, %b_step : tensor<32x128x!tile.ptr<f16>>, tensor<32x128xi32>
    scf.yield %acc_out, %a_next, %b_next : tensor<128x128xf32>, tensor<128x32x!tile.ptr<f16>>, tensor<32x128x!tile.ptr<f16>>
  }

  // C pointers: c + rows[:, None] * N + cols[None, :]
  %N_c = tile.splat %N : i32 -> tensor<128x1xi32>
  %c_row_off = arith.muli %rows_2d, %N_c : tensor<128x1xi32>
  %c_row_off_b = tile.broadcast %c_row_off : tensor<128x1xi32> -> tensor<128x128xi32>
  %cols_c = tile.broadcast %cols_row : tensor<1x128xi32> -> tensor<128x128xi32>
  %c_off = arith.addi %c_row_off_b, %cols_c : tensor<128x128xi32>
  %c_base = tile.splat %c : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %c_ptrs = tile.addptr %c_base, %c_off : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  tile.store %c_ptrs, %acc : tensor<128x128x!tile.ptr<f32>>
  return
}
