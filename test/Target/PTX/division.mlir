// RUN: tilelang-compile %s --arch=sm_90a --num-warps=1 | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 --num-warps=1 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}

// f32 division that allows approximation (the frontend's `/`, as in
// Triton) is div.full.f32; without the flag (tl.div_rn) it rounds to
// nearest, and f64 division always does.
// CHECK-LABEL: .entry divide
// CHECK: div.full.f32
// CHECK: div.rn.f32
// CHECK: div.rn.f64
// CHECK-NOT: div.approx
func.func @divide(%out32: !tile.ptr<f32>, %out64: !tile.ptr<f64>, %a: f32, %b: f32,
                  %c: f64, %d: f64) {
  %range = tile.make_range 0 to 32 : tensor<32xi32>
  %a_v = tile.splat %a : f32 -> tensor<32xf32>
  %b_v = tile.splat %b : f32 -> tensor<32xf32>
  %i = arith.sitofp %range : tensor<32xi32> to tensor<32xf32>
  %num = arith.addf %a_v, %i : tensor<32xf32>
  %approx = arith.divf %num, %b_v fastmath<afn> : tensor<32xf32>
  %exact = arith.divf %approx, %b_v : tensor<32xf32>
  %p_base = tile.splat %out32 : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
  %p = tile.addptr %p_base, %range : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  tile.store %p, %exact : tensor<32x!tile.ptr<f32>>
  %q = arith.divf %c, %d : f64
  tile.store %out64, %q : !tile.ptr<f64>
  return
}
