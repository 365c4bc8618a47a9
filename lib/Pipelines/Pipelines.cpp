//===- Pipelines.cpp - tilelang's named pass pipelines --------------------===//
//
// Part of tilelang. The passes from tile IR to the LLVM dialect, in two
// named stages (see Pipelines.h).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Pipelines/Pipelines.h"

#include "tilelang/Conversion/Passes.h"
#include "tilelang/Dialect/Tile/Transforms/Passes.h"
#include "tilelang/Dialect/TileGPU/Transforms/BulkCopies.h"
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tilelang {

void buildTileToTileGPUPipeline(OpPassManager &pm,
                                const TileToTileGPUPipelineOptions &options) {
  // Descriptor accesses become pointer loads and stores before layouts are
  // chosen, so that coalescing sees them; those that can become bulk
  // copies (TMA) stay where keepsBulkCopies says so.
  tile::TileExpandTensorDescriptorsOptions expandOptions;
  expandOptions.keepBulkCopies =
      tilegpu::keepsBulkCopies(options.target, options.numStages);
  pm.addPass(tile::createTileExpandTensorDescriptors(expandOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // On pointer loads (descriptor accesses expanded) and scf.for loops, before
  // layouts: the hints are attributes every later rewrite of a load keeps.
  if (options.l2ReuseHints)
    pm.addPass(tile::createTileL2ReuseHints());
  ConvertTileToTileGPUOptions layoutOptions;
  layoutOptions.numWarps = options.numWarps;
  layoutOptions.target = options.target;
  pm.addPass(createConvertTileToTileGPU(layoutOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tilegpu::createTileGPUCoalesce());
  pm.addPass(tilegpu::createTileGPUAccelerateMatmul());
  pm.addPass(tilegpu::createTileGPURemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  tilegpu::TileGPUPipelineOptions pipelineOptions;
  pipelineOptions.numStages = options.numStages;
  pipelineOptions.overlapProducts = options.overlapProducts;
  pm.addPass(tilegpu::createTileGPUPipeline(pipelineOptions));
  pm.addPass(tilegpu::createTileGPULowerDescriptorAccesses());
  // Last: once layouts are final, loop accumulators that are only reduced
  // shrink to one partial per thread.
  pm.addPass(tilegpu::createTileGPUAccumulatePerThread());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildTileGPUToLLVMPipeline(OpPassManager &pm,
                                const TileGPUToLLVMPipelineOptions &options) {
  pm.addPass(createSCFToControlFlowPass());
  ConvertTileGPUToLLVMOptions lowering;
  lowering.maxRegisters = options.maxRegisters;
  pm.addPass(createConvertTileGPUToLLVM(lowering));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // After the last CSE, which would merge the copies' arithmetic back.
  pm.addNestedPass<LLVM::LLVMFuncOp>(createRematerializePastLoops());
  // Last: barriers are judged on the final memory accesses.
  pm.addNestedPass<LLVM::LLVMFuncOp>(createRemoveRedundantBarriers());
}

void registerTileLangPipelines() {
  PassPipelineRegistration<TileToTileGPUPipelineOptions>(
      "tilelang-tile-to-tilegpu",
      "tile IR to tilegpu IR: layouts, coalescing, tensor-core dots, "
      "software pipelining (the compiler library's first stage)",
      buildTileToTileGPUPipeline);
  PassPipelineRegistration<TileGPUToLLVMPipelineOptions>(
      "tilelang-tilegpu-to-llvm",
      "tilegpu IR to the LLVM and NVVM dialects (the compiler library's "
      "second stage)",
      buildTileGPUToLLVMPipeline);
}

} // namespace tilelang
