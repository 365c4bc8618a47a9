// The device print lowering on IR that already carries its layout:
// tile.print calls vprintf once per element a thread holds, with the
// program ids, the element's index and the value (a float printed as a
// double) packed in a stack struct, and a format string made once per
// module.
// RUN: tilelang-opt %s --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// CHECK: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// CHECK: llvm.mlir.global internal constant @[[FORMAT:.*]]("pid (%u, %u, %u) idx (%u) x = %f\0A\00")
// CHECK-LABEL: llvm.func internal @show
// CHECK: %[[X:.*]] = llvm.fpext %{{.*}} : f32 to f64
// CHECK: %[[ARGS:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, i32, f64)>
// CHECK: llvm.store %[[X]], %{{.*}} : f64, !llvm.ptr
// CHECK: %[[STR:.*]] = llvm.mlir.addressof @[[FORMAT]] : !llvm.ptr
// CHECK: llvm.call @vprintf(%[[STR]], %[[ARGS]]) : (!llvm.ptr, !llvm.ptr) -> i32
// CHECK-NOT: vprintf
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func private @show(%x: tensor<128xf32, #blocked>) {
    tile.print "x = " %x : tensor<128xf32, #blocked>
    return
  }
}
