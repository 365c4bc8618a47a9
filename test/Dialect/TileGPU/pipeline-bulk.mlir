// tilegpu-pipeline with bulk tensor copies (its output parses again): a
// matmul whose operands come through tensor descriptors, from tile IR
// through the passes before the pipeline (the descriptor loads kept for
// bulk copies).
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=3 target=sm_90a" | tilelang-opt | FileCheck %s
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=1 target=sm_90a" | FileCheck %s --check-prefix=EXPANDED
// RUN: tilelang-opt %s --tilelang-tile-to-tilegpu="num-warps=4 num-stages=3 target=sm_80" | FileCheck %s --check-prefixes=EXPANDED,CPASYNC
// RUN: tilelang-opt %s --pass-pipeline="builtin.module(tile-expand-tensor-descriptors{keep-bulk-copies=true},convert-tile-to-tilegpu{num-warps=4 target=sm_90a},tilegpu-coalesce,tilegpu-accelerate-matmul,tilegpu-remove-layout-conversions,canonicalize,cse,tilegpu-pipeline{num-stages=1},canonicalize,cse)" | FileCheck %s --check-prefix=KEPT
// RUN: tilelang-opt %s --pass-pipeline="builtin.module(tile-expand-tensor-descriptors{keep-bulk-copies=true},convert-tile-to-tilegpu{num-warps=4 target=sm_90a},tilegpu-coalesce,tilegpu-accelerate-matmul,tilegpu-remove-layout-conversions,canonicalize,cse,tilegpu-pipeline{num-stages=1},tilegpu-lower-descriptor-accesses,canonicalize,cse)" | FileCheck %s --check-prefix=FALLBACK

// The tensor maps record how the launcher encodes them: A's 64x64 tile in
// one 128-byte-swizzled box, B's 64x128 tile in two boxes of 64 columns.
// Before the stages take over shared memory that other threads may still
// use, a proxy fence and a CTA barrier.
// Three mbarriers (one per stage) are initialized before a CTA barrier; the
// prologue arms stages 0 and 1 (16 KiB each: both tiles) and copies into
// them; the loop waits on its stage's barrier with the phase it carries,
// issues the product, waits for the previous one, and refills that stage;
// the phase flips when the read stage wraps. The barriers are invalidated
// after the loop.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: %[[AMAP:[^:]*]]: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 64], swizzle = 128, element = f16>}
// CHECK-SAME: %[[BMAP:[^:]*]]: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 64], swizzle = 128, element = f16>}
// CHECK: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.barrier
// CHECK-DAG: %[[ABUF:.*]] = tilegpu.local_alloc {{.*}}memdesc<3x64x64xf16
// CHECK-DAG: %[[BBUF:.*]] = tilegpu.local_alloc {{.*}}memdesc<3x64x128xf16
// CHECK-DAG: %[[BARS:.*]] = tilegpu.local_alloc {{.*}}memdesc<3x1xi64
// CHECK-COUNT-3: tilegpu.init_barrier %{{.*}}, 1
// CHECK: tilegpu.barrier
// CHECK: tilegpu.barrier_expect %{{.*}}, 24576, %{{.*}}
// CHECK-DAG: tilegpu.async_tma_copy_global_to_local %[[AMAP]][
// CHECK-DAG: tilegpu.async_tma_copy_global_to_local %[[BMAP]][
// CHECK: tilegpu.barrier_expect %{{.*}}, 24576, %{{.*}}
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[READ:[^ ]*]] = %c0_i32, %[[WRITE:[^ ]*]] = %c2_i32, %[[PHASE:[^ ]*]] = %c0_i32)
// CHECK: %[[BAR:.*]] = tilegpu.memdesc_index %[[BARS]][%[[READ]]]
// CHECK-NEXT: tilegpu.wait_barrier %[[BAR]], %[[PHASE]]
// CHECK-NOT: tilegpu.async_wait
// CHECK: tilegpu.warp_group_dot {{.*}} {isAsync}
// CHECK: tilegpu.warp_group_dot_wait {{.*}}pendings = 1
// CHECK-NEXT: tilegpu.barrier
// CHECK: tilegpu.barrier_expect
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: arith.xori %[[PHASE]], %c1_i32
// CHECK: scf.yield
// CHECK-COUNT-3: tilegpu.inval_barrier
// CHECK: tilegpu.local_dealloc %[[BARS]]
// CHECK-NOT: async_copy_global_to_local

// Without a pipeline, tilegpu-pipeline leaves the kept loads to
// tilegpu-lower-descriptor-accesses, which makes them pointer loads in
// their own layout; no tensor map is encoded.
// The named pipeline keeps descriptor accesses for bulk copies only on
// sm_90 with pipelining (tilegpu::keepsBulkCopies): otherwise they are
// expanded before layouts are chosen, so their loads are coalesced pointer
// loads (16 bytes a thread), which sm_80 pipelines with cp.async.
// EXPANDED: #tilegpu.blocked<sizePerThread = [1, 8]
// EXPANDED-LABEL: func.func @matmul
// EXPANDED-NOT: tilegpu.tma
// EXPANDED-NOT: descriptor_load
// EXPANDED-NOT: async_tma_copy
// CPASYNC: tilegpu.async_copy_global_to_local
// KEPT-LABEL: func.func @matmul
// KEPT-NOT: tilegpu.tma
// KEPT: scf.for
// KEPT-COUNT-2: tile.descriptor_load
// FALLBACK-LABEL: func.func @matmul
// FALLBACK-NOT: tilegpu.tma
// FALLBACK-NOT: descriptor_load
// FALLBACK: scf.for
// FALLBACK: tile.load {{.*}} : tensor<64x64x!tile.ptr<f16>, #blocked
// FALLBACK: tile.load {{.*}} : tensor<64x128x!tile.ptr<f16>, #blocked
// FALLBACK-NOT: async_tma_copy
func.func @matmul(%amap: !tile.tensormap, %a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %m: i32,
                  %k: i32 {tile.divisibility = 16 : i32}, %sa: i64 {tile.divisibility = 8 : i32},
                  %bmap: !tile.tensormap, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %kb: i32,
                  %n: i32 {tile.divisibility = 16 : i32}, %sb: i64 {tile.divisibility = 8 : i32},
                  %c: !tile.ptr<f32>, %steps: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%m, %k], [%sa, %one] map %amap : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  %db = tile.make_tensor_descriptor %b, [%kb, %n], [%sb, %one] map %bmap : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x128xf16>>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%acc0 = %zero) -> (tensor<64x128xf32>) : i32 {
    %kk = arith.muli %i, %c64 : i32
    %ta = tile.descriptor_load %da[%c0, %kk] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %tb = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
    %next = tile.dot %ta, %tb, %acc0 : tensor<64x64xf16> * tensor<64x128xf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %rowoff = arith.muli %r2, %c128 : tensor<64x1xi32>
  %rb = tile.broadcast %rowoff : tensor<64x1xi32> -> tensor<64x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %off = arith.addi %rb, %cb : tensor<64x128xi32>
  %base = tile.splat %c : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>>
  %ptrs = tile.addptr %base, %off : tensor<64x128x!tile.ptr<f32>>, tensor<64x128xi32>
  tile.store %ptrs, %acc : tensor<64x128x!tile.ptr<f32>>
  return
}
