// Folders and canonicalization patterns of the tile ops, and the cases each
// of them must leave alone.
// RUN: tilelang-opt %s -canonicalize -split-input-file | FileCheck %s

// A splat of a constant becomes a dense constant.
// CHECK-LABEL: func @splat_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[C]]
func.func @splat_of_constant() -> tensor<4xf32> {
  %c = arith.constant 2.0 : f32
  %0 = tile.splat %c : f32 -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A splat of a non-constant scalar or of a pointer stays.
// CHECK-LABEL: func @splat_of_value
// CHECK-SAME: (%[[X:.*]]: i32, %[[P:.*]]: !tile.ptr<f32>)
// CHECK-DAG: tile.splat %[[X]] : i32 -> tensor<4xi32>
// CHECK-DAG: tile.splat %[[P]] : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
func.func @splat_of_value(%x: i32, %p: !tile.ptr<f32>) -> (tensor<4xi32>, tensor<4x!tile.ptr<f32>>) {
  %0 = tile.splat %x : i32 -> tensor<4xi32>
  %1 = tile.splat %p : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
  return %0, %1 : tensor<4xi32>, tensor<4x!tile.ptr<f32>>
}

// -----

// A broadcast to the source's own type folds away.
// CHECK-LABEL: func @broadcast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: tile.broadcast
// CHECK: return %[[X]]
func.func @broadcast_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tile.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A broadcast of a splat is a wider splat.
// CHECK-LABEL: func @broadcast_of_splat
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<4x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @broadcast_of_splat(%x: f32) -> tensor<4x8xf32> {
  %s = tile.splat %x : f32 -> tensor<1x8xf32>
  %0 = tile.broadcast %s : tensor<1x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Two broadcasts in a row are one.
// CHECK-LABEL: func @broadcast_of_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<1x1xf32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[X]] : tensor<1x1xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_of_broadcast(%x: tensor<1x1xf32>) -> tensor<4x8xf32> {
  %a = tile.broadcast %x : tensor<1x1xf32> -> tensor<1x8xf32>
  %0 = tile.broadcast %a : tensor<1x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A broadcast of a constant splat is a constant.
// CHECK-LABEL: func @broadcast_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<7> : tensor<4x8xi32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_of_constant() -> tensor<4x8xi32> {
  %c = arith.constant dense<7> : tensor<1x8xi32>
  %0 = tile.broadcast %c : tensor<1x8xi32> -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// A broadcast of a non-splat constant or of a plain value stays.
// CHECK-LABEL: func @broadcast_kept
// CHECK-SAME: (%[[X:.*]]: tensor<1x8xf32>)
// CHECK-DAG: %[[C:.*]] = arith.constant dense<[{{\[}}0, 1]]> : tensor<1x2xi32>
// CHECK-DAG: tile.broadcast %[[C]] : tensor<1x2xi32> -> tensor<4x2xi32>
// CHECK-DAG: tile.broadcast %[[X]] : tensor<1x8xf32> -> tensor<4x8xf32>
func.func @broadcast_kept(%x: tensor<1x8xf32>) -> (tensor<4x2xi32>, tensor<4x8xf32>) {
  %c = arith.constant dense<[[0, 1]]> : tensor<1x2xi32>
  %0 = tile.broadcast %c : tensor<1x2xi32> -> tensor<4x2xi32>
  %1 = tile.broadcast %x : tensor<1x8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<4x2xi32>, tensor<4x8xf32>
}

// -----

// expand_dims of a splat is a splat.
// CHECK-LABEL: func @expand_dims_of_splat
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<1x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @expand_dims_of_splat(%x: f32) -> tensor<1x8xf32> {
  %s = tile.splat %x : f32 -> tensor<8xf32>
  %0 = tile.expand_dims %s {axis = 0 : i32} : tensor<8xf32> -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// expand_dims of a constant splat is a constant; of a plain value it stays.
// CHECK-LABEL: func @expand_dims_other
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK-DAG: arith.constant dense<3> : tensor<8x1xi32>
// CHECK-DAG: tile.expand_dims %[[X]] {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
func.func @expand_dims_other(%x: tensor<8xf32>) -> (tensor<8x1xi32>, tensor<8x1xf32>) {
  %c = arith.constant dense<3> : tensor<8xi32>
  %0 = tile.expand_dims %c {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %1 = tile.expand_dims %x {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
  return %0, %1 : tensor<8x1xi32>, tensor<8x1xf32>
}

// -----

// A reshape to the source's own type folds away.
// CHECK-LABEL: func @reshape_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: tile.reshape
// CHECK: return %[[X]]
func.func @reshape_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tile.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Two reshapes that agree on allow_reorder are one.
// CHECK-LABEL: func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[Q:.*]] = tile.reshape %[[X]] allow_reorder : tensor<4x8xf32> -> tensor<16x2xf32>
// CHECK-NEXT: return %[[R]], %[[Q]]
func.func @reshape_of_reshape(%x: tensor<4x8xf32>) -> (tensor<2x16xf32>, tensor<16x2xf32>) {
  %a = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %0 = tile.reshape %a : tensor<32xf32> -> tensor<2x16xf32>
  %b = tile.reshape %x allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
  %1 = tile.reshape %b allow_reorder : tensor<32xf32> -> tensor<16x2xf32>
  return %0, %1 : tensor<2x16xf32>, tensor<16x2xf32>
}

// -----

// Reshapes that differ on allow_reorder are not collapsed.
// CHECK-LABEL: func @reshape_of_reshape_reorder
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[A:.*]] = tile.reshape %[[X]] allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[A]] : tensor<32xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[B:.*]] = tile.reshape %[[X]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: %[[Q:.*]] = tile.reshape %[[B]] allow_reorder : tensor<32xf32> -> tensor<16x2xf32>
// CHECK-NEXT: return %[[R]], %[[Q]]
func.func @reshape_of_reshape_reorder(%x: tensor<4x8xf32>) -> (tensor<2x16xf32>, tensor<16x2xf32>) {
  %a = tile.reshape %x allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
  %0 = tile.reshape %a : tensor<32xf32> -> tensor<2x16xf32>
  %b = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = tile.reshape %b allow_reorder : tensor<32xf32> -> tensor<16x2xf32>
  return %0, %1 : tensor<2x16xf32>, tensor<16x2xf32>
}

// -----

// A reshape of a splat is a splat; of a constant splat, a constant.
// CHECK-LABEL: func @reshape_of_splat
// CHECK-SAME: (%[[X:.*]]: f16)
// CHECK-DAG: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<32xf32>
// CHECK-DAG: %[[S:.*]] = tile.splat %[[X]] : f16 -> tensor<2x16xf16>
// CHECK-NOT: tile.reshape
// CHECK: return %[[S]], %[[C]]
func.func @reshape_of_splat(%x: f16) -> (tensor<2x16xf16>, tensor<32xf32>) {
  %s = tile.splat %x : f16 -> tensor<4x8xf16>
  %0 = tile.reshape %s : tensor<4x8xf16> -> tensor<2x16xf16>
  %c = arith.constant dense<1.0> : tensor<4x8xf32>
  %1 = tile.reshape %c allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
  return %0, %1 : tensor<2x16xf16>, tensor<32xf32>
}

// -----

// A trans by the identity order folds away.
// CHECK-LABEL: func @trans_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: tile.trans
// CHECK: return %[[X]]
func.func @trans_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tile.trans %x {order = array<i32: 0, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// trans(trans(x)) is x when the orders compose to the identity, and both
// transposes stay otherwise.
// CHECK-LABEL: func @trans_of_trans
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK-NEXT: %[[A:.*]] = tile.trans %[[X]] {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
// CHECK-NEXT: %[[B:.*]] = tile.trans %[[A]] {order = array<i32: 0, 2, 1>} : tensor<4x8x2xf32> -> tensor<4x2x8xf32>
// CHECK-NEXT: return %[[X]], %[[B]]
func.func @trans_of_trans(%x: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<4x2x8xf32>) {
  %a = tile.trans %x {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>
  %0 = tile.trans %a {order = array<i32: 2, 0, 1>} : tensor<4x8x2xf32> -> tensor<2x4x8xf32>
  %1 = tile.trans %a {order = array<i32: 0, 2, 1>} : tensor<4x8x2xf32> -> tensor<4x2x8xf32>
  return %0, %1 : tensor<2x4x8xf32>, tensor<4x2x8xf32>
}

// -----

// A 2-D transpose applied twice is the identity.
// CHECK-LABEL: func @trans_twice
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>)
// CHECK-NOT: tile.trans
// CHECK: return %[[X]]
func.func @trans_twice(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %a = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf16> -> tensor<8x4xf16>
  %0 = tile.trans %a {order = array<i32: 1, 0>} : tensor<8x4xf16> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// A trans of a constant splat is a constant.
// CHECK-LABEL: func @trans_of_constant
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<8x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @trans_of_constant() -> tensor<8x4xf32> {
  %c = arith.constant dense<1.0> : tensor<4x8xf32>
  %0 = tile.trans %c {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// addptr by a zero offset (scalar or splat) is the pointer itself.
// CHECK-LABEL: func @addptr_zero
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[Q:.*]]: tensor<4x!tile.ptr<f32>>)
// CHECK-NOT: tile.addptr
// CHECK: return %[[P]], %[[Q]]
func.func @addptr_zero(%p: !tile.ptr<f32>, %q: tensor<4x!tile.ptr<f32>>) -> (!tile.ptr<f32>, tensor<4x!tile.ptr<f32>>) {
  %z = arith.constant 0 : i32
  %zs = arith.constant dense<0> : tensor<4xi64>
  %0 = tile.addptr %p, %z : !tile.ptr<f32>, i32
  %1 = tile.addptr %q, %zs : tensor<4x!tile.ptr<f32>>, tensor<4xi64>
  return %0, %1 : !tile.ptr<f32>, tensor<4x!tile.ptr<f32>>
}

// -----

// addptr by a non-zero or non-constant offset stays.
// CHECK-LABEL: func @addptr_nonzero
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[Q:.*]]: tensor<4x!tile.ptr<f32>>, %[[N:.*]]: i32)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[R:.*]] = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
// CHECK-DAG: tile.addptr %[[P]], %[[ONE]] : !tile.ptr<f32>, i32
// CHECK-DAG: tile.addptr %[[Q]], %[[R]] : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
// CHECK-DAG: tile.addptr %[[P]], %[[N]] : !tile.ptr<f32>, i32
func.func @addptr_nonzero(%p: !tile.ptr<f32>, %q: tensor<4x!tile.ptr<f32>>, %n: i32) -> (!tile.ptr<f32>, tensor<4x!tile.ptr<f32>>, !tile.ptr<f32>) {
  %one = arith.constant 1 : i32
  %r = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %0 = tile.addptr %p, %one : !tile.ptr<f32>, i32
  %1 = tile.addptr %q, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %2 = tile.addptr %p, %n : !tile.ptr<f32>, i32
  return %0, %1, %2 : !tile.ptr<f32>, tensor<4x!tile.ptr<f32>>, !tile.ptr<f32>
}

// -----

// A load under an all-true mask loses the mask and 'other'; the cache hints
// stay.
// CHECK-LABEL: func @load_true_mask
// CHECK-SAME: (%[[P:.*]]: tensor<4x!tile.ptr<f32>>, %[[O:.*]]: tensor<4xf32>, %[[S:.*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]] cache = cg : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: %[[M:.*]] = tile.load %[[S]] : !tile.ptr<f32>
// CHECK-NEXT: return %[[L]], %[[M]]
func.func @load_true_mask(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>, %s: !tile.ptr<f32>) -> (tensor<4xf32>, f32) {
  %t = arith.constant dense<true> : tensor<4xi1>
  %true = arith.constant true
  %0 = tile.load %p, %t, %o cache = cg : tensor<4x!tile.ptr<f32>>
  %1 = tile.load %s, %true : !tile.ptr<f32>
  return %0, %1 : tensor<4xf32>, f32
}

// -----

// A load under an all-false mask with 'other' is 'other': nothing is read.
// CHECK-LABEL: func @load_false_mask
// CHECK-SAME: (%[[P:.*]]: tensor<4x!tile.ptr<f32>>, %[[O:.*]]: tensor<4xf32>, %[[S:.*]]: !tile.ptr<f32>, %[[V:.*]]: f32)
// CHECK-NOT: tile.load
// CHECK: return %[[O]], %[[V]]
func.func @load_false_mask(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>, %s: !tile.ptr<f32>, %v: f32) -> (tensor<4xf32>, f32) {
  %f = arith.constant dense<false> : tensor<4xi1>
  %false = arith.constant false
  %0 = tile.load %p, %f, %o : tensor<4x!tile.ptr<f32>>
  %1 = tile.load %s, %false, %v : !tile.ptr<f32>
  return %0, %1 : tensor<4xf32>, f32
}

// -----

// A volatile load keeps its all-false mask; without 'other' the load under an
// all-false mask stays too; a non-constant or mixed mask stays.
// CHECK-LABEL: func @load_mask_kept
// CHECK-SAME: (%[[P:.*]]: tensor<4x!tile.ptr<f32>>, %[[O:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xi1>)
// CHECK-DAG: %[[F:.*]] = arith.constant dense<false> : tensor<4xi1>
// CHECK-DAG: %[[X:.*]] = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
// CHECK: %[[A:.*]] = tile.load %[[P]], %[[F]], %[[O]] volatile : tensor<4x!tile.ptr<f32>>
// CHECK: %[[B:.*]] = tile.load %[[P]], %[[F]] : tensor<4x!tile.ptr<f32>>
// CHECK: %[[C:.*]] = tile.load %[[P]], %[[M]], %[[O]] : tensor<4x!tile.ptr<f32>>
// CHECK: %[[D:.*]] = tile.load %[[P]], %[[X]], %[[O]] : tensor<4x!tile.ptr<f32>>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @load_mask_kept(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<4xf32>, %m: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %f = arith.constant dense<false> : tensor<4xi1>
  %mixed = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  %0 = tile.load %p, %f, %o volatile : tensor<4x!tile.ptr<f32>>
  %1 = tile.load %p, %f : tensor<4x!tile.ptr<f32>>
  %2 = tile.load %p, %m, %o : tensor<4x!tile.ptr<f32>>
  %3 = tile.load %p, %mixed, %o : tensor<4x!tile.ptr<f32>>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A store under an all-true mask loses the mask; the cache hints stay.
// CHECK-LABEL: func @store_true_mask
// CHECK-SAME: (%[[P:.*]]: tensor<4x!tile.ptr<f32>>, %[[V:.*]]: tensor<4xf32>, %[[S:.*]]: !tile.ptr<f32>, %[[W:.*]]: f32)
// CHECK-NEXT: tile.store %[[P]], %[[V]] cache = wt : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[S]], %[[W]] : !tile.ptr<f32>
// CHECK-NEXT: return
func.func @store_true_mask(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %s: !tile.ptr<f32>, %w: f32) {
  %t = arith.constant dense<true> : tensor<4xi1>
  %true = arith.constant true
  tile.store %p, %v, %t cache = wt : tensor<4x!tile.ptr<f32>>
  tile.store %s, %w, %true : !tile.ptr<f32>
  return
}

// -----

// A store under an all-false mask is erased: nothing is written.
// CHECK-LABEL: func @store_false_mask
// CHECK-NOT: tile.store
// CHECK: return
func.func @store_false_mask(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %s: !tile.ptr<f32>, %w: f32) {
  %f = arith.constant dense<false> : tensor<4xi1>
  %false = arith.constant false
  tile.store %p, %v, %f : tensor<4x!tile.ptr<f32>>
  tile.store %s, %w, %false : !tile.ptr<f32>
  return
}

// -----

// A store under a non-constant or mixed mask, or with no mask, stays.
// CHECK-LABEL: func @store_mask_kept
// CHECK-SAME: (%[[P:.*]]: tensor<4x!tile.ptr<f32>>, %[[V:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xi1>)
// CHECK: %[[X:.*]] = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
// CHECK-NEXT: tile.store %[[P]], %[[V]], %[[M]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[P]], %[[V]], %[[X]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: tile.store %[[P]], %[[V]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: return
func.func @store_mask_kept(%p: tensor<4x!tile.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<4xi1>) {
  %mixed = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  tile.store %p, %v, %m : tensor<4x!tile.ptr<f32>>
  tile.store %p, %v, %mixed : tensor<4x!tile.ptr<f32>>
  tile.store %p, %v : tensor<4x!tile.ptr<f32>>
  return
}

// -----

// Atomics and debug ops are never removed, even when their results are
// unused.
// CHECK-LABEL: func @side_effects_kept
// CHECK: tile.atomic_rmw fadd
// CHECK: tile.atomic_cas
// CHECK: tile.assert
// CHECK: tile.print "x: "
func.func @side_effects_kept(%p: !tile.ptr<f32>, %v: f32, %l: !tile.ptr<i32>, %c: i32, %ok: i1) {
  %0 = tile.atomic_rmw fadd, relaxed, gpu, %p, %v : !tile.ptr<f32>
  %1 = tile.atomic_cas acq_rel, gpu, %l, %c, %c : !tile.ptr<i32>
  tile.assert %ok, "bad" : i1
  tile.print "x: " %v : f32
  return
}

// -----

// A volatile load is kept even when unused, and two are not merged.
// CHECK-LABEL: func @volatile_kept
// CHECK-COUNT-2: tile.load %{{.*}} volatile
func.func @volatile_kept(%p: !tile.ptr<f32>) -> f32 {
  %unused = tile.load %p volatile : !tile.ptr<f32>
  %a = tile.load %p volatile : !tile.ptr<f32>
  return %a : f32
}

// -----

// An identity trans between different layouts is not folded away.
#a = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#b = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]>
// CHECK-LABEL: func @identity_trans_other_layout
// CHECK: tile.trans
func.func @identity_trans_other_layout(%x: tensor<16x16xf32, #a>) -> tensor<16x16xf32, #b> {
  %t = tile.trans %x {order = array<i32: 0, 1>} : tensor<16x16xf32, #a> -> tensor<16x16xf32, #b>
  return %t : tensor<16x16xf32, #b>
}

// -----

// trans of a splat is a splat.
// CHECK-LABEL: func @trans_of_splat
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<8x4xf32>
// CHECK-NOT: tile.trans
// CHECK: return %[[S]]
func.func @trans_of_splat(%x: f32) -> tensor<8x4xf32> {
  %s = tile.splat %x : f32 -> tensor<4x8xf32>
  %t = tile.trans %s {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

// A hint about an op's result moves onto that op, where copies of the op
// keep it; a hint about a block argument stays; an assume stays (it has an
// effect, so it is never dead).
// CHECK-LABEL: func @hints_move_to_their_op
// CHECK: %[[R:.*]] = arith.remsi %{{.*}}, %{{.*}} {tile.max_contiguous = array<i64: 64>, tile.multiple_of = array<i64: 64>} : tensor<64xi32>
// CHECK-NOT: tile.hint %[[R]]
// CHECK: tile.hint %arg1 {multiple_of = array<i64: 16>} : i32
// CHECK: tile.assume
func.func @hints_move_to_their_op(%n: i32, %s: i32, %ok: i1) -> tensor<64xi32> {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %nv = tile.splat %n : i32 -> tensor<64xi32>
  %offs = arith.remsi %r, %nv : tensor<64xi32>
  tile.hint %offs {multiple_of = array<i64: 64>, max_contiguous = array<i64: 64>} : tensor<64xi32>
  tile.hint %s {multiple_of = array<i64: 16>} : i32
  tile.assume %ok
  return %offs : tensor<64xi32>
}
