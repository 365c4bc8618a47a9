// RUN: tilelang-compile %s --arch=sm_90a | FileCheck %s
// RUN: tilelang-compile %s --arch=sm_80 -o %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o /dev/null %}
// RUN: tilelang-compile %s --arch=sm_90a -o %t.sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90a.ptx -o /dev/null %}

// Reductions over a 64x64 f32 tile (row-major, M rows of which this program
// takes 64): row sums (axis 1), column maxima (axis 0) and the argmax of
// each row (a two-operand reduce). Results have slice layouts; expand_dims
// and broadcast bring the row sums back to normalize the tile.
// CHECK: .entry reductions
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0
func.func @reductions(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %row_sum: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %col_max: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                      %row_argmax: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                      %normalized: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %pid = tile.program_id x : i32
  %c64 = arith.constant 64 : i32
  %row0 = arith.muli %pid, %c64 : i32
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %row0_v = tile.splat %row0 : i32 -> tensor<64xi32>
  %rows = arith.addi %row0_v, %r : tensor<64xi32>
  %rows_2d = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64_col = arith.constant dense<64> : tensor<64x1xi32>
  %row_off = arith.muli %rows_2d, %c64_col : tensor<64x1xi32>
  %row_off_b = tile.broadcast %row_off : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols_2d = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cols_b = tile.broadcast %cols_2d : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %row_off_b, %cols_b : tensor<64x64xi32>
  %x_base = tile.splat %x : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %x_ptrs = tile.addptr %x_base, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %x_ptrs : tensor<64x64x!tile.ptr<f32>>

  %sums = tile.reduce %v axis = 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }
  %maxes = tile.reduce %v axis = 0 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maxnumf %a, %b : f32
    tile.reduce.return %m : f32
  }
  %best:2 = tile.reduce %v, %cols_b axis = 1 : tensor<64x64xf32>, tensor<64x64xi32> -> tensor<64xf32>, tensor<64xi32> {
  ^bb0(%av: f32, %ai: i32, %bv: f32, %bi: i32):
    %gt = arith.cmpf ogt, %bv, %av : f32
    %eq = arith.cmpf oeq, %bv, %av : f32
    %lower = arith.cmpi slt, %bi, %ai : i32
    %tie = arith.andi %eq, %lower : i1
    %take = arith.ori %gt, %tie : i1
    %mv = arith.select %take, %bv, %av : f32
    %mi = arith.select %take, %bi, %ai : i32
    tile.reduce.return %mv, %mi : f32, i32
  }

  %sum_base = tile.splat %row_sum : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %sum_ptrs = tile.addptr %sum_base, %rows : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %sum_ptrs, %sums : tensor<64x!tile.ptr<f32>>
  %arg_base = tile.splat %row_argmax : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %arg_ptrs = tile.addptr %arg_base, %rows : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  tile.store %arg_ptrs, %best#1 : tensor<64x!tile.ptr<i32>>
  %pid_v = tile.splat %pid : i32 -> tensor<64xi32>
  %c64v = arith.constant dense<64> : tensor<64xi32>
  %col_slot = arith.muli %pid_v, %c64v : tensor<64xi32>
  %col_idx = arith.addi %col_slot, %r : tensor<64xi32>
  %max_base = tile.splat %col_max : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %max_ptrs = tile.addptr %max_base, %col_idx : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %max_ptrs, %maxes : tensor<64x!tile.ptr<f32>>

  %sums_2d = tile.expand_dims %sums {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %sums_b = tile.broadcast %sums_2d : tensor<64x1xf32> -> tensor<64x64xf32>
  %norm = arith.divf %v, %sums_b : tensor<64x64xf32>
  %n_base = tile.splat %normalized : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %n_ptrs = tile.addptr %n_base, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %n_ptrs, %norm : tensor<64x64x!tile.ptr<f32>>
  return
}
