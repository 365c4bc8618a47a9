//===- Pipeline.cpp - the tile IR -> PTX pass pipeline --------------------===//
//
// Part of tilelang. Assembles the pass pipeline stage by stage.
//
//===----------------------------------------------------------------------===//

#include "Pipeline.h"

#include "tilelang/Conversion/Passes.h"
#include "tilelang/Dialect/Tile/Transforms/Passes.h"
#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tilelang {

void buildTileGPUPipeline(OpPassManager &pm, unsigned numWarps,
                          unsigned numStages, const std::string &arch) {
  // Descriptor accesses become pointer loads and stores before layouts are
  // chosen, so that coalescing sees them.
  // On sm_90 the pipeline copies descriptor blocks that feed tl.dot, and
  // stored blocks, in bulk (TMA); those stay descriptor accesses.
  tile::TileExpandTensorDescriptorsOptions expandOptions;
  expandOptions.keepBulkCopies =
      tilegpu::getComputeCapability(arch) >= 90 && numStages >= 2;
  pm.addPass(tile::createTileExpandTensorDescriptors(expandOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  ConvertTileToTileGPUOptions options;
  options.numWarps = numWarps;
  options.target = arch;
  pm.addPass(createConvertTileToTileGPU(options));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(tilegpu::createTileGPUCoalesce());
  pm.addPass(tilegpu::createTileGPUAccelerateMatmul());
  pm.addPass(tilegpu::createTileGPURemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  tilegpu::TileGPUPipelineOptions pipelineOptions;
  pipelineOptions.numStages = numStages;
  pm.addPass(tilegpu::createTileGPUPipeline(pipelineOptions));
  // Last: once layouts are final, loop accumulators that are only reduced
  // shrink to one partial per thread.
  pm.addPass(tilegpu::createTileGPUAccumulatePerThread());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void buildLLVMPipeline(OpPassManager &pm, unsigned maxRegisters) {
  pm.addPass(createSCFToControlFlowPass());
  ConvertTileGPUToLLVMOptions options;
  options.maxRegisters = maxRegisters;
  pm.addPass(createConvertTileGPUToLLVM(options));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

} // namespace tilelang
