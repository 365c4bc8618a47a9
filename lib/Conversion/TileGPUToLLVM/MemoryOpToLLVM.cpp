//===- MemoryOpToLLVM.cpp - global loads and stores -----------------------===//
//
// Part of tilelang. Lowers tile.load and tile.store. Each thread's elements
// are grouped into vectors as wide as the layout keeps contiguous, the
// pointers' alignment allows (axis info) and the mask stays uniform, up to
// 16 bytes. Unmasked accesses are plain vector loads and stores; masked
// ones and those with cache hints are predicated PTX (`@p ld.global...`).
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

/// How one memory op is split into vector accesses.
struct AccessPlan {
  unsigned vectorWidth = 1;   // elements per access
  unsigned elementBits = 8;   // bits per element in memory
  Type memoryElementType;     // element type in memory (i1 -> i8)
  bool useAsm = false;        // inline PTX (see planGlobalAccess)

  unsigned totalBits() const { return vectorWidth * elementBits; }
};

AccessPlan planAccess(const ModuleAxisInfo &axisInfo, Value ptr, Value mask,
                      Type llvmElementType) {
  AccessPlan plan;
  plan.memoryElementType = llvmElementType.isInteger(1)
                               ? IntegerType::get(ptr.getContext(), 8)
                               : getStorageType(llvmElementType);
  plan.elementBits =
      isa<LLVM::LLVMPointerType>(llvmElementType)
          ? 64
          : std::max(8u, plan.memoryElementType.getIntOrFloatBitWidth());
  if (!isa<RankedTensorType>(ptr.getType()))
    return plan;
  unsigned dim = getFastestDim(ptr.getType());
  unsigned width = std::min(
      getContiguousPerThread(ptr.getType()),
      axisInfo.getPointerVectorWidth(ptr, dim, plan.elementBits / 8));
  width = std::min(width, axisInfo.getMaskConstancy(mask, dim));
  width = std::min(width, 128 / plan.elementBits);
  plan.vectorWidth = std::max(1u, width);
  return plan;
}

/// The plan of a tile.load or tile.store: its pointers' and mask's vector
/// accesses, through inline PTX when it is masked or carries a cache
/// modifier or an eviction policy (LLVM's load and store have neither).
template <typename OpTy>
AccessPlan planGlobalAccess(const ModuleAxisInfo &axisInfo, OpTy op,
                            Type llvmElementType) {
  AccessPlan plan =
      planAccess(axisInfo, op.getPtr(), op.getMask(), llvmElementType);
  plan.useAsm = op.getMask() || op.getCache() != tile::CacheModifier::None ||
                op.getEvict() != tile::EvictionPolicy::Normal;
  return plan;
}

/// What the lowerings of tile.load and tile.store start from: this
/// thread's pointer and mask elements (no masks where the op has none), the
/// LLVM element type of the data and the plan of the vector accesses.
struct GlobalAccess {
  Type llvmElementType;
  unsigned count = 0;
  SmallVector<Value> ptrs, masks;
  AccessPlan plan;

  /// The predicate of the access that starts at element `first`: its mask
  /// element, or true where the op is unmasked.
  Value predicate(OpBuilder &b, Location loc, unsigned first) const {
    if (!masks.empty())
      return masks[first];
    return LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
  }
};

/// The GlobalAccess of `op`, whose data (loaded or stored) has `dataType`.
template <typename OpTy, typename AdaptorTy>
GlobalAccess prepareGlobalAccess(ConversionPatternRewriter &rewriter,
                                 const TypeConverter &converter,
                                 const ModuleAxisInfo &axisInfo, OpTy op,
                                 AdaptorTy adaptor, Type dataType) {
  Location loc = op.getLoc();
  GlobalAccess access;
  access.llvmElementType =
      converter.convertType(getElementTypeOrSelf(dataType));
  access.count = getTotalElemsPerThread(dataType);
  access.ptrs = getElements(rewriter, loc, adaptor.getPtr(),
                            op.getPtr().getType(), access.count);
  if (op.getMask())
    access.masks = getElements(rewriter, loc, adaptor.getMask(),
                               op.getMask().getType(), access.count);
  access.plan = planGlobalAccess(axisInfo, op, access.llvmElementType);
  return access;
}

/// Registers of `bits` for inline PTX: their constraint letter and type.
struct RegisterKind {
  unsigned bits;
  StringRef constraint;

  /// The PTX type of one access of `totalBits` through these registers:
  /// `u8` for a byte in a 16-bit register, else `b16` or `b32`.
  std::string accessType(unsigned totalBits) const {
    return totalBits < bits ? llvm::formatv("u{0}", totalBits).str()
                            : "b" + std::to_string(bits);
  }
};
RegisterKind getRegisterKind(unsigned totalBits) {
  if (totalBits >= 32)
    return {32, "r"};
  return {16, "h"}; // 8- and 16-bit values travel in 16-bit registers
}

/// Packs `elements` (memory-typed) into `count` integer words of `bits`.
SmallVector<Value> toWords(OpBuilder &b, Location loc, ArrayRef<Value> elements,
                           Type memoryType, unsigned bits, unsigned count) {
  unsigned elementBits = memoryType.getIntOrFloatBitWidth();
  auto vectorType = VectorType::get({int64_t(elements.size())}, memoryType);
  Value vector = LLVM::UndefOp::create(b, loc, vectorType);
  for (auto [index, element] : llvm::enumerate(elements))
    vector = LLVM::InsertElementOp::create(b, loc, vector, element,
                                           i32Constant(b, loc, index));
  unsigned totalBits = elementBits * elements.size();
  if (totalBits < bits) {
    // A single 8-bit element widened into a 16-bit register.
    Value narrow = LLVM::BitcastOp::create(b, loc, b.getIntegerType(totalBits),
                                           vector);
    return {LLVM::ZExtOp::create(b, loc, b.getIntegerType(bits), narrow)};
  }
  auto wordsType = VectorType::get({int64_t(count)}, b.getIntegerType(bits));
  Value words = LLVM::BitcastOp::create(b, loc, wordsType, vector);
  SmallVector<Value> result;
  for (unsigned index = 0; index < count; ++index)
    result.push_back(LLVM::ExtractElementOp::create(b, loc, words,
                                                    i32Constant(b, loc, index)));
  return result;
}

/// The inverse of toWords.
SmallVector<Value> fromWords(OpBuilder &b, Location loc, ArrayRef<Value> words,
                             Type memoryType, unsigned elementCount) {
  unsigned elementBits = memoryType.getIntOrFloatBitWidth();
  unsigned totalBits = elementBits * elementCount;
  auto vectorType = VectorType::get({int64_t(elementCount)}, memoryType);
  Value vector;
  unsigned wordBits = words.front().getType().getIntOrFloatBitWidth();
  if (totalBits < wordBits) {
    Value narrow = LLVM::TruncOp::create(b, loc, b.getIntegerType(totalBits),
                                         words.front());
    vector = LLVM::BitcastOp::create(b, loc, vectorType, narrow);
  } else {
    auto wordsType =
        VectorType::get({int64_t(words.size())}, words.front().getType());
    Value packed = LLVM::UndefOp::create(b, loc, wordsType);
    for (auto [index, word] : llvm::enumerate(words))
      packed = LLVM::InsertElementOp::create(b, loc, packed, word,
                                             i32Constant(b, loc, index));
    vector = LLVM::BitcastOp::create(b, loc, vectorType, packed);
  }
  SmallVector<Value> elements;
  for (unsigned index = 0; index < elementCount; ++index)
    elements.push_back(LLVM::ExtractElementOp::create(
        b, loc, vector, i32Constant(b, loc, index)));
  return elements;
}

/// PTX suffixes for cache and eviction hints.
std::string cacheSuffix(tile::CacheModifier cache) {
  if (cache == tile::CacheModifier::None)
    return "";
  return "." + tile::stringifyCacheModifier(cache).str();
}
std::string evictSuffix(tile::EvictionPolicy evict) {
  switch (evict) {
  case tile::EvictionPolicy::Normal:
    return "";
  case tile::EvictionPolicy::EvictFirst:
    return ".L1::evict_first";
  case tile::EvictionPolicy::EvictLast:
    return ".L1::evict_last";
  }
  return "";
}

/// The L2 cache policy of an eviction policy on a global access, as Triton
/// gives it: createpolicy.fractional.L2::evict_first/evict_last over the
/// whole access (fraction 1.0), passed to the access with .L2::cache_hint
/// beside its .L1:: priority. Null where there is none (the normal policy,
/// volatile accesses, other state spaces). The createpolicy has no side
/// effects, so LLVM may merge equal ones and hoist them out of loops.
Value l2CachePolicy(OpBuilder &b, Location loc, tile::EvictionPolicy evict,
                    StringRef space, bool isVolatile) {
  if (evict == tile::EvictionPolicy::Normal || space != ".global" || isVolatile)
    return {};
  StringRef level =
      evict == tile::EvictionPolicy::EvictFirst ? "evict_first" : "evict_last";
  return emitInlineAsm(
             b, loc, b.getI64Type(), ValueRange{},
             llvm::formatv("createpolicy.fractional.L2::{0}.b64 $0, 1.0;",
                           level)
                 .str(),
             "=l", /*hasSideEffects=*/false)
      .getResult(0);
}

/// The PTX state space of a tile pointer: .global, .shared or generic.
std::string stateSpace(Type ptrLike) {
  auto pointer = cast<tile::PointerType>(getElementTypeOrSelf(ptrLike));
  switch (pointer.getAddressSpace()) {
  case 1:
    return ".global";
  case 3:
    return ".shared";
  default:
    return "";
  }
}

/// "{ $a, $b, ... }" (or "$a" for one operand) for operands first..first+n.
std::string operandList(unsigned first, unsigned count) {
  if (count == 1)
    return llvm::formatv("${0}", first).str();
  std::string text = "{ ";
  for (unsigned index = 0; index < count; ++index)
    text += llvm::formatv("{0}${1}", index ? ", " : "", first + index).str();
  return text + " }";
}

Value toMemory(OpBuilder &b, Location loc, Value element, Type memoryType) {
  if (element.getType().isInteger(1))
    return LLVM::ZExtOp::create(b, loc, memoryType, element);
  return toStorage(b, loc, element);
}

Value fromMemory(OpBuilder &b, Location loc, Value element, Type llvmType) {
  if (llvmType.isInteger(1))
    return LLVM::ICmpOp::create(
        b, loc, LLVM::ICmpPredicate::ne, element,
        LLVM::ConstantOp::create(b, loc, element.getType(),
                                 b.getIntegerAttr(element.getType(), 0)));
  return fromStorage(b, loc, element, llvmType);
}

/// The base of the tile.load and tile.store lowerings: both plan their
/// vector accesses from the module's axis info.
template <typename OpTy>
struct GlobalAccessLowering : public ConvertOpToLLVMPattern<OpTy> {
  GlobalAccessLowering(TileGPUTypeConverter &converter,
                       const ModuleAxisInfo &axisInfo)
      : ConvertOpToLLVMPattern<OpTy>(converter), axisInfo(axisInfo) {}

  const ModuleAxisInfo &axisInfo;
};

/// tile.load -> vector loads, predicated where masked.
struct LoadLowering : public GlobalAccessLowering<tile::LoadOp> {
  using GlobalAccessLowering::GlobalAccessLowering;

  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = op.getType();
    GlobalAccess access = prepareGlobalAccess(
        rewriter, *getTypeConverter(), axisInfo, op, adaptor, resultType);
    Type llvmElementType = access.llvmElementType;
    unsigned count = access.count;
    ArrayRef<Value> ptrs = access.ptrs;
    SmallVector<Value> others;
    if (op.getOther())
      others = getElements(rewriter, loc, adaptor.getOther(),
                           op.getOther().getType(), count);
    const AccessPlan &plan = access.plan;
    unsigned vec = plan.vectorWidth;
    Type memoryType = plan.memoryElementType;
    unsigned totalBits = plan.totalBits();
    bool useAsm = plan.useAsm;

    Value policy = useAsm ? l2CachePolicy(rewriter, loc, op.getEvict(),
                                          stateSpace(op.getPtr().getType()),
                                          op.getIsVolatile())
                          : Value();
    SmallVector<Value> results;
    for (unsigned first = 0; first < count; first += vec) {
      SmallVector<Value> loaded;
      if (!useAsm) {
        auto vectorType = VectorType::get({int64_t(vec)}, memoryType);
        Value vector = LLVM::LoadOp::create(
            rewriter, loc, vectorType, ptrs[first], totalBits / 8,
            op.getIsVolatile());
        for (unsigned index = 0; index < vec; ++index)
          loaded.push_back(LLVM::ExtractElementOp::create(
              rewriter, loc, vector, i32Constant(rewriter, loc, index)));
      } else {
        RegisterKind reg = getRegisterKind(totalBits);
        unsigned words = std::max(1u, totalBits / reg.bits);
        Type wordType = rewriter.getIntegerType(reg.bits);
        // Registers start as `other` (or 0), then the predicated load.
        SmallVector<Value> operands;
        std::string constraints, text;
        for (unsigned index = 0; index < words; ++index)
          constraints += llvm::formatv("=&{0},", reg.constraint).str();
        operands.push_back(ptrs[first]);
        constraints += "l,b";
        operands.push_back(access.predicate(rewriter, loc, first));
        SmallVector<Value> otherWords;
        if (op.getOther()) {
          SmallVector<Value> group;
          for (unsigned index = 0; index < vec; ++index)
            group.push_back(
                toMemory(rewriter, loc, others[first + index], memoryType));
          otherWords = toWords(rewriter, loc, group, memoryType, reg.bits, words);
        }
        std::string movType = reg.bits == 32 ? "b32" : "b16";
        for (unsigned index = 0; index < words; ++index) {
          if (op.getOther()) {
            text += llvm::formatv("mov.{0} ${1}, ${2};\n", movType, index,
                                  words + 2 + index)
                        .str();
            operands.push_back(otherWords[index]);
            constraints += "," + reg.constraint.str();
          } else {
            text += llvm::formatv("mov.{0} ${1}, 0;\n", movType, index).str();
          }
        }
        std::string width = reg.accessType(totalBits);
        // The L2 policy is the last operand (after the `words` results).
        std::string hint, hintOperand;
        if (policy) {
          hint = ".L2::cache_hint";
          hintOperand = llvm::formatv(", ${0}", words + operands.size()).str();
          operands.push_back(policy);
          constraints += ",l";
        }
        text += llvm::formatv(
                    "@${0} ld{1}{8}{2}{3}{9}{4}.{5} {6}, [ ${7} + 0 ]{10};",
                    words + 1, op.getIsVolatile() ? ".volatile" : "",
                    cacheSuffix(op.getCache()), evictSuffix(op.getEvict()),
                    words > 1 ? llvm::formatv(".v{0}", words).str() : "", width,
                    operandList(0, words), words,
                    stateSpace(op.getPtr().getType()), hint, hintOperand)
                    .str();
        auto asmOp = emitInlineAsm(rewriter, loc,
                                   SmallVector<Type>(words, wordType), operands,
                                   text, constraints);
        SmallVector<Value> wordValues =
            words == 1 ? SmallVector<Value>{asmOp.getResult(0)}
                       : unpackStruct(rewriter, loc, asmOp.getResult(0));
        loaded = fromWords(rewriter, loc, wordValues, memoryType, vec);
      }
      for (Value element : loaded)
        results.push_back(fromMemory(rewriter, loc, element, llvmElementType));
    }
    // A volatile scalar is one value per program, but each warp's load may
    // see another write of it (a counter other programs update): thread 0's
    // is shared, so that control flow on it stays uniform.
    if (op.getIsVolatile() && !isa<RankedTensorType>(resultType)) {
      rewriter.replaceOp(
          op, broadcastFromOwner(rewriter, loc, op, results.front()));
      return success();
    }
    replaceWithElements(rewriter, op, resultType, results,
                        *getTypeConverter());
    return success();
  }
};

/// tile.store -> vector stores, predicated where masked.
struct StoreLowering : public GlobalAccessLowering<tile::StoreOp> {
  using GlobalAccessLowering::GlobalAccessLowering;

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type valueType = op.getValue().getType();
    GlobalAccess access = prepareGlobalAccess(
        rewriter, *getTypeConverter(), axisInfo, op, adaptor, valueType);
    unsigned count = access.count;
    ArrayRef<Value> ptrs = access.ptrs;
    SmallVector<Value> values =
        getElements(rewriter, loc, adaptor.getValue(), valueType, count);
    const AccessPlan &plan = access.plan;
    unsigned vec = plan.vectorWidth;
    Type memoryType = plan.memoryElementType;
    unsigned totalBits = plan.totalBits();
    bool useAsm = plan.useAsm;

    Value policy = useAsm ? l2CachePolicy(rewriter, loc, op.getEvict(),
                                          stateSpace(op.getPtr().getType()),
                                          /*isVolatile=*/false)
                          : Value();
    for (unsigned first = 0; first < count; first += vec) {
      SmallVector<Value> group;
      for (unsigned index = 0; index < vec; ++index)
        group.push_back(toMemory(rewriter, loc, values[first + index],
                                 memoryType));
      if (!useAsm) {
        auto vectorType = VectorType::get({int64_t(vec)}, memoryType);
        Value vector = LLVM::UndefOp::create(rewriter, loc, vectorType);
        for (auto [index, element] : llvm::enumerate(group))
          vector = LLVM::InsertElementOp::create(
              rewriter, loc, vector, element,
              i32Constant(rewriter, loc, index));
        LLVM::StoreOp::create(rewriter, loc, vector, ptrs[first],
                              totalBits / 8);
        continue;
      }
      RegisterKind reg = getRegisterKind(totalBits);
      unsigned words = std::max(1u, totalBits / reg.bits);
      SmallVector<Value> wordValues =
          toWords(rewriter, loc, group, memoryType, reg.bits, words);
      SmallVector<Value> operands{ptrs[first]};
      std::string constraints = "l";
      for (Value word : wordValues) {
        operands.push_back(word);
        constraints += "," + reg.constraint.str();
      }
      operands.push_back(access.predicate(rewriter, loc, first));
      constraints += ",b";
      // The L2 policy is the last operand.
      std::string hint, hintOperand;
      if (policy) {
        hint = ".L2::cache_hint";
        hintOperand = llvm::formatv(", ${0}", operands.size()).str();
        operands.push_back(policy);
        constraints += ",l";
      }
      std::string width = reg.accessType(totalBits);
      std::string text =
          llvm::formatv("@${0} st{6}{1}{2}{7}{3}.{4} [ $0 + 0 ], {5}{8};",
                        words + 1, cacheSuffix(op.getCache()),
                        evictSuffix(op.getEvict()),
                        words > 1 ? llvm::formatv(".v{0}", words).str() : "",
                        width, operandList(1, words),
                        stateSpace(op.getPtr().getType()), hint, hintOperand)
              .str();
      emitInlineAsm(rewriter, loc, TypeRange{}, operands, text, constraints);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilelang::lowering::populateMemoryOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns,
    const ModuleAxisInfo &axisInfo) {
  patterns.add<LoadLowering, StoreLowering>(converter, axisInfo);
}
