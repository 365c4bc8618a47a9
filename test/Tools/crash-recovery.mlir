// A crash inside tilelang-opt (here: the test-crash pass, which raises
// SIGSEGV mid-pass) is reported as an error, not a signal.
// RUN: not tilelang-opt %s --test-crash 2>&1 | FileCheck %s
// RUN: not tilelang-opt %s --test-crash="kind=fatal-error" 2>&1 | FileCheck %s
// CHECK: tilelang-opt: error: internal compiler error
func.func @f() {
  return
}
