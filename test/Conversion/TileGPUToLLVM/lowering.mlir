// convert-tilegpu-to-llvm: kernels, program geometry, vectorized and
// predicated global memory access, reductions and layout conversions
// through shared memory, and math through NVVM approximations.
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm=max-registers=80 --reconcile-unrealized-casts | FileCheck %s --check-prefix=MAXNREG

// The scratch space is one dynamic shared array sized for the largest user:
// the 512 x f32 conversion in @convert (2048 bytes).
// CHECK: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared = 2048 : i32, tilegpu.target = "sm_80"}
// CHECK: llvm.mlir.global external @tilelang_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

#b4 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  // A public function is a kernel of num_warps * 32 threads. program_id is
  // %ctaid.x and make_range starts from %tid.x. The masked load and store
  // of 4 aligned f32 (mask uniform over groups of 16) are one predicated
  // v4 access each; exp is ex2.approx of x * log2(e).
  // CHECK-LABEL: llvm.func @masked_copy
  // CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %[[N:.*]]: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>, nvvm.minctasm = 4 : i32}
  // A register cap (Triton's maxnreg) replaces the occupancy floor.
  // MAXNREG-LABEL: llvm.func @masked_copy
  // MAXNREG-SAME: attributes {nvvm.kernel, nvvm.maxnreg = 80 : i32, nvvm.maxntid = array<i32: 128, 1, 1>}
  // CHECK: %[[PID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK: llvm.mul %[[PID]], %{{.*}} : i32
  // CHECK: nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: llvm.icmp "slt"
  // CHECK: %[[LD:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, 0;\0Amov.b32 $1, 0;\0Amov.b32 $2, 0;\0Amov.b32 $3, 0;\0A@$5 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];", "=&r,=&r,=&r,=&r,l,b" %{{.*}}, %{{.*}} : (!llvm.ptr<1>, i1) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK-NOT: ld.global
  // CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
  // CHECK: %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
  // CHECK: %[[X:.*]] = llvm.fmul %{{.*}}, %[[LOG2E]] : f32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[X]]) : (f32) -> f32
  // CHECK-COUNT-3: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
  // CHECK-NOT: ld.global
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$5 st.global.v4.b32 [ $0 + 0 ], { $1, $2, $3, $4 };", "l,r,r,r,r,b" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!llvm.ptr<1>, i32, i32, i32, i32, i1) -> ()
  // CHECK-NEXT: llvm.return
  func.func @masked_copy(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                         %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                         %n: i32 {tile.divisibility = 16 : i32}) {
    %pid = tile.program_id x : i32
    %c512 = arith.constant 512 : i32
    %start = arith.muli %pid, %c512 : i32
    %r = tile.make_range 0 to 512 : tensor<512xi32, #b4>
    %sv = tile.splat %start : i32 -> tensor<512xi32, #b4>
    %off = arith.addi %sv, %r : tensor<512xi32, #b4>
    %nv = tile.splat %n : i32 -> tensor<512xi32, #b4>
    %mask = arith.cmpi slt, %off, %nv : tensor<512xi32, #b4>
    %xb = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
    %xp = tile.addptr %xb, %off : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
    %v = tile.load %xp, %mask : tensor<512x!tile.ptr<f32>, #b4>
    %e = math.exp %v : tensor<512xf32, #b4>
    %yb = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
    %yp = tile.addptr %yb, %off : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
    tile.store %yp, %e, %mask : tensor<512x!tile.ptr<f32>, #b4>
    return
  }

  // Unmasked aligned accesses are plain 16-byte vector loads and stores.
  // CHECK-LABEL: llvm.func @unmasked
  // CHECK-NOT: llvm.inline_asm
  // CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  // CHECK-NOT: llvm.load
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
  // CHECK-NOT: llvm.inline_asm
  // CHECK: llvm.return
  func.func @unmasked(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.make_range 0 to 512 : tensor<512xi32, #b4>
    %xb = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
    %xp = tile.addptr %xb, %r : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
    %v = tile.load %xp : tensor<512x!tile.ptr<f32>, #b4>
    %yb = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b4>
    %yp = tile.addptr %yb, %r : tensor<512x!tile.ptr<f32>, #b4>, tensor<512xi32, #b4>
    tile.store %yp, %v : tensor<512x!tile.ptr<f32>, #b4>
    return
  }

  // convert_layout goes through shared memory: a barrier, each thread
  // stores its 4 consecutive elements as one vector, a barrier, each thread
  // loads the 4 it needs (one per 128 elements). Unaligned pointers give
  // scalar (4-byte) global stores.
  // CHECK-LABEL: llvm.func @convert
  // CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @tilelang_smem : !llvm.ptr<3>
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-COUNT-1: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
  // CHECK-NOT: nvvm.barrier0
  // CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<1>
  // CHECK-NEXT: llvm.return
  func.func @convert(%x: f32, %p: !tile.ptr<f32>) {
    %r = tile.make_range 0 to 512 : tensor<512xi32, #b1>
    %pv = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b1>
    %pp = tile.addptr %pv, %r : tensor<512x!tile.ptr<f32>, #b1>, tensor<512xi32, #b1>
    %v = tile.splat %x : f32 -> tensor<512xf32, #b4>
    %c = tilegpu.convert_layout %v : tensor<512xf32, #b4> -> tensor<512xf32, #b1>
    tile.store %pp, %c : tensor<512x!tile.ptr<f32>, #b1>
    return
  }

  // A private function is an internal device function, not a kernel.
  // CHECK-LABEL: llvm.func internal @helper
  // CHECK-SAME: (%[[A:.*]]: f32) -> f32 {
  // CHECK: %[[X:.*]] = llvm.fmul %[[A]], %{{.*}} : f32
  // CHECK-NEXT: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[X]]) : (f32) -> f32
  // CHECK-NEXT: llvm.return %[[E]] : f32
  func.func private @helper(%x: f32) -> f32 {
    %e = math.exp %x : f32
    return %e : f32
  }

  // scf.for becomes blocks whose arguments carry each thread's elements as
  // a struct. The reduction combines a thread's 4 elements, then the 32
  // lanes in 5 butterfly shuffles, then the 4 warps' partials in shared
  // memory between barriers.
  // CHECK-LABEL: llvm.func @loop
  // CHECK: llvm.br ^bb1(%{{.*}}, %{{.*}} : i32, !llvm.struct<(f32, f32, f32, f32)>)
  // CHECK: ^bb1(%{{.*}}: i32, %{{.*}}: !llvm.struct<(f32, f32, f32, f32)>):
  // CHECK: llvm.cond_br %{{.*}}, ^bb2, ^bb3
  // CHECK: ^bb2:
  // CHECK: llvm.call @helper(%{{.*}}) : (f32) -> f32
  // CHECK-COUNT-4: llvm.fadd
  // CHECK: llvm.br ^bb1
  // CHECK: ^bb3:
  // CHECK-COUNT-3: llvm.intr.maxnum
  // CHECK: %[[O16:.*]] = llvm.mlir.constant(16 : i32) : i32
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[O16]], %{{.*}} : i32 -> i32
  // CHECK: %[[O8:.*]] = llvm.mlir.constant(8 : i32) : i32
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[O8]], %{{.*}} : i32 -> i32
  // CHECK: %[[O4:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[O4]], %{{.*}} : i32 -> i32
  // CHECK: %[[O2:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[O2]], %{{.*}} : i32 -> i32
  // CHECK: %[[O1:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[O1]], %{{.*}} : i32 -> i32
  // CHECK: %[[PARTIAL:.*]] = llvm.intr.maxnum
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: llvm.mlir.addressof @tilelang_smem : !llvm.ptr<3>
  // Lane 0 of each warp alone writes the warp's partial (every lane holds it).
  // Each access records the scratch space's bytes (4 warps' f32 partials).
  // CHECK: %[[FIRST:.*]] = llvm.icmp "eq"
  // CHECK: nvvm.barrier0
  // CHECK: %[[WORD:.*]] = llvm.bitcast %[[PARTIAL]] : f32 to i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att {tilegpu.shared_range = array<i64: 0, 16>} "@$2 st.shared.b32 [ $0 ], $1;", "l,r,b" %{{.*}}, %[[WORD]], %[[FIRST]] : (!llvm.ptr<3>, i32, i1) -> ()
  // CHECK-NEXT: nvvm.barrier0
  // Across the 4 warps: each lane reads the partial of warp lane % 4, and
  // a butterfly over lanes 2 and 1 apart completes the total in all.
  // CHECK: llvm.urem %{{.*}}, %{{.*}} : i32
  // CHECK: llvm.load %{{.*}} {tilegpu.shared_range = array<i64: 0, 16>} : !llvm.ptr<3> -> f32
  // CHECK-NOT: llvm.load {{.*}}: !llvm.ptr<3>
  // CHECK: %[[S2:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[S2]], %{{.*}} : i32 -> i32
  // CHECK: llvm.intr.maxnum
  // CHECK: %[[S1:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %[[S1]], %{{.*}} : i32 -> i32
  // CHECK: llvm.intr.maxnum
  // CHECK-NOT: llvm.load {{.*}}: !llvm.ptr<3>
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<1xf32>, !llvm.ptr<1>
  func.func @loop(%x: f32, %n: i32, %p: !tile.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %init = tile.splat %x : f32 -> tensor<512xf32, #b4>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<512xf32, #b4>) : i32 {
      %y = func.call @helper(%x) : (f32) -> f32
      %yv = tile.splat %y : f32 -> tensor<512xf32, #b4>
      %next = arith.addf %acc, %yv : tensor<512xf32, #b4>
      scf.yield %next : tensor<512xf32, #b4>
    }
    %s = tile.reduce %r axis = 0 : tensor<512xf32, #b4> -> f32 {
    ^bb0(%a: f32, %b: f32):
      %t = arith.maxnumf %a, %b : f32
      tile.reduce.return %t : f32
    }
    tile.store %p, %s : !tile.ptr<f32>
    return
  }
}
