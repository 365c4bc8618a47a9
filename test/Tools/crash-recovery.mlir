// A crash inside MLIR (here: the upstream attribute parser on an index
// element type in array<...>) is reported as an error, not a signal.
// RUN: not tilelang-opt %s 2>&1 | FileCheck %s
// RUN: not tilelang-compile %s 2>&1 | FileCheck %s --check-prefix=COMPILE
// CHECK: tilelang-opt: error: internal compiler error
// COMPILE: <compiler>: error: internal compiler error: the compiler crashed
func.func @f() attributes {x = array<index: 1, 0>} {
  return
}
