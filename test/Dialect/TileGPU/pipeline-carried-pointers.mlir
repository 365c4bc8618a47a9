// tilegpu-pipeline alone on loops whose copies read through a loop-carried
// pointer tensor (CarriedPointers.cpp): a tensor advanced by a uniform step
// (a splat of a loop-invariant scalar, or a constant splat, even one the body
// computes) whose initial value is a splat of one scalar pointer plus up to
// two i32 offset tensors (kMaxRebasedTerms; an offset that is a splat moves
// the base) is carried as that scalar pointer, and every copy's pointers are
// rebuilt from it: splat(base) + offsets. A step that differs between
// elements, or i64 offsets, keep the carried tensor.
// RUN: tilelang-opt %s --tilegpu-pipeline=num-stages=3 | FileCheck %s

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#shared = #tilegpu.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#shared1 = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#slice = #tilegpu.slice<dim = 1, parent = #blocked>
#slice1 = #tilegpu.slice<dim = 0, parent = #blocked1>
#slice4 = #tilegpu.slice<dim = 1, parent = #blocked1>
#slice5 = #tilegpu.slice<dim = 0, parent = #blocked>

// A moves by a constant splat, B by a splat of a scalar the body computes
// from loop invariants: both are carried as scalar pointers (the ahead
// copies' too), the scalar step hoisted before the loop; the copies in the
// loop read splat(base) + the offsets built before the loop. B's pointers
// after the loop are rebuilt from the loop's final base.
// CHECK-LABEL: func.func @rebased
// CHECK-SAME: (%[[A:[^:]*]]: !tile.ptr<f16>{{.*}}, %[[B:[^:]*]]: !tile.ptr<f16>
// CHECK: %[[AOFF:.*]] = arith.addi %{{.*}} : tensor<128x32xi32, #blocked>
// CHECK: %[[BOFF:.*]] = arith.addi %{{.*}} : tensor<32x128xi32, #blocked1>
// CHECK: %[[ASTEP:.*]] = arith.constant 32 : i32
// CHECK-NEXT: %[[BSTEP:.*]] = arith.muli %{{.*}}, %c32_i32 : i32
// CHECK: scf.for {{.*}} iter_args({{.*}}, %{{[^ ]*}} = %[[A]], %{{[^ ]*}} = %[[B]], %[[AA:[^ ]*]] = %{{[^,]*}}, %[[BA:[^ ]*]] = %{{[^,]*}}, {{.*}}) -> (tensor<128x128xf32, #mma>, !tile.ptr<f16>, !tile.ptr<f16>, !tile.ptr<f16>, !tile.ptr<f16>, i32, i32)
// CHECK: tilegpu.warp_group_dot
// CHECK-DAG: %[[BS:.*]] = tile.splat %[[BA]] : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>, #blocked1>
// CHECK-DAG: %[[BP:.*]] = tile.addptr %[[BS]], %[[BOFF]]
// CHECK-DAG: %[[AS:.*]] = tile.splat %[[AA]] : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>, #blocked>
// CHECK-DAG: %[[AP:.*]] = tile.addptr %[[AS]], %[[AOFF]]
// CHECK-DAG: %[[ANEXT:.*]] = tile.addptr %[[AA]], %[[ASTEP]] : !tile.ptr<f16>, i32
// CHECK-DAG: %[[BNEXT:.*]] = tile.addptr %[[BA]], %[[BSTEP]] : !tile.ptr<f16>, i32
// CHECK: tilegpu.async_copy_global_to_local %[[AP]]
// CHECK: tilegpu.async_copy_global_to_local %[[BP]]
// CHECK: scf.yield {{.*}}, %[[ANEXT]], %[[BNEXT]], %{{.*}}, %{{.*}} :
// CHECK: %[[BEND:.*]] = tile.splat %{{.*}}#2 : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>, #blocked1>
// CHECK-NEXT: %[[BENDP:.*]] = tile.addptr %[[BEND]], %[[BOFF]]
// CHECK: tile.store %[[BENDP]]
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @rebased(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<32> : tensor<128x32xi32, #blocked>
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %c32_i32 = arith.constant 32 : i32
    %4 = tile.make_range 0 to 128 : tensor<128xi32, #slice>
    %5 = tile.make_range 0 to 128 : tensor<128xi32, #slice1>
    %8 = tile.make_range 0 to 32 : tensor<32xi32, #slice4>
    %9 = tile.make_range 0 to 32 : tensor<32xi32, #slice5>
    %21 = tile.expand_dims %4 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %22 = tile.splat %arg5 : i32 -> tensor<128x1xi32, #blocked>
    %23 = arith.muli %21, %22 : tensor<128x1xi32, #blocked>
    %24 = tile.broadcast %23 : tensor<128x1xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %25 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice5> -> tensor<1x32xi32, #blocked>
    %26 = tile.broadcast %25 : tensor<1x32xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %27 = arith.addi %24, %26 : tensor<128x32xi32, #blocked>
    %28 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>, #blocked>
    %29 = tile.addptr %28, %27 : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
    %30 = tile.expand_dims %8 {axis = 1 : i32} : tensor<32xi32, #slice4> -> tensor<32x1xi32, #blocked1>
    %31 = tile.splat %arg4 : i32 -> tensor<32x1xi32, #blocked1>
    %32 = arith.muli %30, %31 : tensor<32x1xi32, #blocked1>
    %33 = tile.broadcast %32 : tensor<32x1xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %35 = tile.expand_dims %5 {axis = 0 : i32} : tensor<128xi32, #slice1> -> tensor<1x128xi32, #blocked1>
    %36 = tile.broadcast %35 : tensor<1x128xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %37 = arith.addi %33, %36 : tensor<32x128xi32, #blocked1>
    %38 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>, #blocked1>
    %39 = tile.addptr %38, %37 : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
    %42:3 = scf.for %arg6 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg7 = %cst_0, %arg8 = %29, %arg9 = %39) -> (tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>)  : i32 {
      %51 = tile.load %arg8 : tensor<128x32x!tile.ptr<f16>, #blocked>
      %52 = tile.load %arg9 : tensor<32x128x!tile.ptr<f16>, #blocked1>
      %53 = tilegpu.local_alloc %51 : (tensor<128x32xf16, #blocked>) -> !tilegpu.memdesc<128x32xf16, #shared>
      %54 = tilegpu.local_alloc %52 : (tensor<32x128xf16, #blocked1>) -> !tilegpu.memdesc<32x128xf16, #shared1>
      %55 = tilegpu.warp_group_dot %53, %54, %arg7 : !tilegpu.memdesc<128x32xf16, #shared> * !tilegpu.memdesc<32x128xf16, #shared1> -> tensor<128x128xf32, #mma>
      %56 = tile.addptr %arg8, %cst : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
      %40 = arith.muli %arg4, %c32_i32 : i32
      %41 = tile.splat %40 : i32 -> tensor<32x128xi32, #blocked1>
      %57 = tile.addptr %arg9, %41 : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
      scf.yield %55, %56, %57 : tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>
    }
    %h = arith.truncf %42#0 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    %x = tile.load %42#2 : tensor<32x128x!tile.ptr<f16>, #blocked1>
    tile.store %42#2, %x : tensor<32x128x!tile.ptr<f16>, #blocked1>
    return
  }

// A loop the pass does not pipeline (B's pointers come out of an scf.if in
// the body, which the copies issued ahead cannot recompute) is left as it
// was: its pointer tensors stay carried, though A's alone could be
// rebased. The pass decides before it rewrites anything (the rebase is the
// first step of the rewrite).
// CHECK-LABEL: func.func @not_pipelined
// CHECK-NOT: tilegpu.async_copy_global_to_local
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>)
// CHECK-NOT: tilegpu.async_copy_global_to_local
// CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
// CHECK: return
  func.func @not_pipelined(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i1, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<32> : tensor<128x32xi32, #blocked>
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %c32_i32 = arith.constant 32 : i32
    %4 = tile.make_range 0 to 128 : tensor<128xi32, #slice>
    %5 = tile.make_range 0 to 128 : tensor<128xi32, #slice1>
    %8 = tile.make_range 0 to 32 : tensor<32xi32, #slice4>
    %9 = tile.make_range 0 to 32 : tensor<32xi32, #slice5>
    %21 = tile.expand_dims %4 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %22 = tile.splat %arg5 : i32 -> tensor<128x1xi32, #blocked>
    %23 = arith.muli %21, %22 : tensor<128x1xi32, #blocked>
    %24 = tile.broadcast %23 : tensor<128x1xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %25 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice5> -> tensor<1x32xi32, #blocked>
    %26 = tile.broadcast %25 : tensor<1x32xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %27 = arith.addi %24, %26 : tensor<128x32xi32, #blocked>
    %28 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>, #blocked>
    %29 = tile.addptr %28, %27 : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
    %30 = tile.expand_dims %8 {axis = 1 : i32} : tensor<32xi32, #slice4> -> tensor<32x1xi32, #blocked1>
    %31 = tile.splat %arg4 : i32 -> tensor<32x1xi32, #blocked1>
    %32 = arith.muli %30, %31 : tensor<32x1xi32, #blocked1>
    %33 = tile.broadcast %32 : tensor<32x1xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %35 = tile.expand_dims %5 {axis = 0 : i32} : tensor<128xi32, #slice1> -> tensor<1x128xi32, #blocked1>
    %36 = tile.broadcast %35 : tensor<1x128xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %37 = arith.addi %33, %36 : tensor<32x128xi32, #blocked1>
    %38 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>, #blocked1>
    %39 = tile.addptr %38, %37 : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
    %42:3 = scf.for %arg6 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg7 = %cst_0, %arg8 = %29, %arg9 = %39) -> (tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>)  : i32 {
      %51 = tile.load %arg8 : tensor<128x32x!tile.ptr<f16>, #blocked>
      %bp = scf.if %arg3 -> (tensor<32x128x!tile.ptr<f16>, #blocked1>) {
        scf.yield %arg9 : tensor<32x128x!tile.ptr<f16>, #blocked1>
      } else {
        %bstep = tile.splat %arg4 : i32 -> tensor<32x128xi32, #blocked1>
        %bq = tile.addptr %arg9, %bstep : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
        scf.yield %bq : tensor<32x128x!tile.ptr<f16>, #blocked1>
      }
      %52 = tile.load %bp : tensor<32x128x!tile.ptr<f16>, #blocked1>
      %53 = tilegpu.local_alloc %51 : (tensor<128x32xf16, #blocked>) -> !tilegpu.memdesc<128x32xf16, #shared>
      %54 = tilegpu.local_alloc %52 : (tensor<32x128xf16, #blocked1>) -> !tilegpu.memdesc<32x128xf16, #shared1>
      %55 = tilegpu.warp_group_dot %53, %54, %arg7 : !tilegpu.memdesc<128x32xf16, #shared> * !tilegpu.memdesc<32x128xf16, #shared1> -> tensor<128x128xf32, #mma>
      %56 = tile.addptr %arg8, %cst : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
      %40 = arith.muli %arg4, %c32_i32 : i32
      %41 = tile.splat %40 : i32 -> tensor<32x128xi32, #blocked1>
      %57 = tile.addptr %arg9, %41 : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
      scf.yield %55, %56, %57 : tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>
    }
    %h = arith.truncf %42#0 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    return
  }

// A step that differs between elements (B moves each row by its own
// row offset) keeps B's pointer tensor carried; A is still rebased.
// CHECK-LABEL: func.func @non_uniform_step
// CHECK-COUNT-4: tilegpu.async_copy_global_to_local
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #mma>, !tile.ptr<f16>, tensor<32x128x!tile.ptr<f16>, #blocked1>, !tile.ptr<f16>, tensor<32x128x!tile.ptr<f16>, #blocked1>, i32, i32)
  func.func @non_uniform_step(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<32> : tensor<128x32xi32, #blocked>
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %c32_i32 = arith.constant 32 : i32
    %4 = tile.make_range 0 to 128 : tensor<128xi32, #slice>
    %5 = tile.make_range 0 to 128 : tensor<128xi32, #slice1>
    %8 = tile.make_range 0 to 32 : tensor<32xi32, #slice4>
    %9 = tile.make_range 0 to 32 : tensor<32xi32, #slice5>
    %21 = tile.expand_dims %4 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %22 = tile.splat %arg5 : i32 -> tensor<128x1xi32, #blocked>
    %23 = arith.muli %21, %22 : tensor<128x1xi32, #blocked>
    %24 = tile.broadcast %23 : tensor<128x1xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %25 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice5> -> tensor<1x32xi32, #blocked>
    %26 = tile.broadcast %25 : tensor<1x32xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %27 = arith.addi %24, %26 : tensor<128x32xi32, #blocked>
    %28 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>, #blocked>
    %29 = tile.addptr %28, %27 : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
    %30 = tile.expand_dims %8 {axis = 1 : i32} : tensor<32xi32, #slice4> -> tensor<32x1xi32, #blocked1>
    %31 = tile.splat %arg4 : i32 -> tensor<32x1xi32, #blocked1>
    %32 = arith.muli %30, %31 : tensor<32x1xi32, #blocked1>
    %33 = tile.broadcast %32 : tensor<32x1xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %35 = tile.expand_dims %5 {axis = 0 : i32} : tensor<128xi32, #slice1> -> tensor<1x128xi32, #blocked1>
    %36 = tile.broadcast %35 : tensor<1x128xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %37 = arith.addi %33, %36 : tensor<32x128xi32, #blocked1>
    %38 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>, #blocked1>
    %39 = tile.addptr %38, %37 : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
    %42:3 = scf.for %arg6 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg7 = %cst_0, %arg8 = %29, %arg9 = %39) -> (tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>)  : i32 {
      %51 = tile.load %arg8 : tensor<128x32x!tile.ptr<f16>, #blocked>
      %52 = tile.load %arg9 : tensor<32x128x!tile.ptr<f16>, #blocked1>
      %53 = tilegpu.local_alloc %51 : (tensor<128x32xf16, #blocked>) -> !tilegpu.memdesc<128x32xf16, #shared>
      %54 = tilegpu.local_alloc %52 : (tensor<32x128xf16, #blocked1>) -> !tilegpu.memdesc<32x128xf16, #shared1>
      %55 = tilegpu.warp_group_dot %53, %54, %arg7 : !tilegpu.memdesc<128x32xf16, #shared> * !tilegpu.memdesc<32x128xf16, #shared1> -> tensor<128x128xf32, #mma>
      %56 = tile.addptr %arg8, %cst : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
      %57 = tile.addptr %arg9, %33 : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
      scf.yield %55, %56, %57 : tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>
    }
    %h = arith.truncf %42#0 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    return
  }

// i64 offsets (B's start) keep B's pointer tensor carried: the rebuilt
// sum would hold 64 bits per element as well; A is still rebased.
// CHECK-LABEL: func.func @i64_offsets
// CHECK-COUNT-4: tilegpu.async_copy_global_to_local
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #mma>, !tile.ptr<f16>, tensor<32x128x!tile.ptr<f16>, #blocked1>, !tile.ptr<f16>, tensor<32x128x!tile.ptr<f16>, #blocked1>, i32, i32)
  func.func @i64_offsets(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<32> : tensor<128x32xi32, #blocked>
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %c32_i32 = arith.constant 32 : i32
    %4 = tile.make_range 0 to 128 : tensor<128xi32, #slice>
    %5 = tile.make_range 0 to 128 : tensor<128xi32, #slice1>
    %8 = tile.make_range 0 to 32 : tensor<32xi32, #slice4>
    %9 = tile.make_range 0 to 32 : tensor<32xi32, #slice5>
    %21 = tile.expand_dims %4 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %22 = tile.splat %arg5 : i32 -> tensor<128x1xi32, #blocked>
    %23 = arith.muli %21, %22 : tensor<128x1xi32, #blocked>
    %24 = tile.broadcast %23 : tensor<128x1xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %25 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice5> -> tensor<1x32xi32, #blocked>
    %26 = tile.broadcast %25 : tensor<1x32xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %27 = arith.addi %24, %26 : tensor<128x32xi32, #blocked>
    %28 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>, #blocked>
    %29 = tile.addptr %28, %27 : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
    %30 = tile.expand_dims %8 {axis = 1 : i32} : tensor<32xi32, #slice4> -> tensor<32x1xi32, #blocked1>
    %31 = tile.splat %arg4 : i32 -> tensor<32x1xi32, #blocked1>
    %32 = arith.muli %30, %31 : tensor<32x1xi32, #blocked1>
    %33 = tile.broadcast %32 : tensor<32x1xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %35 = tile.expand_dims %5 {axis = 0 : i32} : tensor<128xi32, #slice1> -> tensor<1x128xi32, #blocked1>
    %36 = tile.broadcast %35 : tensor<1x128xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %37 = arith.addi %33, %36 : tensor<32x128xi32, #blocked1>
    %38 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>, #blocked1>
    %wide = arith.extsi %37 : tensor<32x128xi32, #blocked1> to tensor<32x128xi64, #blocked1>
    %39 = tile.addptr %38, %wide : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi64, #blocked1>
    %40 = arith.muli %arg4, %c32_i32 : i32
    %41 = tile.splat %40 : i32 -> tensor<32x128xi32, #blocked1>
    %42:3 = scf.for %arg6 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg7 = %cst_0, %arg8 = %29, %arg9 = %39) -> (tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>)  : i32 {
      %51 = tile.load %arg8 : tensor<128x32x!tile.ptr<f16>, #blocked>
      %52 = tile.load %arg9 : tensor<32x128x!tile.ptr<f16>, #blocked1>
      %53 = tilegpu.local_alloc %51 : (tensor<128x32xf16, #blocked>) -> !tilegpu.memdesc<128x32xf16, #shared>
      %54 = tilegpu.local_alloc %52 : (tensor<32x128xf16, #blocked1>) -> !tilegpu.memdesc<32x128xf16, #shared1>
      %55 = tilegpu.warp_group_dot %53, %54, %arg7 : !tilegpu.memdesc<128x32xf16, #shared> * !tilegpu.memdesc<32x128xf16, #shared1> -> tensor<128x128xf32, #mma>
      %56 = tile.addptr %arg8, %cst : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
      %57 = tile.addptr %arg9, %41 : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
      scf.yield %55, %56, %57 : tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>
    }
    %h = arith.truncf %42#0 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    return
  }

// Pointers that start from two offset terms (rows, then columns, added to
// the pointers one after the other, as flash attention's K and V) are
// rebased too: the row term broadcast along the columns before the loop,
// and the copies read splat(base) + rows + columns; an offset that is a
// splat (the causal loop's `k_ptrs += lo * stride_kn`) moves the base.
// CHECK-LABEL: func.func @two_terms
// CHECK: %[[ROWS:.*]] = tile.broadcast %{{.*}} : tensor<128x1xi32, #blocked> -> tensor<128x32xi32, #blocked>
// CHECK: %[[LO:.*]] = tile.addptr %arg0, %arg2 : !tile.ptr<f16>, i32
// CHECK: scf.for {{.*}} iter_args(%{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %[[LO]], {{.*}} -> (tensor<128x128xf32, #mma>, !tile.ptr<f16>, !tile.ptr<f16>, !tile.ptr<f16>, !tile.ptr<f16>, i32, i32)
// CHECK: tilegpu.warp_group_dot
// CHECK: %[[S:.*]] = tile.splat %{{.*}} : !tile.ptr<f16> -> tensor<128x32x!tile.ptr<f16>, #blocked>
// CHECK-NEXT: %[[R:.*]] = tile.addptr %[[S]], %[[ROWS]]
// CHECK-NEXT: %[[P:.*]] = tile.addptr %[[R]], %{{.*}}
// CHECK: tilegpu.async_copy_global_to_local %[[P]]
  func.func @two_terms(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<32> : tensor<128x32xi32, #blocked>
    %c0_i32 = arith.constant 0 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %c32_i32 = arith.constant 32 : i32
    %4 = tile.make_range 0 to 128 : tensor<128xi32, #slice>
    %5 = tile.make_range 0 to 128 : tensor<128xi32, #slice1>
    %8 = tile.make_range 0 to 32 : tensor<32xi32, #slice4>
    %9 = tile.make_range 0 to 32 : tensor<32xi32, #slice5>
    %21 = tile.expand_dims %4 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked>
    %22 = tile.splat %arg5 : i32 -> tensor<128x1xi32, #blocked>
    %23 = arith.muli %21, %22 : tensor<128x1xi32, #blocked>
    %a0 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<128x1x!tile.ptr<f16>, #blocked>
    %a1 = tile.addptr %a0, %23 : tensor<128x1x!tile.ptr<f16>, #blocked>, tensor<128x1xi32, #blocked>
    %a2 = tile.broadcast %a1 : tensor<128x1x!tile.ptr<f16>, #blocked> -> tensor<128x32x!tile.ptr<f16>, #blocked>
    %25 = tile.expand_dims %9 {axis = 0 : i32} : tensor<32xi32, #slice5> -> tensor<1x32xi32, #blocked>
    %26 = tile.broadcast %25 : tensor<1x32xi32, #blocked> -> tensor<128x32xi32, #blocked>
    %cols = tile.addptr %a2, %26 : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
    %lo = tile.splat %arg4 : i32 -> tensor<128x32xi32, #blocked>
    %29 = tile.addptr %cols, %lo : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
    %30 = tile.expand_dims %8 {axis = 1 : i32} : tensor<32xi32, #slice4> -> tensor<32x1xi32, #blocked1>
    %31 = tile.splat %arg4 : i32 -> tensor<32x1xi32, #blocked1>
    %32 = arith.muli %30, %31 : tensor<32x1xi32, #blocked1>
    %33 = tile.broadcast %32 : tensor<32x1xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %35 = tile.expand_dims %5 {axis = 0 : i32} : tensor<128xi32, #slice1> -> tensor<1x128xi32, #blocked1>
    %36 = tile.broadcast %35 : tensor<1x128xi32, #blocked1> -> tensor<32x128xi32, #blocked1>
    %37 = arith.addi %33, %36 : tensor<32x128xi32, #blocked1>
    %38 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<32x128x!tile.ptr<f16>, #blocked1>
    %39 = tile.addptr %38, %37 : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
    %40 = arith.muli %arg4, %c32_i32 : i32
    %41 = tile.splat %40 : i32 -> tensor<32x128xi32, #blocked1>
    %42:3 = scf.for %arg6 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg7 = %cst_0, %arg8 = %29, %arg9 = %39) -> (tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>)  : i32 {
      %51 = tile.load %arg8 : tensor<128x32x!tile.ptr<f16>, #blocked>
      %52 = tile.load %arg9 : tensor<32x128x!tile.ptr<f16>, #blocked1>
      %53 = tilegpu.local_alloc %51 : (tensor<128x32xf16, #blocked>) -> !tilegpu.memdesc<128x32xf16, #shared>
      %54 = tilegpu.local_alloc %52 : (tensor<32x128xf16, #blocked1>) -> !tilegpu.memdesc<32x128xf16, #shared1>
      %55 = tilegpu.warp_group_dot %53, %54, %arg7 : !tilegpu.memdesc<128x32xf16, #shared> * !tilegpu.memdesc<32x128xf16, #shared1> -> tensor<128x128xf32, #mma>
      %56 = tile.addptr %arg8, %cst : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi32, #blocked>
      %57 = tile.addptr %arg9, %41 : tensor<32x128x!tile.ptr<f16>, #blocked1>, tensor<32x128xi32, #blocked1>
      scf.yield %55, %56, %57 : tensor<128x128xf32, #mma>, tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<32x128x!tile.ptr<f16>, #blocked1>
    }
    %h = arith.truncf %42#0 : tensor<128x128xf32, #mma> to tensor<128x128xf16, #mma>
    return
  }
}
