// Descriptor stores kept for bulk copies: tilegpu-lower-descriptor-accesses
// writes the block into a swizzled buffer and stores it with bulk tensor
// copies, recording the tensor map's encoding; f32 blocks are not kept and
// become masked pointer stores at the tile level.
// RUN: tilelang-opt %s -split-input-file --pass-pipeline="builtin.module(tile-expand-tensor-descriptors{keep-bulk-copies=true},convert-tile-to-tilegpu{num-warps=4 target=sm_90a},tilegpu-coalesce,canonicalize,cse,tilegpu-lower-descriptor-accesses,canonicalize,cse)" | FileCheck %s

// CHECK-LABEL: func.func @store_block
// CHECK-SAME: %[[MAP:[^:]*]]: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [32, 64], swizzle = 128, element = bf16>}
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<32x128xbf16, #shared>
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %[[MAP]][%{{.*}}, %{{.*}}] %[[BUF]]
// CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
// CHECK-NOT: tile.store
func.func @store_block(%map: !tile.tensormap, %base: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %m: i32, %n: i32,
                       %stride: i64 {tile.divisibility = 8 : i32}, %i: i32, %x: bf16) {
  %one = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %base, [%m, %n], [%stride, %one] map %map : !tile.ptr<bf16> -> !tile.tensordesc<tensor<32x128xbf16>>
  %v = tile.splat %x : bf16 -> tensor<32x128xbf16>
  tile.descriptor_store %d[%i, %i], %v : !tile.tensordesc<tensor<32x128xbf16>>, tensor<32x128xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @store_f32
// CHECK-NOT: tilegpu.tma
// CHECK-NOT: async_tma_copy
// CHECK: tile.store
func.func @store_f32(%map: !tile.tensormap, %base: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %m: i32, %n: i32,
                     %stride: i64 {tile.divisibility = 4 : i32}, %i: i32, %x: f32) {
  %one = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %base, [%m, %n], [%stride, %one] map %map : !tile.ptr<f32> -> !tile.tensordesc<tensor<32x64xf32>>
  %v = tile.splat %x : f32 -> tensor<32x64xf32>
  tile.descriptor_store %d[%i, %i], %v : !tile.tensordesc<tensor<32x64xf32>>, tensor<32x64xf32>
  return
}
