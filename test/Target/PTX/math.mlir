// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}

// Math functions on f32 (NVVM approximations, polynomial erf) and f64
// (range reduction and polynomials), pow, and casts through every element
// type, with no libdevice: the PTX calls nothing but vprintf-free code.
// CHECK: .entry math_kernel
// CHECK-NOT: call
// CHECK: ex2.approx.ftz.f32
// CHECK: lg2.approx.ftz.f32
// CHECK: sqrt.rn.f32
// CHECK: sqrt.approx.ftz.f32
// CHECK: sqrt.rn.f64
func.func @math_kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                       %out32: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                       %out64: !tile.ptr<f64> {tile.divisibility = 16 : i32},
                       %casts: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0 to 256 : tensor<256xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %xp : tensor<256x!tile.ptr<f32>>
  %v64 = arith.extf %v : tensor<256xf32> to tensor<256xf64>
  %o32 = tile.splat %out32 : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %o64 = tile.splat %out64 : !tile.ptr<f64> -> tensor<256x!tile.ptr<f64>>
  %oc = tile.splat %casts : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %f_exp = math.exp %v : tensor<256xf32>
  %k_f_0 = arith.constant dense<0> : tensor<256xi32>
  %i_f_0 = arith.addi %r, %k_f_0 : tensor<256xi32>
  %p_f_0 = tile.addptr %o32, %i_f_0 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_0, %f_exp : tensor<256x!tile.ptr<f32>>
  %f_exp2 = math.exp2 %v : tensor<256xf32>
  %k_f_1 = arith.constant dense<256> : tensor<256xi32>
  %i_f_1 = arith.addi %r, %k_f_1 : tensor<256xi32>
  %p_f_1 = tile.addptr %o32, %i_f_1 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_1, %f_exp2 : tensor<256x!tile.ptr<f32>>
  %f_log = math.log %v : tensor<256xf32>
  %k_f_2 = arith.constant dense<512> : tensor<256xi32>
  %i_f_2 = arith.addi %r, %k_f_2 : tensor<256xi32>
  %p_f_2 = tile.addptr %o32, %i_f_2 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_2, %f_log : tensor<256x!tile.ptr<f32>>
  %f_log2 = math.log2 %v : tensor<256xf32>
  %k_f_3 = arith.constant dense<768> : tensor<256xi32>
  %i_f_3 = arith.addi %r, %k_f_3 : tensor<256xi32>
  %p_f_3 = tile.addptr %o32, %i_f_3 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_3, %f_log2 : tensor<256x!tile.ptr<f32>>
  %f_sqrt = math.sqrt %v : tensor<256xf32>
  %k_f_4 = arith.constant dense<1024> : tensor<256xi32>
  %i_f_4 = arith.addi %r, %k_f_4 : tensor<256xi32>
  %p_f_4 = tile.addptr %o32, %i_f_4 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_4, %f_sqrt : tensor<256x!tile.ptr<f32>>
  // tl.sqrt: approximation allowed, one sqrt.approx.ftz.f32 (as Triton's).
  %f_sqrt_fast = math.sqrt %v fastmath<afn> : tensor<256xf32>
  %k_f_fast = arith.constant dense<2816> : tensor<256xi32>
  %i_f_fast = arith.addi %r, %k_f_fast : tensor<256xi32>
  %p_f_fast = tile.addptr %o32, %i_f_fast : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_fast, %f_sqrt_fast : tensor<256x!tile.ptr<f32>>
  %f_rsqrt = math.rsqrt %v : tensor<256xf32>
  %k_f_5 = arith.constant dense<1280> : tensor<256xi32>
  %i_f_5 = arith.addi %r, %k_f_5 : tensor<256xi32>
  %p_f_5 = tile.addptr %o32, %i_f_5 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_5, %f_rsqrt : tensor<256x!tile.ptr<f32>>
  %f_sin = math.sin %v : tensor<256xf32>
  %k_f_6 = arith.constant dense<1536> : tensor<256xi32>
  %i_f_6 = arith.addi %r, %k_f_6 : tensor<256xi32>
  %p_f_6 = tile.addptr %o32, %i_f_6 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_6, %f_sin : tensor<256x!tile.ptr<f32>>
  %f_cos = math.cos %v : tensor<256xf32>
  %k_f_7 = arith.constant dense<1792> : tensor<256xi32>
  %i_f_7 = arith.addi %r, %k_f_7 : tensor<256xi32>
  %p_f_7 = tile.addptr %o32, %i_f_7 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_7, %f_cos : tensor<256x!tile.ptr<f32>>
  %f_tanh = math.tanh %v : tensor<256xf32>
  %k_f_8 = arith.constant dense<2048> : tensor<256xi32>
  %i_f_8 = arith.addi %r, %k_f_8 : tensor<256xi32>
  %p_f_8 = tile.addptr %o32, %i_f_8 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_8, %f_tanh : tensor<256x!tile.ptr<f32>>
  %f_erf = math.erf %v : tensor<256xf32>
  %k_f_9 = arith.constant dense<2304> : tensor<256xi32>
  %i_f_9 = arith.addi %r, %k_f_9 : tensor<256xi32>
  %p_f_9 = tile.addptr %o32, %i_f_9 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_9, %f_erf : tensor<256x!tile.ptr<f32>>
  %f_pow = math.powf %v, %v : tensor<256xf32>
  %k_f_10 = arith.constant dense<2560> : tensor<256xi32>
  %i_f_10 = arith.addi %r, %k_f_10 : tensor<256xi32>
  %p_f_10 = tile.addptr %o32, %i_f_10 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_f_10, %f_pow : tensor<256x!tile.ptr<f32>>
  %d_exp = math.exp %v64 : tensor<256xf64>
  %k_d_0 = arith.constant dense<0> : tensor<256xi32>
  %i_d_0 = arith.addi %r, %k_d_0 : tensor<256xi32>
  %p_d_0 = tile.addptr %o64, %i_d_0 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_0, %d_exp : tensor<256x!tile.ptr<f64>>
  %d_exp2 = math.exp2 %v64 : tensor<256xf64>
  %k_d_1 = arith.constant dense<256> : tensor<256xi32>
  %i_d_1 = arith.addi %r, %k_d_1 : tensor<256xi32>
  %p_d_1 = tile.addptr %o64, %i_d_1 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_1, %d_exp2 : tensor<256x!tile.ptr<f64>>
  %d_log = math.log %v64 : tensor<256xf64>
  %k_d_2 = arith.constant dense<512> : tensor<256xi32>
  %i_d_2 = arith.addi %r, %k_d_2 : tensor<256xi32>
  %p_d_2 = tile.addptr %o64, %i_d_2 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_2, %d_log : tensor<256x!tile.ptr<f64>>
  %d_log2 = math.log2 %v64 : tensor<256xf64>
  %k_d_3 = arith.constant dense<768> : tensor<256xi32>
  %i_d_3 = arith.addi %r, %k_d_3 : tensor<256xi32>
  %p_d_3 = tile.addptr %o64, %i_d_3 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_3, %d_log2 : tensor<256x!tile.ptr<f64>>
  %d_sqrt = math.sqrt %v64 : tensor<256xf64>
  %k_d_4 = arith.constant dense<1024> : tensor<256xi32>
  %i_d_4 = arith.addi %r, %k_d_4 : tensor<256xi32>
  %p_d_4 = tile.addptr %o64, %i_d_4 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_4, %d_sqrt : tensor<256x!tile.ptr<f64>>
  %d_rsqrt = math.rsqrt %v64 : tensor<256xf64>
  %k_d_5 = arith.constant dense<1280> : tensor<256xi32>
  %i_d_5 = arith.addi %r, %k_d_5 : tensor<256xi32>
  %p_d_5 = tile.addptr %o64, %i_d_5 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_5, %d_rsqrt : tensor<256x!tile.ptr<f64>>
  %d_sin = math.sin %v64 : tensor<256xf64>
  %k_d_6 = arith.constant dense<1536> : tensor<256xi32>
  %i_d_6 = arith.addi %r, %k_d_6 : tensor<256xi32>
  %p_d_6 = tile.addptr %o64, %i_d_6 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_6, %d_sin : tensor<256x!tile.ptr<f64>>
  %d_cos = math.cos %v64 : tensor<256xf64>
  %k_d_7 = arith.constant dense<1792> : tensor<256xi32>
  %i_d_7 = arith.addi %r, %k_d_7 : tensor<256xi32>
  %p_d_7 = tile.addptr %o64, %i_d_7 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_7, %d_cos : tensor<256x!tile.ptr<f64>>
  %d_tanh = math.tanh %v64 : tensor<256xf64>
  %k_d_8 = arith.constant dense<2048> : tensor<256xi32>
  %i_d_8 = arith.addi %r, %k_d_8 : tensor<256xi32>
  %p_d_8 = tile.addptr %o64, %i_d_8 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_8, %d_tanh : tensor<256x!tile.ptr<f64>>
  %d_pow = math.powf %v64, %v64 : tensor<256xf64>
  %k_d_9 = arith.constant dense<2304> : tensor<256xi32>
  %i_d_9 = arith.addi %r, %k_d_9 : tensor<256xi32>
  %p_d_9 = tile.addptr %o64, %i_d_9 : tensor<256x!tile.ptr<f64>>, tensor<256xi32>
  tile.store %p_d_9, %d_pow : tensor<256x!tile.ptr<f64>>
  %h = arith.truncf %v : tensor<256xf32> to tensor<256xf16>
  %h32 = arith.extf %h : tensor<256xf16> to tensor<256xf32>
  %bf = arith.truncf %v : tensor<256xf32> to tensor<256xbf16>
  %bf32 = arith.extf %bf : tensor<256xbf16> to tensor<256xf32>
  %c100 = arith.constant dense<100.0> : tensor<256xf32>
  %scaled = arith.mulf %v, %c100 : tensor<256xf32>
  %i32 = arith.fptosi %scaled : tensor<256xf32> to tensor<256xi32>
  %i8 = arith.trunci %i32 : tensor<256xi32> to tensor<256xi8>
  %i16 = arith.extsi %i8 : tensor<256xi8> to tensor<256xi16>
  %i64 = arith.extsi %i16 : tensor<256xi16> to tensor<256xi64>
  %d = arith.sitofp %i64 : tensor<256xi64> to tensor<256xf64>
  %i8f = arith.truncf %d : tensor<256xf64> to tensor<256xf32>
  %zero = arith.constant dense<0.0> : tensor<256xf32>
  %pos = arith.cmpf ogt, %v, %zero : tensor<256xf32>
  %posi = arith.extui %pos : tensor<256xi1> to tensor<256xi32>
  %posf = arith.uitofp %posi : tensor<256xi32> to tensor<256xf32>
  %k_c_0 = arith.constant dense<0> : tensor<256xi32>
  %i_c_0 = arith.addi %r, %k_c_0 : tensor<256xi32>
  %p_c_0 = tile.addptr %oc, %i_c_0 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_c_0, %h32 : tensor<256x!tile.ptr<f32>>
  %k_c_1 = arith.constant dense<256> : tensor<256xi32>
  %i_c_1 = arith.addi %r, %k_c_1 : tensor<256xi32>
  %p_c_1 = tile.addptr %oc, %i_c_1 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_c_1, %bf32 : tensor<256x!tile.ptr<f32>>
  %k_c_2 = arith.constant dense<512> : tensor<256xi32>
  %i_c_2 = arith.addi %r, %k_c_2 : tensor<256xi32>
  %p_c_2 = tile.addptr %oc, %i_c_2 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_c_2, %i8f : tensor<256x!tile.ptr<f32>>
  %k_c_3 = arith.constant dense<768> : tensor<256xi32>
  %i_c_3 = arith.addi %r, %k_c_3 : tensor<256xi32>
  %p_c_3 = tile.addptr %oc, %i_c_3 : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %p_c_3, %posf : tensor<256x!tile.ptr<f32>>
  return
}
