// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}

// An atomic histogram (relaxed integer adds, one per element, masked at
// the tail), a scalar float counter (one thread adds, everyone gets the
// old value through shared memory) and a running sum of the values.
// CHECK: .entry histogram
// CHECK: atom.relaxed.gpu.global.add.u32
// CHECK: atom.acq_rel.gpu.global.add.f32
// CHECK: st.shared.b32
func.func @histogram(%x: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %bins: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %n: i32, %counter: !tile.ptr<f32>, %cums: !tile.ptr<i32> {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x : i32
  %c256 = arith.constant 256 : i32
  %start = arith.muli %pid, %c256 : i32
  %r = tile.make_range 0 to 256 : tensor<256xi32>
  %s = tile.splat %start : i32 -> tensor<256xi32>
  %offs = arith.addi %s, %r : tensor<256xi32>
  %nv = tile.splat %n : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %offs, %nv : tensor<256xi32>
  %xb = tile.splat %x : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %xp = tile.addptr %xb, %offs : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  %v = tile.load %xp, %mask : tensor<256x!tile.ptr<i32>>
  %bb = tile.splat %bins : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %bp = tile.addptr %bb, %v : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  %one = arith.constant dense<1> : tensor<256xi32>
  %old = tile.atomic_rmw add, relaxed, gpu, %bp, %one, %mask : tensor<256x!tile.ptr<i32>>
  %f1 = arith.constant 1.0 : f32
  %prev = tile.atomic_rmw fadd, acq_rel, gpu, %counter, %f1 : !tile.ptr<f32>
  %cum = tile.scan %v axis = 0 : tensor<256xi32> {
  ^bb0(%a: i32, %b: i32):
    %t = arith.addi %a, %b : i32
    tile.scan.return %t : i32
  }
  %cb = tile.splat %cums : !tile.ptr<i32> -> tensor<256x!tile.ptr<i32>>
  %cp = tile.addptr %cb, %offs : tensor<256x!tile.ptr<i32>>, tensor<256xi32>
  tile.store %cp, %cum, %mask : tensor<256x!tile.ptr<i32>>
  return
}
