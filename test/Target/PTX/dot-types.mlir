// RUN: tilelang-compile %s --arch=sm_80 --num-warps=1 -o %t.sm80.ptx
// RUN: FileCheck %s < %t.sm80.ptx
// RUN: grep -c "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" %t.sm80.ptx | FileCheck --check-prefix=BF16 %s
// RUN: grep -c "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" %t.sm80.ptx | FileCheck --check-prefix=TF32 %s
// RUN: grep -c "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32" %t.sm80.ptx | FileCheck --check-prefix=I8 %s
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}

// One warp, one 16x32 by 32x16 product per operand type, each stored to
// its own output: bf16 (m16n8k16 via ldmatrix), f32 through tf32 (operands
// rounded by cvt.rna.tf32.f32; tf32x3 adds two cross products), and i8
// (m16n8k32, s32 accumulators). A 16x16 output takes 2 instructions per K
// step: bf16 2 x 2 steps, tf32 2 x 4 steps and 3 x that for tf32x3, i8 2 x 1.
// CHECK-LABEL: .entry dot_types
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: cvt.rna.tf32.f32
// BF16: 4
// TF32: 32
// I8: 2
func.func @dot_types(%pbf: !tile.ptr<bf16>, %pf: !tile.ptr<f32>, %pi: !tile.ptr<i8>,
                     %obf: !tile.ptr<f32>, %of: !tile.ptr<f32>, %of3: !tile.ptr<f32>, %oi: !tile.ptr<i32>) {
  // Offsets of a row-major 16x32 tile (A) and 32x16 tile (B), and of the
  // 16x16 output.
  %r16 = tile.make_range 0 to 16 : tensor<16xi32>
  %r32 = tile.make_range 0 to 32 : tensor<32xi32>
  %c32 = arith.constant 32 : i32
  %c16 = arith.constant 16 : i32
  %rows16 = tile.expand_dims %r16 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cols32 = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %rows32 = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %cols16 = tile.expand_dims %r16 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %s32 = tile.splat %c32 : i32 -> tensor<16x1xi32>
  %s16 = tile.splat %c16 : i32 -> tensor<32x1xi32>
  %s16o = tile.splat %c16 : i32 -> tensor<16x1xi32>
  %a_row = arith.muli %rows16, %s32 : tensor<16x1xi32>
  %a_row_b = tile.broadcast %a_row : tensor<16x1xi32> -> tensor<16x32xi32>
  %a_col_b = tile.broadcast %cols32 : tensor<1x32xi32> -> tensor<16x32xi32>
  %a_off = arith.addi %a_row_b, %a_col_b : tensor<16x32xi32>
  %b_row = arith.muli %rows32, %s16 : tensor<32x1xi32>
  %b_row_b = tile.broadcast %b_row : tensor<32x1xi32> -> tensor<32x16xi32>
  %b_col_b = tile.broadcast %cols16 : tensor<1x16xi32> -> tensor<32x16xi32>
  %b_off = arith.addi %b_row_b, %b_col_b : tensor<32x16xi32>
  %o_row = arith.muli %rows16, %s16o : tensor<16x1xi32>
  %o_row_b = tile.broadcast %o_row : tensor<16x1xi32> -> tensor<16x16xi32>
  %o_col_b = tile.broadcast %cols16 : tensor<1x16xi32> -> tensor<16x16xi32>
  %o_off = arith.addi %o_row_b, %o_col_b : tensor<16x16xi32>
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %zero_i = arith.constant dense<0> : tensor<16x16xi32>

  // bf16
  %abf_base = tile.splat %pbf : !tile.ptr<bf16> -> tensor<16x32x!tile.ptr<bf16>>
  %abf_p = tile.addptr %abf_base, %a_off : tensor<16x32x!tile.ptr<bf16>>, tensor<16x32xi32>
  %abf = tile.load %abf_p : tensor<16x32x!tile.ptr<bf16>>
  %bbf_base = tile.splat %pbf : !tile.ptr<bf16> -> tensor<32x16x!tile.ptr<bf16>>
  %bbf_p = tile.addptr %bbf_base, %b_off : tensor<32x16x!tile.ptr<bf16>>, tensor<32x16xi32>
  %bbf = tile.load %bbf_p : tensor<32x16x!tile.ptr<bf16>>
  %dbf = tile.dot %abf, %bbf, %zero : tensor<16x32xbf16> * tensor<32x16xbf16> -> tensor<16x16xf32>
  %obf_base = tile.splat %obf : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %obf_p = tile.addptr %obf_base, %o_off : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %obf_p, %dbf : tensor<16x16x!tile.ptr<f32>>

  // f32: tf32, then tf32x3
  %af_base = tile.splat %pf : !tile.ptr<f32> -> tensor<16x32x!tile.ptr<f32>>
  %af_p = tile.addptr %af_base, %a_off : tensor<16x32x!tile.ptr<f32>>, tensor<16x32xi32>
  %af = tile.load %af_p : tensor<16x32x!tile.ptr<f32>>
  %bf_base = tile.splat %pf : !tile.ptr<f32> -> tensor<32x16x!tile.ptr<f32>>
  %bf_p = tile.addptr %bf_base, %b_off : tensor<32x16x!tile.ptr<f32>>, tensor<32x16xi32>
  %bf = tile.load %bf_p : tensor<32x16x!tile.ptr<f32>>
  %df = tile.dot %af, %bf, %zero : tensor<16x32xf32> * tensor<32x16xf32> -> tensor<16x16xf32>
  %of_base = tile.splat %of : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %of_p = tile.addptr %of_base, %o_off : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %of_p, %df : tensor<16x16x!tile.ptr<f32>>
  %df3 = tile.dot %af, %bf, %zero inputPrecision = tf32x3 : tensor<16x32xf32> * tensor<32x16xf32> -> tensor<16x16xf32>
  %of3_base = tile.splat %of3 : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %of3_p = tile.addptr %of3_base, %o_off : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %of3_p, %df3 : tensor<16x16x!tile.ptr<f32>>

  // i8
  %ai_base = tile.splat %pi : !tile.ptr<i8> -> tensor<16x32x!tile.ptr<i8>>
  %ai_p = tile.addptr %ai_base, %a_off : tensor<16x32x!tile.ptr<i8>>, tensor<16x32xi32>
  %ai = tile.load %ai_p : tensor<16x32x!tile.ptr<i8>>
  %bi_base = tile.splat %pi : !tile.ptr<i8> -> tensor<32x16x!tile.ptr<i8>>
  %bi_p = tile.addptr %bi_base, %b_off : tensor<32x16x!tile.ptr<i8>>, tensor<32x16xi32>
  %bi = tile.load %bi_p : tensor<32x16x!tile.ptr<i8>>
  %di = tile.dot %ai, %bi, %zero_i : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  %oi_base = tile.splat %oi : !tile.ptr<i32> -> tensor<16x16x!tile.ptr<i32>>
  %oi_p = tile.addptr %oi_base, %o_off : tensor<16x16x!tile.ptr<i32>>, tensor<16x16xi32>
  tile.store %oi_p, %di : tensor<16x16x!tile.ptr<i32>>
  return
}
