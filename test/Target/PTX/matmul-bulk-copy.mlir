// RUN: tilelang-compile %s --arch=sm_90a --num-warps=4 --num-stages=3 -o %t.sm90a.ptx
// RUN: FileCheck %s < %t.sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90a.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS --allow-empty %}
// RUN: tilelang-compile %s --arch=sm_90a --num-warps=4 --num-stages=3 --report -o /dev/null 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: tilelang-compile %s --arch=sm_80 --num-warps=4 --num-stages=3 | FileCheck %s --check-prefix=SM80

// A matmul whose operands come through tensor descriptors (the IR of
// test/Dialect/TileGPU/pipeline-bulk.mlir), on sm_90a with 3 stages: the
// tensor maps are 128-byte parameters aligned to 64, read in place through
// their generic address; thread 0 initializes one mbarrier per stage and
// arms each stage for 24 KiB before its bulk copies (A's 64x64 tile in one
// box, B's 64x128 tile in two); every thread waits on the stage's barrier
// with a try_wait loop; the barriers are invalidated at the end.
// CHECK: .param .align 64 .b8 matmul_param_0[128]
// CHECK: .param .align 64 .b8 matmul_param_5[128]
// CHECK-DAG: cvta.param.u64
// CHECK-COUNT-3: mbarrier.init.shared::cta.b64 [%r{{[0-9]+}}], 1;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: bar.sync 0;
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r{{[0-9]+}}], 24576;
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%r{{[0-9]+}}];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 complete, [%r{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: wgmma.mma_async
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.inval.shared::cta.b64
// CHECK-NOT: cp.async.cg
// CHECK-NOT: cp.async.wait_group

// ptxas keeps the wgmma asynchronous (no performance warning).
// PTXAS-NOT: Performance

// 3 stages of 8 + 16 KiB, and 24 bytes for the barriers.
// SHARED: 73752 bytes of shared memory

// Without the bulk copy engine (sm_80): masked pointer loads, copied by
// cp.async, and no barriers.
// SM80-NOT: mbarrier
// SM80: cp.async.cg.shared.global
// SM80: mma.sync
// SM80-NOT: cp.async.bulk
func.func @matmul(%amap: !tile.tensormap, %a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %m: i32,
                  %k: i32 {tile.divisibility = 16 : i32}, %sa: i64 {tile.divisibility = 8 : i32},
                  %bmap: !tile.tensormap, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %kb: i32,
                  %n: i32 {tile.divisibility = 16 : i32}, %sb: i64 {tile.divisibility = 8 : i32},
                  %c: !tile.ptr<f32>, %steps: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %one = arith.constant 1 : i64
  %da = tile.make_tensor_descriptor %a, [%m, %k], [%sa, %one] map %amap : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  %db = tile.make_tensor_descriptor %b, [%kb, %n], [%sb, %one] map %bmap : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x128xf16>>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%acc0 = %zero) -> (tensor<64x128xf32>) : i32 {
    %kk = arith.muli %i, %c64 : i32
    %ta = tile.descriptor_load %da[%c0, %kk] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    %tb = tile.descriptor_load %db[%kk, %c0] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
    %next = tile.dot %ta, %tb, %acc0 : tensor<64x64xf16> * tensor<64x128xf16> -> tensor<64x128xf32>
    scf.yield %next : tensor<64x128xf32>
  }
  %rows = tile.make_range 0 to 64 : tensor<64xi32>
  %cols = tile.make_range 0 to 128 : tensor<128xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<64x1xi32>
  %rowoff = arith.muli %r2, %c128 : tensor<64x1xi32>
  %rb = tile.broadcast %rowoff : tensor<64x1xi32> -> tensor<64x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %off = arith.addi %rb, %cb : tensor<64x128xi32>
  %base = tile.splat %c : !tile.ptr<f32> -> tensor<64x128x!tile.ptr<f32>>
  %ptrs = tile.addptr %base, %off : tensor<64x128x!tile.ptr<f32>>, tensor<64x128xi32>
  tile.store %ptrs, %acc : tensor<64x128x!tile.ptr<f32>>
  return
}
