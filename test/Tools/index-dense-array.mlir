// MLIR 22's attribute parser crashes on a dense array of index elements;
// tilelang-opt and the library (tilelang-compile) refuse it before parsing,
// with an error at the construct (tilelang/Support/ParserGuard.h), whether
// tilelang-opt reads a file or standard input (named <stdin>). The same
// text in a comment or a string is left alone.
// RUN: not tilelang-opt %s 2>&1 | FileCheck %s
// RUN: not tilelang-compile %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not tilelang-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not tilelang-opt - < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// CHECK: index-dense-array.mlir:[[# @LINE + 5]]:55: error: dense arrays of 'index' elements are not supported
// CHECK-NOT: internal compiler error
// STDIN: <stdin>:[[# @LINE + 3]]:55: error: dense arrays of 'index' elements are not supported
// STDIN-NOT: internal compiler error
// array<index: 1> in a comment is not refused
func.func @f() attributes {s = "array<index: 2>", x = array <index : 1, 0>} {
  return
}
