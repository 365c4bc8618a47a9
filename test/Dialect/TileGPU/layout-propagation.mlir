// tilegpu-remove-layout-conversions carries tensor-core layouts forward:
// what is computed from a product runs in the product's layout, reductions
// in its slices, and loops carry those layouts across iterations, where that
// leaves fewer bytes to convert (loops weigh more); where it would only
// move a conversion elsewhere, the function keeps its layouts.
// RUN: tilelang-opt %s --tilegpu-remove-layout-conversions | FileCheck %s

// CHECK-DAG: #[[BLOCKED:.*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[MMA:.*]] = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
// CHECK-DAG: #[[ROWS:.*]] = #tilegpu.slice<dim = 1, parent = #[[BLOCKED]]>
// CHECK-DAG: #[[MMA_ROWS:.*]] = #tilegpu.slice<dim = 1, parent = #[[MMA]]>

#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#rows = #tilegpu.slice<dim = 1, parent = #blocked>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // The running row maximum of a product, as an online softmax keeps it:
  // the maximum reduces the accumulator itself, the loop carries it in the
  // accumulator's row slice, and the one conversion left is of 64 values
  // after the loop.
  // CHECK-LABEL: func @running_max
  // CHECK: scf.for {{.*}} -> (tensor<64xf32, #[[MMA_ROWS]]>)
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK: %[[S:.*]] = tilegpu.warp_group_dot
  // CHECK: tile.reduce %[[S]] axis = 1 : tensor<64x64xf32, #[[MMA]]> -> tensor<64xf32, #[[MMA_ROWS]]>
  // CHECK: arith.maxnumf %{{.*}}, %{{.*}} : tensor<64xf32, #[[MMA_ROWS]]>
  // CHECK: scf.yield
  // CHECK: tilegpu.convert_layout %{{.*}} : tensor<64xf32, #[[MMA_ROWS]]> -> tensor<64xf32, #[[ROWS]]>
  // CHECK: tile.store
  func.func @running_max(%a: !tilegpu.memdesc<64x64xf16, #shared>, %b: !tilegpu.memdesc<64x64xf16, #shared>, %n: i32, %out: tensor<64x!tile.ptr<f32>, #rows>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %init = arith.constant dense<0xFF800000> : tensor<64xf32, #rows>
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%mi = %init) -> (tensor<64xf32, #rows>) : i32 {
      %s = tilegpu.warp_group_dot %a, %b, %zero : !tilegpu.memdesc<64x64xf16, #shared> * !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
      %sb = tilegpu.convert_layout %s : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
      %r = tile.reduce %sb axis = 1 : tensor<64x64xf32, #blocked> -> tensor<64xf32, #rows> {
      ^bb0(%x: f32, %y: f32):
        %max = arith.maxnumf %x, %y : f32
        tile.reduce.return %max : f32
      }
      %mn = arith.maxnumf %mi, %r : tensor<64xf32, #rows>
      scf.yield %mn : tensor<64xf32, #rows>
    }
    tile.store %out, %m : tensor<64x!tile.ptr<f32>, #rows>
    return
  }

  // An accumulator scaled by a row statistic of itself, carried by the
  // loop: everything stays in the product's layout, the statistic is
  // broadcast from its slice, and nothing is converted inside the loop.
  // CHECK-LABEL: func @rescaled_accumulator
  // CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #[[MMA]]>)
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK: tile.reduce %{{.*}} axis = 1 : tensor<64x64xf32, #[[MMA]]>
  // CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<64xf32, #[[MMA_ROWS]]> -> tensor<64x1xf32, #[[MMA]]>
  // CHECK: tile.broadcast %{{.*}} : tensor<64x1xf32, #[[MMA]]> -> tensor<64x64xf32, #[[MMA]]>
  // CHECK: arith.divf %{{.*}}, %{{.*}} : tensor<64x64xf32, #[[MMA]]>
  // CHECK: tilegpu.warp_group_dot
  // CHECK: scf.yield
  func.func @rescaled_accumulator(%a: !tilegpu.memdesc<64x64xf16, #shared>, %b: !tilegpu.memdesc<64x64xf16, #shared>, %n: i32, %init: tensor<64x64xf32, #blocked>) -> tensor<64x64xf32, #blocked> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x64xf32, #blocked>) : i32 {
      %sum = tile.reduce %acc axis = 1 : tensor<64x64xf32, #blocked> -> tensor<64xf32, #rows> {
      ^bb0(%x: f32, %y: f32):
        %add = arith.addf %x, %y : f32
        tile.reduce.return %add : f32
      }
      %e = tile.expand_dims %sum {axis = 1 : i32} : tensor<64xf32, #rows> -> tensor<64x1xf32, #blocked>
      %bc = tile.broadcast %e : tensor<64x1xf32, #blocked> -> tensor<64x64xf32, #blocked>
      %scaled = arith.divf %acc, %bc : tensor<64x64xf32, #blocked>
      %c = tilegpu.convert_layout %scaled : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #mma>
      %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #shared> * !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
      %db = tilegpu.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
      scf.yield %db : tensor<64x64xf32, #blocked>
    }
    return %r : tensor<64x64xf32, #blocked>
  }

  // An epilogue narrowing the product: the narrowing runs in the product's
  // layout, and half the bytes are converted.
  // CHECK-LABEL: func @narrowed
  // CHECK: %[[S:.*]] = tilegpu.warp_group_dot
  // CHECK: %[[T:.*]] = arith.truncf %[[S]] : tensor<64x64xf32, #[[MMA]]> to tensor<64x64xf16, #[[MMA]]>
  // CHECK: %[[C:.*]] = tilegpu.convert_layout %[[T]] : tensor<64x64xf16, #[[MMA]]> -> tensor<64x64xf16, #[[BLOCKED]]>
  // CHECK: tile.store %{{.*}}, %[[C]]
  func.func @narrowed(%a: !tilegpu.memdesc<64x64xf16, #shared>, %b: !tilegpu.memdesc<64x64xf16, #shared>, %p: tensor<64x64x!tile.ptr<f16>, #blocked>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %s = tilegpu.warp_group_dot %a, %b, %zero : !tilegpu.memdesc<64x64xf16, #shared> * !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %sb = tilegpu.convert_layout %s : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    %t = arith.truncf %sb : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
    tile.store %p, %t : tensor<64x64x!tile.ptr<f16>, #blocked>
    return
  }

  // Adding a loaded tile would only trade the product's conversion for the
  // loaded tile's: the function keeps its layouts.
  // CHECK-LABEL: func @added_to_loaded
  // CHECK: %[[S:.*]] = tilegpu.warp_group_dot
  // CHECK: %[[SB:.*]] = tilegpu.convert_layout %[[S]] : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #[[BLOCKED]]>
  // CHECK: %[[X:.*]] = tile.load
  // CHECK: arith.addf %[[SB]], %[[X]] : tensor<64x64xf32, #[[BLOCKED]]>
  func.func @added_to_loaded(%a: !tilegpu.memdesc<64x64xf16, #shared>, %b: !tilegpu.memdesc<64x64xf16, #shared>, %p: tensor<64x64x!tile.ptr<f32>, #blocked>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %s = tilegpu.warp_group_dot %a, %b, %zero : !tilegpu.memdesc<64x64xf16, #shared> * !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %sb = tilegpu.convert_layout %s : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    %x = tile.load %p : tensor<64x64x!tile.ptr<f32>, #blocked>
    %y = arith.addf %sb, %x : tensor<64x64xf32, #blocked>
    tile.store %p, %y : tensor<64x64x!tile.ptr<f32>, #blocked>
    return
  }
}
