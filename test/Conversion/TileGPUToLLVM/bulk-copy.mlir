// The bulk tensor copy (TMA) lowering on IR that already carries its
// layouts (what tilegpu-pipeline leaves on sm_90a): the tensor map is a
// 128-byte grid-constant parameter aligned to 64; thread 0 initializes the
// mbarrier, arms it for the box's 8192 bytes and issues one
// cp.async.bulk.tensor for the 64x64 f16 box (128-byte rows: one box, with
// coordinates innermost first); every thread waits on the barrier's phase.
// RUN: tilelang-opt %s --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// The 8 KiB buffer at offset 0, the barrier above it.
// CHECK: tilegpu.shared = 8200 : i32
// CHECK-LABEL: llvm.func @tma
// CHECK-SAME: (%[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[ROW:.*]]: i32, %[[COL:.*]]: i32, %[[PHASE:.*]]: i32)
// CHECK: %[[BAR:.*]] = llvm.getelementptr %{{.*}}[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]], %{{.*}} : i32
// CHECK: "@$0 mbarrier.init.shared::cta.b64 [$1], 1;", "b,r" %[[FIRST]]
// CHECK: "fence.mbarrier_init.release.cluster;"
// CHECK: nvvm.barrier0
// CHECK: "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], 8192;"
// CHECK: %[[INNER:.*]] = llvm.add %[[COL]], %{{.*}} : i32
// CHECK: "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$1], [$2, {$3, $4}], [$5];", "b,r,l,r,r,r" %{{.*}}, %{{.*}}, %[[MAP]], %[[INNER]], %[[ROW]], %{{.*}}
// CHECK-NOT: cp.async.bulk.tensor
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 complete, [$0], $1;{{.*}}"r,r" %{{.*}}, %[[PHASE]]
// CHECK: "@$0 mbarrier.inval.shared::cta.b64 [$1];"
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#bar = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @tma(%desc: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 64], swizzle = 128, element = f16>}, %row: i32, %col: i32, %phase: i32) -> () {
    %true = arith.constant true
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.barrier
    tilegpu.barrier_expect %bar, 8192, %true : !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.async_tma_copy_global_to_local %desc[%row, %col] %buf, %bar, %true : !tilegpu.memdesc<64x64xf16, #shared, mutable>, !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.inval_barrier %bar : !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.local_dealloc %bar : !tilegpu.memdesc<1xi64, #bar, mutable>
    tilegpu.local_dealloc %buf : !tilegpu.memdesc<64x64xf16, #shared, mutable>
    return
  }
}
