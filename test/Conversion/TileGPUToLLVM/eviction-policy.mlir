// Eviction policies on global accesses lower as Triton lowers them: the
// L1 priority (.L1::evict_first / .L1::evict_last) and an L2 cache policy
// made by createpolicy.fractional.L2::evict_* over the whole access,
// passed with .L2::cache_hint. Accesses with the normal policy carry
// neither.
// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: tilelang-compile %s --arch=sm_90a -o %t.sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90a.ptx -o /dev/null %}

// CHECK-LABEL: .entry hints
// The masked load of x, kept in L2:
// CHECK: createpolicy.fractional.L2::evict_last.b64 [[LAST:%rd[0-9]+]], 1.0;
// CHECK: @%p{{[0-9]+}} ld.global.L1::evict_last.L2::cache_hint.v4.b32 { %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}} }, [ %rd{{[0-9]+}} + 0 ], [[LAST]];
// The unmasked load of y (an always-true predicate), evicted first; its
// policy is the store's too (LLVM merges the two createpolicy):
// CHECK: createpolicy.fractional.L2::evict_first.b64 [[FIRST:%rd[0-9]+]], 1.0;
// CHECK: ld.global.L1::evict_first.L2::cache_hint.v4.b32 { %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}} }, [ %rd{{[0-9]+}} + 0 ], [[FIRST]];
// The load of z with the normal policy: no hint.
// CHECK: ld.global.v4.b32 { %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}} }, [ %rd{{[0-9]+}} + 0 ];
// The store, evicted first:
// CHECK: @%p{{[0-9]+}} st.global.L1::evict_first.L2::cache_hint.v4.b32 [ %rd{{[0-9]+}} + 0 ], { %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}} }, [[FIRST]];
// CHECK-NOT: cache_hint
// CHECK-NOT: createpolicy
// CHECK: ret;
func.func @hints(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                 %y: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                 %z: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                 %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                 %n: i32 {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x : i32
  %block = arith.constant 512 : i32
  %start = arith.muli %pid, %block : i32
  %range = tile.make_range 0 to 512 : tensor<512xi32>
  %start_v = tile.splat %start : i32 -> tensor<512xi32>
  %offsets = arith.addi %start_v, %range : tensor<512xi32>
  %n_v = tile.splat %n : i32 -> tensor<512xi32>
  %mask = arith.cmpi slt, %offsets, %n_v : tensor<512xi32>

  %x_base = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %x_ptrs = tile.addptr %x_base, %offsets : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %x_val = tile.load %x_ptrs, %mask evict = evict_last : tensor<512x!tile.ptr<f32>>
  %y_base = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %y_ptrs = tile.addptr %y_base, %offsets : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %y_val = tile.load %y_ptrs evict = evict_first : tensor<512x!tile.ptr<f32>>
  %z_base = tile.splat %z : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %z_ptrs = tile.addptr %z_base, %offsets : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %z_val = tile.load %z_ptrs, %mask : tensor<512x!tile.ptr<f32>>

  %xy = arith.addf %x_val, %y_val : tensor<512xf32>
  %sum = arith.addf %xy, %z_val : tensor<512xf32>
  %o_base = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %o_ptrs = tile.addptr %o_base, %offsets : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %o_ptrs, %sum, %mask evict = evict_first : tensor<512x!tile.ptr<f32>>
  return
}
