// RUN: tilelang-opt %s --split-input-file --convert-tilegpu-to-llvm --verify-diagnostics | FileCheck %s

// fp8 values are i8 bit patterns in LLVM (loads and stores move bytes).
// Casts from fp8 are exact: on sm_89+ each pair of a thread's elements
// takes one cvt.rn.f16x2.{e4m3,e5m2}x2, then f16 widens (to bf16 through
// f32). Casts to fp8 round to nearest even and saturate
// (cvt.rn.satfinite), a pair at a time: from f16 directly, from f32, and
// from bf16 widened to f32.
#b = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_90a"} {
// CHECK-LABEL: llvm.func @casts
// CHECK: llvm.load {{.*}} -> vector<1xi8>
// CHECK: llvm.call_intrinsic "llvm.nvvm.e4m3x2.to.f16x2.rn"({{.*}}) : (i16) -> vector<2xf16>
// CHECK: llvm.fpext {{.*}} : f16 to f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.e5m2x2.to.f16x2.rn"({{.*}}) : (i16) -> vector<2xf16>
// CHECK: llvm.fpext {{.*}} : f16 to f32
// CHECK: llvm.fptrunc {{.*}} : f32 to bf16
// CHECK: llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"({{.*}}) : (f32, f32) -> i16
// CHECK: llvm.call_intrinsic "llvm.nvvm.f16x2.to.e5m2x2.rn"({{.*}}) : (vector<2xf16>) -> i16
// CHECK: llvm.fpext {{.*}} : bf16 to f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ff.to.e4m3x2.rn"({{.*}}) : (f32, f32) -> i16
func.func @casts(%px: tensor<64x!tile.ptr<f8E4M3FN>, #b>, %py: tensor<64x!tile.ptr<f8E5M2>, #b>,
                 %pf: tensor<64x!tile.ptr<f32>, #b>, %ph: tensor<64x!tile.ptr<f16>, #b>,
                 %pbf: tensor<64x!tile.ptr<bf16>, #b>) {
  %x = tile.load %px : tensor<64x!tile.ptr<f8E4M3FN>, #b>
  %y = tile.load %py : tensor<64x!tile.ptr<f8E5M2>, #b>
  %0 = arith.extf %x : tensor<64xf8E4M3FN, #b> to tensor<64xf32, #b>
  %1 = arith.extf %y : tensor<64xf8E5M2, #b> to tensor<64xbf16, #b>
  %f = tile.load %pf : tensor<64x!tile.ptr<f32>, #b>
  %2 = arith.truncf %f : tensor<64xf32, #b> to tensor<64xf8E4M3FN, #b>
  %h = tile.load %ph : tensor<64x!tile.ptr<f16>, #b>
  %3 = arith.truncf %h : tensor<64xf16, #b> to tensor<64xf8E5M2, #b>
  %4 = arith.truncf %1 : tensor<64xbf16, #b> to tensor<64xf8E4M3FN, #b>
  tile.store %px, %2 : tensor<64x!tile.ptr<f8E4M3FN>, #b>
  tile.store %py, %3 : tensor<64x!tile.ptr<f8E5M2>, #b>
  tile.store %px, %4 : tensor<64x!tile.ptr<f8E4M3FN>, #b>
  tile.store %pf, %0 : tensor<64x!tile.ptr<f32>, #b>
  tile.store %pbf, %1 : tensor<64x!tile.ptr<bf16>, #b>
  return
}

// An fp8 constant is its bit pattern (1.0 in e4m3 is 0x38).
// CHECK-LABEL: llvm.func @constant
// CHECK: llvm.mlir.constant(56 : i8) : i8
func.func @constant(%px: tensor<64x!tile.ptr<f8E4M3FN>, #b>) {
  %0 = arith.constant dense<1.0> : tensor<64xf8E4M3FN, #b>
  tile.store %px, %0 : tensor<64x!tile.ptr<f8E4M3FN>, #b>
  return
}
}

// -----

// sm_80 has no fp8 cvt: widening is exact in software (e5m2 is an f16's
// high byte; e4m3 shifted into f16's fields and scaled by 2^8, 0x7F kept
// NaN), narrowing is refused.
#b = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_80"} {
// CHECK-LABEL: llvm.func @widen_sm80
// CHECK-NOT: llvm.call_intrinsic
// CHECK: llvm.shl
// CHECK: llvm.fmul {{.*}} : f16
// CHECK: llvm.select
func.func @widen_sm80(%px: tensor<64x!tile.ptr<f8E5M2>, #b>, %py: tensor<64x!tile.ptr<f8E4M3FN>, #b>, %po: tensor<64x!tile.ptr<f16>, #b>) {
  %x = tile.load %px : tensor<64x!tile.ptr<f8E5M2>, #b>
  %y = tile.load %py : tensor<64x!tile.ptr<f8E4M3FN>, #b>
  %0 = arith.extf %x : tensor<64xf8E5M2, #b> to tensor<64xf16, #b>
  %1 = arith.extf %y : tensor<64xf8E4M3FN, #b> to tensor<64xf16, #b>
  %2 = arith.addf %0, %1 : tensor<64xf16, #b>
  tile.store %po, %2 : tensor<64x!tile.ptr<f16>, #b>
  return
}
}

// -----

#b = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {tilegpu.num_warps = 1 : i32, tilegpu.target = "sm_80"} {
func.func @narrow_sm80(%px: tensor<64x!tile.ptr<f32>, #b>, %py: tensor<64x!tile.ptr<f8E4M3FN>, #b>) {
  %x = tile.load %px : tensor<64x!tile.ptr<f32>, #b>
  // expected-error @+1 {{conversions to fp8 need sm_89 or newer (the target is sm_80)}}
  %0 = arith.truncf %x : tensor<64xf32, #b> to tensor<64xf8E4M3FN, #b>
  tile.store %py, %0 : tensor<64x!tile.ptr<f8E4M3FN>, #b>
  return
}
}
