// tilelang-rematerialize-past-loops: a value computed before an outermost
// loop from special registers, kernel parameters and constants, and used
// after it, is computed again past the loop (where the epilogue uses it,
// or in a later loop's preheader) from inline reads that LLVM cannot merge
// with the originals, so that it is not held through the loop. A copy's
// parameter goes through two bit reversals, which ptxas does not fold: a
// plain ld.param it would take for the prologue's load of the parameter
// and hold through the loop after all.
// RUN: tilelang-opt %s --pass-pipeline='builtin.module(llvm.func(tilelang-rematerialize-past-loops))' | FileCheck %s

// A row (thread and program ids) and its mask (a compare with a parameter)
// are computed before a loop of tensor-core products (a stand-in
// wgmma.mma_async) for a load and used by the epilogue's store: the
// epilogue gets its own copies, read before its first use.
// CHECK-LABEL: llvm.func @epilogue
// CHECK: %[[ROW:.*]] = llvm.add
// CHECK: %[[MASK:.*]] = llvm.icmp "slt" %[[ROW]], %arg1
// CHECK: llvm.load
// CHECK: ^bb3:
// CHECK-NEXT: %[[PID2:.*]] = llvm.inline_asm asm_dialect = att "mov.u32 $0, %ctaid.x; // rematerialized 1", "=r"  : () -> i32
// CHECK-NEXT: %[[ROWS2:.*]] = llvm.mul %[[PID2]]
// CHECK-NEXT: %[[TID2:.*]] = llvm.inline_asm asm_dialect = att "mov.u32 $0, %tid.x; // rematerialized 1", "=r"  : () -> i32
// CHECK-NEXT: %[[ROW2:.*]] = llvm.add %[[ROWS2]], %[[TID2]]
// CHECK-NEXT: %[[N2:.*]] = llvm.inline_asm asm_dialect = att "{ .reg .b32 t; ld.param.b32 t, [epilogue_param_1]; brev.b32 t, t; brev.b32 $0, t; } // rematerialized 1", "=r"  : () -> i32
// CHECK-NEXT: %[[MASK2:.*]] = llvm.icmp "slt" %[[ROW2]], %[[N2]]
// CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %arg0[%[[ROW2]]]
// CHECK-NEXT: llvm.cond_br %[[MASK2]]
// CHECK-NOT: %[[ROW]]
// CHECK-NOT: %[[MASK]]
// CHECK: llvm.return
llvm.func @epilogue(%out: !llvm.ptr<1>, %n: i32, %steps: i32) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c128 = llvm.mlir.constant(128 : i32) : i32
  %pid = nvvm.read.ptx.sreg.ctaid.x : i32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %rows = llvm.mul %pid, %c128 : i32
  %row = llvm.add %rows, %tid : i32
  %mask = llvm.icmp "slt" %row, %n : i32
  %in = llvm.getelementptr %out[%row] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %first = llvm.load %in : !llvm.ptr<1> -> i32
  llvm.br ^bb1(%c0, %first : i32, i32)
^bb1(%i: i32, %acc: i32):
  %more = llvm.icmp "slt" %i, %steps : i32
  llvm.cond_br %more, ^bb2, ^bb3
^bb2:
  %acc1 = llvm.mul %acc, %acc : i32
  %i1 = llvm.add %i, %c1 : i32
  llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16; // a product", ""  : () -> ()
  llvm.br ^bb1(%i1, %acc1 : i32, i32)
^bb3:
  %p = llvm.getelementptr %out[%row] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.cond_br %mask, ^bb4, ^bb5
^bb4:
  llvm.store %acc, %p : i32, !llvm.ptr<1>
  llvm.br ^bb5
^bb5:
  llvm.return
}

// A base pointer (a parameter plus the program's offset) that a second
// loop uses: its copy goes before that loop, in its preheader, and a
// value the epilogue uses again gets one copy per block, numbered apart.
// CHECK-LABEL: llvm.func @second_loop
// CHECK: ^bb3:
// CHECK-NEXT: %[[IN:.*]] = llvm.inline_asm asm_dialect = att "{ .reg .b64 t; ld.param.b64 t, [second_loop_param_0]; brev.b64 t, t; brev.b64 $0, t; } // rematerialized 2", "=l"  : () -> i64
// CHECK-NEXT: %[[INP:.*]] = llvm.inttoptr %[[IN]] : i64 to !llvm.ptr<1>
// CHECK-NEXT: %[[PID:.*]] = llvm.inline_asm asm_dialect = att "mov.u32 $0, %ctaid.x; // rematerialized 2"
// CHECK-NEXT: %[[OFFSET:.*]] = llvm.mul %[[PID]]
// CHECK-NEXT: %[[BASE:.*]] = llvm.getelementptr %[[INP]][%[[OFFSET]]]
// CHECK-NEXT: llvm.br ^bb4
// CHECK: ^bb5:
// CHECK-NEXT: llvm.load %[[BASE]]
// CHECK: ^bb6:
// CHECK-NEXT: %[[PID3:.*]] = llvm.inline_asm asm_dialect = att "mov.u32 $0, %ctaid.x; // rematerialized 1"
// CHECK-NEXT: %[[OFFSET3:.*]] = llvm.mul %[[PID3]]
// CHECK-NEXT: llvm.getelementptr %arg0[%[[OFFSET3]]]
llvm.func @second_loop(%in: !llvm.ptr<1>, %steps: i32) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c64 = llvm.mlir.constant(64 : i32) : i32
  %pid = nvvm.read.ptx.sreg.ctaid.x : i32
  %offset = llvm.mul %pid, %c64 : i32
  %base = llvm.getelementptr %in[%offset] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  llvm.br ^bb1(%c0 : i32)
^bb1(%i: i32):
  %more = llvm.icmp "slt" %i, %steps : i32
  llvm.cond_br %more, ^bb2, ^bb3
^bb2:
  %i1 = llvm.add %i, %c1 : i32
  llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16; // a product", ""  : () -> ()
  llvm.br ^bb1(%i1 : i32)
^bb3:
  llvm.br ^bb4(%c0 : i32)
^bb4(%j: i32):
  %again = llvm.icmp "slt" %j, %steps : i32
  llvm.cond_br %again, ^bb5, ^bb6
^bb5:
  %x = llvm.load %base : !llvm.ptr<1> -> f32
  %j1 = llvm.add %j, %c1 : i32
  llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16; // a product", ""  : () -> ()
  llvm.br ^bb4(%j1 : i32)
^bb6:
  %last = llvm.getelementptr %in[%offset] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %y = llvm.load %last : !llvm.ptr<1> -> f32
  llvm.return
}

// Left as they are: a value the loop carries (a block argument), a value
// from constants alone (LLVM's), a computation longer than
// kMaxRematerializedOps (65 operations), and values not used past the loop.
// CHECK-LABEL: llvm.func @kept
// CHECK-NOT: rematerialized
// CHECK: llvm.return
llvm.func @kept(%out: !llvm.ptr<1>, %steps: i32) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c7 = llvm.mlir.constant(7 : i32) : i32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %constant = llvm.mul %c7, %c7 : i32
  %t1 = llvm.mul %tid, %c7 : i32
  %t2 = llvm.add %t1, %c7 : i32
  %t3 = llvm.mul %t2, %c7 : i32
  %t4 = llvm.add %t3, %c7 : i32
  %t5 = llvm.mul %t4, %c7 : i32
  %t6 = llvm.add %t5, %c7 : i32
  %t7 = llvm.mul %t6, %c7 : i32
  %t8 = llvm.add %t7, %c7 : i32
  %t9 = llvm.mul %t8, %c7 : i32
  %t10 = llvm.add %t9, %c7 : i32
  %t11 = llvm.mul %t10, %c7 : i32
  %t12 = llvm.add %t11, %c7 : i32
  %t13 = llvm.mul %t12, %c7 : i32
  %t14 = llvm.add %t13, %c7 : i32
  %t15 = llvm.mul %t14, %c7 : i32
  %t16 = llvm.add %t15, %c7 : i32
  %t17 = llvm.mul %t16, %c7 : i32
  %t18 = llvm.add %t17, %c7 : i32
  %t19 = llvm.mul %t18, %c7 : i32
  %t20 = llvm.add %t19, %c7 : i32
  %t21 = llvm.mul %t20, %c7 : i32
  %t22 = llvm.add %t21, %c7 : i32
  %t23 = llvm.mul %t22, %c7 : i32
  %t24 = llvm.add %t23, %c7 : i32
  %t25 = llvm.mul %t24, %c7 : i32
  %t26 = llvm.add %t25, %c7 : i32
  %t27 = llvm.mul %t26, %c7 : i32
  %t28 = llvm.add %t27, %c7 : i32
  %t29 = llvm.mul %t28, %c7 : i32
  %t30 = llvm.add %t29, %c7 : i32
  %t31 = llvm.mul %t30, %c7 : i32
  %t32 = llvm.add %t31, %c7 : i32
  %t33 = llvm.mul %t32, %c7 : i32
  %t34 = llvm.add %t33, %c7 : i32
  %t35 = llvm.mul %t34, %c7 : i32
  %t36 = llvm.add %t35, %c7 : i32
  %t37 = llvm.mul %t36, %c7 : i32
  %t38 = llvm.add %t37, %c7 : i32
  %t39 = llvm.mul %t38, %c7 : i32
  %t40 = llvm.add %t39, %c7 : i32
  %t41 = llvm.mul %t40, %c7 : i32
  %t42 = llvm.add %t41, %c7 : i32
  %t43 = llvm.mul %t42, %c7 : i32
  %t44 = llvm.add %t43, %c7 : i32
  %t45 = llvm.mul %t44, %c7 : i32
  %t46 = llvm.add %t45, %c7 : i32
  %t47 = llvm.mul %t46, %c7 : i32
  %t48 = llvm.add %t47, %c7 : i32
  %t49 = llvm.mul %t48, %c7 : i32
  %t50 = llvm.add %t49, %c7 : i32
  %t51 = llvm.mul %t50, %c7 : i32
  %t52 = llvm.add %t51, %c7 : i32
  %t53 = llvm.mul %t52, %c7 : i32
  %t54 = llvm.add %t53, %c7 : i32
  %t55 = llvm.mul %t54, %c7 : i32
  %t56 = llvm.add %t55, %c7 : i32
  %t57 = llvm.mul %t56, %c7 : i32
  %t58 = llvm.add %t57, %c7 : i32
  %t59 = llvm.mul %t58, %c7 : i32
  %t60 = llvm.add %t59, %c7 : i32
  %t61 = llvm.mul %t60, %c7 : i32
  %t62 = llvm.add %t61, %c7 : i32
  %t63 = llvm.mul %t62, %c7 : i32
  %t64 = llvm.add %t63, %c7 : i32
  %long = llvm.add %t64, %c7 : i32
  llvm.br ^bb1(%c0 : i32)
^bb1(%i: i32):
  %more = llvm.icmp "slt" %i, %steps : i32
  llvm.cond_br %more, ^bb2, ^bb3
^bb2:
  %i1 = llvm.add %i, %c1 : i32
  llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16; // a product", ""  : () -> ()
  llvm.br ^bb1(%i1 : i32)
^bb3:
  %sum = llvm.add %constant, %long : i32
  %total = llvm.add %sum, %i : i32
  %p = llvm.getelementptr %out[%total] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %total, %p : i32, !llvm.ptr<1>
  llvm.return
}

// A parameter passed in place (a tensor map: byval, grid-constant) is an
// address in parameter space, not the parameter's bytes: a value computed
// from it is not computed again (its parameter is not read by name).
// CHECK-LABEL: llvm.func @in_place
// CHECK-NOT: ld.param
// CHECK: llvm.return
llvm.func @in_place(%map: !llvm.ptr {llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %steps: i32) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %pid = nvvm.read.ptx.sreg.ctaid.x : i32
  %field = llvm.getelementptr %map[%pid] : (!llvm.ptr, i32) -> !llvm.ptr, i8
  llvm.br ^bb1(%c0 : i32)
^bb1(%i: i32):
  %more = llvm.icmp "slt" %i, %steps : i32
  llvm.cond_br %more, ^bb2, ^bb3
^bb2:
  %i1 = llvm.add %i, %c1 : i32
  llvm.inline_asm has_side_effects asm_dialect = att "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16; // a product", ""  : () -> ()
  llvm.br ^bb1(%i1 : i32)
^bb3:
  %x = llvm.load %field : !llvm.ptr -> i8
  llvm.return
}

// A loop without tensor-core products (a row walked in chunks) is not bound
// by registers: the row and mask its epilogue uses are left to LLVM and
// ptxas, whose copies would only cost instructions and registers.
// CHECK-LABEL: llvm.func @no_products
// CHECK-NOT: rematerialized
// CHECK: llvm.return
llvm.func @no_products(%out: !llvm.ptr<1>, %n: i32, %steps: i32) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c128 = llvm.mlir.constant(128 : i32) : i32
  %pid = nvvm.read.ptx.sreg.ctaid.x : i32
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %rows = llvm.mul %pid, %c128 : i32
  %row = llvm.add %rows, %tid : i32
  %mask = llvm.icmp "slt" %row, %n : i32
  %in = llvm.getelementptr %out[%row] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  %first = llvm.load %in : !llvm.ptr<1> -> i32
  llvm.br ^bb1(%c0, %first : i32, i32)
^bb1(%i: i32, %acc: i32):
  %more = llvm.icmp "slt" %i, %steps : i32
  llvm.cond_br %more, ^bb2, ^bb3
^bb2:
  %acc1 = llvm.mul %acc, %acc : i32
  %i1 = llvm.add %i, %c1 : i32
  llvm.br ^bb1(%i1, %acc1 : i32, i32)
^bb3:
  %p = llvm.getelementptr %out[%row] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.cond_br %mask, ^bb4, ^bb5
^bb4:
  llvm.store %acc, %p : i32, !llvm.ptr<1>
  llvm.br ^bb5
^bb5:
  llvm.return
}
