// The scan lowering on IR that already carries its layout: a Hillis-Steele
// scan in shared memory. A 256-element i32 cumulative sum (2 elements a
// thread) writes the tensor to shared memory (1024 bytes) between barriers,
// then in 8 rounds combines each element with the one 1, 2, 4, ... 128
// places earlier where it exists, writing back between barriers after every
// round but the last.
// RUN: tilelang-opt %s --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// CHECK: tilegpu.shared = 1024 : i32
// CHECK-LABEL: llvm.func internal @cumsum
// CHECK-SAME: (%[[X:.*]]: !llvm.struct<(i32, i32)>) -> !llvm.struct<(i32, i32)>
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// Round 1, for each of the thread's two elements: the partner 1 place
// earlier, read back and added where the element has one.
// CHECK: %[[HAS:.*]] = llvm.icmp "sge" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.mlir.constant(-1 : i32) : i32
// CHECK: %[[PARTNER:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: %[[SUM:.*]] = llvm.add %[[PARTNER]], %{{.*}} : i32
// CHECK: llvm.select %[[HAS]], %[[SUM]], %{{.*}} : i1, i32
// CHECK: llvm.mlir.constant(-1 : i32) : i32
// CHECK-COUNT-2: nvvm.barrier0
// CHECK-COUNT-2: llvm.mlir.constant(-2 : i32) : i32
// CHECK-COUNT-2: llvm.mlir.constant(-4 : i32) : i32
// CHECK-COUNT-2: llvm.mlir.constant(-8 : i32) : i32
// CHECK-COUNT-2: llvm.mlir.constant(-16 : i32) : i32
// CHECK-COUNT-2: llvm.mlir.constant(-32 : i32) : i32
// CHECK-COUNT-2: llvm.mlir.constant(-64 : i32) : i32
// CHECK-COUNT-2: llvm.mlir.constant(-128 : i32) : i32
// The last round is not written back.
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#blocked = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func private @cumsum(%x: tensor<256xi32, #blocked>) -> tensor<256xi32, #blocked> {
    %s = tile.scan %x axis = 0 : tensor<256xi32, #blocked> {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tile.scan.return %c : i32
    }
    return %s : tensor<256xi32, #blocked>
  }
}
