// RUN: tilelang-compile %s --arch=sm_90a --num-warps=8 | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_90a --num-warps=8 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o /dev/null %}

// The one-row layer norm of the parity corpus (bench/parity/corpus/
// layernorm_row.py) at 12288 columns (BLOCK_SIZE 16384), as its frontend
// emits it: the whole row in registers, 8 v4 loads of x, w and b a thread
// on 8 warps, the lowering's floor of 2 blocks per SM. The occupancy
// report (test/Tools/occupancy-report.mlir) shows the search's
// whole-program step keeping it without the floor.
// CHECK: .entry layer_norm_fwd_kernel
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 2
// CHECK-COUNT-8: @%p{{[0-9]+}} ld.global.v4.b32
// CHECK: shfl.sync.bfly.b32
module {
  func.func @layer_norm_fwd_kernel(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg4: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg5: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}, %arg8: f32) {
    %0 = tile.program_id x : i32
    %1 = arith.muli %0, %arg6 : i32
    %2 = tile.addptr %arg0, %1 : !tile.ptr<f16>, i32
    %3 = arith.muli %0, %arg6 : i32
    %4 = tile.addptr %arg1, %3 : !tile.ptr<f16>, i32
    %5 = tile.make_range 0 to 16384 : tensor<16384xi32>
    %6 = tile.splat %arg7 : i32 -> tensor<16384xi32>
    %7 = arith.cmpi slt, %5, %6 : tensor<16384xi32>
    %8 = tile.splat %2 : !tile.ptr<f16> -> tensor<16384x!tile.ptr<f16>>
    %9 = tile.addptr %8, %5 : tensor<16384x!tile.ptr<f16>>, tensor<16384xi32>
    %cst = arith.constant dense<0.000000e+00> : tensor<16384xf16>
    %10 = tile.load %9, %7, %cst : tensor<16384x!tile.ptr<f16>>
    %11 = arith.extf %10 : tensor<16384xf16> to tensor<16384xf32>
    %12 = tile.reduce %11 axis = 0 : tensor<16384xf32> -> f32 {
    ^bb0(%arg9: f32, %arg10: f32):
      %42 = arith.addf %arg9, %arg10 : f32
      tile.reduce.return %42 : f32
    }
    %13 = arith.sitofp %arg7 : i32 to f32
    %14 = arith.divf %12, %13 fastmath<afn> : f32
    %15 = tile.splat %14 : f32 -> tensor<16384xf32>
    %16 = arith.subf %11, %15 : tensor<16384xf32>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<16384xf32>
    %17 = arith.select %7, %16, %cst_0 : tensor<16384xi1>, tensor<16384xf32>
    %18 = arith.mulf %17, %17 : tensor<16384xf32>
    %19 = tile.reduce %18 axis = 0 : tensor<16384xf32> -> f32 {
    ^bb0(%arg9: f32, %arg10: f32):
      %42 = arith.addf %arg9, %arg10 : f32
      tile.reduce.return %42 : f32
    }
    %20 = arith.sitofp %arg7 : i32 to f32
    %21 = arith.divf %19, %20 fastmath<afn> : f32
    %22 = arith.addf %21, %arg8 : f32
    %23 = math.sqrt %22 fastmath<afn> : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %24 = arith.divf %cst_1, %23 fastmath<afn> : f32
    %25 = tile.addptr %arg4, %0 : !tile.ptr<f32>, i32
    tile.store %25, %14 : !tile.ptr<f32>
    %26 = tile.addptr %arg5, %0 : !tile.ptr<f32>, i32
    tile.store %26, %24 : !tile.ptr<f32>
    %27 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<16384x!tile.ptr<f16>>
    %28 = tile.addptr %27, %5 : tensor<16384x!tile.ptr<f16>>, tensor<16384xi32>
    %29 = tile.load %28, %7 : tensor<16384x!tile.ptr<f16>>
    %30 = arith.extf %29 : tensor<16384xf16> to tensor<16384xf32>
    %31 = tile.splat %arg3 : !tile.ptr<f16> -> tensor<16384x!tile.ptr<f16>>
    %32 = tile.addptr %31, %5 : tensor<16384x!tile.ptr<f16>>, tensor<16384xi32>
    %33 = tile.load %32, %7 : tensor<16384x!tile.ptr<f16>>
    %34 = arith.extf %33 : tensor<16384xf16> to tensor<16384xf32>
    %35 = tile.splat %24 : f32 -> tensor<16384xf32>
    %36 = arith.mulf %17, %35 : tensor<16384xf32>
    %37 = arith.mulf %36, %30 : tensor<16384xf32>
    %38 = arith.addf %37, %34 : tensor<16384xf32>
    %39 = tile.splat %4 : !tile.ptr<f16> -> tensor<16384x!tile.ptr<f16>>
    %40 = tile.addptr %39, %5 : tensor<16384x!tile.ptr<f16>>, tensor<16384xi32>
    %41 = arith.truncf %38 : tensor<16384xf32> to tensor<16384xf16>
    tile.store %40, %41, %7 : tensor<16384x!tile.ptr<f16>>
    return
  }
}

