// The fragment of every layout family, as the lowering reads it off the
// layout's LayoutMap: the layout's tile and the registers a thread holds of
// it, each register's offset from the thread's start and its index along
// each dimension (struct order), and what each lane-id and warp-id bit adds
// to the start. A (0,0) base replicates. The tensor-core fragments are the
// PTX ISA's: lane 4g + t holds rows g and g + 8.
// RUN: tilelang-opt %s --tilegpu-test-layout-map -o /dev/null 2>&1 | FileCheck %s

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1d = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#rows = #tilegpu.slice<dim = 1, parent = #blocked>
#mma = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
#a8 = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 4>
#wgmma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 16, 16]>
#wgmma_a = #tilegpu.dot_op<opIdx = 0, parent = #wgmma, kWidth = 2>
#wgmma_rows = #tilegpu.slice<dim = 1, parent = #wgmma>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // Blocked: 4 contiguous columns, then the tile's repetition down the rows.
  // CHECK: remark: tile [8,64] of [1,4] | registers [2,4]: (0,0)[0,0] (0,1)[0,1] (0,2)[0,2] (0,3)[0,3] (8,0)[1,0] (8,1)[1,1] (8,2)[1,2] (8,3)[1,3] | lanes (0,4) (0,8) (0,16) (0,32) (1,0) | warps (2,0) (4,0)
  func.func private @blocked(%v: tensor<16x64xf32, #blocked>)
  // A tile larger than the tensor: warps 2 and 3 repeat warps 0 and 1.
  // CHECK: remark: tile [128] of [1] | registers [1]: (0)[0] | lanes (1) (2) (4) (8) (16) | warps (32) (0)
  func.func private @replicated(%v: tensor<64xi32, #blocked1d>)
  // A row slice: the parent's registers along the rows; the 16 lanes along
  // the columns hold the same rows.
  // CHECK: remark: tile none | registers [2]: (0)[0] (8)[1] | lanes (0) (0) (0) (0) (1) | warps (2) (4)
  func.func private @slice(%v: tensor<16xf32, #rows>)
  // mma.sync accumulator: c0..c3 at (g, 2t), (g, 2t+1), (g+8, 2t), (g+8,
  // 2t+1), then repetitions along N, then M; warps N-fastest.
  // CHECK: remark: tile [32,16] of [2,2] | registers [4,4]: (0,0)[0,0] (0,1)[0,1] (8,0)[1,0] (8,1)[1,1] (0,16)[0,2] (0,17)[0,3] (8,16)[1,2] (8,17)[1,3] (32,0)[2,0] (32,1)[2,1] (40,0)[3,0] (40,1)[3,1] (32,16)[2,2] (32,17)[2,3] (40,16)[3,2] (40,17)[3,3] | lanes (0,2) (0,4) (1,0) (2,0) (4,0) | warps (0,8) (16,0)
  func.func private @mma_acc(%v: tensor<64x32xf32, #mma>)
  // mma.sync A (f16): a0..a3 at rows g, g+8 and K 2t, 2t+8 (two elements
  // each); warps along N replicate.
  // CHECK: remark: tile [32,16] of [2,4] | registers [2,8]: (0,0)[0,0] (0,1)[0,1] (8,0)[1,0] (8,1)[1,1] (0,8)[0,2] (0,9)[0,3] (8,8)[1,2] (8,9)[1,3] (0,16)[0,4] (0,17)[0,5] (8,16)[1,4] (8,17)[1,5] (0,24)[0,6] (0,25)[0,7] (8,24)[1,6] (8,25)[1,7] | lanes (0,2) (0,4) (1,0) (2,0) (4,0) | warps (0,0) (16,0)
  func.func private @mma_a(%v: tensor<32x32xf16, #a>)
  // mma.sync B (f16): b0, b1 at K 2t and 2t+8 of column g.
  // CHECK: remark: tile [16,16] of [4,1] | registers [8,1]: (0,0)[0,0] (1,0)[1,0] (8,0)[2,0] (9,0)[3,0] (16,0)[4,0] (17,0)[5,0] (24,0)[6,0] (25,0)[7,0] | lanes (2,0) (4,0) (0,1) (0,2) (0,4) | warps (0,8) (0,0)
  func.func private @mma_b(%v: tensor<32x16xf16, #b>)
  // mma.sync A for i8 (4 elements a register): K 4t and 4t + 16.
  // CHECK: remark: tile [32,32] of [2,8] | registers [2,8]: (0,0)[0,0] (0,1)[0,1] (0,2)[0,2] (0,3)[0,3] (8,0)[1,0] (8,1)[1,1] (8,2)[1,2] (8,3)[1,3] (0,16)[0,4] (0,17)[0,5] (0,18)[0,6] (0,19)[0,7] (8,16)[1,4] (8,17)[1,5] (8,18)[1,6] (8,19)[1,7] | lanes (0,4) (0,8) (1,0) (2,0) (4,0) | warps (0,0) (0,0)
  func.func private @mma_a_i8(%v: tensor<16x32xi8, #a8>)
  // wgmma accumulator m64n16: per 8-column group as mma.sync's; warps M
  // by 16 rows.
  // CHECK: remark: tile [64,16] of [2,4] | registers [2,8]: (0,0)[0,0] (0,1)[0,1] (8,0)[1,0] (8,1)[1,1] (0,8)[0,2] (0,9)[0,3] (8,8)[1,2] (8,9)[1,3] (0,16)[0,4] (0,17)[0,5] (8,16)[1,4] (8,17)[1,5] (0,24)[0,6] (0,25)[0,7] (8,24)[1,6] (8,25)[1,7] | lanes (0,2) (0,4) (1,0) (2,0) (4,0) | warps (16,0) (32,0)
  func.func private @wgmma_acc(%v: tensor<64x32xf32, #wgmma>)
  // wgmma's A operand in registers: mma.sync's A fragment per K step of 16.
  // CHECK: remark: tile [64,16] of [2,4] | registers [2,8]: (0,0)[0,0] (0,1)[0,1] (8,0)[1,0] (8,1)[1,1] (0,8)[0,2] (0,9)[0,3] (8,8)[1,2] (8,9)[1,3] (0,16)[0,4] (0,17)[0,5] (8,16)[1,4] (8,17)[1,5] (0,24)[0,6] (0,25)[0,7] (8,24)[1,6] (8,25)[1,7] | lanes (0,2) (0,4) (1,0) (2,0) (4,0) | warps (16,0) (32,0)
  func.func private @wgmma_a(%v: tensor<64x32xf16, #wgmma_a>)
  // The accumulator's row slice: rows g and g + 8 of each warp's 16.
  // CHECK: remark: tile none | registers [2]: (0)[0] (8)[1] | lanes (0) (0) (1) (2) (4) | warps (16) (32)
  func.func private @wgmma_rows(%v: tensor<64xf32, #wgmma_rows>)
}
