// Round trip of every tile op: custom form -> parse -> print, and the
// generic form parses back to the same custom form.
// RUN: tilelang-opt %s --allow-unregistered-dialect | tilelang-opt --allow-unregistered-dialect | FileCheck %s
// RUN: tilelang-opt %s --allow-unregistered-dialect --mlir-print-op-generic | tilelang-opt --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func @program_geometry
func.func @program_geometry() -> (i32, i32, i32) {
  // CHECK: %{{.*}} = tile.program_id x : i32
  %0 = tile.program_id x : i32
  // CHECK: %{{.*}} = tile.program_id z : i32
  %1 = tile.program_id z : i32
  // CHECK: %{{.*}} = tile.num_programs y : i32
  %2 = tile.num_programs y : i32
  return %0, %1, %2 : i32, i32, i32
}

// CHECK-LABEL: func @make_range
func.func @make_range() -> (tensor<128xi32>, tensor<16xi32>) {
  // CHECK: tile.make_range 0 to 128 : tensor<128xi32>
  %0 = tile.make_range 0 to 128 : tensor<128xi32>
  // CHECK: tile.make_range 16 to 32 : tensor<16xi32>
  %1 = tile.make_range 16 to 32 : tensor<16xi32>
  return %0, %1 : tensor<128xi32>, tensor<16xi32>
}

// CHECK-LABEL: func @splat
// CHECK-SAME: (%[[X:.*]]: f32, %[[P:.*]]: !tile.ptr<f16>)
func.func @splat(%x: f32, %p: !tile.ptr<f16>) -> (tensor<4x8xf32>, tensor<64x!tile.ptr<f16>>) {
  // CHECK: tile.splat %[[X]] : f32 -> tensor<4x8xf32>
  %0 = tile.splat %x : f32 -> tensor<4x8xf32>
  // CHECK: tile.splat %[[P]] : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  %1 = tile.splat %p : !tile.ptr<f16> -> tensor<64x!tile.ptr<f16>>
  return %0, %1 : tensor<4x8xf32>, tensor<64x!tile.ptr<f16>>
}

// CHECK-LABEL: func @shape_ops
// CHECK-SAME: (%[[V:.*]]: tensor<128xf32>, %[[M:.*]]: tensor<32x64xf16>)
func.func @shape_ops(%v: tensor<128xf32>, %m: tensor<32x64xf16>) {
  // CHECK: %[[E:.*]] = tile.expand_dims %[[V]] {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
  %0 = tile.expand_dims %v {axis = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
  // CHECK: tile.broadcast %[[E]] : tensor<1x128xf32> -> tensor<64x128xf32>
  %1 = tile.broadcast %0 : tensor<1x128xf32> -> tensor<64x128xf32>
  // CHECK: tile.reshape %[[V]] : tensor<128xf32> -> tensor<8x16xf32>
  %2 = tile.reshape %v : tensor<128xf32> -> tensor<8x16xf32>
  // CHECK: tile.reshape %[[V]] allow_reorder : tensor<128xf32> -> tensor<2x64xf32>
  %3 = tile.reshape %v allow_reorder : tensor<128xf32> -> tensor<2x64xf32>
  // CHECK: tile.trans %[[M]] {order = array<i32: 1, 0>} : tensor<32x64xf16> -> tensor<64x32xf16>
  %4 = tile.trans %m {order = array<i32: 1, 0>} : tensor<32x64xf16> -> tensor<64x32xf16>
  "test.use"(%1, %2, %3, %4) : (tensor<64x128xf32>, tensor<8x16xf32>, tensor<2x64xf32>, tensor<64x32xf16>) -> ()
  return
}

// CHECK-LABEL: func @memory
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[Q:.*]]: !tile.ptr<f32, 3>)
func.func @memory(%p: !tile.ptr<f32>, %q: !tile.ptr<f32, 3>) {
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  // CHECK: %[[A:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %a = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %c64 = arith.constant dense<64> : tensor<128xi32>
  %m = arith.cmpi slt, %r, %c64 : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  // CHECK: tile.load %[[A]] : tensor<128x!tile.ptr<f32>>
  %0 = tile.load %a : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.load %[[A]], %[[MASK:.*]], %{{.*}} cache = cg : tensor<128x!tile.ptr<f32>>
  %1 = tile.load %a, %m, %zero cache = cg : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.load %[[A]] evict = evict_last : tensor<128x!tile.ptr<f32>>
  %evicted = tile.load %a evict = evict_last : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.load %[[A]], %[[MASK]] volatile : tensor<128x!tile.ptr<f32>>
  %2 = tile.load %a, %m volatile : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.load %[[Q]] : !tile.ptr<f32, 3>
  %3 = tile.load %q : !tile.ptr<f32, 3>
  // CHECK: tile.store %[[A]], %{{.*}} : tensor<128x!tile.ptr<f32>>
  tile.store %a, %0 : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.store %[[A]], %{{.*}}, %[[MASK]] cache = wt : tensor<128x!tile.ptr<f32>>
  tile.store %a, %1, %m cache = wt : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.store %[[A]], %{{.*}} evict = evict_first : tensor<128x!tile.ptr<f32>>
  tile.store %a, %evicted evict = evict_first : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.store %[[Q]], %{{.*}} : !tile.ptr<f32, 3>
  tile.store %q, %3 : !tile.ptr<f32, 3>
  "test.use"(%2) : (tensor<128xf32>) -> ()
  return
}

// CHECK-LABEL: func @scalar_pointers
func.func @scalar_pointers(%p: !tile.ptr<i64>, %i: i32, %pp: !tile.ptr<!tile.ptr<f16>>) -> !tile.ptr<f16> {
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<i64>, i32
  %0 = tile.addptr %p, %i : !tile.ptr<i64>, i32
  // CHECK: tile.load %{{.*}} : !tile.ptr<!tile.ptr<f16>>
  %1 = tile.load %pp : !tile.ptr<!tile.ptr<f16>>
  return %1 : !tile.ptr<f16>
}

// CHECK-LABEL: func @dot
func.func @dot(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>,
               %fa: tensor<16x16xf32>, %fc: tensor<16x16xf32>,
               %ia: tensor<32x32xi8>, %ic: tensor<32x32xi32>,
               %e4: tensor<16x32xf8E4M3FN>, %e5: tensor<32x16xf8E5M2>, %ec: tensor<16x16xf32>,
               %ba: tensor<2x16x16xbf16>, %bc: tensor<2x16x16xf32>) {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  // CHECK: tile.dot {{.*}} inputPrecision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %1 = tile.dot %fa, %fa, %fc inputPrecision = ieee : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  // CHECK: tile.dot {{.*}} inputPrecision = tf32x3 :
  %2 = tile.dot %fa, %fa, %fc inputPrecision = tf32x3 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  // CHECK: tile.dot {{.*}} : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xi32>
  %3 = tile.dot %ia, %ia, %ic : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xi32>
  // CHECK: tile.dot {{.*}} maxNumImpreciseAcc = 32 : tensor<16x32xf8E4M3FN> * tensor<32x16xf8E5M2> -> tensor<16x16xf32>
  %4 = tile.dot %e4, %e5, %ec maxNumImpreciseAcc = 32 : tensor<16x32xf8E4M3FN> * tensor<32x16xf8E5M2> -> tensor<16x16xf32>
  // CHECK: tile.dot {{.*}} : tensor<2x16x16xbf16> * tensor<2x16x16xbf16> -> tensor<2x16x16xf32>
  %5 = tile.dot %ba, %ba, %bc : tensor<2x16x16xbf16> * tensor<2x16x16xbf16> -> tensor<2x16x16xf32>
  "test.use"(%0, %1, %2, %3, %4, %5) : (tensor<64x64xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<32x32xi32>, tensor<16x16xf32>, tensor<2x16x16xf32>) -> ()
  return
}

// CHECK-LABEL: func @reduce
func.func @reduce(%x: tensor<64x128xf32>, %i: tensor<64x128xi32>, %v: tensor<128xf32>) -> (tensor<64xf32>, tensor<128xf32>, tensor<128xi32>, f32) {
  // CHECK: tile.reduce %{{.*}} axis = 1 : tensor<64x128xf32> -> tensor<64xf32> {
  // CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[NEW:.*]]: f32):
  // CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[NEW]] : f32
  // CHECK-NEXT: tile.reduce.return %[[SUM]] : f32
  %0 = tile.reduce %x axis = 1 : tensor<64x128xf32> -> tensor<64xf32> {
  ^bb0(%acc: f32, %new: f32):
    %s = arith.addf %acc, %new : f32
    tile.reduce.return %s : f32
  }
  // An argmax: values and indices reduced together.
  // CHECK: tile.reduce %{{.*}}, %{{.*}} axis = 0 : tensor<64x128xf32>, tensor<64x128xi32> -> tensor<128xf32>, tensor<128xi32> {
  // CHECK: tile.reduce.return %{{.*}}, %{{.*}} : f32, i32
  %1:2 = tile.reduce %x, %i axis = 0 : tensor<64x128xf32>, tensor<64x128xi32> -> tensor<128xf32>, tensor<128xi32> {
  ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %mv = arith.select %gt, %bv, %av : f32
    %mi = arith.select %gt, %bi, %ai : i32
    tile.reduce.return %mv, %mi : f32, i32
  }
  // Reducing a 1-D tensor gives a scalar.
  // CHECK: tile.reduce %{{.*}} axis = 0 : tensor<128xf32> -> f32 {
  %2 = tile.reduce %v axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %b : f32
    tile.reduce.return %m : f32
  }
  return %0, %1#0, %1#1, %2 : tensor<64xf32>, tensor<128xf32>, tensor<128xi32>, f32
}

// CHECK-LABEL: func @scan
func.func @scan(%x: tensor<128xi32>, %y: tensor<4x32xf32>) -> (tensor<128xi32>, tensor<4x32xf32>) {
  // CHECK: tile.scan %{{.*}} axis = 0 : tensor<128xi32> {
  // CHECK: tile.scan.return %{{.*}} : i32
  %0 = tile.scan %x axis = 0 : tensor<128xi32> {
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    tile.scan.return %s : i32
  }
  // CHECK: tile.scan %{{.*}} axis = 1 reverse : tensor<4x32xf32> {
  %1 = tile.scan %y axis = 1 reverse : tensor<4x32xf32> {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    tile.scan.return %p : f32
  }
  return %0, %1 : tensor<128xi32>, tensor<4x32xf32>
}

// CHECK-LABEL: func @atomics
func.func @atomics(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi1>,
                   %lock: !tile.ptr<i32>, %c: i32, %n: i32) {
  // CHECK: tile.atomic_rmw fadd, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>
  %0 = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.atomic_rmw max, relaxed, cta, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>
  %1 = tile.atomic_rmw max, relaxed, cta, %p, %v : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.atomic_rmw xchg, release, sys, %{{.*}}, %{{.*}} : !tile.ptr<i32>
  %2 = tile.atomic_rmw xchg, release, sys, %lock, %n : !tile.ptr<i32>
  // CHECK: tile.atomic_rmw add, acquire, gpu, %{{.*}}, %{{.*}} : !tile.ptr<i32>
  %3 = tile.atomic_rmw add, acquire, gpu, %lock, %n : !tile.ptr<i32>
  // CHECK: tile.atomic_cas acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : !tile.ptr<i32>
  %4 = tile.atomic_cas acq_rel, gpu, %lock, %c, %n : !tile.ptr<i32>
  "test.use"(%0, %1, %2, %3, %4) : (tensor<128xf32>, tensor<128xf32>, i32, i32, i32) -> ()
  return
}

// CHECK-LABEL: func @casts
func.func @casts(%f: tensor<64xf32>, %p: tensor<64x!tile.ptr<f16>>, %a: i64) {
  // CHECK: tile.bitcast %{{.*}} : tensor<64xf32> -> tensor<64xi32>
  %0 = tile.bitcast %f : tensor<64xf32> -> tensor<64xi32>
  // CHECK: tile.bitcast %{{.*}} : tensor<64x!tile.ptr<f16>> -> tensor<64x!tile.ptr<i8>>
  %1 = tile.bitcast %p : tensor<64x!tile.ptr<f16>> -> tensor<64x!tile.ptr<i8>>
  // CHECK: tile.ptr_to_int %{{.*}} : tensor<64x!tile.ptr<f16>> -> tensor<64xi64>
  %2 = tile.ptr_to_int %p : tensor<64x!tile.ptr<f16>> -> tensor<64xi64>
  // CHECK: tile.int_to_ptr %{{.*}} : i64 -> !tile.ptr<f32>
  %3 = tile.int_to_ptr %a : i64 -> !tile.ptr<f32>
  "test.use"(%0, %1, %2, %3) : (tensor<64xi32>, tensor<64x!tile.ptr<i8>>, tensor<64xi64>, !tile.ptr<f32>) -> ()
  return
}

// CHECK-LABEL: func @debug
func.func @debug(%ok: tensor<16xi1>, %x: tensor<16xf32>, %i: i32) {
  // CHECK: tile.assert %{{.*}}, "index out of range" : tensor<16xi1>
  tile.assert %ok, "index out of range" : tensor<16xi1>
  // CHECK: tile.print "x: " %{{.*}} : tensor<16xf32>
  tile.print "x: " %x : tensor<16xf32>
  // CHECK: tile.print "bits: " hex {isSigned = array<i32: 0>} %{{.*}} : i32
  tile.print "bits: " hex {isSigned = array<i32: 0>} %i : i32
  // CHECK: tile.print "here"
  tile.print "here"
  return
}

// Control flow from scf carries tensors.
// CHECK-LABEL: func @loop
func.func @loop(%x: tensor<64xf32>, %n: index) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: scf.for
  // CHECK: math.exp %{{.*}} : tensor<64xf32>
  %r = scf.for %iv = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<64xf32> {
    %e = math.exp %acc : tensor<64xf32>
    scf.yield %e : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
