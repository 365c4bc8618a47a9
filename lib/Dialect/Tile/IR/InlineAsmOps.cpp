//===- InlineAsmOps.cpp - elementwise inline assembly ---------------------===//
//
// Part of tilelang. The verifier and memory effects of
// tile.elementwise_inline_asm (tl.inline_asm_elementwise).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tilelang::tile;

/// The registers one run of the assembly gives an operand or result of
/// `elementType`: `pack` elements, those narrower than 32 bits sharing
/// 32-bit registers (the lowering passes them as vectors).
static int64_t registersPerRun(Type elementType, int64_t pack) {
  unsigned bits = elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 64;
  int64_t perRegister = bits < 32 ? std::min<int64_t>(32 / bits, pack) : 1;
  return llvm::divideCeil(pack, perRegister);
}

LogicalResult ElementwiseInlineAsmOp::verify() {
  int64_t pack = getPack();
  if (pack < 1 || !llvm::isPowerOf2_64(pack))
    return emitOpError("pack must be a power of 2, got ") << pack;
  if (getResults().empty())
    return emitOpError("needs at least one result");
  // The tensors have one shape (Elementwise); they also need one layout.
  std::optional<ArrayRef<int64_t>> shape;
  Attribute encoding;
  bool anyScalar = false;
  int64_t registers = 0;
  for (Type type : llvm::concat<Type>(getArgs().getTypes(), getResults().getTypes())) {
    Type element = getElementTypeOrSelf(type);
    if (!element.isIntOrFloat() || element.isInteger(1))
      return emitOpError("takes integer and floating-point elements (not i1 or "
                         "pointers), got ")
             << type;
    registers += registersPerRun(element, pack);
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor) {
      anyScalar = true;
      continue;
    }
    // The lowering pairs the i-th element a thread holds of every operand
    // and result: they must be laid out alike.
    if (shape && encoding != tensor.getEncoding())
      return emitOpError("operands and results must have one layout, got ") << type;
    shape = tensor.getShape();
    encoding = tensor.getEncoding();
  }
  if (shape && anyScalar)
    return emitOpError("mixes scalars and tensors; broadcast the scalars");
  if (!shape && pack != 1)
    return emitOpError("on scalars packs one element, got pack = ") << pack;
  if (shape && ShapedType::getNumElements(*shape) % pack != 0)
    return emitOpError("pack (") << pack << ") must divide the element count";
  StringRef constraints = getConstraints();
  int64_t listed = constraints.empty() ? 0 : llvm::count(constraints, ',') + 1;
  if (listed != registers)
    return emitOpError("constraints list ")
           << listed << " registers, but the operands and results take "
           << registers << " per run (pack " << pack << ")";
  return success();
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
}
