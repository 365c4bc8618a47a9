//===- TensorMapEncoding.cpp - the #tilegpu.tma attribute -----------------===//
//
// Part of tilelang. How the launcher encodes a tensor map for the kernel's
// bulk copies: the attribute's verifier (what cuTensorMapEncodeTiled and
// the launcher accept), the encoding that fills a swizzled shared tile, and
// the checks of the `tilegpu.tma` argument attribute against the
// descriptors and copies that use the map.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

/// The copy engine's limits: at most 5 dimensions of at most 256 elements,
/// rows of a multiple of 16 bytes.
static constexpr unsigned kMaxBoxRank = 5;
static constexpr int32_t kMaxBoxSize = 256;
static constexpr unsigned kBoxRowAlignment = 16;

LogicalResult
TensorMapEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              ArrayRef<int32_t> box, unsigned swizzle,
                              Type element) {
  if (box.empty() || box.size() > kMaxBoxRank)
    return emitError() << "box must have 1 to " << kMaxBoxRank
                       << " dimensions, got " << box.size();
  for (int32_t size : box)
    if (size < 1 || size > kMaxBoxSize)
      return emitError() << "box dimensions must be from 1 to " << kMaxBoxSize
                         << " elements, got " << size;
  // The launcher encodes 16-bit floats only (the operands of the products
  // that bulk copies feed).
  if (!element.isF16() && !element.isBF16())
    return emitError() << "elements must be f16 or bf16, got " << element;
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  int64_t rowBytes = int64_t(box.back()) * element.getIntOrFloatBitWidth() / 8;
  if (rowBytes % kBoxRowAlignment != 0)
    return emitError() << "the box's innermost dimension must span a multiple "
                          "of 16 bytes, got "
                       << rowBytes;
  if (swizzle != 0 && rowBytes > swizzle)
    return emitError() << "the box's innermost dimension (" << rowBytes
                       << " bytes) must fit in the swizzle span (" << swizzle
                       << " bytes)";
  return success();
}

TensorMapEncodingAttr
TensorMapEncodingAttr::getForTile(ArrayRef<int64_t> shape,
                                  SharedEncodingAttr layout, Type element) {
  // Rows along dimension 1 in 16-byte vectors, at most 256 of them, a
  // multiple of 8 (one swizzle pattern's rows).
  if (!layout || (!element.isF16() && !element.isBF16()) || shape.size() != 2 ||
      layout.getOrder()[0] != 1 || layout.getVec() != 8 || shape[0] % 8 != 0 ||
      shape[0] > kMaxBoxSize)
    return {};
  int64_t blockLength = getSwizzleBlockLength(layout, shape[1]);
  unsigned swizzle = unsigned(blockLength * 2);
  if (swizzle != 32 && swizzle != 64 && swizzle != 128)
    return {};
  // Each swizzle mode XORs 16-byte chunks by the row within 8 rows of 128
  // bytes (so 1, 2 or 4 rows per phase).
  if (layout.getPerPhase() * swizzle != 128 ||
      layout.getMaxPhase() * 16 != swizzle)
    return {};
  return get(layout.getContext(), {int32_t(shape[0]), int32_t(blockLength)},
             swizzle, element);
}

TensorMapEncodingAttr tilegpu::getTensorMapEncoding(Value map) {
  auto arg = dyn_cast<BlockArgument>(map);
  auto function =
      arg ? dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp())
          : FunctionOpInterface();
  if (!function || arg.getOwner() != &function.getFunctionBody().front())
    return {};
  return function.getArgAttrOfType<TensorMapEncodingAttr>(
      arg.getArgNumber(), TileGPUDialect::kTensorMapEncodingAttrName);
}

/// Checks the encoding `encoding` of the tensor map argument `map` against
/// the descriptors made from it: one box dimension per dimension of the
/// descriptor's tensor, and its element type.
static LogicalResult verifyTensorMapUses(Value map,
                                         TensorMapEncodingAttr encoding) {
  for (Operation *user : map.getUsers()) {
    auto desc = dyn_cast<tile::MakeTensorDescOp>(user);
    if (!desc || desc.getTensormap() != map)
      continue;
    RankedTensorType block = desc.getType().getBlockType();
    if (size_t(block.getRank()) != encoding.getBox().size())
      return desc.emitOpError("reads a tensor map whose box has ")
             << encoding.getBox().size()
             << " dimensions, but the descriptor's tensor has "
             << block.getRank();
    if (block.getElementType() != encoding.getElement())
      return desc.emitOpError("reads a tensor map encoded for ")
             << encoding.getElement() << " elements, but its blocks hold "
             << block.getElementType();
  }
  return success();
}

LogicalResult TileGPUDialect::verifyRegionArgAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned argIndex,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kTensorMapEncodingAttrName)
    return op->emitError("unknown tilegpu argument attribute '") << name << "'";
  auto encoding = dyn_cast<TensorMapEncodingAttr>(attr.getValue());
  if (!encoding)
    return op->emitError("'")
           << name << "' must be a #tilegpu.tma encoding, got "
           << attr.getValue();
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || regionIndex != 0)
    return op->emitError("'") << name << "' belongs on a function argument";
  Type type = function.getArgumentTypes()[argIndex];
  if (!isa<tile::TensorMapType>(type))
    return op->emitError("'")
           << name << "' belongs on a !tile.tensormap argument, got " << type;
  if (function.isExternal())
    return success();
  return verifyTensorMapUses(function.getArgument(argIndex), encoding);
}
