//===- Pipeline.h - the tile IR -> PTX pass pipeline ------------*- C++ -*-===//
//
// Part of tilelang. The passes between tile IR and the LLVM dialect, in
// stages, shared by the library's compile() and documented in
// docs/architecture.md.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_COMPILER_PIPELINE_H
#define TILELANG_LIB_COMPILER_PIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace tilelang {

/// tile -> tilegpu: layouts for `numWarps`, coalescing, tensor-core dots,
/// conversion removal, and software pipelining with `numStages` buffers.
void buildTileGPUPipeline(mlir::OpPassManager &pm, unsigned numWarps,
                          unsigned numStages, const std::string &arch);

/// tilegpu -> LLVM + NVVM dialects; kernels capped at `maxRegisters` a
/// thread when it is not 0.
void buildLLVMPipeline(mlir::OpPassManager &pm, unsigned maxRegisters);

} // namespace tilelang

#endif // TILELANG_LIB_COMPILER_PIPELINE_H
