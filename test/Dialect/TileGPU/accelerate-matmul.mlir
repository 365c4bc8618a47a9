// tilegpu-accelerate-matmul puts tile.dot on mma.sync layouts, keeps a
// loop-carried accumulator in the mma layout and folds acc + dot(a, b).
// RUN: tilelang-opt %s --tilegpu-accelerate-matmul -split-input-file -verify-diagnostics | FileCheck %s

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#acc = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// 128x128 with 4 warps: 2x2 warps of 64x64 each; f16 packs 2 per register.
// CHECK-DAG: #[[MMA:.*]] = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
// CHECK-DAG: #[[OPA:.*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[MMA]], kWidth = 2>
// CHECK-DAG: #[[OPB:.*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[MMA]], kWidth = 2>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // CHECK-LABEL: func @loop
  // The accumulator enters the loop converted once, stays in the mma
  // layout across iterations, and leaves converted once.
  // CHECK: %[[INIT:.*]] = tilegpu.convert_layout %{{.*}} : tensor<128x128xf32, #{{.*}}> -> tensor<128x128xf32, #[[MMA]]>
  // CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<128x128xf32, #[[MMA]]>)
  // CHECK: %[[A:.*]] = tilegpu.convert_layout %{{.*}} -> tensor<128x32xf16, #[[OPA]]>
  // CHECK: %[[B:.*]] = tilegpu.convert_layout %{{.*}} -> tensor<32x128xf16, #[[OPB]]>
  // CHECK: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]] : tensor<128x32xf16, #[[OPA]]> * tensor<32x128xf16, #[[OPB]]> -> tensor<128x128xf32, #[[MMA]]>
  // CHECK-NEXT: scf.yield %[[D]]
  // CHECK: tilegpu.convert_layout %{{.*}} : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #{{.*}}>
  func.func @loop(%a: tensor<128x32xf16, #blocked>, %b: tensor<32x128xf16, #blocked>, %n: i32) -> tensor<128x128xf32, #acc> {
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #acc>) : i32 {
      %d = tile.dot %a, %b, %acc : tensor<128x32xf16, #blocked> * tensor<32x128xf16, #blocked> -> tensor<128x128xf32, #acc>
      scf.yield %d : tensor<128x128xf32, #acc>
    }
    return %r : tensor<128x128xf32, #acc>
  }

  // CHECK-LABEL: func @add_into_dot
  // acc + dot(a, b) accumulates in the dot; no addf is left.
  // CHECK-NOT: arith.addf
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : {{.*}} -> tensor<128x128xf32, #[[MMA]]>
  // CHECK-NOT: arith.addf
  func.func @add_into_dot(%a: tensor<128x32xf16, #blocked>, %b: tensor<32x128xf16, #blocked>, %acc: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %d = tile.dot %a, %b, %zero : tensor<128x32xf16, #blocked> * tensor<32x128xf16, #blocked> -> tensor<128x128xf32, #acc>
    %s = arith.addf %acc, %d : tensor<128x128xf32, #acc>
    return %s : tensor<128x128xf32, #acc>
  }

  // CHECK-LABEL: func @narrow_first
  // The epilogue's f32 -> f16 happens in the mma layout, so the conversion
  // moves f16.
  // CHECK: %[[D:.*]] = tile.dot {{.*}} -> tensor<128x128xf32, #[[MMA]]>
  // CHECK: %[[H:.*]] = arith.truncf %[[D]] : tensor<128x128xf32, #[[MMA]]> to tensor<128x128xf16, #[[MMA]]>
  // CHECK: tilegpu.convert_layout %[[H]] : tensor<128x128xf16, #[[MMA]]> -> tensor<128x128xf16, #{{.*}}>
  func.func @narrow_first(%a: tensor<128x32xf16, #blocked>, %b: tensor<32x128xf16, #blocked>, %acc: tensor<128x128xf32, #acc>) -> tensor<128x128xf16, #acc> {
    %d = tile.dot %a, %b, %acc : tensor<128x32xf16, #blocked> * tensor<32x128xf16, #blocked> -> tensor<128x128xf32, #acc>
    %h = arith.truncf %d : tensor<128x128xf32, #acc> to tensor<128x128xf16, #acc>
    return %h : tensor<128x128xf16, #acc>
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
// Warps go where the per-warp tile is larger: 64x256 with 8 warps is 2x4
// warps of 32x64 (on sm_80: sm_90a would put the 16-bit product on wgmma).
// f32 operands take tf32 (one element per register), i8 four per register;
// an f16 accumulator is widened around the product.
// CHECK-DAG: #[[WIDE:.*]] = #tilegpu.mma<version = 2, warpsPerCTA = [2, 4], instrShape = [16, 8]>
// CHECK-DAG: #tilegpu.dot_op<opIdx = 0, parent = #[[WIDE]], kWidth = 1>
// CHECK-DAG: #tilegpu.dot_op<opIdx = 0, parent = #[[WIDE]], kWidth = 4>
module attributes {tilegpu.num_warps = 8 : i32, tilegpu.target = "sm_80"} {
  // CHECK-LABEL: func @types
  // CHECK: tile.dot {{.*}} -> tensor<64x256xf32, #[[WIDE]]>
  // CHECK: tile.dot {{.*}} -> tensor<64x256xi32, #[[WIDE]]>
  // CHECK: arith.extf %{{.*}} : tensor<64x256xf16, #[[WIDE]]> to tensor<64x256xf32, #[[WIDE]]>
  // CHECK: tile.dot {{.*}} -> tensor<64x256xf32, #[[WIDE]]>
  // CHECK: arith.truncf %{{.*}} : tensor<64x256xf32, #[[WIDE]]> to tensor<64x256xf16, #[[WIDE]]>
  func.func @types(%af: tensor<64x32xf32, #blocked>, %bf: tensor<32x256xf32, #blocked>, %cf: tensor<64x256xf32, #blocked>,
                   %ai: tensor<64x32xi8, #blocked>, %bi: tensor<32x256xi8, #blocked>, %ci: tensor<64x256xi32, #blocked>,
                   %ah: tensor<64x32xf16, #blocked>, %bh: tensor<32x256xf16, #blocked>, %ch: tensor<64x256xf16, #blocked>)
      -> (tensor<64x256xf32, #blocked>, tensor<64x256xi32, #blocked>, tensor<64x256xf16, #blocked>) {
    %f = tile.dot %af, %bf, %cf : tensor<64x32xf32, #blocked> * tensor<32x256xf32, #blocked> -> tensor<64x256xf32, #blocked>
    %i = tile.dot %ai, %bi, %ci : tensor<64x32xi8, #blocked> * tensor<32x256xi8, #blocked> -> tensor<64x256xi32, #blocked>
    %h = tile.dot %ah, %bh, %ch : tensor<64x32xf16, #blocked> * tensor<32x256xf16, #blocked> -> tensor<64x256xf16, #blocked>
    return %f, %i, %h : tensor<64x256xf32, #blocked>, tensor<64x256xi32, #blocked>, tensor<64x256xf16, #blocked>
  }
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#bt = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#acc = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// On sm_90a a 16-bit product goes to wgmma: one warpgroup of 4 warps along
// M, each m64n128k16 instruction covering its whole N; both operands are
// written to 128-byte-swizzled shared tiles in their register layout's row
// order, and the loop-carried accumulator stays in the wgmma layout.
// CHECK-DAG: #[[WG:.*]] = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
// CHECK-DAG: #[[SW:.*]] = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func @wgmma
  // CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #[[WG]]>)
  // CHECK-DAG: %[[A:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<128x64xf16, #{{.*}}>) -> !tilegpu.memdesc<128x64xf16, #[[SW]]>
  // CHECK-DAG: %[[B:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x128xf16, #{{.*}}>) -> !tilegpu.memdesc<64x128xf16, #[[SW]]>
  // CHECK: tilegpu.warp_group_dot %[[A]], %[[B]], %{{.*}} : !tilegpu.memdesc<128x64xf16, #[[SW]]> * !tilegpu.memdesc<64x128xf16, #[[SW]]> -> tensor<128x128xf32, #[[WG]]>
  func.func @wgmma(%a: tensor<128x64xf16, #a>, %b: tensor<64x128xf16, #b>, %n: i32) -> tensor<128x128xf32, #acc> {
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #acc>) : i32 {
      %d = tile.dot %a, %b, %acc : tensor<128x64xf16, #a> * tensor<64x128xf16, #b> -> tensor<128x128xf32, #acc>
      scf.yield %d : tensor<128x128xf32, #acc>
    }
    return %r : tensor<128x128xf32, #acc>
  }

  // b.T of a tile held as N x K: the tile goes to shared memory as it is
  // (K contiguous) and wgmma reads it through a transposed view.
  // CHECK-LABEL: func @wgmma_transposed_b
  // CHECK: %[[BT:.*]] = tilegpu.local_alloc %arg1 : (tensor<128x64xf16, #{{.*}}>) -> !tilegpu.memdesc<128x64xf16, #[[SW]]>
  // CHECK: %[[V:.*]] = tilegpu.memdesc_trans %[[BT]] : !tilegpu.memdesc<128x64xf16, #[[SW]]> -> !tilegpu.memdesc<64x128xf16, #[[SWT:.*]]>
  // CHECK: tilegpu.warp_group_dot %{{.*}}, %[[V]], %{{.*}} : !tilegpu.memdesc<128x64xf16, #[[SW]]> * !tilegpu.memdesc<64x128xf16, #[[SWT]]>
  func.func @wgmma_transposed_b(%a: tensor<128x64xf16, #a>, %bt: tensor<128x64xf16, #a>, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %b = tile.trans %bt {order = array<i32: 1, 0>} : tensor<128x64xf16, #a> -> tensor<64x128xf16, #bt>
    %d = tile.dot %a, %b, %c : tensor<128x64xf16, #a> * tensor<64x128xf16, #bt> -> tensor<128x128xf32, #acc>
    return %d : tensor<128x128xf32, #acc>
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @f64(%a: tensor<16x16xf64, #blocked>, %c: tensor<16x16xf64, #blocked>) -> tensor<16x16xf64, #blocked> {
    // expected-error @+1 {{tile.dot on 'f64' operands cannot be lowered yet (the tensor-core lowering takes f16, bf16, f32 through tf32, and i8)}}
    %d = tile.dot %a, %a, %c : tensor<16x16xf64, #blocked> * tensor<16x16xf64, #blocked> -> tensor<16x16xf64, #blocked>
    return %d : tensor<16x16xf64, #blocked>
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @ieee(%a: tensor<16x16xf32, #blocked>, %c: tensor<16x16xf32, #blocked>) -> tensor<16x16xf32, #blocked> {
    // expected-error @+1 {{tile.dot with inputPrecision = ieee (exact f32 products) cannot be lowered yet: use tf32 or tf32x3}}
    %d = tile.dot %a, %a, %c inputPrecision = ieee : tensor<16x16xf32, #blocked> * tensor<16x16xf32, #blocked> -> tensor<16x16xf32, #blocked>
    return %d : tensor<16x16xf32, #blocked>
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @short_i8(%a: tensor<16x16xi8, #blocked>, %c: tensor<16x16xi32, #blocked>) -> tensor<16x16xi32, #blocked> {
    // expected-error @+1 {{tile.dot on 'i8' needs K >= 32, got K = 16}}
    %d = tile.dot %a, %a, %c : tensor<16x16xi8, #blocked> * tensor<16x16xi8, #blocked> -> tensor<16x16xi32, #blocked>
    return %d : tensor<16x16xi32, #blocked>
  }
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#bk = #tilegpu.blocked<sizePerThread = [16, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#bn = #tilegpu.blocked<sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#acc = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// On sm_90a an i8 product whose operands are both K-major (A's rows and B's
// columns contiguous) goes to wgmma as fp8 does: 32-deep instructions, an
// i32 accumulator carried in the wgmma layout, and 8-bit swizzled tiles
// (16 elements a vector; 64-byte rows). B with N contiguous cannot be read
// by wgmma's 8-bit forms: that product stays on mma.sync m16n8k32.
// CHECK-DAG: #[[WG8:.*]] = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 32]>
// CHECK-DAG: #[[SYNC:.*]] = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
// CHECK-DAG: #[[ROWS:.*]] = #tilegpu.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]>
// CHECK-DAG: #[[COLS:.*]] = #tilegpu.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]>
// CHECK-DAG: #[[OP8:.*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[SYNC]], kWidth = 4>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func @wgmma_i8
  // CHECK: scf.for {{.*}} -> (tensor<128x128xi32, #[[WG8]]>)
  // CHECK: %[[A:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<128x64xi8, #{{.*}}>) -> !tilegpu.memdesc<128x64xi8, #[[ROWS]]>
  // CHECK: %[[B:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x128xi8, #{{.*}}>) -> !tilegpu.memdesc<64x128xi8, #[[COLS]]>
  // CHECK: tilegpu.warp_group_dot %[[A]], %[[B]], %{{.*}} : !tilegpu.memdesc<128x64xi8, #[[ROWS]]> * !tilegpu.memdesc<64x128xi8, #[[COLS]]> -> tensor<128x128xi32, #[[WG8]]>
  func.func @wgmma_i8(%a: tensor<128x64xi8, #a>, %b: tensor<64x128xi8, #bk>, %n: i32) -> tensor<128x128xi32, #acc> {
    %zero = arith.constant dense<0> : tensor<128x128xi32, #acc>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xi32, #acc>) : i32 {
      %d = tile.dot %a, %b, %acc : tensor<128x64xi8, #a> * tensor<64x128xi8, #bk> -> tensor<128x128xi32, #acc>
      scf.yield %d : tensor<128x128xi32, #acc>
    }
    return %r : tensor<128x128xi32, #acc>
  }

  // b.T of a tile held as N x K: stored as it is, read through a transposed
  // view, which is K-major.
  // CHECK-LABEL: func @wgmma_i8_transposed_b
  // CHECK: %[[BT:.*]] = tilegpu.local_alloc %arg1 : (tensor<128x64xi8, #{{.*}}>) -> !tilegpu.memdesc<128x64xi8, #[[ROWS]]>
  // CHECK: %[[V:.*]] = tilegpu.memdesc_trans %[[BT]]
  // CHECK: tilegpu.warp_group_dot %{{.*}}, %[[V]], %{{.*}} -> tensor<128x128xi32, #[[WG8]]>
  func.func @wgmma_i8_transposed_b(%a: tensor<128x64xi8, #a>, %bt: tensor<128x64xi8, #a>, %c: tensor<128x128xi32, #acc>) -> tensor<128x128xi32, #acc> {
    %b = tile.trans %bt {order = array<i32: 1, 0>} : tensor<128x64xi8, #a> -> tensor<64x128xi8, #bk>
    %d = tile.dot %a, %b, %c : tensor<128x64xi8, #a> * tensor<64x128xi8, #bk> -> tensor<128x128xi32, #acc>
    return %d : tensor<128x128xi32, #acc>
  }

  // CHECK-LABEL: func @n_major_i8
  // CHECK-NOT: tilegpu.local_alloc
  // CHECK: tilegpu.convert_layout %{{.*}} -> tensor<64x128xi8, #[[OP8]]>
  // CHECK: tile.dot {{.*}} -> tensor<128x128xi32, #[[SYNC]]>
  func.func @n_major_i8(%a: tensor<128x64xi8, #a>, %b: tensor<64x128xi8, #bn>, %c: tensor<128x128xi32, #acc>) -> tensor<128x128xi32, #acc> {
    %d = tile.dot %a, %b, %c : tensor<128x64xi8, #a> * tensor<64x128xi8, #bn> -> tensor<128x128xi32, #acc>
    return %d : tensor<128x128xi32, #acc>
  }
}
