//===- BulkCopies.h - descriptor blocks moved by bulk copies ---*- C++ -*-===//
//
// Part of tilelang. The one place that decides whether a compile keeps
// descriptor accesses for bulk tensor copies (TMA), and the helpers the
// passes that make those copies share to record how each tensor map is
// encoded (#tilegpu.tma on the kernel argument).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_TRANSFORMS_BULKCOPIES_H
#define TILELANG_DIALECT_TILEGPU_TRANSFORMS_BULKCOPIES_H

#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "llvm/ADT/StringRef.h"

namespace tilelang::tilegpu {

/// Whether a compile for `target` with `numStages` pipeline stages keeps
/// the descriptor accesses that can become bulk tensor copies
/// (tile-expand-tensor-descriptors{keep-bulk-copies}) instead of expanding
/// them to pointer accesses: on sm_90 and newer, where the copy engine
/// exists, and with pipelining (num_stages >= 2), which is what fills
/// stages with bulk loads (tilegpu-pipeline). Without pipelining the loads
/// would only come back as pointer loads in their block's layout, after
/// coalescing has run. Kept stores become bulk stores at any num_stages
/// (tilegpu-lower-descriptor-accesses).
bool keepsBulkCopies(llvm::StringRef target, unsigned numStages);

/// The encoding with which bulk copies through the tensor map `map` can
/// fill a 2-D shared tile of `shape`, `layout` and `element`s: null when
/// the copy engine cannot produce that layout, when `map` is not a kernel
/// argument, or when the map is already encoded otherwise (for another
/// copy: one map has one encoding).
TensorMapEncodingAttr getBulkCopyEncoding(mlir::Value map,
                                          llvm::ArrayRef<int64_t> shape,
                                          SharedEncodingAttr layout,
                                          mlir::Type element);

/// Records on the tensor map argument `map` that the launcher encodes it
/// with `encoding` (its `tilegpu.tma` attribute).
void recordTensorMapEncoding(mlir::Value map, TensorMapEncodingAttr encoding);

} // namespace tilelang::tilegpu

#endif // TILELANG_DIALECT_TILEGPU_TRANSFORMS_BULKCOPIES_H
