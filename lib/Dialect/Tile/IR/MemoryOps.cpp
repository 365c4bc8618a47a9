//===- MemoryOps.cpp - pointer, memory, atomic and cast ops ---------------===//
//
// Part of tilelang. Verifiers and folders of addptr, load, store, atomic_rmw,
// atomic_cas, bitcast, int_to_ptr and ptr_to_int.
//
//===----------------------------------------------------------------------===//

#include "TileOpUtils.h"
#include "tilelang/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace tilelang::tile;
using namespace tilelang::tile::detail;

//===----------------------------------------------------------------------===//
// AddPtrOp
//===----------------------------------------------------------------------===//

OpFoldResult AddPtrOp::fold(FoldAdaptor) {
  if (auto offset = getConstantInt(getOffset()); offset && offset->isZero())
    return getPtr();
  return {};
}

//===----------------------------------------------------------------------===//
// LoadOp and StoreOp
//===----------------------------------------------------------------------===//

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       GlobalMemory::get());
  // A volatile load must happen even when its value is unused, and must not
  // merge with another: model it as writing memory too.
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
}

/// PTX has no access with both a cache operator and an eviction priority.
static LogicalResult verifyCacheHints(Operation *op, CacheModifier cache,
                                      EvictionPolicy evict) {
  if (cache != CacheModifier::None && evict != EvictionPolicy::Normal)
    return op->emitOpError("cannot combine cache modifier '")
           << stringifyCacheModifier(cache) << "' with eviction policy '"
           << stringifyEvictionPolicy(evict) << "'";
  return success();
}

LogicalResult LoadOp::verify() {
  // The generic form can give the pointer group more than one operand.
  unsigned expected = 1 + (getMask() ? 1 : 0) + (getOther() ? 1 : 0);
  if (getOperation()->getNumOperands() != expected)
    return emitOpError("takes one pointer, an optional mask and an optional "
                       "'other' (operandSegmentSizes is malformed)");
  if (getOther() && !getMask())
    return emitOpError("'other' requires a 'mask'");
  if (failed(verifyCacheHints(*this, getCache(), getEvict())))
    return failure();
  // PTX's ld.volatile takes neither (ptxas rejects the instruction).
  if (getIsVolatile() && (getCache() != CacheModifier::None ||
                          getEvict() != EvictionPolicy::Normal))
    return emitOpError("a volatile load takes no cache modifier or eviction "
                       "policy");
  switch (getCache()) {
  case CacheModifier::WB:
  case CacheModifier::WT:
    return emitOpError("cache modifier '")
           << stringifyCacheModifier(getCache()) << "' applies to stores only";
  default:
    return success();
  }
}

LogicalResult StoreOp::verify() {
  if (failed(verifyCacheHints(*this, getCache(), getEvict())))
    return failure();
  switch (getCache()) {
  case CacheModifier::CA:
  case CacheModifier::CV:
    return emitOpError("cache modifier '")
           << stringifyCacheModifier(getCache()) << "' applies to loads only";
  default:
    return success();
  }
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// The element type an atomic op operates on.
static Type getAtomicElementType(Value ptr) {
  return getElementTypeOrSelf(getPointeeType(ptr.getType()));
}

LogicalResult AtomicRMWOp::verify() {
  Type element = getAtomicElementType(getPtr());
  unsigned width = getElementBitWidth(element);
  bool isFloat = isa<FloatType>(element);
  bool isInt = isa<IntegerType>(element);
  bool ok = false;
  StringRef expected;
  switch (getKind()) {
  case RMWKind::FAdd:
    ok = isFloat && (element.isF16() || element.isBF16() || width == 32 ||
                     width == 64);
    expected = "f16, bf16, f32 or f64";
    break;
  case RMWKind::Add:
  case RMWKind::And:
  case RMWKind::Or:
  case RMWKind::Xor:
  case RMWKind::UMax:
  case RMWKind::UMin:
    ok = isInt && (width == 32 || width == 64);
    expected = "i32 or i64";
    break;
  case RMWKind::Max:
  case RMWKind::Min:
    ok = (isInt || isFloat) && (width == 32 || width == 64);
    expected = "i32, i64, f32 or f64";
    break;
  case RMWKind::Xchg:
    ok = (isInt || isFloat) && (width == 32 || width == 64);
    expected = "32- or 64-bit integer or float";
    break;
  }
  if (!ok)
    return emitOpError("'")
           << stringifyRMWKind(getKind()) << "' needs " << expected
           << " elements, got " << element;
  return success();
}

LogicalResult AtomicCASOp::verify() {
  Type element = getAtomicElementType(getPtr());
  unsigned width = getElementBitWidth(element);
  if (isa<PointerType>(element) || (width != 16 && width != 32 && width != 64))
    return emitOpError("needs 16-, 32- or 64-bit integer or float elements, "
                       "got ")
           << element;
  return success();
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

LogicalResult BitcastOp::verify() {
  // Shapes are equal (Elementwise).
  Type srcType = getSrc().getType(), resultType = getType();
  unsigned srcWidth = getElementBitWidth(getElementTypeOrSelf(srcType));
  unsigned resultWidth = getElementBitWidth(getElementTypeOrSelf(resultType));
  if (srcWidth != resultWidth)
    return emitOpError("source elements have ")
           << srcWidth << " bits but result elements have " << resultWidth;
  return success();
}

/// Verifies a conversion between i64 addresses and pointers (of one
/// shape: Elementwise).
static LogicalResult verifyAddressCast(Operation *op, Type intLike) {
  if (!getElementTypeOrSelf(intLike).isInteger(64))
    return op->emitOpError("addresses must be i64, got ")
           << getElementTypeOrSelf(intLike);
  return success();
}

LogicalResult IntToPtrOp::verify() {
  return verifyAddressCast(*this, getSrc().getType());
}

LogicalResult PtrToIntOp::verify() {
  return verifyAddressCast(*this, getType());
}
