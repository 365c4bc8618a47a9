// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: tilelang-compile %s --arch=sm_90a -o %t.sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90a.ptx -o /dev/null %}
// RUN: tilelang-compile %s --arch=sm_90a --maxnreg=40 | FileCheck %s --check-prefix=MAXNREG
// RUN: not tilelang-compile %s --maxnreg=8 2>&1 | FileCheck %s --check-prefix=BADNREG
// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s --check-prefix=OFFSETS

// Each thread moves 16 bytes per access: 4 f32 in one predicated
// ld.global.v4 / st.global.v4 (n is divisible by 16, so the mask is uniform
// over aligned groups of 16).
// CHECK: .entry add_kernel
// At most 128 registers a thread (16 resident warps), for occupancy:
// CHECK: .maxntid 128, 1, 1
// CHECK-NEXT: .minnctapersm 4
// CHECK-COUNT-2: @%p{{[0-9]+}} ld.global.v4.b32 { %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}} }
// CHECK: @%p{{[0-9]+}} st.global.v4.b32
// CHECK-NOT: ld.global.b32

// --maxnreg (Triton's maxnreg) caps the registers instead.
// MAXNREG: .maxntid 128, 1, 1
// MAXNREG-NEXT: .maxnreg 40
// MAXNREG-NEXT: {
// BADNREG: tilelang-compile: error: --maxnreg expects 16 to 255 registers a thread, got '8'

// Without tensor-core products the element offset keeps LLVM's mul.wide
// (the rewrite of lib/Target/PTXPeephole.cpp is for wgmma kernels):
// OFFSETS: mul.wide.s32 %rd{{[0-9]+}}, %r{{[0-9]+}}, 4;
// OFFSETS-NOT: shl.b64

// Vector add in tile IR: out[i] = x[i] + y[i] for i < n, 1024 elements per
// program, masked at the tail. This is what the Python frontend emits for
// Triton's tutorial `add_kernel` with BLOCK_SIZE = 1024.
func.func @add_kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %n: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x : i32
  %block = arith.constant 1024 : i32
  %start = arith.muli %pid, %block : i32
  %range = tile.make_range 0 to 1024 : tensor<1024xi32>
  %start_v = tile.splat %start : i32 -> tensor<1024xi32>
  %offsets = arith.addi %start_v, %range : tensor<1024xi32>
  %n_v = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offsets, %n_v : tensor<1024xi32>

  %x_base = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %x_ptrs = tile.addptr %x_base, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %x_val = tile.load %x_ptrs, %mask : tensor<1024x!tile.ptr<f32>>
  %y_base = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %y_ptrs = tile.addptr %y_base, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %y_val = tile.load %y_ptrs, %mask : tensor<1024x!tile.ptr<f32>>

  %sum = arith.addf %x_val, %y_val : tensor<1024xf32>
  %o_base = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %o_ptrs = tile.addptr %o_base, %offsets : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %o_ptrs, %sum, %mask : tensor<1024x!tile.ptr<f32>>
  return
}
