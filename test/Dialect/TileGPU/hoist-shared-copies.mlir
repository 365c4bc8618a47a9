// tilegpu-pipeline moves a loop-invariant copy to shared memory (an
// immutable local_alloc of a tensor defined outside the loop) before the
// loop, at any num-stages: attention's Q block is written once, not in
// every iteration.
// RUN: tilelang-opt %s --tilegpu-pipeline=num-stages=1 | FileCheck %s
// RUN: tilelang-opt %s --tilegpu-pipeline=num-stages=3 | FileCheck %s

#a = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#shared_t = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]>
#shared_w = #tilegpu.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // The copy of %q leaves the loop; the copy of %k, computed in the loop,
  // stays.
  // CHECK-LABEL: func.func @invariant
  // CHECK: %[[Q:.*]] = tilegpu.local_alloc %arg0
  // CHECK-NEXT: scf.for
  // CHECK: %[[K:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x128xf16
  // CHECK-NEXT: tilegpu.warp_group_dot %[[Q]], %[[K]]
  func.func @invariant(%q: tensor<128x64xf16, #a>, %k: tensor<64x128xf16, #a>, %n: i32) -> tensor<128x128xf32, #mma> {
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %ki = arith.addf %k, %k : tensor<64x128xf16, #a>
      %qs = tilegpu.local_alloc %q : (tensor<128x64xf16, #a>) -> !tilegpu.memdesc<128x64xf16, #shared>
      %ks = tilegpu.local_alloc %ki : (tensor<64x128xf16, #a>) -> !tilegpu.memdesc<64x128xf16, #shared>
      %d = tilegpu.warp_group_dot %qs, %ks, %acc : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    return %r : tensor<128x128xf32, #mma>
  }

  // Invariant in both loops: it leaves both.
  // CHECK-LABEL: func.func @nested
  // CHECK: %[[Q:.*]] = tilegpu.local_alloc %arg0
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: tilegpu.warp_group_dot %[[Q]]
  func.func @nested(%q: tensor<128x64xf16, #a>, %k: !tilegpu.memdesc<64x128xf16, #shared>, %n: i32) -> tensor<128x128xf32, #mma> {
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %s = scf.for %j = %c0 to %n step %c1 iter_args(%inner = %acc) -> (tensor<128x128xf32, #mma>) : i32 {
        %qs = tilegpu.local_alloc %q : (tensor<128x64xf16, #a>) -> !tilegpu.memdesc<128x64xf16, #shared>
        %d = tilegpu.warp_group_dot %qs, %k, %inner : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared> -> tensor<128x128xf32, #mma>
        scf.yield %d : tensor<128x128xf32, #mma>
      }
      scf.yield %s : tensor<128x128xf32, #mma>
    }
    return %r : tensor<128x128xf32, #mma>
  }

  // A buffer the loop frees, and a mutable one (it may be written in the
  // loop), stay where they are.
  // CHECK-LABEL: func.func @kept
  // CHECK: scf.for
  // CHECK-NEXT: %[[FREED:.*]] = tilegpu.local_alloc %arg0
  // CHECK: tilegpu.local_dealloc %[[FREED]]
  // CHECK-NEXT: tilegpu.local_alloc %arg0 {{.*}}mutable>
  func.func @kept(%q: tensor<128x64xf16, #a>, %k: !tilegpu.memdesc<64x128xf16, #shared>, %n: i32) -> tensor<128x128xf32, #mma> {
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %qs = tilegpu.local_alloc %q : (tensor<128x64xf16, #a>) -> !tilegpu.memdesc<128x64xf16, #shared>
      %d = tilegpu.warp_group_dot %qs, %k, %acc : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared> -> tensor<128x128xf32, #mma>
      tilegpu.local_dealloc %qs : !tilegpu.memdesc<128x64xf16, #shared>
      %qm = tilegpu.local_alloc %q : (tensor<128x64xf16, #a>) -> !tilegpu.memdesc<128x64xf16, #shared, mutable>
      %e = tilegpu.warp_group_dot %qm, %k, %d : !tilegpu.memdesc<128x64xf16, #shared, mutable> * !tilegpu.memdesc<64x128xf16, #shared> -> tensor<128x128xf32, #mma>
      scf.yield %e : tensor<128x128xf32, #mma>
    }
    return %r : tensor<128x128xf32, #mma>
  }

  // Causal attention's two loops: the copies of %q leave both loops and the
  // second reuses the first's buffer, which dominates it; the copy of %k in
  // another layout gets a buffer of its own. A copy in one branch of an
  // scf.if does not dominate the other branch's: both stay (in a layout no
  // earlier copy has).
  // CHECK-LABEL: func.func @shared_copies
  // CHECK: %[[Q:.*]] = tilegpu.local_alloc %arg0 : ({{.*}}) -> !tilegpu.memdesc<128x64xf16, #shared>
  // CHECK-NEXT: %[[K:.*]] = tilegpu.local_alloc %arg1 : ({{.*}}) -> !tilegpu.memdesc<64x128xf16, #shared>
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: tilegpu.warp_group_dot %[[Q]], %[[K]],
  // CHECK: %[[KT:.*]] = tilegpu.local_alloc %arg1 : ({{.*}}) -> !tilegpu.memdesc<64x128xf16, #shared1>
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: tilegpu.warp_group_dot %[[Q]], %[[KT]],
  // CHECK: scf.if
  // CHECK-NEXT: %[[THEN:.*]] = tilegpu.local_alloc %arg1 : ({{.*}}) -> !tilegpu.memdesc<64x128xf16, #shared2>
  // CHECK-NEXT: tilegpu.warp_group_dot %[[Q]], %[[THEN]],
  // CHECK: else
  // CHECK-NEXT: %[[ELSE:.*]] = tilegpu.local_alloc %arg1
  // CHECK-NEXT: tilegpu.warp_group_dot %[[Q]], %[[ELSE]],
  func.func @shared_copies(%q: tensor<128x64xf16, #a>, %k: tensor<64x128xf16, #a>, %n: i32, %c: i1) -> (tensor<128x128xf32, #mma>, tensor<128x128xf32, #mma>, tensor<128x128xf32, #mma>) {
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r1 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %qs = tilegpu.local_alloc %q : (tensor<128x64xf16, #a>) -> !tilegpu.memdesc<128x64xf16, #shared>
      %ks = tilegpu.local_alloc %k : (tensor<64x128xf16, #a>) -> !tilegpu.memdesc<64x128xf16, #shared>
      %d = tilegpu.warp_group_dot %qs, %ks, %acc : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %qs = tilegpu.local_alloc %q : (tensor<128x64xf16, #a>) -> !tilegpu.memdesc<128x64xf16, #shared>
      %ks = tilegpu.local_alloc %k : (tensor<64x128xf16, #a>) -> !tilegpu.memdesc<64x128xf16, #shared_t>
      %d = tilegpu.warp_group_dot %qs, %ks, %acc : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared_t> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    %qs = tilegpu.local_alloc %q : (tensor<128x64xf16, #a>) -> !tilegpu.memdesc<128x64xf16, #shared>
    %r3 = scf.if %c -> (tensor<128x128xf32, #mma>) {
      %ks = tilegpu.local_alloc %k : (tensor<64x128xf16, #a>) -> !tilegpu.memdesc<64x128xf16, #shared_w>
      %d = tilegpu.warp_group_dot %qs, %ks, %zero : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared_w> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    } else {
      %ks = tilegpu.local_alloc %k : (tensor<64x128xf16, #a>) -> !tilegpu.memdesc<64x128xf16, #shared_w>
      %d = tilegpu.warp_group_dot %qs, %ks, %zero : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared_w> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    return %r1, %r2, %r3 : tensor<128x128xf32, #mma>, tensor<128x128xf32, #mma>, tensor<128x128xf32, #mma>
  }
}
