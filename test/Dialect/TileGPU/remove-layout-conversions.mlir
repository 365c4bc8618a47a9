// tilegpu-remove-layout-conversions recomputes a converted value in the
// target layout when it comes from scalars through cheap ops, collapses and
// folds conversions, and keeps those that need data movement.
// RUN: tilelang-opt %s --tilegpu-remove-layout-conversions | FileCheck %s

// CHECK-DAG: #[[A:.*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[B:.*]] = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[C:.*]] = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[B2:.*]] = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B2_SLICE:.*]] = #tilegpu.slice<dim = 1, parent = #[[B2]]>

#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#c = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#a2 = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]>
#b2 = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#a2_slice = #tilegpu.slice<dim = 1, parent = #a2>

module attributes {tilegpu.num_warps = 4 : i32} {
  // Pointers computed from make_range, splat, a constant, arith and addptr
  // are recomputed in #b; the chain in #a and the conversion are gone.
  // CHECK-LABEL: func @chain
  // CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[N:.*]]: i32)
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK-NOT: #[[A]]>
  // CHECK-DAG: %[[C4:.*]] = arith.constant dense<4> : tensor<1024xi32, #[[B]]>
  // CHECK-DAG: %[[R:.*]] = tile.make_range 0 to 1024 : tensor<1024xi32, #[[B]]>
  // CHECK-DAG: %[[NV:.*]] = tile.splat %[[N]] : i32 -> tensor<1024xi32, #[[B]]>
  // CHECK: %[[O:.*]] = arith.addi %[[R]], %[[NV]] : tensor<1024xi32, #[[B]]>
  // CHECK: %[[M:.*]] = arith.muli %[[O]], %[[C4]] : tensor<1024xi32, #[[B]]>
  // CHECK: %[[PV:.*]] = tile.splat %[[P]] : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #[[B]]>
  // CHECK: %[[PTRS:.*]] = tile.addptr %[[PV]], %[[M]] : tensor<1024x!tile.ptr<f32>, #[[B]]>, tensor<1024xi32, #[[B]]>
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK: return %[[PTRS]] : tensor<1024x!tile.ptr<f32>, #[[B]]>
  func.func @chain(%p: !tile.ptr<f32>, %n: i32) -> tensor<1024x!tile.ptr<f32>, #b> {
    %r = tile.make_range 0 to 1024 : tensor<1024xi32, #a>
    %s = tile.splat %n : i32 -> tensor<1024xi32, #a>
    %o = arith.addi %r, %s : tensor<1024xi32, #a>
    %c4 = arith.constant dense<4> : tensor<1024xi32, #a>
    %m = arith.muli %o, %c4 : tensor<1024xi32, #a>
    %pv = tile.splat %p : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #a>
    %ptrs = tile.addptr %pv, %m : tensor<1024x!tile.ptr<f32>, #a>, tensor<1024xi32, #a>
    %cv = tilegpu.convert_layout %ptrs : tensor<1024x!tile.ptr<f32>, #a> -> tensor<1024x!tile.ptr<f32>, #b>
    return %cv : tensor<1024x!tile.ptr<f32>, #b>
  }

  // Two conversions in a row become one, straight from the loaded value.
  // CHECK-LABEL: func @convert_of_convert
  // CHECK: %[[V:.*]] = tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[A]]>
  // CHECK-NEXT: %[[CV:.*]] = tilegpu.convert_layout %[[V]] : tensor<1024xf32, #[[A]]> -> tensor<1024xf32, #[[C]]>
  // CHECK-NEXT: return %[[CV]] : tensor<1024xf32, #[[C]]>
  func.func @convert_of_convert(%p: tensor<1024x!tile.ptr<f32>, #a>) -> tensor<1024xf32, #c> {
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>, #a>
    %x = tilegpu.convert_layout %v : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
    %y = tilegpu.convert_layout %x : tensor<1024xf32, #b> -> tensor<1024xf32, #c>
    return %y : tensor<1024xf32, #c>
  }

  // A conversion to the layout the value already has folds away.
  // CHECK-LABEL: func @same_type
  // CHECK-SAME: (%[[X:.*]]: tensor<1024xf32, #[[A]]>)
  // CHECK-NEXT: return %[[X]] : tensor<1024xf32, #[[A]]>
  func.func @same_type(%x: tensor<1024xf32, #a>) -> tensor<1024xf32, #a> {
    %y = tilegpu.convert_layout %x : tensor<1024xf32, #a> -> tensor<1024xf32, #a>
    return %y : tensor<1024xf32, #a>
  }

  // Loaded data cannot be recomputed: the conversion stays, and so does the
  // elementwise op between the load and it.
  // CHECK-LABEL: func @load_stays
  // CHECK: %[[V:.*]] = tile.load %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[A]]>
  // CHECK-NEXT: %[[E:.*]] = math.exp %[[V]] : tensor<1024xf32, #[[A]]>
  // CHECK-NEXT: %[[CV:.*]] = tilegpu.convert_layout %[[E]] : tensor<1024xf32, #[[A]]> -> tensor<1024xf32, #[[B]]>
  // CHECK-NEXT: return %[[CV]]
  func.func @load_stays(%p: tensor<1024x!tile.ptr<f32>, #a>) -> tensor<1024xf32, #b> {
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>, #a>
    %e = math.exp %v : tensor<1024xf32, #a>
    %x = tilegpu.convert_layout %e : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
    return %x : tensor<1024xf32, #b>
  }

  // Through expand_dims the source is recomputed in the slice of the target
  // layout: make_range in #slice<1, #b2>, then expand_dims, splat, muli and
  // broadcast in #b2.
  // CHECK-LABEL: func @expand
  // CHECK-SAME: (%[[N:.*]]: i32)
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK: %[[R:.*]] = tile.make_range 0 to 64 : tensor<64xi32, #[[B2_SLICE]]>
  // CHECK: %[[E:.*]] = tile.expand_dims %[[R]] {axis = 1 : i32} : tensor<64xi32, #[[B2_SLICE]]> -> tensor<64x1xi32, #[[B2]]>
  // CHECK: %[[S:.*]] = tile.splat %[[N]] : i32 -> tensor<64x1xi32, #[[B2]]>
  // CHECK: %[[M:.*]] = arith.muli %[[E]], %[[S]] : tensor<64x1xi32, #[[B2]]>
  // CHECK: %[[BC:.*]] = tile.broadcast %[[M]] : tensor<64x1xi32, #[[B2]]> -> tensor<64x64xi32, #[[B2]]>
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK: return %[[BC]] : tensor<64x64xi32, #[[B2]]>
  func.func @expand(%n: i32) -> tensor<64x64xi32, #b2> {
    %r = tile.make_range 0 to 64 : tensor<64xi32, #a2_slice>
    %e = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #a2_slice> -> tensor<64x1xi32, #a2>
    %s = tile.splat %n : i32 -> tensor<64x1xi32, #a2>
    %m = arith.muli %e, %s : tensor<64x1xi32, #a2>
    %bc = tile.broadcast %m : tensor<64x1xi32, #a2> -> tensor<64x64xi32, #a2>
    %x = tilegpu.convert_layout %bc : tensor<64x64xi32, #a2> -> tensor<64x64xi32, #b2>
    return %x : tensor<64x64xi32, #b2>
  }

  // Block arguments (a function argument, a loop-carried value) and the
  // results of a loop cannot be recomputed: their conversions stay.
  // CHECK-LABEL: func @block_args
  // CHECK-SAME: (%[[X:.*]]: tensor<1024xf32, #[[A]]>
  // CHECK: %[[XC:.*]] = tilegpu.convert_layout %[[X]] : tensor<1024xf32, #[[A]]> -> tensor<1024xf32, #[[B]]>
  // CHECK: %[[RES:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[X]]) -> (tensor<1024xf32, #[[A]]>)
  // CHECK-NEXT: %[[AC:.*]] = tilegpu.convert_layout %[[ACC]] : tensor<1024xf32, #[[A]]> -> tensor<1024xf32, #[[B]]>
  // CHECK-NEXT: tile.print "acc: " %[[AC]] : tensor<1024xf32, #[[B]]>
  // CHECK-NEXT: scf.yield %[[ACC]] : tensor<1024xf32, #[[A]]>
  // CHECK: %[[RC:.*]] = tilegpu.convert_layout %[[RES]] : tensor<1024xf32, #[[A]]> -> tensor<1024xf32, #[[B]]>
  // CHECK: arith.addf %[[XC]], %[[RC]] : tensor<1024xf32, #[[B]]>
  func.func @block_args(%x: tensor<1024xf32, #a>, %lb: i32, %ub: i32) -> tensor<1024xf32, #b> {
    %y = tilegpu.convert_layout %x : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
    %r = scf.for %i = %lb to %ub step %lb iter_args(%acc = %x) -> (tensor<1024xf32, #a>) : i32 {
      %z = tilegpu.convert_layout %acc : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
      tile.print "acc: " %z : tensor<1024xf32, #b>
      scf.yield %acc : tensor<1024xf32, #a>
    }
    %q = tilegpu.convert_layout %r : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
    %sum = arith.addf %y, %q : tensor<1024xf32, #b>
    return %sum : tensor<1024xf32, #b>
  }

  // convert(exp(convert(acc))) back to acc's layout: exp is recomputed on
  // acc itself and both conversions disappear.
  // CHECK-LABEL: func @round_trip
  // CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<1024xf32, #[[A]]>)
  // CHECK-NEXT: %[[E:.*]] = math.exp %[[ACC]] : tensor<1024xf32, #[[A]]>
  // CHECK-NEXT: scf.yield %[[E]] : tensor<1024xf32, #[[A]]>
  func.func @round_trip(%x: tensor<1024xf32, #a>, %lb: i32, %ub: i32) -> tensor<1024xf32, #a> {
    %r = scf.for %i = %lb to %ub step %lb iter_args(%acc = %x) -> (tensor<1024xf32, #a>) : i32 {
      %z = tilegpu.convert_layout %acc : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
      %w = math.exp %z : tensor<1024xf32, #b>
      %back = tilegpu.convert_layout %w : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
      scf.yield %back : tensor<1024xf32, #a>
    }
    return %r : tensor<1024xf32, #a>
  }
}
