// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: tilelang-compile %s --arch=sm_90a -o %t.sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90a.ptx -o /dev/null %}

// Rows are 16-byte aligned here (strides divisible by 8 elements): 8 f16
// per load. Both reductions (max, then sum) run as 5-step butterflies over
// the warp and meet across the 4 warps in shared memory. The two scratch
// spaces lie apart (the sum's partials 16 bytes past the max's), so no
// barrier stands before the sum's store (it would order nothing): one
// barrier per reduction, between its store and its reads.
// CHECK: .entry softmax_kernel
// CHECK: @%p{{[0-9]+}} ld.global.v4.b32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK: st.shared.b32 [ %rd{{[0-9]+}} ]
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: bar.sync 0
// CHECK: ld.shared.b32 {{.*}}, [%r[[PARTIALS:[0-9]+]]];
// CHECK: ex2.approx.ftz.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK: st.shared.b32 [ %rd{{[0-9]+}} ]
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: bar.sync 0
// CHECK-NEXT: ld.shared.b32 {{.*}}, [%r[[PARTIALS]]+16];
// CHECK-NOT: bar.sync
// CHECK: @%p{{[0-9]+}} st.global.v4.b32

// Fused row softmax in tile IR: one program per row, the row held in one
// 1024-wide block (columns past n_cols read as -inf and are not stored).
func.func @softmax_kernel(%out: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %in: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %in_row_stride: i32 {tile.divisibility = 16 : i32},
                          %out_row_stride: i32 {tile.divisibility = 16 : i32},
                          %n_cols: i32 {tile.divisibility = 16 : i32}) {
  %row = tile.program_id x : i32
  %in_row_start = arith.muli %row, %in_row_stride : i32
  %in_row = tile.addptr %in, %in_row_start : !tile.ptr<f16>, i32
  %cols = tile.make_range 0 to 1024 : tensor<1024xi32>
  %n_v = tile.splat %n_cols : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %cols, %n_v : tensor<1024xi32>
  %in_base = tile.splat %in_row : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  %in_ptrs = tile.addptr %in_base, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  %neg_inf = arith.constant dense<0xFC00> : tensor<1024xf16>
  %x16 = tile.load %in_ptrs, %mask, %neg_inf : tensor<1024x!tile.ptr<f16>>
  %x = arith.extf %x16 : tensor<1024xf16> to tensor<1024xf32>

  %max = tile.reduce %x axis = 0 : tensor<1024xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tile.reduce.return %m : f32
  }
  %max_v = tile.splat %max : f32 -> tensor<1024xf32>
  %shifted = arith.subf %x, %max_v : tensor<1024xf32>
  %num = math.exp %shifted : tensor<1024xf32>
  %den = tile.reduce %num axis = 0 : tensor<1024xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }
  %den_v = tile.splat %den : f32 -> tensor<1024xf32>
  %y = arith.divf %num, %den_v : tensor<1024xf32>
  %y16 = arith.truncf %y : tensor<1024xf32> to tensor<1024xf16>

  %out_row_start = arith.muli %row, %out_row_stride : i32
  %out_row = tile.addptr %out, %out_row_start : !tile.ptr<f16>, i32
  %out_base = tile.splat %out_row : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  %out_ptrs = tile.addptr %out_base, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  tile.store %out_ptrs, %y16, %mask : tensor<1024x!tile.ptr<f16>>
  return
}
