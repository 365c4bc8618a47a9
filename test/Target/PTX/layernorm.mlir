// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s
// RUN: env TILELANG_L2_REUSE_HINTS=1 tilelang-compile %s --arch=sm_90a | FileCheck %s
// RUN: env TILELANG_L2_REUSE_HINTS=0 tilelang-compile %s --arch=sm_90a | FileCheck %s --check-prefix=OFF
// RUN: tilelang-compile %s --arch=sm_80 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: tilelang-compile %s --arch=sm_90a -o %t.sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90a.ptx -o /dev/null %}

// 128-bit loads of 8 f16 in all three passes over the row, warp-shuffle
// reductions for the mean and the variance, and sqrt.rn (no libdevice).
// tile-l2-reuse-hints (on by default) keeps x in L2 for the passes that read it again
// (evict_last), lets it go at its last read and writes y evict_first; w and
// b, which every program reads, keep the normal priority.
// CHECK: .entry layer_norm_fwd
// CHECK: createpolicy.fractional.L2::evict_last.b64 [[LAST:%rd[0-9]+]], 1.0;
// CHECK: @%p{{[0-9]+}} ld.global.L1::evict_last.L2::cache_hint.v4.b32 {{.*}}, [[LAST]];
// CHECK: shfl.sync.bfly.b32
// CHECK: @%p{{[0-9]+}} ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: sqrt.rn.f32
// CHECK: @%p{{[0-9]+}} ld.global.v4.b32
// CHECK: @%p{{[0-9]+}} ld.global.v4.b32
// CHECK: createpolicy.fractional.L2::evict_first.b64 [[FIRST:%rd[0-9]+]], 1.0;
// CHECK: @%p{{[0-9]+}} ld.global.L1::evict_first.L2::cache_hint.v4.b32 {{.*}}, [[FIRST]];
// CHECK: @%p{{[0-9]+}} st.global.L1::evict_first.L2::cache_hint.v4.b32 {{.*}}, [[FIRST]];
// With TILELANG_L2_REUSE_HINTS=0: no priority anywhere.
// OFF: .entry layer_norm_fwd
// OFF-NOT: createpolicy
// OFF-NOT: evict
// OFF: @%p{{[0-9]+}} st.global.v4.b32

// Layernorm forward in tile IR, as the frontend emits Triton's tutorial
// kernel: one program per row; the row is walked in BLOCK = 1024 column
// chunks three times (mean, variance, normalize). Mean and 1/std are saved.
func.func @layer_norm_fwd(%X: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %Y: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %W: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %B: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %Mean: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %Rstd: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %stride: i32 {tile.divisibility = 16 : i32},
                          %N: i32 {tile.divisibility = 16 : i32},
                          %eps: f32) {
  %row = tile.program_id x : i32
  %row_start = arith.muli %row, %stride : i32
  %x_row = tile.addptr %X, %row_start : !tile.ptr<f16>, i32
  %y_row = tile.addptr %Y, %row_start : !tile.ptr<f16>, i32
  %c0 = arith.constant 0 : i32
  %block = arith.constant 1024 : i32
  %cols0 = tile.make_range 0 to 1024 : tensor<1024xi32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %zero16 = arith.constant dense<0.0> : tensor<1024xf16>
  %N_v = tile.splat %N : i32 -> tensor<1024xi32>
  %x_base = tile.splat %x_row : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  %N_f = arith.sitofp %N : i32 to f32

  // Mean.
  %sum = scf.for %off = %c0 to %N step %block iter_args(%acc = %zero) -> (tensor<1024xf32>) : i32 {
    %off_v = tile.splat %off : i32 -> tensor<1024xi32>
    %cols = arith.addi %off_v, %cols0 : tensor<1024xi32>
    %mask = arith.cmpi slt, %cols, %N_v : tensor<1024xi32>
    %ptrs = tile.addptr %x_base, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
    %a16 = tile.load %ptrs, %mask, %zero16 : tensor<1024x!tile.ptr<f16>>
    %a = arith.extf %a16 : tensor<1024xf16> to tensor<1024xf32>
    %next = arith.addf %acc, %a : tensor<1024xf32>
    scf.yield %next : tensor<1024xf32>
  }
  %total = tile.reduce %sum axis = 0 : tensor<1024xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tile.reduce.return %s : f32
  }
  %mean = arith.divf %total, %N_f : f32
  %mean_v = tile.splat %mean : f32 -> tensor<1024xf32>

  // Variance.
  %sq = scf.for %off = %c0 to %N step %block iter_args(%acc = %zero) -> (tensor<1024xf32>) : i32 {
    %off_v = tile.splat %off : i32 -> tensor<1024xi32>
    %cols = arith.addi %off_v, %cols0 : tensor<1024xi32>
    %mask = arith.cmpi slt, %cols, %N_v : tensor<1024xi32>
    %ptrs = tile.addptr %x_base, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
    %a16 = tile.load %ptrs, %mask, %zero16 : tensor<1024x!tile.ptr<f16>>
    %a = arith.extf %a16 : tensor<1024xf16> to tensor<1024xf32>
    %centered = arith.subf %a, %mean_v : tensor<1024xf32>
    %kept = arith.select %mask, %centered, %zero : tensor<1024xi1>, tensor<1024xf32>
    %square = arith.mulf %kept, %kept : tensor<1024xf32>
    %next = arith.addf %acc, %square : tensor<1024xf32>
    scf.yield %next : tensor<1024xf32>
  }
  %sq_total = tile.reduce %sq axis = 0 : tensor<1024xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %s = arith.addf %l, %r : f32
    tile.reduce.return %s : f32
  }
  %var = arith.divf %sq_total, %N_f : f32
  %var_eps = arith.addf %var, %eps : f32
  %std = math.sqrt %var_eps : f32
  %one = arith.constant 1.0 : f32
  %rstd = arith.divf %one, %std : f32
  %mean_ptr = tile.addptr %Mean, %row : !tile.ptr<f32>, i32
  tile.store %mean_ptr, %mean : !tile.ptr<f32>
  %rstd_ptr = tile.addptr %Rstd, %row : !tile.ptr<f32>, i32
  tile.store %rstd_ptr, %rstd : !tile.ptr<f32>

  // Normalize and apply the affine transform.
  %rstd_v = tile.splat %rstd : f32 -> tensor<1024xf32>
  %w_base = tile.splat %W : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  %b_base = tile.splat %B : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  %y_base = tile.splat %y_row : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
  scf.for %off = %c0 to %N step %block : i32 {
    %off_v = tile.splat %off : i32 -> tensor<1024xi32>
    %cols = arith.addi %off_v, %cols0 : tensor<1024xi32>
    %mask = arith.cmpi slt, %cols, %N_v : tensor<1024xi32>
    %w_ptrs = tile.addptr %w_base, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
    %b_ptrs = tile.addptr %b_base, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
    %x_ptrs = tile.addptr %x_base, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
    %w16 = tile.load %w_ptrs, %mask : tensor<1024x!tile.ptr<f16>>
    %b16 = tile.load %b_ptrs, %mask : tensor<1024x!tile.ptr<f16>>
    %x16 = tile.load %x_ptrs, %mask, %zero16 : tensor<1024x!tile.ptr<f16>>
    %w = arith.extf %w16 : tensor<1024xf16> to tensor<1024xf32>
    %b = arith.extf %b16 : tensor<1024xf16> to tensor<1024xf32>
    %x = arith.extf %x16 : tensor<1024xf16> to tensor<1024xf32>
    %centered = arith.subf %x, %mean_v : tensor<1024xf32>
    %x_hat = arith.mulf %centered, %rstd_v : tensor<1024xf32>
    %scaled = arith.mulf %x_hat, %w : tensor<1024xf32>
    %y = arith.addf %scaled, %b : tensor<1024xf32>
    %y16 = arith.truncf %y : tensor<1024xf32> to tensor<1024xf16>
    %y_ptrs = tile.addptr %y_base, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
    tile.store %y_ptrs, %y16, %mask : tensor<1024x!tile.ptr<f16>>
  }
  return
}
