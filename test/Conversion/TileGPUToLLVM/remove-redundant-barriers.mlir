// tilelang-remove-redundant-barriers removes a kernel's nvvm.barrier0 where
// it orders no pair of accesses that may conflict: only global reads (or
// nothing) on every path to it from the entry or the previous barrier, and,
// after reads, no global write or atomic on any path from it to the next
// barrier or the exit; shared-memory accesses on both sides are allowed where
// none after it touches a byte one before it touches, one of the two writing
// (each access's bytes recorded as tilegpu.shared_range, else all of them).
// Every other barrier stays.
// RUN: tilelang-opt %s --pass-pipeline='builtin.module(llvm.func(tilelang-remove-redundant-barriers))' | FileCheck %s

module {
  llvm.mlir.global external @smem() {addr_space = 3 : i32} : !llvm.array<0 x i8>

  // A cross-warp reduction after the kernel's loads: its first barrier
  // (before the scratch is written) follows global loads only and precedes
  // only a shared store, so it goes; the second (between the shared store
  // and the reads of it) stays.
  // CHECK-LABEL: llvm.func @reduction_after_loads
  // CHECK: ld.global.v4.b32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
  // CHECK-NEXT: nvvm.shfl.sync
  // CHECK-NEXT: llvm.bitcast
  // CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.shared.b32
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.load
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  llvm.func @reduction_after_loads(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>, %pred: i1, %mask: i32) attributes {nvvm.kernel} {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %v = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, 0;\0Amov.b32 $1, 0;\0Amov.b32 $2, 0;\0Amov.b32 $3, 0;\0A@$5 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];", "=&r,=&r,=&r,=&r,l,b" %arg0, %pred : (!llvm.ptr<1>, i1) -> !llvm.struct<(i32, i32, i32, i32)>
    %e = llvm.extractvalue %v[0] : !llvm.struct<(i32, i32, i32, i32)>
    %f = llvm.bitcast %e : i32 to f32
    %x = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%f) : (f32) -> f32
    %s = nvvm.shfl.sync bfly %mask, %x, %c0, %mask : f32 -> f32
    nvvm.barrier0
    %b = llvm.bitcast %s : f32 to i32
    llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.shared.b32 [ $0 ], $1;", "l,r,b" %smem, %b, %pred : (!llvm.ptr<3>, i32, i1) -> ()
    nvvm.barrier0
    %r = llvm.load %smem : !llvm.ptr<3> -> i32
    llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.global.b32 [ $0 + 0 ], $1;", "l,r,b" %arg1, %r, %pred : (!llvm.ptr<1>, i32, i1) -> ()
    llvm.return
  }

  // A shared store before the barrier: another thread's access after it
  // may conflict, so it stays.
  // CHECK-LABEL: llvm.func @shared_access_before
  // CHECK: llvm.store
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @shared_access_before(%arg0: !llvm.ptr<1>, %x: i32) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    llvm.store %x, %smem : i32, !llvm.ptr<3>
    nvvm.barrier0
    %r = llvm.load %smem : !llvm.ptr<3> -> i32
    llvm.store %r, %arg0 : i32, !llvm.ptr<1>
    llvm.return
  }

  // A global load before and a global store after: another thread's store
  // may write what this thread read, so it stays.
  // CHECK-LABEL: llvm.func @global_store_after
  // CHECK: llvm.load
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @global_store_after(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    nvvm.barrier0
    llvm.store %x, %arg1 : i32, !llvm.ptr<1>
    llvm.return
  }

  // The same through a generic pointer: it may be global.
  // CHECK-LABEL: llvm.func @generic_store_after
  // CHECK: llvm.load
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @generic_store_after(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr) attributes {nvvm.kernel} {
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    nvvm.barrier0
    llvm.store %x, %arg1 : i32, !llvm.ptr
    llvm.return
  }

  // An atomic after the loads writes global memory: it stays.
  // CHECK-LABEL: llvm.func @atomic_after
  // CHECK: ld.global.b32
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @atomic_after(%arg0: !llvm.ptr<1>, %pred: i1) attributes {nvvm.kernel} {
    %x = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, 0;\0A@$2 ld.global.b32 $0, [ $1 + 0 ];", "=&r,l,b" %arg0, %pred : (!llvm.ptr<1>, i1) -> i32
    nvvm.barrier0
    %old = llvm.inline_asm has_side_effects asm_dialect = att "@$3 atom.global.gpu.relaxed.add.u32 $0, [ $1 + 0 ], $2;", "=r,l,r,b" %arg0, %x, %pred : (!llvm.ptr<1>, i32, i1) -> i32
    llvm.return
  }

  // An atomic before the barrier is not a plain read: it stays.
  // CHECK-LABEL: llvm.func @atomic_before
  // CHECK: atom.global
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @atomic_before(%arg0: !llvm.ptr<1>, %x: i32, %pred: i1) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %old = llvm.inline_asm has_side_effects asm_dialect = att "@$3 atom.global.gpu.relaxed.add.u32 $0, [ $1 + 0 ], $2;", "=r,l,r,b" %arg0, %x, %pred : (!llvm.ptr<1>, i32, i1) -> i32
    nvvm.barrier0
    llvm.store %old, %smem : i32, !llvm.ptr<3>
    llvm.return
  }

  // In a loop, the previous iteration's shared store reaches the barrier
  // around the back edge: it stays.
  // CHECK-LABEL: llvm.func @loop
  // CHECK: ^bb1:
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @loop(%x: i32, %more: i1) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    llvm.br ^bb1
  ^bb1:
    nvvm.barrier0
    llvm.store %x, %smem : i32, !llvm.ptr<3>
    llvm.cond_br %more, ^bb1, ^bb2
  ^bb2:
    llvm.return
  }

  // Loads, two barriers, a store: the first orders nothing (nothing between
  // the two) and goes; without it the second has the loads before and the
  // store after, and stays. Removing both would let the store race the
  // loads.
  // CHECK-LABEL: llvm.func @one_of_two
  // CHECK: llvm.load
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.store
  llvm.func @one_of_two(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    nvvm.barrier0
    nvvm.barrier0
    llvm.store %x, %arg1 : i32, !llvm.ptr<1>
    llvm.return
  }

  // Nothing but arithmetic before it: it orders nothing whatever follows.
  // CHECK-LABEL: llvm.func @nothing_before
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  llvm.func @nothing_before(%arg0: !llvm.ptr<1>, %x: i32) attributes {nvvm.kernel} {
    %y = llvm.add %x, %x : i32
    nvvm.barrier0
    llvm.store %y, %arg0 : i32, !llvm.ptr<1>
    llvm.return
  }

  // A device function's entry is not the kernel's: its caller may have
  // touched shared memory, so its barriers stay.
  // CHECK-LABEL: llvm.func @device_function
  // CHECK: llvm.mlir.addressof
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @device_function(%x: i32) {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    nvvm.barrier0
    llvm.store %x, %smem : i32, !llvm.ptr<3>
    llvm.return
  }

  // Through branches: the store to shared memory on one arm before the
  // barrier reaches it (every predecessor is walked): it stays.
  // CHECK-LABEL: llvm.func @shared_store_on_one_arm_before
  // CHECK: ^bb3:
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @shared_store_on_one_arm_before(%arg0: !llvm.ptr<1>, %c: i1) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    llvm.cond_br %c, ^bb1, ^bb2
  ^bb1:
    llvm.store %x, %smem : i32, !llvm.ptr<3>
    llvm.br ^bb3
  ^bb2:
    llvm.br ^bb3
  ^bb3:
    nvvm.barrier0
    %y = llvm.load %smem : !llvm.ptr<3> -> i32
    llvm.return
  }

  // A global store on one arm after the barrier, loads before: it stays.
  // CHECK-LABEL: llvm.func @global_store_on_one_arm_after
  // CHECK: llvm.load
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @global_store_on_one_arm_after(%arg0: !llvm.ptr<1>, %c: i1) attributes {nvvm.kernel} {
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    nvvm.barrier0
    llvm.cond_br %c, ^bb1, ^bb2
  ^bb1:
    llvm.return
  ^bb2:
    llvm.store %x, %arg0 : i32, !llvm.ptr<1>
    llvm.return
  }

  // Global loads on both arms before it and a shared store after: it goes.
  // CHECK-LABEL: llvm.func @loads_on_both_arms
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  llvm.func @loads_on_both_arms(%arg0: !llvm.ptr<1>, %c: i1) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    llvm.cond_br %c, ^bb1, ^bb2
  ^bb1:
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    llvm.br ^bb3(%x : i32)
  ^bb2:
    %y = llvm.load %arg0 : !llvm.ptr<1> -> i32
    llvm.br ^bb3(%y : i32)
  ^bb3(%v: i32):
    nvvm.barrier0
    llvm.store %v, %smem : i32, !llvm.ptr<3>
    llvm.return
  }

  // Instructions the pass does not model count as every access: an async
  // copy before the barrier, a reduction to global memory or a call after
  // the loads; the barriers stay.
  // CHECK-LABEL: llvm.func @unmodelled_before
  // CHECK: cp.async
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @unmodelled_before(%arg0: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    llvm.inline_asm has_side_effects asm_dialect = att "cp.async.cg.shared.global [ $0 ], [ $1 ], 16;", "r,l" %smem, %arg0 : (!llvm.ptr<3>, !llvm.ptr<1>) -> ()
    nvvm.barrier0
    %y = llvm.load %smem : !llvm.ptr<3> -> i32
    llvm.return
  }

  // CHECK-LABEL: llvm.func @unmodelled_after
  // CHECK: llvm.load
  // CHECK-NEXT: nvvm.barrier0
  // CHECK: red.global
  // CHECK: llvm.load
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.call @opaque
  llvm.func @opaque()
  llvm.func @unmodelled_after(%arg0: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    nvvm.barrier0
    llvm.inline_asm has_side_effects asm_dialect = att "red.global.add.u32 [ $0 + 0 ], $1;", "l,r" %arg0, %x : (!llvm.ptr<1>, i32) -> ()
    nvvm.barrier0
    %y = llvm.load %arg0 : !llvm.ptr<1> -> i32
    nvvm.barrier0
    llvm.call @opaque() : () -> ()
    llvm.return
  }

  // A kernel parameter read again inside a loop (RematerializePastLoops's
  // `{ .reg ...; ld.param ...; brev ...; }`) and a constant-bank load touch
  // nothing another thread writes: the barrier between global loads and a
  // shared store still goes. The scope's braces are only dropped: a shared
  // store inside one before a barrier keeps it.
  // CHECK-LABEL: llvm.func @parameter_reads
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  llvm.func @parameter_reads(%arg0: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    %p = llvm.inline_asm asm_dialect = att "{ .reg .b64 t; ld.param.b64 t, [parameter_reads_param_0]; brev.b64 t, t; brev.b64 $0, t; }", "=l" : () -> i64
    nvvm.barrier0
    %c = llvm.inline_asm asm_dialect = att "ld.const.b32 $0, [table];", "=r" : () -> i32
    llvm.store %x, %smem : i32, !llvm.ptr<3>
    llvm.return
  }

  // CHECK-LABEL: llvm.func @shared_store_in_a_scope
  // CHECK: st.shared
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @shared_store_in_a_scope(%arg0: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    llvm.inline_asm has_side_effects asm_dialect = att "{ .reg .b32 t; ld.param.b32 t, [shared_store_in_a_scope_param_0]; st.shared.b32 [ $0 ], t; }", "r" %smem : (!llvm.ptr<3>) -> ()
    nvvm.barrier0
    %y = llvm.load %smem : !llvm.ptr<3> -> i32
    llvm.store %y, %arg0 : i32, !llvm.ptr<1>
    llvm.return
  }

  // A barrier the user wrote (tl.debug_barrier(), marked
  // tilegpu.user_barrier) stays where it orders nothing, as the kernel's
  // first barrier; the lowering's barrier in the same place goes
  // (@lowering_barrier_removed). The user's still ends its neighbours'
  // paths: the lowering's barrier below sees only the global load since the
  // second user barrier (not the shared store before it) and goes.
  // CHECK-LABEL: llvm.func @user_barrier_kept
  // CHECK-NEXT: llvm.mlir.addressof
  // CHECK-NEXT: nvvm.barrier0 {tilegpu.user_barrier}
  // CHECK-NEXT: llvm.load
  // CHECK-NEXT: llvm.store
  // CHECK-NEXT: nvvm.barrier0 {tilegpu.user_barrier}
  // CHECK-NEXT: llvm.load
  // CHECK-NEXT: llvm.store
  // CHECK-NEXT: llvm.return
  llvm.func @user_barrier_kept(%arg0: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    nvvm.barrier0 {tilegpu.user_barrier}
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    llvm.store %x, %smem : i32, !llvm.ptr<3>
    nvvm.barrier0 {tilegpu.user_barrier}
    %y = llvm.load %arg0 : !llvm.ptr<1> -> i32
    nvvm.barrier0
    llvm.store %y, %smem : i32, !llvm.ptr<3>
    llvm.return
  }

  // CHECK-LABEL: llvm.func @lowering_barrier_removed
  // CHECK-NEXT: llvm.mlir.addressof
  // CHECK-NEXT: llvm.load
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  llvm.func @lowering_barrier_removed(%arg0: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    nvvm.barrier0
    %x = llvm.load %arg0 : !llvm.ptr<1> -> i32
    llvm.store %x, %smem : i32, !llvm.ptr<3>
    llvm.return
  }

  // Two cross-warp reductions whose scratch spaces lie apart (bytes 0-64 and
  // 64-128), as the shared-memory allocation places them in a row softmax:
  // the second's first barrier has the first's reads of 0-64 before it and
  // its own store to 64-128 after it, so it orders nothing and goes. The
  // barriers between each reduction's store and its reads stay.
  // CHECK-LABEL: llvm.func @reductions_apart
  // CHECK: st.shared.b32
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.load
  // CHECK-NEXT: llvm.inline_asm
  // CHECK-SAME: st.shared.b32
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.load
  // CHECK-NEXT: llvm.return
  llvm.func @reductions_apart(%p: i1, %x: i32) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %second = llvm.getelementptr %smem[64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    llvm.inline_asm has_side_effects asm_dialect = att {tilegpu.shared_range = array<i64: 0, 64>} "@$2 st.shared.b32 [ $0 ], $1;", "l,r,b" %smem, %x, %p : (!llvm.ptr<3>, i32, i1) -> ()
    nvvm.barrier0
    %a = llvm.load %smem {tilegpu.shared_range = array<i64: 0, 64>} : !llvm.ptr<3> -> i32
    nvvm.barrier0
    llvm.inline_asm has_side_effects asm_dialect = att {tilegpu.shared_range = array<i64: 64, 128>} "@$2 st.shared.b32 [ $0 ], $1;", "l,r,b" %second, %a, %p : (!llvm.ptr<3>, i32, i1) -> ()
    nvvm.barrier0
    %b = llvm.load %second {tilegpu.shared_range = array<i64: 64, 128>} : !llvm.ptr<3> -> i32
    llvm.return
  }

  // The same with both scratch spaces at bytes 0-64: the second store may
  // overwrite a partial another warp has not read yet, so every barrier
  // stays.
  // CHECK-LABEL: llvm.func @reductions_overlapping
  // CHECK: nvvm.barrier0
  // CHECK-NEXT: llvm.load
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.inline_asm
  // CHECK-NEXT: nvvm.barrier0
  llvm.func @reductions_overlapping(%p: i1, %x: i32) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    llvm.inline_asm has_side_effects asm_dialect = att {tilegpu.shared_range = array<i64: 0, 64>} "@$2 st.shared.b32 [ $0 ], $1;", "l,r,b" %smem, %x, %p : (!llvm.ptr<3>, i32, i1) -> ()
    nvvm.barrier0
    %a = llvm.load %smem {tilegpu.shared_range = array<i64: 0, 64>} : !llvm.ptr<3> -> i32
    nvvm.barrier0
    llvm.inline_asm has_side_effects asm_dialect = att {tilegpu.shared_range = array<i64: 32, 96>} "@$2 st.shared.b32 [ $0 ], $1;", "l,r,b" %smem, %a, %p : (!llvm.ptr<3>, i32, i1) -> ()
    nvvm.barrier0
    %b = llvm.load %smem {tilegpu.shared_range = array<i64: 32, 96>} : !llvm.ptr<3> -> i32
    llvm.return
  }

  // A shared write after the barrier that records no bytes may touch the
  // ones read before it: the barrier stays.
  // CHECK-LABEL: llvm.func @unrecorded_write_after
  // CHECK: llvm.load
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.store
  llvm.func @unrecorded_write_after(%x: i32) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %second = llvm.getelementptr %smem[64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %a = llvm.load %smem {tilegpu.shared_range = array<i64: 0, 64>} : !llvm.ptr<3> -> i32
    nvvm.barrier0
    llvm.store %a, %second : i32, !llvm.ptr<3>
    llvm.return
  }

  // Reads on both sides of the same bytes do not conflict: it goes.
  // CHECK-LABEL: llvm.func @reads_on_both_sides
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  llvm.func @reads_on_both_sides() attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %a = llvm.load %smem : !llvm.ptr<3> -> i32
    nvvm.barrier0
    %b = llvm.load %smem : !llvm.ptr<3> -> i32
    llvm.return
  }

  // Disjoint shared bytes after, but a global store after global loads
  // before: it stays.
  // CHECK-LABEL: llvm.func @apart_but_global_store_after
  // CHECK: nvvm.barrier0
  // CHECK-NEXT: llvm.store
  llvm.func @apart_but_global_store_after(%arg0: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %second = llvm.getelementptr %smem[64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    %g = llvm.load %arg0 : !llvm.ptr<1> -> i32
    %a = llvm.load %smem {tilegpu.shared_range = array<i64: 0, 64>} : !llvm.ptr<3> -> i32
    nvvm.barrier0
    llvm.store %a, %second {tilegpu.shared_range = array<i64: 64, 128>} : i32, !llvm.ptr<3>
    llvm.store %g, %arg0 : i32, !llvm.ptr<1>
    llvm.return
  }
}
