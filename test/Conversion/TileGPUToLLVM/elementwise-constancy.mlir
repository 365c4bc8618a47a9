// Elementwise ops are computed once per block of elements the axis
// analysis proves equal, also when the equal elements sit a repetition of
// the layout apart in a thread (here: rows 8 apart) and across the copies
// of a layout wider than its tensor.
// RUN: tilelang-opt %s --convert-scf-to-cf --convert-tilegpu-to-llvm --reconcile-unrealized-casts | FileCheck %s

// 64 rows over 8 rows of threads: each thread holds rows r, r + 8, ..., r + 56
// of the 64x1 mask, each 8 times (the layout's 8 columns wrap around the
// tensor's one).
#rows = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#colsOf = #tilegpu.slice<dim = 1, parent = #rows>
#rowsOf = #tilegpu.slice<dim = 0, parent = #rows>

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // With n a multiple of 16, `row < n` is one value per 16 rows: rows r and
  // r + 8 share it (r < 8), so 4 compares for the thread's 8 rows.
  // CHECK-LABEL: llvm.func @rows_of_sixteen
  // CHECK-COUNT-4: llvm.icmp "slt"
  // CHECK-NOT: llvm.icmp "slt"
  // CHECK: llvm.return
  func.func @rows_of_sixteen(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                             %n: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.make_range 0 to 64 : tensor<64xi32, #colsOf>
    %e = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #colsOf> -> tensor<64x1xi32, #rows>
    %s = tile.splat %n : i32 -> tensor<64x1xi32, #rows>
    %m = arith.cmpi slt, %e, %s : tensor<64x1xi32, #rows>
    %mb = tile.broadcast %m : tensor<64x1xi1, #rows> -> tensor<64x128xi1, #rows>
    %c = tile.make_range 0 to 128 : tensor<128xi32, #rowsOf>
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32, #rowsOf> -> tensor<1x128xi32, #rows>
    %cb = tile.broadcast %ce : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %c128 = arith.constant dense<128> : tensor<64x1xi32, #rows>
    %ro = arith.muli %e, %c128 : tensor<64x1xi32, #rows>
    %rb = tile.broadcast %ro : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %off = arith.addi %rb, %cb : tensor<64x128xi32, #rows>
    %pb = tile.splat %p : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %pp = tile.addptr %pb, %off : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %z = arith.constant dense<0.0> : tensor<64x128xf16, #rows>
    tile.store %pp, %z, %mb : tensor<64x128x!tile.ptr<f16>, #rows>
    return
  }

  // Without the divisibility each row has its own compare.
  // CHECK-LABEL: llvm.func @rows_unknown
  // CHECK-COUNT-8: llvm.icmp "slt"
  // CHECK-NOT: llvm.icmp "slt"
  // CHECK: llvm.return
  func.func @rows_unknown(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.make_range 0 to 64 : tensor<64xi32, #colsOf>
    %e = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #colsOf> -> tensor<64x1xi32, #rows>
    %s = tile.splat %n : i32 -> tensor<64x1xi32, #rows>
    %m = arith.cmpi slt, %e, %s : tensor<64x1xi32, #rows>
    %mb = tile.broadcast %m : tensor<64x1xi1, #rows> -> tensor<64x128xi1, #rows>
    %c = tile.make_range 0 to 128 : tensor<128xi32, #rowsOf>
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32, #rowsOf> -> tensor<1x128xi32, #rows>
    %cb = tile.broadcast %ce : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %c128 = arith.constant dense<128> : tensor<64x1xi32, #rows>
    %ro = arith.muli %e, %c128 : tensor<64x1xi32, #rows>
    %rb = tile.broadcast %ro : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %off = arith.addi %rb, %cb : tensor<64x128xi32, #rows>
    %pb = tile.splat %p : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %pp = tile.addptr %pb, %off : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %z = arith.constant dense<0.0> : tensor<64x128xf16, #rows>
    tile.store %pp, %z, %mb : tensor<64x128x!tile.ptr<f16>, #rows>
    return
  }
}
