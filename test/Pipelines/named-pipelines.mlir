// The named pipelines are the compiler library's: tilelang-opt running
// tilelang-tile-to-tilegpu and then tilelang-tilegpu-to-llvm prints, for the
// bundled kernels, exactly the "tilegpu" and "llvm" stages that
// tilelang-compile --dump-ir keeps (the same passes, options and order).

// A bulk-copy (TMA) matmul on sm_90a with 3 stages: keep-bulk-copies is on.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tilelang-compile %S/../Target/PTX/matmul-bulk-copy.mlir --arch=sm_90a --num-warps=4 --num-stages=3 --dump-ir=%t/bulk -o /dev/null
// RUN: tilelang-opt %S/../Target/PTX/matmul-bulk-copy.mlir --tilelang-tile-to-tilegpu="num-warps=4 num-stages=3 target=sm_90a" -o %t/bulk.tilegpu.mlir
// RUN: diff %t/bulk.tilegpu.mlir %t/bulk/tilegpu.mlir
// RUN: tilelang-opt %t/bulk.tilegpu.mlir --tilelang-tilegpu-to-llvm -o %t/bulk.llvm.mlir
// RUN: diff %t/bulk.llvm.mlir %t/bulk/llvm.mlir

// A cp.async-pipelined mma.sync matmul on sm_80 with 4 stages and 8 warps.
// RUN: tilelang-compile %S/../Target/PTX/matmul-pipelined.mlir --arch=sm_80 --num-warps=8 --num-stages=4 --dump-ir=%t/mma -o /dev/null
// RUN: tilelang-opt %S/../Target/PTX/matmul-pipelined.mlir --tilelang-tile-to-tilegpu="num-warps=8 num-stages=4 target=sm_80" -o %t/mma.tilegpu.mlir
// RUN: diff %t/mma.tilegpu.mlir %t/mma/tilegpu.mlir
// RUN: tilelang-opt %t/mma.tilegpu.mlir --tilelang-tilegpu-to-llvm -o %t/mma.llvm.mlir
// RUN: diff %t/mma.llvm.mlir %t/mma/llvm.mlir

// A row softmax (no dot) at the defaults, with a register cap.
// RUN: tilelang-compile %S/../Target/PTX/softmax.mlir --maxnreg=64 --dump-ir=%t/softmax -o /dev/null
// RUN: tilelang-opt %S/../Target/PTX/softmax.mlir --tilelang-tile-to-tilegpu -o %t/softmax.tilegpu.mlir
// RUN: diff %t/softmax.tilegpu.mlir %t/softmax/tilegpu.mlir
// RUN: tilelang-opt %t/softmax.tilegpu.mlir --tilelang-tilegpu-to-llvm="max-registers=64" -o %t/softmax.llvm.mlir
// RUN: diff %t/softmax.llvm.mlir %t/softmax/llvm.mlir
