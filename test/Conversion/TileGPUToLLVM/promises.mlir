// convert-tilegpu-to-llvm of the promises: tl.assume becomes
// llvm.intr.assume; a hint has made its load wide and is then erased.
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // Without the hint, %x is only known to be 4-byte aligned and each f32
  // is loaded on its own; with it, four at a time.
  // CHECK-LABEL: llvm.func @promises
  // CHECK: %[[GE:.*]] = llvm.icmp "sge"
  // CHECK: llvm.intr.assume %[[GE]] : i1
  // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  // CHECK-NOT: tile.hint
  // CHECK: llvm.return
  func.func @promises(%x: !tile.ptr<f32>, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %ge = arith.cmpi sge, %n, %c0 : i32
    tile.assume %ge
    tile.hint %x {multiple_of = array<i64: 16>} : !tile.ptr<f32>
    %r = tile.make_range 0 to 512 : tensor<512xi32, #b4>
    %xb = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
    %xp = tile.addptr %xb, %r : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
    %v = tile.load %xp : tensor<512x!tile.ptr<f32>, #b4>
    %yb = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
    %yp = tile.addptr %yb, %r : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
    tile.store %yp, %v : tensor<512x!tile.ptr<f32>, #b4>
    return
  }
}
