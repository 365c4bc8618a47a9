// RUN: tilelang-compile %s --arch=sm_90a --num-warps=4 | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 --num-warps=4 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}

// f32 erf (the GELU of matmul epilogues) takes the reciprocal in its
// polynomial's argument t = 1 / (1 + |x|/2) with rcp.approx.ftz.f32: an
// IEEE reciprocal (rcp.rn.f32) is a subroutine with a slow-path branch
// per element, which ptxas cannot interleave across a tile's elements.
// CHECK-LABEL: .entry erf_kernel
// CHECK-NOT: rcp.rn.f32
// CHECK-NOT: div.rn.f32
// CHECK: rcp.approx.ftz.f32
// CHECK: ex2.approx.ftz.f32
// CHECK-NOT: rcp.rn.f32
// CHECK-NOT: div.rn.f32
// CHECK: ret;
func.func @erf_kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0 to 512 : tensor<512xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>>
  %e = math.erf %v : tensor<512xf32>
  %ob = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %op = tile.addptr %ob, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %op, %e : tensor<512x!tile.ptr<f32>>
  return
}
