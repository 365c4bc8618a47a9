// convert-tilegpu-to-llvm of tile.elementwise_inline_asm: one llvm.inline_asm
// per group of `pack` elements a thread holds, 8-bit elements packed four to
// a 32-bit register (a bitcast vector), several results as a struct, and
// side effects unless the op is pure.
// RUN: tilelang-opt %s -split-input-file --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // Four i32 per thread, pack 1, pure: four blocks without side effects.
  // CHECK-LABEL: llvm.func @shift
  // CHECK-COUNT-4: llvm.inline_asm asm_dialect = att "shl.b32 $0, $1, 3;", "=r,r" %{{.*}} : (i32) -> i32
  // CHECK-NOT: llvm.inline_asm
  func.func @shift(%x: tensor<512xi32, #b4>, %p: tensor<512x!tile.ptr<i32>, #b4>) {
    %y = tile.elementwise_inline_asm "shl.b32 $0, $1, 3;" {constraints = "=r,r", pack = 1 : i32, pure} %x : tensor<512xi32, #b4> -> tensor<512xi32, #b4>
    tile.store %p, %y : tensor<512x!tile.ptr<i32>, #b4>
    return
  }
}

// -----

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // Four i8 per thread, pack 4: their vector bitcast to one i32 in, four
  // i32 out as a struct; not pure, so with side effects.
  // CHECK-LABEL: llvm.func @unpack
  // CHECK: %[[V:.*]] = llvm.bitcast %{{.*}} : vector<4xi8> to i32
  // CHECK: %[[R:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "bfe", "=r,=r,=r,=r,r" %[[V]] : (i32) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK-COUNT-4: llvm.extractvalue %[[R]]
  // CHECK-NOT: llvm.inline_asm
  func.func @unpack(%x: tensor<512xi8, #b4>, %p: tensor<512x!tile.ptr<i32>, #b4>) {
    %y = tile.elementwise_inline_asm "bfe" {constraints = "=r,=r,=r,=r,r", pack = 4 : i32} %x : tensor<512xi8, #b4> -> tensor<512xi32, #b4>
    tile.store %p, %y : tensor<512x!tile.ptr<i32>, #b4>
    return
  }
}

// -----

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // Two f16 results per run of 2 come back as one i32 each, bitcast to
  // vector<2xf16> and split: two runs per thread.
  // CHECK-LABEL: llvm.func @halves
  // CHECK: %[[R:.*]] = llvm.inline_asm asm_dialect = att "h2", "=r,r" %{{.*}} : (i32) -> i32
  // CHECK: llvm.bitcast %[[R]] : i32 to vector<2xf16>
  // CHECK: llvm.inline_asm asm_dialect = att "h2"
  // CHECK-NOT: llvm.inline_asm
  func.func @halves(%x: tensor<512xf16, #b4>, %p: tensor<512x!tile.ptr<f16>, #b4>) {
    %y = tile.elementwise_inline_asm "h2" {constraints = "=r,r", pack = 2 : i32, pure} %x : tensor<512xf16, #b4> -> tensor<512xf16, #b4>
    tile.store %p, %y : tensor<512x!tile.ptr<f16>, #b4>
    return
  }
}
