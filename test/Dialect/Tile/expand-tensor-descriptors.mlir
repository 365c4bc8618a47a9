// tile-expand-tensor-descriptors: block loads and stores through tensor
// descriptors become masked loads and stores on tensors of pointers.
// RUN: tilelang-opt %s -tile-expand-tensor-descriptors -split-input-file -verify-diagnostics | FileCheck %s

// A 2-D load: per dimension, a range offset by the block's offset, tested
// against 0 and the extent, scaled by the stride in 64 bits, then broadcast;
// the block reads zero where it is outside the tensor. The descriptor and
// its tensor map go.
// CHECK-LABEL: func @load_2d
// CHECK-SAME: (%[[MAP:.*]]: !tile.tensormap, %[[BASE:.*]]: !tile.ptr<bf16>, %[[M:.*]]: i32, %[[K:.*]]: i32, %[[SM:.*]]: i64, %[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK-NOT: make_tensor_descriptor
// CHECK: %[[PTRS:.*]] = tile.splat %[[BASE]] : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
// CHECK: %[[ROWS:.*]] = tile.make_range 0 to 64 : tensor<64xi32>
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[ROWS]] : tensor<64xi32>
// CHECK: arith.cmpi sge, %[[ROW]]
// CHECK: arith.cmpi slt, %[[ROW]]
// CHECK: %[[ROW64:.*]] = arith.extsi %[[ROW]] : tensor<64xi32> to tensor<64xi64>
// CHECK: %[[SMS:.*]] = tile.splat %[[SM]] : i64 -> tensor<64xi64>
// CHECK: %[[ROWOFF:.*]] = arith.muli %[[ROW64]], %[[SMS]] : tensor<64xi64>
// CHECK: %[[ROWOFF2:.*]] = tile.expand_dims %[[ROWOFF]] {axis = 1 : i32} : tensor<64xi64> -> tensor<64x1xi64>
// CHECK: %[[ROWOFF3:.*]] = tile.broadcast %[[ROWOFF2]] : tensor<64x1xi64> -> tensor<64x32xi64>
// CHECK: %[[P1:.*]] = tile.addptr %[[PTRS]], %[[ROWOFF3]]
// CHECK: tile.make_range 0 to 32 : tensor<32xi32>
// CHECK: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<32xi64> -> tensor<1x32xi64>
// CHECK: %[[P2:.*]] = tile.addptr %[[P1]]
// CHECK: %[[MASK:.*]] = arith.andi %{{.*}}, %{{.*}} : tensor<64x32xi1>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x32xbf16>
// CHECK: %[[V:.*]] = tile.load %[[P2]], %[[MASK]], %[[ZERO]] : tensor<64x32x!tile.ptr<bf16>>
// CHECK: return %[[V]]
func.func @load_2d(%map: !tile.tensormap, %base: !tile.ptr<bf16>, %m: i32, %k: i32, %sm: i64, %i: i32, %j: i32) -> tensor<64x32xbf16> {
  %c1 = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%sm, %c1] map %map : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x32xbf16>>
  %v = tile.descriptor_load %d[%i, %j] : !tile.tensordesc<tensor<64x32xbf16>> -> tensor<64x32xbf16>
  return %v : tensor<64x32xbf16>
}

// -----

// A 1-D store: no broadcast, the mask is the one dimension's bounds test.
// CHECK-LABEL: func @store_1d
// CHECK: %[[PTRS:.*]] = tile.splat %{{.*}} : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
// CHECK: %[[IDX:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<128xi32>
// CHECK: %[[LO:.*]] = arith.cmpi sge, %[[IDX]]
// CHECK: %[[HI:.*]] = arith.cmpi slt, %[[IDX]]
// CHECK: %[[IN:.*]] = arith.andi %[[LO]], %[[HI]] : tensor<128xi1>
// CHECK: %[[P:.*]] = tile.addptr %[[PTRS]], %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xi64>
// CHECK: tile.store %[[P]], %{{.*}}, %[[IN]] : tensor<128x!tile.ptr<f32>>
// CHECK-NOT: descriptor
func.func @store_1d(%base: !tile.ptr<f32>, %n: i32, %i: i32, %v: tensor<128xf32>) {
  %c1 = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<f32> -> !tile.tensordesc<tensor<128xf32>>
  tile.descriptor_store %d[%i], %v : !tile.tensordesc<tensor<128xf32>>, tensor<128xf32>
  return
}

// -----

// A descriptor chosen at run time cannot be expanded: an error at the use.
func.func @selected(%c: i1, %a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %n: i32, %i: i32) -> tensor<128xf32> {
  %c1 = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%n], [%c1] : !tile.ptr<f32> -> !tile.tensordesc<tensor<128xf32>>
  %db = tile.make_tensor_descriptor %b, [%n], [%c1] : !tile.ptr<f32> -> !tile.tensordesc<tensor<128xf32>>
  %d = arith.select %c, %da, %db : !tile.tensordesc<tensor<128xf32>>
  // expected-error @+1 {{needs a descriptor that is a kernel argument or made by tl.make_tensor_descriptor}}
  %v = tile.descriptor_load %d[%i] : !tile.tensordesc<tensor<128xf32>> -> tensor<128xf32>
  return %v : tensor<128xf32>
}
