//===- TileOpUtils.h - helpers shared by the tile op files ------*- C++ -*-===//
//
// Part of tilelang. Small shape and constant predicates used by the verifiers
// and folders of several op families. Private to lib/Dialect/Tile/IR.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_DIALECT_TILE_IR_TILEOPUTILS_H
#define TILELANG_LIB_DIALECT_TILE_IR_TILEOPUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

namespace tilelang::tile::detail {

/// True when both types are scalars, or both are tensors of one shape.
inline bool haveSameShape(mlir::Type lhs, mlir::Type rhs) {
  auto lhsTensor = llvm::dyn_cast<mlir::RankedTensorType>(lhs);
  auto rhsTensor = llvm::dyn_cast<mlir::RankedTensorType>(rhs);
  if (!lhsTensor || !rhsTensor)
    return !lhsTensor && !rhsTensor;
  return lhsTensor.getShape() == rhsTensor.getShape();
}

/// True when both types have one shape and element type; their layout
/// encodings may differ (tilegpu ops change layouts along with shapes).
inline bool haveSameShapeAndElementType(mlir::Type lhs, mlir::Type rhs) {
  return haveSameShape(lhs, rhs) &&
         mlir::getElementTypeOrSelf(lhs) == mlir::getElementTypeOrSelf(rhs);
}

/// Prints a shape as `4x8` (or `scalar`) for diagnostics.
inline std::string formatShape(mlir::Type type) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor)
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(tensor.getShape(), os, "x");
  return text;
}

/// If `value` is a constant integer (or a splat of one), returns it.
inline std::optional<llvm::APInt> getConstantInt(mlir::Value value) {
  llvm::APInt result;
  if (mlir::matchPattern(value, mlir::m_ConstantInt(&result)))
    return result;
  return std::nullopt;
}

/// If a folded operand is a splat constant, returns it resized to `type`.
inline mlir::OpFoldResult resizeSplat(mlir::Attribute folded,
                                      mlir::Type type) {
  auto splat = llvm::dyn_cast_if_present<mlir::SplatElementsAttr>(folded);
  if (!splat)
    return {};
  return splat.resizeSplat(llvm::cast<mlir::ShapedType>(type));
}

} // namespace tilelang::tile::detail

#endif // TILELANG_LIB_DIALECT_TILE_IR_TILEOPUTILS_H
