// tile-l2-reuse-hints: loads whose addresses a later loop of the same
// program reads again get evict_last, the last such re-read evict_first, and
// the write-only output stored in that last loop evict_first; nothing where
// the re-read is not proved (one loop, other ranges, a store between, data
// every program reads, branches, loop-carried pointers) or where the user
// chose a hint.
// RUN: tilelang-opt %s -tile-l2-reuse-hints -split-input-file | FileCheck %s
// The named pipeline runs the pass by default (its l2-reuse-hints option),
// before layouts; the priorities survive to tilegpu IR.
// RUN: tilelang-opt %s -split-input-file --tilelang-tile-to-tilegpu | FileCheck %s --check-prefix=PIPE
// RUN: tilelang-opt %s -split-input-file --tilelang-tile-to-tilegpu="l2-reuse-hints=false" | FileCheck %s --check-prefix=OFF
// OFF-NOT: evict

// The looped layer norm: x walked three times over the same range, w once
// per program (every program reads it: normal), y written in the last loop.
// The scalar store between the loops writes another argument.
// CHECK-LABEL: func @three_passes
// CHECK: scf.for
// CHECK: tile.load %{{.*}} evict = evict_last : tensor<128x!tile.ptr<f16>>
// CHECK: scf.for
// CHECK: tile.load %{{.*}} evict = evict_last : tensor<128x!tile.ptr<f16>>
// CHECK: tile.store %{{.*}}, %{{.*}} : !tile.ptr<f32>
// CHECK: scf.for
// CHECK: tile.load %[[W:.*]] : tensor<128x!tile.ptr<f16>>
// CHECK: tile.load %{{.*}} evict = evict_first : tensor<128x!tile.ptr<f16>>
// CHECK: tile.store %{{.*}}, %{{.*}} evict = evict_first : tensor<128x!tile.ptr<f16>>
// PIPE-LABEL: func @three_passes
// PIPE: tile.load %{{.*}} evict = evict_last : tensor<128x!tile.ptr<f16>, #blocked>
// PIPE: tile.load %{{.*}} evict = evict_last : tensor<128x!tile.ptr<f16>, #blocked>
// PIPE: tile.load %{{.*}} : tensor<128x!tile.ptr<f16>, #blocked>
// PIPE: tile.load %{{.*}} evict = evict_first : tensor<128x!tile.ptr<f16>, #blocked>
// PIPE: tile.store %{{.*}}, %{{.*}} evict = evict_first : tensor<128x!tile.ptr<f16>, #blocked>
func.func @three_passes(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>, %w: !tile.ptr<f16>, %mean: !tile.ptr<f32>, %stride: i32, %n: i32) {
  %pid = tile.program_id x : i32
  %rowoff = arith.muli %pid, %stride : i32
  %xrow = tile.addptr %x, %rowoff : !tile.ptr<f16>, i32
  %yrow = tile.addptr %y, %rowoff : !tile.ptr<f16>, i32
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %zero = arith.constant dense<0.0> : tensor<128xf16>
  %sum = scf.for %k = %c0 to %n step %c128 iter_args(%acc = %zero) -> (tensor<128xf16>) : i32 {
    %r = tile.make_range 0 to 128 : tensor<128xi32>
    %ks = tile.splat %k : i32 -> tensor<128xi32>
    %cols = arith.addi %ks, %r : tensor<128xi32>
    %base = tile.splat %xrow : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
    %p = tile.addptr %base, %cols : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
    %v = tile.load %p : tensor<128x!tile.ptr<f16>>
    %a = arith.addf %acc, %v : tensor<128xf16>
    scf.yield %a : tensor<128xf16>
  }
  // The second loop's own constants and range: equal, not the same values.
  %c0b = arith.constant 0 : i32
  %c128b = arith.constant 128 : i32
  %sq = scf.for %k = %c0b to %n step %c128b iter_args(%acc = %sum) -> (tensor<128xf16>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<128xi32>
    %r = tile.make_range 0 to 128 : tensor<128xi32>
    %cols = arith.addi %ks, %r : tensor<128xi32>
    %base = tile.splat %xrow : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
    %p = tile.addptr %base, %cols : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
    %v = tile.load %p : tensor<128x!tile.ptr<f16>>
    %m = arith.mulf %v, %v : tensor<128xf16>
    %a = arith.addf %acc, %m : tensor<128xf16>
    scf.yield %a : tensor<128xf16>
  }
  %mp = tile.addptr %mean, %pid : !tile.ptr<f32>, i32
  %one = arith.constant 1.0 : f32
  tile.store %mp, %one : !tile.ptr<f32>
  scf.for %k = %c0 to %n step %c128 : i32 {
    %r = tile.make_range 0 to 128 : tensor<128xi32>
    %ks = tile.splat %k : i32 -> tensor<128xi32>
    %cols = arith.addi %ks, %r : tensor<128xi32>
    %wbase = tile.splat %w : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
    %wp = tile.addptr %wbase, %cols : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
    %wv = tile.load %wp : tensor<128x!tile.ptr<f16>>
    %base = tile.splat %xrow : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
    %p = tile.addptr %base, %cols : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
    %v = tile.load %p : tensor<128x!tile.ptr<f16>>
    %o = arith.mulf %v, %wv : tensor<128xf16>
    %o2 = arith.addf %o, %sq : tensor<128xf16>
    %ybase = tile.splat %yrow : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
    %yp = tile.addptr %ybase, %cols : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
    tile.store %yp, %o2 : tensor<128x!tile.ptr<f16>>
  }
  return
}

// -----

// Two loops nested in a loop over rows, re-reading the row the outer loop
// chose: a re-read later in the same loop nest.
// CHECK-LABEL: func @rows_in_a_loop
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tile.load %{{.*}} evict = evict_last
// CHECK: scf.for
// CHECK: tile.load %{{.*}} evict = evict_first
// CHECK: tile.store %{{.*}}, %{{.*}} evict = evict_first
func.func @rows_in_a_loop(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %rows: i32, %n: i32) {
  %pid = tile.program_id x : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  scf.for %row = %pid to %rows step %c1 : i32 {
    %rowoff = arith.muli %row, %n : i32
    %xrow = tile.addptr %x, %rowoff : !tile.ptr<f32>, i32
    %s = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
      %r = tile.make_range 0 to 64 : tensor<64xi32>
      %ks = tile.splat %k : i32 -> tensor<64xi32>
      %cols = arith.addi %ks, %r : tensor<64xi32>
      %base = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
      %p = tile.addptr %base, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
      %v = tile.load %p : tensor<64x!tile.ptr<f32>>
      %a = arith.addf %acc, %v : tensor<64xf32>
      scf.yield %a : tensor<64xf32>
    }
    scf.for %k = %c0 to %n step %c64 : i32 {
      %r = tile.make_range 0 to 64 : tensor<64xi32>
      %ks = tile.splat %k : i32 -> tensor<64xi32>
      %cols = arith.addi %ks, %r : tensor<64xi32>
      %base = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
      %p = tile.addptr %base, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
      %v = tile.load %p : tensor<64x!tile.ptr<f32>>
      %o = arith.subf %v, %s : tensor<64xf32>
      %yrow = tile.addptr %y, %rowoff : !tile.ptr<f32>, i32
      %ybase = tile.splat %yrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
      %yp = tile.addptr %ybase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
      tile.store %yp, %o : tensor<64x!tile.ptr<f32>>
    }
  }
  return
}

// -----

// One loop reading its input once (vector add, the one-row softmax's
// shape): nothing is read again, nothing changes.
// CHECK-LABEL: func @single_loop
// CHECK-NOT: evict
func.func @single_loop(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x : i32
  %rowoff = arith.muli %pid, %n : i32
  %xrow = tile.addptr %x, %rowoff : !tile.ptr<f32>, i32
  %yrow = tile.addptr %y, %rowoff : !tile.ptr<f32>, i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  scf.for %k = %c0 to %n step %c64 : i32 {
    %r = tile.make_range 0 to 64 : tensor<64xi32>
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %base = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %p = tile.addptr %base, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %ybase = tile.splat %yrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %yp = tile.addptr %ybase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %yp, %v : tensor<64x!tile.ptr<f32>>
  }
  return
}

// -----

// A store to x between the two loops: the data read again may not be the
// data kept, so neither load gets a priority (nor the other store).
// CHECK-LABEL: func @store_between
// CHECK-NOT: evict
func.func @store_between(%x: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x : i32
  %rowoff = arith.muli %pid, %n : i32
  %xrow = tile.addptr %x, %rowoff : !tile.ptr<f32>, i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %s = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %r = tile.make_range 0 to 64 : tensor<64xi32>
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %base = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %p = tile.addptr %base, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  }
  %first = tile.addptr %x, %pid : !tile.ptr<f32>, i32
  %one = arith.constant 1.0 : f32
  tile.store %first, %one : !tile.ptr<f32>
  scf.for %k = %c0 to %n step %c64 : i32 {
    %r = tile.make_range 0 to 64 : tensor<64xi32>
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %base = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %p = tile.addptr %base, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %o = arith.subf %v, %s : tensor<64xf32>
    tile.store %p, %o : tensor<64x!tile.ptr<f32>>
  }
  return
}

// -----

// The user's hints stay as written: the first load's cache modifier (no
// eviction priority is added to it: PTX takes one or the other) and the
// store's; the second load, unhinted, is still the last re-read.
// CHECK-LABEL: func @user_hints
// CHECK: tile.load %{{.*}} cache = cg : tensor<64x!tile.ptr<f32>>
// CHECK: tile.load %{{.*}} evict = evict_first : tensor<64x!tile.ptr<f32>>
// CHECK: tile.store %{{.*}}, %{{.*}} cache = wt : tensor<64x!tile.ptr<f32>>
func.func @user_hints(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x : i32
  %rowoff = arith.muli %pid, %n : i32
  %xrow = tile.addptr %x, %rowoff : !tile.ptr<f32>, i32
  %yrow = tile.addptr %y, %rowoff : !tile.ptr<f32>, i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %s = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %r = tile.make_range 0 to 64 : tensor<64xi32>
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %base = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %p = tile.addptr %base, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p cache = cg : tensor<64x!tile.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<64xf32>
    scf.yield %a : tensor<64xf32>
  }
  scf.for %k = %c0 to %n step %c64 : i32 {
    %r = tile.make_range 0 to 64 : tensor<64xi32>
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %base = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %p = tile.addptr %base, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %o = arith.subf %v, %s : tensor<64xf32>
    %ybase = tile.splat %yrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
    %yp = tile.addptr %ybase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %yp, %o cache = wt : tensor<64x!tile.ptr<f32>>
  }
  return
}

// -----

// What is not proved the same data of this program: loops over other
// ranges (the causal attention's two stages), data every program reads
// (no program id in the address), a load under a branch, and a pointer
// carried by the loop.
// CHECK-LABEL: func @not_proved
// CHECK-NOT: evict
func.func @not_proved(%x: !tile.ptr<f32>, %w: !tile.ptr<f32>, %n: i32, %half: i32, %flag: i1) {
  %pid = tile.program_id x : i32
  %rowoff = arith.muli %pid, %n : i32
  %xrow = tile.addptr %x, %rowoff : !tile.ptr<f32>, i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %wbase = tile.splat %w : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %xbase = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %s = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %p = tile.addptr %xbase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %wp = tile.addptr %wbase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %wv = tile.load %wp : tensor<64x!tile.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<64xf32>
    %b = arith.addf %a, %wv : tensor<64xf32>
    scf.yield %b : tensor<64xf32>
  }
  // Half the range: other addresses.
  %t = scf.for %k = %c0 to %half step %c64 iter_args(%acc = %s) -> (tensor<64xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %p = tile.addptr %xbase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %wp = tile.addptr %wbase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %wv = tile.load %wp : tensor<64x!tile.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<64xf32>
    %b = arith.addf %a, %wv : tensor<64xf32>
    scf.yield %b : tensor<64xf32>
  }
  // The same range, but x read only when %flag holds; w every program reads.
  %u = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %t) -> (tensor<64xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %wp = tile.addptr %wbase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %wv = tile.load %wp : tensor<64x!tile.ptr<f32>>
    %a = arith.addf %acc, %wv : tensor<64xf32>
    %b = scf.if %flag -> (tensor<64xf32>) {
      %p = tile.addptr %xbase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
      %v = tile.load %p : tensor<64x!tile.ptr<f32>>
      %c = arith.addf %a, %v : tensor<64xf32>
      scf.yield %c : tensor<64xf32>
    } else {
      scf.yield %a : tensor<64xf32>
    }
    scf.yield %b : tensor<64xf32>
  }
  // The same range through a pointer the loop advances.
  %c64s = tile.splat %c64 : i32 -> tensor<64xi32>
  %start = tile.addptr %xbase, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %end:2 = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %u, %p = %start) -> (tensor<64xf32>, tensor<64x!tile.ptr<f32>>) : i32 {
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<64xf32>
    %next = tile.addptr %p, %c64s : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    scf.yield %a, %next : tensor<64xf32>, tensor<64x!tile.ptr<f32>>
  }
  %out = tile.addptr %x, %pid : !tile.ptr<f32>, i32
  %res = tile.reduce %end#0 axis = 0 : tensor<64xf32> -> f32 {
  ^bb0(%l: f32, %m: f32):
    %q = arith.addf %l, %m : f32
    tile.reduce.return %q : f32
  }
  tile.store %out, %res : !tile.ptr<f32>
  return
}

// -----

// The output is read back by the program (an argument some load reads):
// the loads get their priorities, the store none.
// CHECK-LABEL: func @output_read_back
// CHECK: tile.load %{{.*}} evict = evict_last
// CHECK: tile.load %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK: tile.load %{{.*}} evict = evict_first
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<64x!tile.ptr<f32>>
func.func @output_read_back(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) {
  %pid = tile.program_id x : i32
  %rowoff = arith.muli %pid, %n : i32
  %xrow = tile.addptr %x, %rowoff : !tile.ptr<f32>, i32
  %yrow = tile.addptr %y, %rowoff : !tile.ptr<f32>, i32
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %xbase = tile.splat %xrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %ybase = tile.splat %yrow : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %s = scf.for %k = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %p = tile.addptr %xbase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %yp = tile.addptr %ybase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %yv = tile.load %yp : tensor<64x!tile.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<64xf32>
    %b = arith.addf %a, %yv : tensor<64xf32>
    scf.yield %b : tensor<64xf32>
  }
  scf.for %k = %c0 to %n step %c64 : i32 {
    %ks = tile.splat %k : i32 -> tensor<64xi32>
    %cols = arith.addi %ks, %r : tensor<64xi32>
    %p = tile.addptr %xbase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %o = arith.subf %v, %s : tensor<64xf32>
    %yp = tile.addptr %ybase, %cols : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    tile.store %yp, %o : tensor<64x!tile.ptr<f32>>
  }
  return
}
