// The atomic lowering on IR that already carries its layouts: one
// predicated PTX atom per element a thread owns; a float max goes by bit
// pattern (signed max where the operand is non-negative, unsigned min where
// it is negative); a scalar atomic is issued by thread 0 alone and its old
// value reaches every thread through shared memory.
// RUN: tilelang-opt %s --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// Shared memory for the scalar atomics' old values (8 bytes of scratch each).
// CHECK: tilegpu.shared = 24 : i32

// 128 elements over 128 threads: one atom.add.f32 a thread.
// CHECK-LABEL: llvm.func internal @tensor_add
// CHECK: "mov.b32 $0, 0;\0A@$3 atom.acq_rel.gpu.global.add.f32 $0, [ $1 + 0 ], $2;\0A", "=&r,l,r,b"
// CHECK-NOT: atom.
// CHECK: llvm.return

// CHECK-LABEL: llvm.func internal @scalar_max
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: llvm.icmp "eq" %[[TID]]
// CHECK: "mov.b32 $0, 0;\0A@$3 atom.acq_rel.gpu.global.max.s32 $0, [ $1 + 0 ], $2;\0A@$4 atom.acq_rel.gpu.global.min.u32 $0, [ $1 + 0 ], $2;\0A", "=&r,l,r,b,b"
// CHECK: nvvm.barrier0
// CHECK: "@$2 st.shared.b32 [ $0 ], $1;"
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32

// CHECK-LABEL: llvm.func internal @cas
// CHECK: "mov.b32 $0, 0;\0A@$4 atom.acq_rel.gpu.global.cas.b32 $0, [ $1 + 0 ], $2, $3;\0A", "=&r,l,r,r,b" %arg0, %arg1, %arg2
// CHECK: "@$2 st.shared.b32 [ $0 ], $1;"
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func private @tensor_add(%ptrs: tensor<128x!tile.ptr<f32>, #blocked>, %v: tensor<128xf32, #blocked>) -> tensor<128xf32, #blocked> {
    %old = tile.atomic_rmw fadd, acq_rel, gpu, %ptrs, %v : tensor<128x!tile.ptr<f32>, #blocked>
    return %old : tensor<128xf32, #blocked>
  }
  func.func private @scalar_max(%ptr: !tile.ptr<f32>, %v: f32) -> f32 {
    %old = tile.atomic_rmw max, acq_rel, gpu, %ptr, %v : !tile.ptr<f32>
    return %old : f32
  }
  func.func private @cas(%ptr: !tile.ptr<i32>, %cmp: i32, %v: i32) -> i32 {
    %old = tile.atomic_cas acq_rel, gpu, %ptr, %cmp, %v : !tile.ptr<i32>
    return %old : i32
  }
}
