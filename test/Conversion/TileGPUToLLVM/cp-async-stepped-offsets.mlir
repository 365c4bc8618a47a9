// cp.async with steppedOffsets (set by tilegpu-pipeline in loops bound by
// registers): an offset that is a uniform scale times a coordinate (rows *
// %stride, two rows a thread, 32 apart) is read at the thread's first
// vector only, and the second vector's address is the first's plus the
// scale times 32 rows of 2 bytes (mad.wide.s32 with the immediate 64),
// rather than each vector's own offset kept in a register. A copy before
// the loop, from the kernel argument, takes the same form.
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// CHECK-LABEL: llvm.func @stepped
// CHECK-SAME: (%[[BASE:[^:]*]]: !llvm.ptr<1>, %[[STRIDE:[^:]*]]: i32,
// CHECK: %[[COL0:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 2, $2;", "=l,r,l" %{{.*}}, %[[BASE]] : (i32, !llvm.ptr<1>) -> i64
// CHECK-NEXT: %[[FIRST0:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 2, $2;", "=l,r,l" %{{.*}}, %[[COL0]] : (i32, i64) -> i64
// CHECK-NEXT: %[[SECOND0:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 64, $2;", "=l,r,l" %[[STRIDE]], %[[FIRST0]] : (i32, i64) -> i64
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[FIRST0]], %{{.*}}
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[SECOND0]], %{{.*}}
// CHECK: ^bb{{[0-9]+}}(%{{.*}}: i32, %[[CARRIED:.*]]: !llvm.ptr<1>):
// CHECK: %[[COL:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 2, $2;", "=l,r,l" %{{.*}}, %[[CARRIED]] : (i32, !llvm.ptr<1>) -> i64
// CHECK-NEXT: %[[FIRST:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 2, $2;", "=l,r,l" %{{.*}}, %[[COL]] : (i32, i64) -> i64
// CHECK-NEXT: %[[SECOND:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 64, $2;", "=l,r,l" %[[STRIDE]], %[[FIRST]] : (i32, i64) -> i64
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[FIRST]], %{{.*}}
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[SECOND]], %{{.*}}
// CHECK-NOT: mad.wide
// CHECK: llvm.return

// In a loop, a vector steps from the previous one that stepped from the
// same address, by the difference of their steps (rows 0, 32, 64 and 96 a
// thread: 64 bytes times the stride each), not from the first vector by
// its own (64, 128, 192): ptxas hoists each scaled step out of the loop and
// holds it, two uniform registers a vector, where the chain needs one
// scale. Before the loop (no loop to hold anything through) the steps are
// the first vector's.
// CHECK-LABEL: llvm.func @chained
// CHECK-SAME: (%[[BASE:[^:]*]]: !llvm.ptr<1>, %[[STRIDE:[^:]*]]: i32,
// CHECK: %[[P0:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 2, $2;", "=l,r,l" %{{.*}}, %{{.*}} : (i32, i64) -> i64
// CHECK-NEXT: "mad.wide.s32 $0, $1, 64, $2;", "=l,r,l" %[[STRIDE]], %[[P0]]
// CHECK-NEXT: "mad.wide.s32 $0, $1, 128, $2;", "=l,r,l" %[[STRIDE]], %[[P0]]
// CHECK-NEXT: "mad.wide.s32 $0, $1, 192, $2;", "=l,r,l" %[[STRIDE]], %[[P0]]
// CHECK: ^bb{{[0-9]+}}:
// CHECK: %[[L0:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 2, $2;", "=l,r,l" %{{.*}}, %{{.*}} : (i32, i64) -> i64
// CHECK-NEXT: %[[L1:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 64, $2;", "=l,r,l" %[[STRIDE]], %[[L0]]
// CHECK-NEXT: %[[L2:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 64, $2;", "=l,r,l" %[[STRIDE]], %[[L1]]
// CHECK-NEXT: %[[L3:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 64, $2;", "=l,r,l" %[[STRIDE]], %[[L2]]
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[L0]], %{{.*}}
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[L1]], %{{.*}}
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[L2]], %{{.*}}
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[L3]], %{{.*}}
// CHECK: llvm.return

// A term whose range was broadcast along its own dimension (a one-element
// range, here rows of 0 * %stride for all 64 rows) is uniform along it:
// it is read per vector, not stepped by its coordinate (which would give
// the second vector, 32 rows on, 32 * %stride more).
// CHECK-LABEL: llvm.func @broadcast_range
// CHECK: "mad.wide.s32 $0, $1, 2, $2;"
// CHECK-NEXT: %[[ADDR:.*]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 2, $2;"
// CHECK-NOT: mad.wide
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[ADDR]], %{{.*}}
// CHECK: "cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r" %{{.*}}, %[[ADDR]], %{{.*}}
// CHECK: llvm.return
// The steps hold for every layout whose register coordinates are a
// thread's start plus a register's offset (LayoutMap builds every encoding
// so), not for blocked layouts alone: under an mma.sync accumulator layout
// (rows g and g + 8 of each 32-row tile a thread, the tile repeated 32 rows
// on; the columns' second repetition another term) the vectors step 0, 8,
// 32 and 40 rows (16, 64 and 80 bytes times the stride) from the two that
// read the row term.
// CHECK-LABEL: llvm.func @mma_rows
// CHECK-SAME: (%[[BASE:[^:]*]]: !llvm.ptr<1>, %[[STRIDE:[^:]*]]: i32
// CHECK: %[[V0:[0-9]+]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 2, $2;", "=l,r,l" %{{[0-9]+}}, %{{[0-9]+}} : (i32, i64) -> i64
// CHECK-NEXT: %[[V1:[0-9]+]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 16, $2;", "=l,r,l" %[[STRIDE]], %[[V0]]
// CHECK-NEXT: %[[V2:[0-9]+]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 2, $2;", "=l,r,l" %{{[0-9]+}}, %{{[0-9]+}} : (i32, i64) -> i64
// CHECK-NEXT: %[[V3:[0-9]+]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 16, $2;", "=l,r,l" %[[STRIDE]], %[[V2]]
// CHECK-NEXT: %[[V4:[0-9]+]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 64, $2;", "=l,r,l" %[[STRIDE]], %[[V0]]
// CHECK-NEXT: %[[V5:[0-9]+]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 80, $2;", "=l,r,l" %[[STRIDE]], %[[V0]]
// CHECK-NEXT: %[[V6:[0-9]+]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 64, $2;", "=l,r,l" %[[STRIDE]], %[[V2]]
// CHECK-NEXT: %[[V7:[0-9]+]] = llvm.inline_asm asm_dialect = att "mad.wide.s32 $0, $1, 80, $2;", "=l,r,l" %[[STRIDE]], %[[V2]]
// CHECK-NOT: mad.wide
// CHECK: "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r" %{{.*}}, %[[V0]], %{{.*}}
// CHECK: "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r" %{{.*}}, %[[V1]], %{{.*}}
// CHECK: "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r" %{{.*}}, %[[V2]], %{{.*}}
// CHECK: "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r" %{{.*}}, %[[V3]], %{{.*}}
// CHECK: "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r" %{{.*}}, %[[V4]], %{{.*}}
// CHECK: "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r" %{{.*}}, %[[V5]], %{{.*}}
// CHECK: "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r" %{{.*}}, %[[V6]], %{{.*}}
// CHECK: "cp.async.ca.shared.global [$0], [$1], 4, $2;", "r,l,r" %{{.*}}, %[[V7]], %{{.*}}
// CHECK: llvm.return
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#rows = #tilegpu.slice<dim = 1, parent = #blocked>
#cols = #tilegpu.slice<dim = 0, parent = #blocked>
#shared = #tilegpu.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#mma = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#mma_rows = #tilegpu.slice<dim = 1, parent = #mma>
#mma_cols = #tilegpu.slice<dim = 0, parent = #mma>
#pairs = #tilegpu.shared<vec = 2, perPhase = 1, maxPhase = 1, order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @stepped(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %st = tile.splat %stride : i32 -> tensor<64x1xi32, #blocked>
    %r = tile.make_range 0 to 64 : tensor<64xi32, #rows>
    %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #rows> -> tensor<64x1xi32, #blocked>
    %roff = arith.muli %r2, %st : tensor<64x1xi32, #blocked>
    %rb = tile.broadcast %roff : tensor<64x1xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %c = tile.make_range 0 to 32 : tensor<32xi32, #cols>
    %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #cols> -> tensor<1x32xi32, #blocked>
    %cb = tile.broadcast %c2 : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x32xf16, #shared, mutable>
    %stage0 = tilegpu.memdesc_index %buf[%c0] : !tilegpu.memdesc<2x64x32xf16, #shared, mutable> -> !tilegpu.memdesc<64x32xf16, #shared, mutable>
    %s0 = tile.splat %base : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>, #blocked>
    %p0r = tile.addptr %s0, %rb : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %p0 = tile.addptr %p0r, %cb : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %t0 = tilegpu.async_copy_global_to_local %p0, %stage0 {steppedOffsets} : tensor<64x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x32xf16, #shared, mutable>
    %g0 = tilegpu.async_commit_group %t0
    %first = tile.addptr %base, %c32 : !tile.ptr<f16>, i32
    %end = scf.for %i = %c0 to %n step %c1 iter_args(%p = %first) -> (!tile.ptr<f16>) : i32 {
      %stage = tilegpu.memdesc_index %buf[%c1] : !tilegpu.memdesc<2x64x32xf16, #shared, mutable> -> !tilegpu.memdesc<64x32xf16, #shared, mutable>
      %s = tile.splat %p : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>, #blocked>
      %withRows = tile.addptr %s, %rb : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
      %ptrs = tile.addptr %withRows, %cb : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
      %t = tilegpu.async_copy_global_to_local %ptrs, %stage {steppedOffsets} : tensor<64x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x32xf16, #shared, mutable>
      %g = tilegpu.async_commit_group %t
      %next = tile.addptr %p, %c32 : !tile.ptr<f16>, i32
      scf.yield %next : !tile.ptr<f16>
    }
    %done = tilegpu.async_wait {pending = 0 : i32}
    tilegpu.local_dealloc %buf : !tilegpu.memdesc<2x64x32xf16, #shared, mutable>
    return
  }
  func.func @chained(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %st = tile.splat %stride : i32 -> tensor<128x1xi32, #blocked>
    %r = tile.make_range 0 to 128 : tensor<128xi32, #rows>
    %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32, #rows> -> tensor<128x1xi32, #blocked>
    %roff = arith.muli %r2, %st : tensor<128x1xi32, #blocked>
    %rb = tile.broadcast %roff : tensor<128x1xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %c = tile.make_range 0 to 32 : tensor<32xi32, #cols>
    %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #cols> -> tensor<1x32xi32, #blocked>
    %cb = tile.broadcast %c2 : tensor<1x32xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x128x32xf16, #shared, mutable>
    %stage0 = tilegpu.memdesc_index %buf[%c0] : !tilegpu.memdesc<2x128x32xf16, #shared, mutable> -> !tilegpu.memdesc<128x32xf16, #shared, mutable>
    %s0 = tile.splat %base : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>, #blocked>
    %p0r = tile.addptr %s0, %rb : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
    %p0 = tile.addptr %p0r, %cb : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
    %t0 = tilegpu.async_copy_global_to_local %p0, %stage0 {steppedOffsets} : tensor<128x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<128x32xf16, #shared, mutable>
    %g0 = tilegpu.async_commit_group %t0
    %first = tile.addptr %base, %c32 : !tile.ptr<f16>, i32
    %end = scf.for %i = %c0 to %n step %c1 iter_args(%p = %first) -> (!tile.ptr<f16>) : i32 {
      %stage = tilegpu.memdesc_index %buf[%c1] : !tilegpu.memdesc<2x128x32xf16, #shared, mutable> -> !tilegpu.memdesc<128x32xf16, #shared, mutable>
      %s = tile.splat %p : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>, #blocked>
      %withRows = tile.addptr %s, %rb : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
      %ptrs = tile.addptr %withRows, %cb : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
      %t = tilegpu.async_copy_global_to_local %ptrs, %stage {steppedOffsets} : tensor<128x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<128x32xf16, #shared, mutable>
      %g = tilegpu.async_commit_group %t
      %next = tile.addptr %p, %c32 : !tile.ptr<f16>, i32
      scf.yield %next : !tile.ptr<f16>
    }
    %done = tilegpu.async_wait {pending = 0 : i32}
    tilegpu.local_dealloc %buf : !tilegpu.memdesc<2x128x32xf16, #shared, mutable>
    return
  }
  func.func @broadcast_range(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
    %c0 = arith.constant 0 : i32
    %st = tile.splat %stride : i32 -> tensor<1x1xi32, #blocked>
    %r = tile.make_range 0 to 1 : tensor<1xi32, #rows>
    %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<1xi32, #rows> -> tensor<1x1xi32, #blocked>
    %roff = arith.muli %r2, %st : tensor<1x1xi32, #blocked>
    %rb = tile.broadcast %roff : tensor<1x1xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %c = tile.make_range 0 to 32 : tensor<32xi32, #cols>
    %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #cols> -> tensor<1x32xi32, #blocked>
    %cb = tile.broadcast %c2 : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<1x64x32xf16, #shared, mutable>
    %stage = tilegpu.memdesc_index %buf[%c0] : !tilegpu.memdesc<1x64x32xf16, #shared, mutable> -> !tilegpu.memdesc<64x32xf16, #shared, mutable>
    %s = tile.splat %base : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>, #blocked>
    %withRows = tile.addptr %s, %rb : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %ptrs = tile.addptr %withRows, %cb : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %t = tilegpu.async_copy_global_to_local %ptrs, %stage {steppedOffsets} : tensor<64x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x32xf16, #shared, mutable>
    %g = tilegpu.async_commit_group %t
    %done = tilegpu.async_wait {pending = 0 : i32}
    tilegpu.local_dealloc %buf : !tilegpu.memdesc<1x64x32xf16, #shared, mutable>
    return
  }
  func.func @mma_rows(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
    %c0 = arith.constant 0 : i32
    %st = tile.splat %stride : i32 -> tensor<64x1xi32, #mma>
    %r = tile.make_range 0 to 64 : tensor<64xi32, #mma_rows>
    %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #mma_rows> -> tensor<64x1xi32, #mma>
    %roff = arith.muli %r2, %st : tensor<64x1xi32, #mma>
    %rb = tile.broadcast %roff : tensor<64x1xi32, #mma> -> tensor<64x32xi32, #mma>
    %c = tile.make_range 0 to 32 : tensor<32xi32, #mma_cols>
    %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #mma_cols> -> tensor<1x32xi32, #mma>
    %cb = tile.broadcast %c2 : tensor<1x32xi32, #mma> -> tensor<64x32xi32, #mma>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<1x64x32xf16, #pairs, mutable>
    %stage = tilegpu.memdesc_index %buf[%c0] : !tilegpu.memdesc<1x64x32xf16, #pairs, mutable> -> !tilegpu.memdesc<64x32xf16, #pairs, mutable>
    %s = tile.splat %base : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>, #mma>
    %withRows = tile.addptr %s, %rb : tensor<64x32x!tile.ptr<f16>, #mma>, tensor<64x32xi32, #mma>
    %ptrs = tile.addptr %withRows, %cb : tensor<64x32x!tile.ptr<f16>, #mma>, tensor<64x32xi32, #mma>
    %t = tilegpu.async_copy_global_to_local %ptrs, %stage {steppedOffsets} : tensor<64x32x!tile.ptr<f16>, #mma> -> !tilegpu.memdesc<64x32xf16, #pairs, mutable>
    %g = tilegpu.async_commit_group %t
    %done = tilegpu.async_wait {pending = 0 : i32}
    tilegpu.local_dealloc %buf : !tilegpu.memdesc<1x64x32xf16, #pairs, mutable>
    return
  }
}
