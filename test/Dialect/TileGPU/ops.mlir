// Round trip of every tilegpu op, in custom and generic form.
// RUN: tilelang-opt %s | tilelang-opt | FileCheck %s
// RUN: tilelang-opt %s --mlir-print-op-generic | tilelang-opt | FileCheck %s

#t8 = #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#t1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>

module attributes {tilegpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func @convert
  func.func @convert(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked1> {
    // CHECK: tilegpu.convert_layout %{{.*}} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
    %y = tilegpu.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
    return %y : tensor<64x64xf16, #blocked1>
  }

  // CHECK-LABEL: func @shared_memory
  func.func @shared_memory(%x: tensor<64x64xf16, #blocked>, %i: i32) -> tensor<64x64xf16, #blocked1> {
    // CHECK: %[[M:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
    %m = tilegpu.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
    // CHECK: tilegpu.local_load %[[M]] : !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked1>
    %y = tilegpu.local_load %m : !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked1>
    // CHECK: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #shared, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #shared, mutable>
    // CHECK: %[[S:.*]] = tilegpu.memdesc_index %[[B]][%{{.*}}] : !tilegpu.memdesc<3x64x64xf16, #shared, mutable> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    %s = tilegpu.memdesc_index %b[%i] : !tilegpu.memdesc<3x64x64xf16, #shared, mutable> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    // CHECK: tilegpu.memdesc_trans %[[S]] : !tilegpu.memdesc<64x64xf16, #shared, mutable> -> !tilegpu.memdesc<64x64xf16, #{{.*}}, mutable>
    %t = tilegpu.memdesc_trans %s : !tilegpu.memdesc<64x64xf16, #shared, mutable> -> !tilegpu.memdesc<64x64xf16, #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]>, mutable>
    // CHECK: tilegpu.local_store %{{.*}}, %[[S]] : tensor<64x64xf16, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    tilegpu.local_store %x, %s : tensor<64x64xf16, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    // CHECK: tilegpu.barrier
    tilegpu.barrier
    // CHECK: tilegpu.local_dealloc %[[B]] : !tilegpu.memdesc<3x64x64xf16, #shared, mutable>
    tilegpu.local_dealloc %b : !tilegpu.memdesc<3x64x64xf16, #shared, mutable>
    return %y : tensor<64x64xf16, #blocked1>
  }

  // CHECK-LABEL: func @async_copy
  func.func @async_copy(%p: tensor<64x64x!tile.ptr<f16>, #blocked>, %m: tensor<64x64xi1, #blocked>,
                        %o: tensor<64x64xf16, #blocked>) {
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    // CHECK: %[[T0:.*]] = tilegpu.async_copy_global_to_local %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    %t0 = tilegpu.async_copy_global_to_local %p, %b : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    // CHECK: %[[T1:.*]] = tilegpu.async_copy_global_to_local %{{.*}}, %{{.*}} mask %{{.*}} other %{{.*}} : tensor<64x64x!tile.ptr<f16>, #blocked>
    %t1 = tilegpu.async_copy_global_to_local %p, %b mask %m other %o : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    // CHECK: %[[G:.*]] = tilegpu.async_commit_group %[[T0]], %[[T1]]
    %g = tilegpu.async_commit_group %t0, %t1
    // CHECK: tilegpu.async_wait %[[G]] {pending = 0 : i32}
    %w = tilegpu.async_wait %g {pending = 0 : i32}
    return
  }
  // CHECK-LABEL: func @thread_reduce
  func.func @thread_reduce(%x: tensor<1024xf32, #t8>) -> tensor<128xf32, #t1> {
    // CHECK: tilegpu.thread_reduce %{{.*}} axis = 0 : tensor<1024xf32, #{{.*}}> -> tensor<128xf32, #{{.*}}> {
    // CHECK: arith.addf
    // CHECK: tilegpu.thread_reduce.return %{{.*}} : f32
    %p = tilegpu.thread_reduce %x axis = 0 : tensor<1024xf32, #t8> -> tensor<128xf32, #t1> {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tilegpu.thread_reduce.return %s : f32
    }
    return %p : tensor<128xf32, #t1>
  }
}
