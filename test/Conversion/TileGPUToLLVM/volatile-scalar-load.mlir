// A volatile scalar load is one value per program, but each warp's load may
// see another write of the word (a counter other programs update): thread 0's
// value reaches every thread through an 8-byte scratch slot, as a scalar
// atomic's old value does, so that control flow on it stays uniform. A
// volatile tensor load and a plain scalar load are left as they were.
// RUN: tilelang-opt %s --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// CHECK: tilegpu.shared = 8 : i32

// CHECK-LABEL: llvm.func internal @volatile_scalar
// CHECK: %[[V:.*]] = llvm.load volatile %arg0
// CHECK: nvvm.barrier0
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: llvm.icmp "eq" %[[TID]]
// CHECK: "@$2 st.shared.b32 [ $0 ], $1;", "l,r,b" %{{.*}}, %[[V1:.*]], %
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.return

// CHECK-LABEL: llvm.func internal @plain_scalar
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: st.shared
// CHECK: llvm.return

// CHECK-LABEL: llvm.func internal @volatile_tensor
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: st.shared
// CHECK: llvm.return
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func private @volatile_scalar(%ptr: !tile.ptr<i32>) -> i32 {
    %v = tile.load %ptr volatile : !tile.ptr<i32>
    return %v : i32
  }
  func.func private @plain_scalar(%ptr: !tile.ptr<i32>) -> i32 {
    %v = tile.load %ptr : !tile.ptr<i32>
    return %v : i32
  }
  func.func private @volatile_tensor(%ptrs: tensor<128x!tile.ptr<i32>, #blocked>) -> tensor<128xi32, #blocked> {
    %v = tile.load %ptrs volatile : tensor<128x!tile.ptr<i32>, #blocked>
    return %v : tensor<128xi32, #blocked>
  }
}
