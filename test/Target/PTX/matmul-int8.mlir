// RUN: tilelang-compile %s --arch=sm_90a --num-warps=4 --num-stages=3 -o %t.sm90a.ptx
// RUN: FileCheck %s < %t.sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90a.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS --allow-empty %}
// RUN: tilelang-compile %s --arch=sm_80 --num-warps=4 --num-stages=3 -o %t.sm80.ptx
// RUN: FileCheck %s --check-prefix=AMPERE < %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}

// An int8 matmul as Triton's tutorial runs it for 8-bit inputs: A (M x K)
// row-major, B the transpose of a row-major N x K tensor (K contiguous in
// both, the only operand order wgmma takes for 8-bit types), K masked with
// an integer zero as `other`. On sm_90a it takes the fp8 path's rules: the
// masked loads become cp.async copies of 16 int8 (zero-filled past K) into
// 3 rotating stages of 128x64 bytes, and one warpgroup issues 2 (M) x 2 (K)
// m64n128k32 s8 products per iteration into s32 registers (the integer
// forms take neither input scales nor transpose flags), kept in flight
// across iterations.
// CHECK-LABEL: .entry matmul_int8
// CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.wait_group 1;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {{{(%r[0-9]+,){63}%r[0-9]+}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// PTXAS-NOT: Performance Loss
// sm_80 keeps mma.sync m16n8k32, its operands read from registers.
// AMPERE-LABEL: .entry matmul_int8
// AMPERE-NOT: wgmma
// AMPERE: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
func.func @matmul_int8(%a: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %b: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %c: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                      %M: i32 {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x : i32
  %c128 = arith.constant 128 : i32
  %c64 = arith.constant 64 : i32
  %grid_n = arith.ceildivsi %N, %c128 : i32
  %pid_m = arith.divsi %pid, %grid_n : i32
  %pid_n = arith.remsi %pid, %grid_n : i32

  %r128 = tile.make_range 0 to 128 : tensor<128xi32>
  %r64 = tile.make_range 0 to 64 : tensor<64xi32>
  %m0 = arith.muli %pid_m, %c128 : i32
  %n0 = arith.muli %pid_n, %c128 : i32
  %m0_v = tile.splat %m0 : i32 -> tensor<128xi32>
  %n0_v = tile.splat %n0 : i32 -> tensor<128xi32>
  %rows = arith.addi %m0_v, %r128 : tensor<128xi32>
  %cols = arith.addi %n0_v, %r128 : tensor<128xi32>
  %K_row = tile.splat %K : i32 -> tensor<128x1xi32>

  // A pointers: a + rows[:, None] * K + ks[None, :]
  %rows_2d = tile.expand_dims %rows {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %a_row_off = arith.muli %rows_2d, %K_row : tensor<128x1xi32>
  %a_row_off_b = tile.broadcast %a_row_off : tensor<128x1xi32> -> tensor<128x64xi32>
  %ks_row = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ks_a = tile.broadcast %ks_row : tensor<1x64xi32> -> tensor<128x64xi32>
  %a_off = arith.addi %a_row_off_b, %ks_a : tensor<128x64xi32>
  %a_base = tile.splat %a : !tile.ptr<i8> -> tensor<128x64x!tile.ptr<i8>>
  %a_ptrs0 = tile.addptr %a_base, %a_off : tensor<128x64x!tile.ptr<i8>>, tensor<128x64xi32>

  // B pointers (K-major): b + ks[:, None] + cols[None, :] * K
  %ks_col = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks_b = tile.broadcast %ks_col : tensor<64x1xi32> -> tensor<64x128xi32>
  %cols_row = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %K_col = tile.splat %K : i32 -> tensor<1x128xi32>
  %b_col_off = arith.muli %cols_row, %K_col : tensor<1x128xi32>
  %b_col_off_b = tile.broadcast %b_col_off : tensor<1x128xi32> -> tensor<64x128xi32>
  %b_off = arith.addi %ks_b, %b_col_off_b : tensor<64x128xi32>
  %b_base = tile.splat %b : !tile.ptr<i8> -> tensor<64x128x!tile.ptr<i8>>
  %b_ptrs0 = tile.addptr %b_base, %b_off : tensor<64x128x!tile.ptr<i8>>, tensor<64x128xi32>

  // The K loop: each step advances A by 64 columns and B by 64 rows.
  %zero = arith.constant dense<0> : tensor<128x128xi32>
  %a_zero = arith.constant dense<0> : tensor<128x64xi8>
  %b_zero = arith.constant dense<0> : tensor<64x128xi8>
  %a_step = tile.splat %c64 : i32 -> tensor<128x64xi32>
  %b_step = tile.splat %c64 : i32 -> tensor<64x128xi32>
  %c0_i = arith.constant 0 : i32
  %acc, %a_end, %b_end = scf.for %k = %c0_i to %K step %c64
      iter_args(%acc_in = %zero, %a_ptrs = %a_ptrs0, %b_ptrs = %b_ptrs0)
      -> (tensor<128x128xi32>, tensor<128x64x!tile.ptr<i8>>, tensor<64x128x!tile.ptr<i8>>) : i32 {
    // K masks: the last step reads zeros past K.
    %left = arith.subi %K, %k : i32
    %left_row = tile.splat %left : i32 -> tensor<1x64xi32>
    %a_in = arith.cmpi slt, %ks_row, %left_row : tensor<1x64xi32>
    %a_mask = tile.broadcast %a_in : tensor<1x64xi1> -> tensor<128x64xi1>
    %left_col = tile.splat %left : i32 -> tensor<64x1xi32>
    %b_in = arith.cmpi slt, %ks_col, %left_col : tensor<64x1xi32>
    %b_mask = tile.broadcast %b_in : tensor<64x1xi1> -> tensor<64x128xi1>
    %a_tile = tile.load %a_ptrs, %a_mask, %a_zero : tensor<128x64x!tile.ptr<i8>>
    %b_tile = tile.load %b_ptrs, %b_mask, %b_zero : tensor<64x128x!tile.ptr<i8>>
    %acc_out = tile.dot %a_tile, %b_tile, %acc_in : tensor<128x64xi8> * tensor<64x128xi8> -> tensor<128x128xi32>
    %a_next = tile.addptr %a_ptrs, %a_step : tensor<128x64x!tile.ptr<i8>>, tensor<128x64xi32>
    %b_next = tile.addptr %b_ptrs, %b_step : tensor<64x128x!tile.ptr<i8>>, tensor<64x128xi32>
    scf.yield %acc_out, %a_next, %b_next : tensor<128x128xi32>, tensor<128x64x!tile.ptr<i8>>, tensor<64x128x!tile.ptr<i8>>
  }

  // C pointers: c + rows[:, None] * N + cols[None, :]
  %N_row = tile.splat %N : i32 -> tensor<128x1xi32>
  %c_row_off = arith.muli %rows_2d, %N_row : tensor<128x1xi32>
  %c_row_off_b = tile.broadcast %c_row_off : tensor<128x1xi32> -> tensor<128x128xi32>
  %c_cols_b = tile.broadcast %cols_row : tensor<1x128xi32> -> tensor<128x128xi32>
  %c_off = arith.addi %c_row_off_b, %c_cols_b : tensor<128x128xi32>
  %c_base = tile.splat %c : !tile.ptr<i32> -> tensor<128x128x!tile.ptr<i32>>
  %c_ptrs = tile.addptr %c_base, %c_off : tensor<128x128x!tile.ptr<i32>>, tensor<128x128xi32>
  tile.store %c_ptrs, %acc : tensor<128x128x!tile.ptr<i32>>
  return
}
