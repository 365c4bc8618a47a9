// RUN: tilelang-compile %s --arch=sm_90a --num-warps=1 | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 --num-warps=1 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}

// Elementwise results the axis analysis proves equal over runs of adjacent
// elements are computed once per run, and a * b + c contracts to fma.
// `offsets < n` with n divisible by 16 is constant over each thread's 4
// contiguous f32 elements (one 16-byte vector): 128 elements on 32 threads
// need one compare per thread, shared by the load's predicate and the
// select, not four.
// CHECK-LABEL: .entry masked_fma
// CHECK: setp.lt.s32
// CHECK-NOT: setp
// CHECK-COUNT-4: fma.rn.f32
// CHECK-NOT: mul.f32
// CHECK-NOT: setp
func.func @masked_fma(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %n: i32 {tile.divisibility = 16 : i32},
                      %a: f32, %b: f32) {
  %range = tile.make_range 0 to 128 : tensor<128xi32>
  %n_v = tile.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %range, %n_v : tensor<128xi32>
  %x_base = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %x_ptrs = tile.addptr %x_base, %range : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x_val = tile.load %x_ptrs, %mask : tensor<128x!tile.ptr<f32>>
  %a_v = tile.splat %a : f32 -> tensor<128xf32>
  %b_v = tile.splat %b : f32 -> tensor<128xf32>
  %prod = arith.mulf %x_val, %a_v : tensor<128xf32>
  %axpb = arith.addf %prod, %b_v : tensor<128xf32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %masked = arith.select %mask, %axpb, %zero : tensor<128xi1>, tensor<128xf32>
  %o_base = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %o_ptrs = tile.addptr %o_base, %range : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %o_ptrs, %masked : tensor<128x!tile.ptr<f32>>
  return
}
