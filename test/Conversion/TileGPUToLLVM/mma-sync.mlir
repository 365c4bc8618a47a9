// The sm_80 tensor-core lowering on IR that already carries its layouts:
// tile.dot on dot_op operands of a version-2 mma layout becomes one
// mma.sync.m16n8k16 per 16x8 tile of each warp's part of the result, and a
// convert_layout of a blocked A operand into its dot_op layout goes through
// shared memory and comes back with ldmatrix.
// RUN: tilelang-opt %s --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // 32x32 over 2x2 warps: each warp's 16x16 is two m16n8 tiles, K = 16 is
  // one step. A thread holds 8 halves of A (4 registers), 8 of B for its
  // two tiles (2 registers each) and 8 accumulators (4 a tile).
  // CHECK-LABEL: llvm.func internal @product
  // CHECK-SAME: (%{{.*}}: !llvm.struct<(f16, f16, f16, f16, f16, f16, f16, f16)>, %{{.*}}: !llvm.struct<(f16, f16, f16, f16, f16, f16, f16, f16)>, %{{.*}}: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>)
  // CHECK-COUNT-2: llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"
  // CHECK-NOT: mma.sync
  // CHECK: llvm.return
  func.func private @product(%a: tensor<32x16xf16, #a>, %b: tensor<16x32xf16, #b>, %c: tensor<32x32xf32, #mma>) -> tensor<32x32xf32, #mma> {
    %d = tile.dot %a, %b, %c : tensor<32x16xf16, #a> * tensor<16x32xf16, #b> -> tensor<32x32xf32, #mma>
    return %d : tensor<32x32xf32, #mma>
  }

  // The blocked tile is written to shared memory between barriers, then
  // each thread reads its A fragment (four 8x8 matrices) with one ldmatrix.
  // CHECK-LABEL: llvm.func internal @a_operand
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>)
  // CHECK-NOT: nvvm.ldmatrix
  // CHECK: llvm.return
  func.func private @a_operand(%x: tensor<32x16xf16, #blocked>) -> tensor<32x16xf16, #a> {
    %y = tilegpu.convert_layout %x : tensor<32x16xf16, #blocked> -> tensor<32x16xf16, #a>
    return %y : tensor<32x16xf16, #a>
  }
}
