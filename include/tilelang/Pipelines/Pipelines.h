//===- Pipelines.h - tilelang's named pass pipelines ------------*- C++ -*-===//
//
// Part of tilelang. The two pass pipelines between tile IR and the LLVM
// dialect, defined once: the compiler library builds them, tilelang-opt
// registers them by name (tilelang-tile-to-tilegpu, tilelang-tilegpu-to-llvm)
// for lit tests and reproducers, and docs/lowering.md lists their passes.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_PIPELINES_PIPELINES_H
#define TILELANG_PIPELINES_PIPELINES_H

#include "tilelang/Support/LaunchDefaults.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace tilelang {

/// Options of tilelang-tile-to-tilegpu: the launch options that decide the
/// tilegpu program. The defaults are the passes' own.
struct TileToTileGPUPipelineOptions
    : public mlir::PassPipelineOptions<TileToTileGPUPipelineOptions> {
  Option<unsigned> numWarps{*this, "num-warps",
                            llvm::cl::desc("Warps per CTA"),
                            llvm::cl::init(kDefaultNumWarps)};
  Option<unsigned> numStages{
      *this, "num-stages",
      llvm::cl::desc("Shared-memory buffers per pipelined load"),
      llvm::cl::init(kDefaultNumStages)};
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("Target GPU, e.g. sm_80 or sm_90a"),
                             llvm::cl::init("sm_90a")};
  Option<bool> l2ReuseHints{
      *this, "l2-reuse-hints",
      llvm::cl::desc("L2 priorities for global data a program reads again "
                     "in a later loop (tile-l2-reuse-hints)"),
      llvm::cl::init(true)};
  Option<bool> overlapProducts{
      *this, "overlap-products",
      llvm::cl::desc("tilegpu-pipeline issues the first of two dependent "
                     "products one iteration ahead where it can"),
      llvm::cl::init(false)};
};

/// Options of tilelang-tilegpu-to-llvm.
struct TileGPUToLLVMPipelineOptions
    : public mlir::PassPipelineOptions<TileGPUToLLVMPipelineOptions> {
  Option<unsigned> maxRegisters{
      *this, "max-registers",
      llvm::cl::desc("Registers a thread may use at most (PTX .maxnreg); 0 "
                     "leaves it to ptxas and the occupancy floor"),
      llvm::cl::init(0)};
};

/// tile -> tilegpu: descriptor expansion, layouts for `numWarps`,
/// coalescing, tensor-core dots, conversion removal, software pipelining
/// with `numStages` buffers, per-thread accumulation.
void buildTileToTileGPUPipeline(mlir::OpPassManager &pm,
                                const TileToTileGPUPipelineOptions &options);

/// tilegpu -> LLVM + NVVM dialects.
void buildTileGPUToLLVMPipeline(mlir::OpPassManager &pm,
                                const TileGPUToLLVMPipelineOptions &options);

/// Registers both pipelines by name for textual pass pipelines.
void registerTileLangPipelines();

} // namespace tilelang

#endif // TILELANG_PIPELINES_PIPELINES_H
