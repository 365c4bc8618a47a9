//===- BulkCopies.cpp - where descriptor blocks move by bulk copies -------===//
//
// Part of tilelang. Decides whether a compile keeps descriptor accesses for
// bulk tensor copies, and records each tensor map's encoding on its kernel
// argument (see BulkCopies.h).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/Transforms/BulkCopies.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace tilelang::tilegpu;

bool tilelang::tilegpu::keepsBulkCopies(StringRef target, unsigned numStages) {
  return getComputeCapability(target) >= 90 && numStages >= 2;
}

/// The function whose argument `map` is, or null.
static FunctionOpInterface getArgumentOwner(Value map) {
  auto arg = dyn_cast<BlockArgument>(map);
  return arg ? dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())
             : FunctionOpInterface();
}

TensorMapEncodingAttr
tilelang::tilegpu::getBulkCopyEncoding(Value map, ArrayRef<int64_t> shape,
                                       SharedEncodingAttr layout,
                                       Type element) {
  if (!getArgumentOwner(map))
    return {};
  auto encoding = TensorMapEncodingAttr::getForTile(shape, layout, element);
  TensorMapEncodingAttr known = getTensorMapEncoding(map);
  return !known || known == encoding ? encoding : TensorMapEncodingAttr();
}

void tilelang::tilegpu::recordTensorMapEncoding(
    Value map, TensorMapEncodingAttr encoding) {
  getArgumentOwner(map).setArgAttr(cast<BlockArgument>(map).getArgNumber(),
                                   TileGPUDialect::kTensorMapEncodingAttrName,
                                   encoding);
}
