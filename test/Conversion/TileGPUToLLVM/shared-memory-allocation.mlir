// Shared memory is placed by liveness: a buffer (local_alloc) is live from
// its definition to the last use of any memdesc derived from it, an op's
// scratch space only during that op, and each takes the lowest offset that
// nothing live at the same time occupies. tilegpu.shared is the peak. A
// buffer at offset 0 is the array's address itself; any other is a byte
// offset from it.
// RUN: tilelang-opt %s -split-input-file --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// Two 8 KB buffers whose lifetimes do not overlap share offset 0; two that
// do overlap sit one above the other.
// CHECK: tilegpu.shared = 16384 : i32
// CHECK-LABEL: llvm.func @disjoint
// CHECK: llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: nvvm.barrier0
// CHECK-LABEL: llvm.func @overlapping
// CHECK: llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: llvm.getelementptr %[[BASE]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.barrier0
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @disjoint(%t: tensor<64x64xf16, #blocked>) {
    %a = tilegpu.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
    tilegpu.local_dealloc %a : !tilegpu.memdesc<64x64xf16, #shared>
    %b = tilegpu.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
    tilegpu.local_dealloc %b : !tilegpu.memdesc<64x64xf16, #shared>
    return
  }
  func.func @overlapping(%t: tensor<64x64xf16, #blocked>) {
    %a = tilegpu.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
    %b = tilegpu.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
    tilegpu.local_dealloc %a : !tilegpu.memdesc<64x64xf16, #shared>
    tilegpu.local_dealloc %b : !tilegpu.memdesc<64x64xf16, #shared>
    return
  }
}

// -----

// A buffer defined before a loop and used in it is live around the
// back-edge, for the whole loop: the buffer allocated in each iteration
// goes above it, and so does the conversion's scratch space, which takes
// the room of that buffer once it is dead within the iteration. After the
// loop, a new buffer reuses the first one's room.
// CHECK: tilegpu.shared = 24576 : i32
// CHECK-LABEL: llvm.func @loop
// CHECK: %[[STAGES:.*]] = llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: llvm.br ^[[HEADER:bb[0-9]+]](
// CHECK: ^[[HEADER]](
// CHECK: llvm.cond_br %{{.*}}, ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK: llvm.getelementptr %[[STAGES]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: %[[INNER:.*]] = llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: llvm.getelementptr %[[INNER]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[SCRATCH:.*]] = llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: llvm.getelementptr %[[SCRATCH]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.br ^[[HEADER]]
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: nvvm.barrier0
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @loop(%t: tensor<64x64xf16, #blocked>, %v: tensor<512xf32, #b4>, %n: i32, %p: !tile.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %stages = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x64xf16, #shared, mutable>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %stage = tilegpu.memdesc_index %stages[%c0] : !tilegpu.memdesc<2x64x64xf16, #shared, mutable> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
      %inner = tilegpu.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
      tilegpu.local_dealloc %inner : !tilegpu.memdesc<64x64xf16, #shared>
      %c = tilegpu.convert_layout %v : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
      %r = tile.make_range 0 to 512 : tensor<512xi32, #b1>
      %pv = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
      %pp = tile.addptr %pv, %r : tensor<512x!tile.ptr<f32>, #b1>, tensor<512xi32, #b1>
      tile.store %pp, %c : tensor<512x!tile.ptr<f32>, #b1>
    }
    %after = tilegpu.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
    return
  }
}

// -----

// Scratch space reuses the room of a buffer that is dead: the reduction's
// partials (one per warp) go at offset 0 once the buffer there is freed,
// and the peak is the buffer alone.
// CHECK: tilegpu.shared = 8192 : i32
// CHECK-LABEL: llvm.func @scratch_after_buffer
// CHECK: llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.shfl.sync bfly
// CHECK: %[[PARTIALS:.*]] = llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.getelementptr %[[PARTIALS]][%[[ZERO]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: nvvm.barrier0
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @scratch_after_buffer(%t: tensor<64x64xf16, #blocked>, %v: tensor<512xf32, #b1>, %p: !tile.ptr<f32>) {
    %a = tilegpu.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
    tilegpu.local_dealloc %a : !tilegpu.memdesc<64x64xf16, #shared>
    %s = tile.reduce %v axis = 0 : tensor<512xf32, #b1> -> f32 {
    ^bb0(%x: f32, %y: f32):
      %m = arith.maximumf %x, %y : f32
      tile.reduce.return %m : f32
    }
    tile.store %p, %s : !tile.ptr<f32>
    return
  }
}

// -----

// An asynchronous product reads its operands until the wait that retires
// it: both buffers stay live until then, so the conversion issued while the
// product is in flight goes above them, and only the one after the wait
// reuses their room.
// CHECK: tilegpu.shared = 34816 : i32
// CHECK-LABEL: llvm.func @async_product
// CHECK: llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: nvvm.barrier0
// CHECK: %[[Y:.*]] = llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: llvm.getelementptr %[[Y]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: wgmma.mma_async
// CHECK: %[[IN_FLIGHT:.*]] = llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: llvm.getelementptr %[[IN_FLIGHT]][32768] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: wgmma.wait_group.sync.aligned 0
// CHECK: llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: nvvm.barrier0
#a = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @async_product(%x: tensor<128x64xf16, #a>, %y: tensor<64x128xf16, #a>, %c: tensor<128x128xf32, #mma>, %v: tensor<512xf32, #b4>, %p: !tile.ptr<f32>, %q: !tile.ptr<f32>) {
    %xa = tilegpu.local_alloc %x : (tensor<128x64xf16, #a>) -> !tilegpu.memdesc<128x64xf16, #shared>
    %ya = tilegpu.local_alloc %y : (tensor<64x128xf16, #a>) -> !tilegpu.memdesc<64x128xf16, #shared>
    %d = tilegpu.warp_group_dot %xa, %ya, %c {isAsync} : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared> -> tensor<128x128xf32, #mma>
    %r = tile.make_range 0 to 512 : tensor<512xi32, #b1>
    %first = tilegpu.convert_layout %v : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
    %pv = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
    %pp = tile.addptr %pv, %r : tensor<512x!tile.ptr<f32>, #b1>, tensor<512xi32, #b1>
    tile.store %pp, %first : tensor<512x!tile.ptr<f32>, #b1>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #mma>
    %second = tilegpu.convert_layout %v : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
    %qv = tile.splat %q : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
    %qq = tile.addptr %qv, %r : tensor<512x!tile.ptr<f32>, #b1>, tensor<512xi32, #b1>
    tile.store %qq, %second : tensor<512x!tile.ptr<f32>, #b1>
    return
  }
}

// -----

// Operands copied to shared memory before a loop (as tilegpu-pipeline hoists
// loop-invariant copies) are stored, fenced for the async proxy and
// published by a barrier once, before the loop; wgmma reads them in every
// iteration, and they stay live across the whole loop: the conversion in
// the loop goes above them.
// CHECK: tilegpu.shared = 34816 : i32
// CHECK-LABEL: llvm.func @hoisted
// CHECK: fence.proxy.async.shared::cta
// CHECK-NEXT: nvvm.barrier0
// CHECK: fence.proxy.async.shared::cta
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.br ^[[HEADER:bb[0-9]+]](
// CHECK: ^[[HEADER]](
// CHECK-NOT: fence.proxy.async
// CHECK: wgmma.mma_async
// CHECK-NOT: fence.proxy.async
// CHECK: %[[SCRATCH:.*]] = llvm.mlir.addressof @tilelang_smem
// CHECK-NEXT: llvm.getelementptr %[[SCRATCH]][32768] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NOT: fence.proxy.async
// CHECK: llvm.br ^[[HEADER]]
#a = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @hoisted(%q: tensor<128x64xf16, #a>, %k: tensor<64x128xf16, #a>, %c: tensor<128x128xf32, #mma>, %v: tensor<512xf32, #b4>, %p: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %qs = tilegpu.local_alloc %q : (tensor<128x64xf16, #a>) -> !tilegpu.memdesc<128x64xf16, #shared>
    %ks = tilegpu.local_alloc %k : (tensor<64x128xf16, #a>) -> !tilegpu.memdesc<64x128xf16, #shared>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<128x128xf32, #mma>) : i32 {
      %d = tilegpu.warp_group_dot %qs, %ks, %acc : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared> -> tensor<128x128xf32, #mma>
      %cv = tilegpu.convert_layout %v : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
      %rg = tile.make_range 0 to 512 : tensor<512xi32, #b1>
      %pv = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
      %pp = tile.addptr %pv, %rg : tensor<512x!tile.ptr<f32>, #b1>, tensor<512xi32, #b1>
      tile.store %pp, %cv : tensor<512x!tile.ptr<f32>, #b1>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    return
  }
}
