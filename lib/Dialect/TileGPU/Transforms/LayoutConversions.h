//===- LayoutConversions.h - the halves of conversion removal ---*- C++ -*-===//
//
// Part of tilelang. What tilegpu-remove-layout-conversions is made of:
// moving tensor-core layouts forward (LayoutPropagation.cpp), recomputing
// cheap values backward (RemoveLayoutConversions.cpp), and the cost that
// decides between them.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_DIALECT_TILEGPU_TRANSFORMS_LAYOUTCONVERSIONS_H
#define TILELANG_LIB_DIALECT_TILEGPU_TRANSFORMS_LAYOUTCONVERSIONS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

namespace tilelang::tilegpu {

/// Whether `op` computes each result element from the operand elements at
/// the same coordinates, so that it runs in any layout and can be
/// recomputed: a pure op with MLIR's `Elementwise` trait and one tensor
/// result.
bool isElementwiseTensorOp(mlir::Operation *op);

/// Gives the users of every tensor-core result (mma and wgmma accumulators)
/// its layout, forward through elementwise ops, reductions (the layout's
/// slice), expand_dims, broadcasts, conversions and the values that scf.for
/// and scf.if carry, converting where a user needs another layout.
void propagateLayoutsForward(mlir::Operation *root);

/// Replaces conversions of values computed from scalars by cheap ops by
/// recomputing them in the target layout, then folds chained and no-op
/// conversions.
mlir::LogicalResult removeCheapConversions(mlir::Operation *root);

/// What the conversions under `root` that move data between threads cost:
/// their bytes, weighted by 8 per enclosing loop.
int64_t estimateConversionCost(mlir::Operation *root);

} // namespace tilelang::tilegpu

#endif // TILELANG_LIB_DIALECT_TILEGPU_TRANSFORMS_LAYOUTCONVERSIONS_H
