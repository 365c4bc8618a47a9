// A kernel takes what a launch can pass: a tensor argument is refused at the
// argument (a tensor<?xf32> one crashed the NVPTX backend; found by the IR
// fuzzer).
// RUN: not tilelang-compile %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: kernel-arguments.mlir:[[@LINE+2]]:14: error: kernel argument #0 is a tensor ('tensor<?xf32>'); a kernel takes
// CHECK-SAME: pass a pointer and load the tensor
func.func @k(%x: tensor<?xf32>) {
  return
}
