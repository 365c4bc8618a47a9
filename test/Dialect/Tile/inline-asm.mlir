// tile.elementwise_inline_asm: the custom form round-trips, and its verifier
// rejects operands of several shapes, scalars mixed with tensors, pack
// values that are not powers of 2 or do not divide the elements, i1 and
// pointer elements, and constraints that list another number of registers
// than the operands and results take per run.
// RUN: tilelang-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// One i32 in, one i32 out, one register each; pure.
// CHECK-LABEL: func.func @shift
// CHECK: tile.elementwise_inline_asm "shl.b32 $0, $1, 3;" {constraints = "=r,r", pack = 1 : i32, pure} %{{.*}} : tensor<128xi32> -> tensor<128xi32>
func.func @shift(%x: tensor<128xi32>) -> tensor<128xi32> {
  %y = tile.elementwise_inline_asm "shl.b32 $0, $1, 3;" {constraints = "=r,r", pack = 1 : i32, pure} %x : tensor<128xi32> -> tensor<128xi32>
  return %y : tensor<128xi32>
}

// -----

// Four u8 share one register in, four f32 come out: 5 constraints.
// CHECK-LABEL: func.func @unpack_bytes
// CHECK: tile.elementwise_inline_asm {{.*}} {constraints = "=r,=r,=r,=r,r", pack = 4 : i32} %{{.*}} : tensor<64xi8> -> tensor<64xf32>
func.func @unpack_bytes(%x: tensor<64xi8>) -> tensor<64xf32> {
  %y = tile.elementwise_inline_asm "cvt4" {constraints = "=r,=r,=r,=r,r", pack = 4 : i32} %x : tensor<64xi8> -> tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// Two results and two operands on scalars.
// CHECK-LABEL: func.func @scalars
// CHECK: %{{.*}}:2 = tile.elementwise_inline_asm "two" {constraints = "=r,=h,r,h", pack = 1 : i32, pure} %{{.*}}, %{{.*}} : i32, f16 -> i32, f16
func.func @scalars(%a: i32, %b: f16) -> (i32, f16) {
  %r:2 = tile.elementwise_inline_asm "two" {constraints = "=r,=h,r,h", pack = 1 : i32, pure} %a, %b : i32, f16 -> i32, f16
  return %r#0, %r#1 : i32, f16
}

// -----

func.func @shapes(%a: tensor<64xi32>, %b: tensor<128xi32>) {
  // expected-error @+1 {{'tile.elementwise_inline_asm' op all non-scalar operands/results must have the same shape and base type}}
  %r = tile.elementwise_inline_asm "x" {constraints = "=r,r,r", pack = 1 : i32} %a, %b : tensor<64xi32>, tensor<128xi32> -> tensor<64xi32>
  return
}

// -----

func.func @mixed(%a: tensor<64xi32>, %b: i32) {
  // expected-error @+1 {{mixes scalars and tensors; broadcast the scalars}}
  %r = tile.elementwise_inline_asm "x" {constraints = "=r,r,r", pack = 1 : i32} %a, %b : tensor<64xi32>, i32 -> tensor<64xi32>
  return
}

// -----

func.func @pack3(%a: tensor<64xi32>) {
  // expected-error @+1 {{pack must be a power of 2, got 3}}
  %r = tile.elementwise_inline_asm "x" {constraints = "=r,=r,=r,r,r,r", pack = 3 : i32} %a : tensor<64xi32> -> tensor<64xi32>
  return
}

// -----

func.func @scalar_pack(%a: i32) {
  // expected-error @+1 {{on scalars packs one element, got pack = 2}}
  %r = tile.elementwise_inline_asm "x" {constraints = "=r,=r,r,r", pack = 2 : i32} %a : i32 -> i32
  return
}

// -----

func.func @bool(%a: tensor<64xi1>) {
  // expected-error @+1 {{takes integer and floating-point elements (not i1 or pointers), got 'tensor<64xi1>'}}
  %r = tile.elementwise_inline_asm "x" {constraints = "=r,r", pack = 1 : i32} %a : tensor<64xi1> -> tensor<64xi32>
  return
}

// -----

func.func @constraints(%a: tensor<64xf16>) {
  // Two f16 share a register: 1 out + 1 in per run of 2, not 3.
  // expected-error @+1 {{constraints list 3 registers, but the operands and results take 2 per run (pack 2)}}
  %r = tile.elementwise_inline_asm "x" {constraints = "=r,r,r", pack = 2 : i32} %a : tensor<64xf16> -> tensor<64xf16>
  return
}

// -----

#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

func.func @layouts(%a: tensor<512xi32, #b1>) {
  // expected-error @+1 {{operands and results must have one layout, got 'tensor<512xi32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>'}}
  %r = tile.elementwise_inline_asm "x" {constraints = "=r,r", pack = 1 : i32} %a : tensor<512xi32, #b1> -> tensor<512xi32, #b4>
  return
}
