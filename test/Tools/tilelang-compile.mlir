// tilelang-compile: its options, its outputs, and how it reports problems.
// The kernel at the end of this file is the input of the runs that succeed;
// the broken inputs are the `BAD:` and `RET:` lines, extracted with sed.

// Bad command lines are usage errors (exit status 2, no crash).
// RUN: not tilelang-compile --bogus %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// The command line is llvm::cl's; its messages come out as usage errors.
// UNKNOWN: tilelang-compile: error: unknown command line argument '--bogus'
// UNKNOWN-NEXT: (run tilelang-compile --help for usage)
// RUN: not tilelang-compile 2>&1 | FileCheck %s --check-prefix=NOINPUT
// NOINPUT: tilelang-compile: error: no input file
// RUN: not tilelang-compile %s %s 2>&1 | FileCheck %s --check-prefix=TWOINPUTS
// TWOINPUTS: tilelang-compile: error: too many positional arguments specified
// RUN: not tilelang-compile %s -o 2>&1 | FileCheck %s --check-prefix=NOOUTPUT
// NOOUTPUT: tilelang-compile: for the -o option: requires a value!
// NOOUTPUT-NEXT: (run tilelang-compile --help for usage)
// RUN: not tilelang-compile --num-warps=four %s 2>&1 | FileCheck %s --check-prefix=NOTNUMBER
// NOTNUMBER: tilelang-compile: for the --num-warps option: 'four' value invalid for uint argument!
// RUN: not tilelang-compile --num-stages=2000 %s 2>&1 | FileCheck %s --check-prefix=TOOMANY
// TOOMANY: tilelang-compile: error: --num-stages expects at most 1024, got 2000
// RUN: not tilelang-compile --maxnreg=8 %s 2>&1 | FileCheck %s --check-prefix=MAXNREG
// MAXNREG: tilelang-compile: error: --maxnreg expects 16 to 255 registers a thread, got '8'
// Every usage error exits with status 2.
// RUN: tilelang-compile --bogus %s > /dev/null 2>&1; test $? -eq 2
// RUN: tilelang-compile %s -o > /dev/null 2>&1; test $? -eq 2

// Options that parse but cannot be compiled for.
// RUN: not tilelang-compile --arch=sm_70 %s 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: error: unsupported GPU architecture 'sm_70' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)
// RUN: not tilelang-compile --num-warps=3 %s 2>&1 | FileCheck %s --check-prefix=WARPS
// WARPS: error: num_warps must be a power of two from 1 to 32, got 3

// An input that cannot be read.
// RUN: rm -f %t.missing.mlir
// RUN: not tilelang-compile %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: tilelang-compile: error: cannot read '{{.*}}.missing.mlir'

// A verifier error names file:line:col and shows the line with a caret
// under the column.
// RUN: sed -n 's|^// BAD: ||p' %s > %t.bad.mlir
// RUN: not tilelang-compile %t.bad.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY --strict-whitespace
// VERIFY: bad.mlir:2:8: error: 'arith.addi' op operand #0 must be signless-integer-like, but got 'f32'
// VERIFY-NEXT: {{^}}      %b = arith.addi %x, %x : f32{{$}}
// VERIFY-NEXT: {{^}}           ^{{$}}
// BAD: func.func @bad(%x: f32) {
// BAD:   %b = arith.addi %x, %x : f32
// BAD:   return
// BAD: }

// So does a problem found only by the LLVM lowering, after the layout
// passes: a kernel that returns a value.
// RUN: sed -n 's|^// RET: ||p' %s > %t.ret.mlir
// RUN: not tilelang-compile %t.ret.mlir 2>&1 | FileCheck %s --check-prefix=LOWER --strict-whitespace
// LOWER: ret.mlir:1:1: error: a kernel cannot return values; store results through pointer arguments
// LOWER-NEXT: {{^}}    func.func @ret(%x: f32) -> f32 {{[{]$}}
// LOWER-NEXT: {{^}}    ^{{$}}
// RET: func.func @ret(%x: f32) -> f32 {
// RET:   return %x : f32
// RET: }

// --dump-ir prints every stage's IR to standard error.
// RUN: tilelang-compile %s --dump-ir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: // ----- IR after stage 'tile' -----
// DUMP: func.func @copy
// DUMP: // ----- IR after stage 'tilegpu' -----
// DUMP: #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// DUMP: // ----- IR after stage 'llvm' -----
// DUMP: llvm.func @copy
// DUMP: // ----- IR after stage 'llvm-ir' -----
// DUMP: define {{.*}}void @copy

// --dump-ir=<dir> writes one file per stage instead.
// RUN: rm -rf %t.dir
// RUN: tilelang-compile %s --dump-ir=%t.dir -o /dev/null 2>&1 | count 0
// RUN: ls %t.dir | FileCheck %s --check-prefix=DIR
// DIR-DAG: tile.mlir
// DIR-DAG: tilegpu.mlir
// DIR-DAG: llvm.mlir
// DIR-DAG: llvm-ir.ll
// RUN: FileCheck %s --check-prefix=DIRTILEGPU --input-file=%t.dir/tilegpu.mlir
// DIRTILEGPU: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"}

// -o writes the PTX to a file (standard output stays empty); a file that
// cannot be created is an error.
// RUN: tilelang-compile %s --arch=sm_80 --num-warps=8 -o %t.ptx | count 0
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// Options take their value after `=` or as the next argument.
// RUN: tilelang-compile %s --arch sm_80 --num-warps 8 -o %t.spaced.ptx | count 0
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.spaced.ptx
// PTX: .target sm_80
// PTX: .entry copy
// PTX: .maxntid 256, 1, 1
// RUN: not tilelang-compile %s -o %t.nodir/out.ptx 2>&1 | FileCheck %s --check-prefix=NOWRITE
// NOWRITE: tilelang-compile: error: cannot write '{{.*}}.nodir/out.ptx'

// Standard input is read for `-`.
// RUN: tilelang-compile - < %s | FileCheck %s --check-prefix=STDIN
// STDIN: .entry copy

// RUN: tilelang-compile --version | FileCheck %s --check-prefix=VERSION
// RUN: tilelang-compile --help | FileCheck %s --check-prefix=HELP
// VERSION: tilelang-compile {{[0-9]+\.[0-9]+\.[0-9]+}} (LLVM 22.
// HELP: USAGE: tilelang-compile [options] <input.mlir | ->
// HELP: tilelang-compile options:
// HELP: --arch=<sm_XX>
// HELP: --dump-ir[=<dir>]
// HELP: --maxnreg=<n>
// HELP: --num-stages=<n>
// HELP: --num-warps=<n>
// HELP: -o <file>
// HELP: --report

func.func @copy(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0 to 512 : tensor<512xi32>
  %xb = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xb, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>>
  %yb = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %yp = tile.addptr %yb, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %yp, %v : tensor<512x!tile.ptr<f32>>
  return
}
