//===- InitAllPasses.h - register tilelang's passes -------------*- C++ -*-===//
//
// Part of tilelang. Registers every pass that tilelang-opt and textual pass
// pipelines given to the compiler library may name.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_INITALLPASSES_H
#define TILELANG_INITALLPASSES_H

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Transforms/Passes.h"

#include "tilelang/Analysis/Passes.h"
#include "tilelang/Conversion/Passes.h"
#include "tilelang/Dialect/Tile/Transforms/Passes.h"
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"
#include "tilelang/Pipelines/Pipelines.h"

namespace tilelang {

/// Registers the upstream cleanup passes, tilelang's own passes and its
/// named pipelines.
inline void registerAllPasses() {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  mlir::registerInlinerPass();
  mlir::registerLoopInvariantCodeMotionPass();
  mlir::registerSCCPPass();
  // Upstream conversions the pipeline uses, registered one by one rather
  // than through mlir/Conversion/Passes.h, which pulls in every conversion.
  mlir::registerPass([] { return mlir::createSCFToControlFlowPass(); });
  mlir::registerPass([] { return mlir::createReconcileUnrealizedCastsPass(); });
  registerTileLangAnalysisPasses();
  registerTileLangConversionPasses();
  tile::registerTilePasses();
  tilegpu::registerTileGPUPasses();
  registerTileLangPipelines();
}

} // namespace tilelang

#endif // TILELANG_INITALLPASSES_H
