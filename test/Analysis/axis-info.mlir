// The axis-info analysis: contiguity, divisibility and constancy of every
// integer and pointer value, per dimension (scalars count as shape [1]).
// RUN: tilelang-opt %s --test-print-axis-info -split-input-file -verify-diagnostics
// Each remark is matched up to its end ({{$}}), so a value that should not
// be a known constant fails the test if it gets a `constant = N` suffix.

// Constants are constant over their whole shape and as divisible as their
// value (the constant 0 is capped at 2^30); float constants get no remark.
func.func @constants() {
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [1], constant = 16{{$}}}}
  %c16 = arith.constant 16 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0{{$}}}}
  %c0 = arith.constant 0 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [8], constancy = [1], constant = -24{{$}}}}
  %cneg = arith.constant -24 : i64
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [128], constant = 12{{$}}}}
  %splat = arith.constant dense<12> : tensor<128xi32>
  %f = arith.constant dense<1.0> : tensor<128xf32>
  return
}

// -----

// make_range is one contiguous run, as divisible as its start.
func.func @make_range() {
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r0 = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [32], constancy = [1]{{$}}}}
  %r32 = tile.make_range 32 to 96 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [16], constancy = [1]{{$}}}}
  %r48 = tile.make_range 48 to 112 : tensor<64xi32>
  return
}

// -----

// Arguments promise divisibility through tile.divisibility; without it
// nothing is known. A splat is constant and keeps its scalar's divisibility.
func.func @splat(%n: i32 {tile.divisibility = 16 : i32}, %u: i32) {
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [128]{{$}}}}
  %uv = tile.splat %u : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %pid = tile.program_id x : i32
  return
}

// -----

// A constant added to a contiguous run keeps the run; the sum is as
// divisible as the less divisible side.
func.func @add(%n: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [16], constancy = [1]{{$}}}}
  %off = arith.addi %nv, %r : tensor<128xi32>
  return
}

// -----

// Products multiply divisibility; multiplying by the constant 1 keeps
// contiguity.
func.func @mul(%n: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %pid = tile.program_id x : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024{{$}}}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1024], constancy = [1]{{$}}}}
  %start = arith.muli %pid, %c1024 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [128], constant = 4{{$}}}}
  %c4 = arith.constant dense<4> : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [64], constancy = [128]{{$}}}}
  %n4 = arith.muli %nv, %c4 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [128], constant = 1{{$}}}}
  %one = arith.constant dense<1> : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r1 = arith.muli %r, %one : tensor<128xi32>
  return
}

// -----

// Pointer divisibility is in bytes: an offset divisible by 4 elements is
// 8-byte aligned for f16 and 16-byte aligned for f32 (capped by the base).
func.func @addptr(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %q: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %s: i32 {tile.divisibility = 4 : i32}) {
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [128]{{$}}}}
  %sv = tile.splat %s : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [4], constancy = [1]{{$}}}}
  %off = arith.addi %r, %sv : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %pv = tile.splat %p : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [8], constancy = [1]{{$}}}}
  %pp = tile.addptr %pv, %off : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %qv = tile.splat %q : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [16], constancy = [1]{{$}}}}
  %qp = tile.addptr %qv, %off : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  return
}

// -----

// x < n over a contiguous run x changes value only where x crosses n: the
// mask is constant over aligned groups of gcd(contiguity, divisibility)
// elements. An unaligned bound or an equality gives nothing.
func.func @cmp(%n: i32 {tile.divisibility = 16 : i32}, %u: i32) {
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [128]{{$}}}}
  %uv = tile.splat %u : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [16]{{$}}}}
  %lt = arith.cmpi slt, %r, %nv : tensor<128xi32>
  // n > x is x < n.
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [16]{{$}}}}
  %gt = arith.cmpi sgt, %nv, %r : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %lt_u = arith.cmpi slt, %r, %uv : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %eq = arith.cmpi eq, %r, %nv : tensor<128xi32>
  // Two uniform operands give a uniform result.
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [128]{{$}}}}
  %uni = arith.cmpi ne, %nv, %uv : tensor<128xi32>
  return
}

// -----

// Division by a power of two: x % 16 of a run restarts every 16 values; a
// uniform value divided by 4 loses 2 bits of divisibility. Division by a
// non-power of two keeps only constancy.
func.func @divrem(%n: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128], constant = 16{{$}}}}
  %c16 = arith.constant dense<16> : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [16], divisibility = [16], constancy = [1]{{$}}}}
  %rem = arith.remsi %r, %c16 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [128], constant = 4{{$}}}}
  %c4 = arith.constant dense<4> : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [128]{{$}}}}
  %div = arith.divsi %nv, %c4 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [128], constant = 3{{$}}}}
  %c3 = arith.constant dense<3> : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %div3 = arith.divsi %r, %c3 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [128]{{$}}}}
  %rem3 = arith.remsi %nv, %c3 : tensor<128xi32>
  return
}

// -----

// expand_dims adds a size-1 dimension; broadcast makes the stretched
// dimension constant over its new size and keeps the others.
func.func @shape(%n: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [64]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 1]{{$}}}}
  %e = tile.expand_dims %nv {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 32]{{$}}}}
  %b = tile.broadcast %e : tensor<64x1xi32> -> tensor<64x32xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [8], constancy = [32], constant = 8{{$}}}}
  %c8 = arith.constant dense<8> : tensor<32xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [8, 8], constancy = [1, 32], constant = 8{{$}}}}
  %ce = tile.expand_dims %c8 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [8, 8], constancy = [64, 32], constant = 8{{$}}}}
  %cb = tile.broadcast %ce : tensor<1x32xi32> -> tensor<64x32xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [8, 8], constancy = [64, 32]{{$}}}}
  %sum = arith.addi %b, %cb : tensor<64x32xi32>
  return
}

// -----

// select: a uniform condition keeps the runs common to both sides; a
// condition that changes inside a run breaks it.
func.func @select(%n: i32 {tile.divisibility = 16 : i32}, %u: i32) {
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [16], constancy = [1]{{$}}}}
  %off = arith.addi %r, %nv : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [128]{{$}}}}
  %uv = tile.splat %u : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [128]{{$}}}}
  %uniform = arith.cmpi sgt, %uv, %nv : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [16], constancy = [1]{{$}}}}
  %keep = arith.select %uniform, %off, %r : tensor<128xi1>, tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [16]{{$}}}}
  %mask = arith.cmpi slt, %r, %nv : tensor<128xi32>
  // Every element is now a run of its own, and those taken from inside
  // %off's runs (i + n) are not multiples of 16: divisibility 1. (It was
  // claimed 16, unsoundly, before divisibility was re-derived at the new
  // run starts.)
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %mixed = arith.select %mask, %off, %nv : tensor<128xi1>, tensor<128xi32>
  return
}

// -----

// The induction variable is lb + k * step: as divisible as both. Loop-carried
// values join what enters the loop with what the body yields.
func.func @loop(%n: i32, %k: i32 {tile.divisibility = 8 : i32}) {
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0{{$}}}}
  %c0 = arith.constant 0 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [1], constant = 4{{$}}}}
  %c4 = arith.constant 4 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [64], constancy = [128], constant = 64{{$}}}}
  %c64 = arith.constant dense<64> : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // The loop's first result: the range (divisible by 2^30) joined with
  // range + 64 * k (divisible by 64).
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [64], constancy = [1]{{$}}}}
  %res:2 = scf.for %i = %c0 to %n step %c4 iter_args(%off = %r, %acc = %c0) -> (tensor<128xi32>, i32) : i32 {
    // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [128]{{$}}}}
    %iv = tile.splat %i : i32 -> tensor<128xi32>
    // expected-remark-re @+1 {{contiguity = [128], divisibility = [64], constancy = [1]{{$}}}}
    %next = arith.addi %off, %c64 : tensor<128xi32>
    // 0 joined with acc + k: divisible by 8, no longer a constant.
    // expected-remark-re @+1 {{contiguity = [1], divisibility = [8], constancy = [1]{{$}}}}
    %acc2 = arith.addi %acc, %k : i32
    scf.yield %next, %acc2 : tensor<128xi32>, i32
  }
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [8], constancy = [1]{{$}}}}
  %x = arith.addi %res#1, %c0 : i32
  return
}

// -----

// Regression: a loop without iter_args (a chunked copy, Triton's
// `for off in range(0, N, BLOCK)`) knows its induction variable too; it
// was left pessimistic, and the loop's loads and stores were not vectorized.
func.func @loop_without_iter_args(%n: i32, %p: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0{{$}}}}
  %c0 = arith.constant 0 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024{{$}}}}
  %c1024 = arith.constant 1024 : i32
  scf.for %off = %c0 to %n step %c1024 : i32 {
    // expected-remark-re @+1 {{contiguity = [1024], divisibility = [1073741824], constancy = [1]{{$}}}}
    %r = tile.make_range 0 to 1024 : tensor<1024xi32>
    // expected-remark-re @+1 {{contiguity = [1], divisibility = [1024], constancy = [1024]{{$}}}}
    %base = tile.splat %off : i32 -> tensor<1024xi32>
    // expected-remark-re @+1 {{contiguity = [1024], divisibility = [1024], constancy = [1]{{$}}}}
    %cols = arith.addi %base, %r : tensor<1024xi32>
    // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [1024]{{$}}}}
    %ptrs = tile.splat %p : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>>
    // expected-remark-re @+1 {{contiguity = [1024], divisibility = [16], constancy = [1]{{$}}}}
    %addrs = tile.addptr %ptrs, %cols : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  }
  return
}

// -----

// Arguments without tile.divisibility know nothing: every entry is 1.
func.func @pessimistic(%p: !tile.ptr<f32>, %n: i32) {
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %q = tile.addptr %p, %n : !tile.ptr<f32>, i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %m = arith.muli %n, %n : i32
  return
}

// -----

// Regressions. Only x < b and x >= b (run on the left), or b > x and b <= x
// (run on the right), flip at a multiple of b's divisibility; the others
// flip at b + 1, so their aligned groups are not uniform.
func.func @comparison_direction(%n: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [16]{{$}}}}
  %lt = arith.cmpi slt, %r, %nv : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %le = arith.cmpi sle, %r, %nv : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %gt = arith.cmpi sgt, %r, %nv : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %right_lt = arith.cmpi slt, %nv, %r : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [16]{{$}}}}
  %right_gt = arith.cmpi sgt, %nv, %r : tensor<128xi32>
  return
}

// -----

// Regressions: within a run only its first element's divisibility is
// known, so products, quotients and new dimensions of runs claim none.
func.func @runs_lose_divisibility() {
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [128], constant = 4{{$}}}}
  %c4 = arith.constant dense<4> : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [1]{{$}}}}
  %times4 = arith.muli %r, %c4 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128], constant = 16{{$}}}}
  %c16 = arith.constant dense<16> : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [16]{{$}}}}
  %quotient = arith.divsi %r, %c16 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1, 128], divisibility = [1, 1073741824], constancy = [1, 1]{{$}}}}
  %row = tile.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  return
}

// -----

// A 2-D mask is a row mask and a column mask combined bitwise: runs of
// equal values in both inputs stay runs in the result (gcd per dimension).
func.func @bitwise_masks(%n: i32 {tile.divisibility = 16 : i32}, %m: i32 {tile.divisibility = 8 : i32}) {
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [1, 1]{{$}}}}
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 64]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<1x64xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 16]{{$}}}}
  %col_mask = arith.cmpi slt, %cols, %nv : tensor<1x64xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [32, 16]{{$}}}}
  %col_mask_b = tile.broadcast %col_mask : tensor<1x64xi1> -> tensor<32x64xi1>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [8, 8], constancy = [32, 64]{{$}}}}
  %row_mask = tile.splat %m : i32 -> tensor<32x64xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [1073741824, 1073741824], constancy = [32, 64], constant = 0{{$}}}}
  %zero = arith.constant dense<0> : tensor<32x64xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [32, 64]{{$}}}}
  %rows = arith.cmpi sgt, %row_mask, %zero : tensor<32x64xi32>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [32, 16]{{$}}}}
  %both = arith.andi %rows, %col_mask_b : tensor<32x64xi1>
  // expected-remark-re @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [32, 16]{{$}}}}
  %either = arith.ori %rows, %col_mask_b : tensor<32x64xi1>
  return
}

// -----

// Regression: an inner loop's lower bound carried by an outer loop. Its
// divisibility falls to 1 once the outer loop's body is seen (0, 3, 6, ...);
// the inner induction variable must follow it down rather than keep the 16
// of the first visit.
func.func @bound_carried_by_outer_loop(%n: i32, %m: i32) {
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0{{$}}}}
  %c0 = arith.constant 0 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1], constant = 1{{$}}}}
  %c1 = arith.constant 1 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1], constant = 3{{$}}}}
  %c3 = arith.constant 3 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [1], constant = 16{{$}}}}
  %c16 = arith.constant 16 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %r = scf.for %i = %c0 to %m step %c1 iter_args(%off = %c0) -> (i32) : i32 {
    scf.for %j = %off to %n step %c16 : i32 {
      // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
      %x = arith.addi %j, %c0 : i32
    }
    // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
    %next = arith.addi %off, %c3 : i32
    scf.yield %next : i32
  }
  return
}

// -----

// Regression: joining runs of different lengths. The loop's value is the
// range (runs of 64 starting at 0) on entry and multiples of 16 (runs of 1)
// after; the join has runs of 1, and the range's elements are not all
// multiples of 16: divisibility 1, not gcd(2^30, 16).
func.func @join_of_different_runs(%n: i32) {
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0{{$}}}}
  %c0 = arith.constant 0 : i32
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1], constant = 1{{$}}}}
  %c1 = arith.constant 1 : i32
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [64], constant = 16{{$}}}}
  %c16 = arith.constant dense<16> : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%v = %r) -> (tensor<64xi32>) : i32 {
    // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [1]{{$}}}}
    %w = arith.muli %r, %c16 : tensor<64xi32>
    scf.yield %w : tensor<64xi32>
  }
  return
}

// -----

// Signed remainder and division keep runs only for values known to be
// >= 0: (r - 64) % 4 is 0, -3, -2, -1, ... and (r - 4) / 4 is -1, 0, 0, 0.
// (r + 2) % 4 (2, 3, 0, 1) has runs only as long as its starts' alignment.
func.func @signed_div_rem(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [64], constant = 4{{$}}}}
  %c4 = arith.constant dense<4> : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [2], constancy = [64], constant = 2{{$}}}}
  %c2 = arith.constant dense<2> : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [64], constancy = [64], constant = 64{{$}}}}
  %c64 = arith.constant dense<64> : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [64], constancy = [1]{{$}}}}
  %below = arith.subi %r, %c64 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %rem = arith.remsi %below, %c4 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [4], constancy = [1]{{$}}}}
  %shifted = arith.subi %r, %c4 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %quot = arith.divsi %shifted, %c4 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [2], constancy = [1]{{$}}}}
  %up = arith.addi %r, %c2 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [2], divisibility = [2], constancy = [1]{{$}}}}
  %wrapped = arith.remsi %up, %c4 : tensor<64xi32>
  // The matmul tutorial's (pid * BLOCK + r) % M keeps its runs: r >= 0.
  // expected-remark-re @+1 {{contiguity = [4], divisibility = [4], constancy = [1]{{$}}}}
  %aligned = arith.remsi %r, %c4 : tensor<64xi32>
  return
}

// -----

// Casts: contiguity counts steps of one integer or one pointee, so it does
// not survive a change of step; zero extension keeps runs of values >= 0
// only; truncation keeps runs that fit between multiples of 2^(width - 1).
func.func @casts(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [64]{{$}}}}
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [16], constancy = [1]{{$}}}}
  %addrs = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  // f32 elements are two f16 elements apart.
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [1]{{$}}}}
  %halves = tile.bitcast %addrs : tensor<64x!tile.ptr<f32>> -> tensor<64x!tile.ptr<f16>>
  // The integers step by 4.
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [1]{{$}}}}
  %ints = tile.ptr_to_int %addrs : tensor<64x!tile.ptr<f32>> -> tensor<64xi64>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [64], constant = 4{{$}}}}
  %c4 = arith.constant dense<4> : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [4], constancy = [1]{{$}}}}
  %below = arith.subi %r, %c4 : tensor<64xi32>
  // -4 .. -1 become 2^32 - 4 .. 2^32 - 1, then 0: no runs.
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %wide = arith.extui %below : tensor<64xi32> to tensor<64xi64>
  // r >= 0: runs survive.
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]{{$}}}}
  %widened = arith.extui %r : tensor<64xi32> to tensor<64xi64>
  // 0, 1, 0, 1, ... as i1: odd elements are not even (it was claimed).
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %bits = arith.trunci %r : tensor<64xi32> to tensor<64xi1>
  // 0 .. 63 fit in i8 (which, read signed, wraps after 127).
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [256], constancy = [1]{{$}}}}
  %bytes = arith.trunci %r : tensor<64xi32> to tensor<64xi8>
  return
}

// -----

// Shifts by constants: << k multiplies every element by 2^k; >> k divides
// by 2^k rounding down (for either sign), so aligned groups of 2^k in a run
// agree. max and min pick a side per element.
func.func @shifts_and_extrema(%n: i32 {tile.divisibility = 8 : i32}) {
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [2], constancy = [64], constant = 2{{$}}}}
  %c2 = arith.constant dense<2> : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [8], constancy = [64]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [1]{{$}}}}
  %times4 = arith.shli %r, %c2 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [4]{{$}}}}
  %quarter = arith.shrsi %r, %c2 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [4]{{$}}}}
  %uquarter = arith.shrui %r, %c2 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [2], constancy = [64]{{$}}}}
  %halfn = arith.shrsi %nv, %c2 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [4], constancy = [1]{{$}}}}
  %larger = arith.maxsi %times4, %nv : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %smaller = arith.minsi %r, %nv : tensor<64xi32>
  return
}

// -----

// Regression: 0 .. 255 truncated to i8 reads 0 .. 127, -128 .. -1 (runs
// of 128 starting at 0 and -128, not one of 256); index operands have a
// width (64) and are analyzed without a crash (index values get no remark
// of their own; index_cast shows them).
func.func @truncation_wraps_signed(%i: index) {
  // expected-remark-re @+1 {{contiguity = [256], divisibility = [1073741824], constancy = [1]{{$}}}}
  %r = tile.make_range 0 to 256 : tensor<256xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [128], constancy = [1]{{$}}}}
  %bytes = arith.trunci %r : tensor<256xi32> to tensor<256xi8>
  %c4 = arith.constant 4 : index
  %rem = arith.remsi %i, %c4 : index
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %remi = arith.index_cast %rem : index to i32
  %shifted = arith.shli %i, %c4 : index
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [1]{{$}}}}
  %shiftedi = arith.index_cast %shifted : index to i32
  return
}

// -----

// Remainder and division by a value known only by its divisibility: for a
// non-negative dividend, the multiples of y fall on multiples of 16, so
// x % y keeps runs of 16 and x / y is constant over them. The sign of the
// dividend must be known: the program id is >= 0, an argument is not.
func.func @divrem_by_divisible(%n: i32 {tile.divisibility = 16 : i32}, %a: i32) {
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %pid = tile.program_id x : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %c128 = arith.constant 128 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %start = arith.muli %pid, %c128 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %startv = tile.splat %start : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [128], constancy = [1]{{$}}}}
  %offs = arith.addi %startv, %r : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [16], divisibility = [16], constancy = [1]{{$}}}}
  %rem = arith.remsi %offs, %nv : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [16]{{$}}}}
  %div = arith.divsi %offs, %nv : tensor<128xi32>
  // 48 = 3 * 16: its multiples are multiples of 16 too.
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %c48 = arith.constant dense<48> : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [16], divisibility = [16], constancy = [1]{{$}}}}
  %rem48 = arith.remsi %offs, %c48 : tensor<128xi32>
  // An argument of unknown sign: no runs survive.
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %av = tile.splat %a : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [128], divisibility = [1], constancy = [1]{{$}}}}
  %unsigned = arith.addi %av, %r : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %remu = arith.remsi %unsigned, %nv : tensor<128xi32>
  return
}

// -----

// tl.assume: x >= 0 and x > -1 make x non-negative, x % 16 == 0 makes it a
// multiple of 16, for values of the assume's own block; a promise in
// another block (here a loop body) says nothing about a value outside it.
func.func @assume(%a: i32, %b: i32, %k: i32, %n: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %c0 = arith.constant 0 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %c16 = arith.constant 16 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %ge = arith.cmpi sge, %a, %c0 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %rem = arith.remsi %k, %c16 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %aligned = arith.cmpi eq, %rem, %c0 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %both = arith.andi %ge, %aligned : i1
  tile.assume %both
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %r = tile.make_range 0 to 128 : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %nv = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %av = tile.splat %a : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %offs = arith.addi %av, %r : tensor<128xi32>
  // %a is non-negative, so the runs survive (its divisibility is unknown).
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %rem_a = arith.remsi %offs, %nv : tensor<128xi32>
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [16], constancy = [128]{{$}}}}
  %kv = tile.splat %k : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %bv = tile.splat %b : i32 -> tensor<128xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %offs_b = arith.addi %bv, %r : tensor<128xi32>
  %c1 = arith.constant 1 : index
  %c0i = arith.constant 0 : index
  scf.for %i = %c0i to %c1 step %c1 {
    // expected-remark-re @+1 {{contiguity{{.*}}}}
    %m1 = arith.constant -1 : i32
    // expected-remark-re @+1 {{contiguity{{.*}}}}
    %gt = arith.cmpi sgt, %b, %m1 : i32
    tile.assume %gt
  }
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [1], constancy = [1]{{$}}}}
  %rem_b = arith.remsi %offs_b, %nv : tensor<128xi32>
  return
}

// -----

// tl.assume(x >= 0) on a 16-aligned start: now the remainder keeps runs
// of 16. The constant may be on either side.
func.func @assume_aligned(%n: i32 {tile.divisibility = 16 : i32}, %p: i32) {
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %c0 = arith.constant 0 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %c64 = arith.constant 64 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %le = arith.cmpi sle, %c0, %p : i32
  tile.assume %le
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %start = arith.muli %p, %c64 : i32
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %startv = tile.splat %start : i32 -> tensor<64xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %offs = arith.addi %startv, %r : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %nv = tile.splat %n : i32 -> tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [16], divisibility = [16], constancy = [1]{{$}}}}
  %rem = arith.remsi %offs, %nv : tensor<64xi32>
  return
}

// -----

// Hints replace what was derived: on the defining op (where canonicalize
// puts them), and as tile.hint about a block argument or any value.
func.func @hints(%n: i32, %x: tensor<64xi32>, %m: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %nv = tile.splat %n : i32 -> tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [64], constancy = [1]{{$}}}}
  %offs = arith.remsi %r, %nv {tile.multiple_of = array<i64: 64>, tile.max_contiguous = array<i64: 64>} : tensor<64xi32>
  // A hint about an op's result, not yet moved onto the op; 24 promises 8.
  // expected-remark-re @+1 {{contiguity = [1], divisibility = [8], constancy = [4]{{$}}}}
  %q = arith.divsi %r, %nv : tensor<64xi32>
  tile.hint %q {multiple_of = array<i64: 24>, max_constancy = array<i64: 4>} : tensor<64xi32>
  // max_contiguous larger than the shape is capped at it.
  tile.hint %x {max_contiguous = array<i64: 1024>, multiple_of = array<i64: 16>} : tensor<64xi32>
  // expected-remark-re @+1 {{contiguity{{.*}}}}
  %mv = tile.splat %m : i32 -> tensor<64xi32>
  // expected-remark-re @+1 {{contiguity = [64], divisibility = [16], constancy = [1]{{$}}}}
  %z = arith.addi %x, %mv : tensor<64xi32>
  // Shorter runs than derived: divisibility is what their starts have.
  // expected-remark-re @+1 {{contiguity = [2], divisibility = [2], constancy = [1]{{$}}}}
  %y = arith.addi %x, %mv {tile.max_contiguous = array<i64: 2>} : tensor<64xi32>
  return
}
