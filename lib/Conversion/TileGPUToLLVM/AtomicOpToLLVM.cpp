//===- AtomicOpToLLVM.cpp - atomic read-modify-write and CAS --------------===//
//
// Part of tilelang. Lowers tile.atomic_rmw and tile.atomic_cas to predicated
// PTX `atom` instructions, one per element. Each element is updated by one
// thread only: threads holding replicas (layouts larger than the tensor,
// scalar pointers) are masked off, and a scalar atomic's old value is
// shared with every thread through shared memory. Float max/min, which
// PTX lacks before sm_90, use the ordering of IEEE bit patterns: signed
// integer max for non-negative values, unsigned min for negative ones.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

std::string semanticSuffix(tile::MemSemantic sem) {
  return "." + tile::stringifyMemSemantic(sem).str();
}
std::string scopeSuffix(tile::MemScope scope) {
  return "." + tile::stringifyMemScope(scope).str();
}

Value i1Constant(OpBuilder &b, Location loc, bool value) {
  return LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(value));
}

/// True in the one thread that owns each element of a tensor of `type`
/// (lanes and warps beyond the tensor's extent hold replicas).
Value emitOwnerPredicate(OpBuilder &b, Location loc, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) // scalars: thread 0
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                getThreadId(b, loc), i32Constant(b, loc, 0));
  Attribute layout = tensor.getEncoding();
  SmallVector<int64_t> shape(tensor.getShape());
  auto slice = dyn_cast<SliceEncodingAttr>(layout);
  if (slice) {
    shape.insert(shape.begin() + slice.getDim(), 1);
    layout = slice.getParent();
  }
  auto blocked = dyn_cast<BlockedEncodingAttr>(layout);
  if (!blocked)
    return i1Constant(b, loc, true);
  Value lane = getLaneId(b, loc), warp = getWarpId(b, loc);
  Value owner = i1Constant(b, loc, true);
  for (unsigned dim : blocked.getOrder()) {
    unsigned lanes = blocked.getThreadsPerWarp()[dim];
    unsigned warps = blocked.getWarpsPerCTA()[dim];
    unsigned perThread = blocked.getSizePerThread()[dim];
    int64_t distinctLanes =
        std::clamp<int64_t>(shape[dim] / perThread, 1, lanes);
    int64_t distinctWarps = std::clamp<int64_t>(
        shape[dim] / (int64_t(perThread) * lanes), 1, warps);
    Value laneCoord = LLVM::URemOp::create(b, loc, lane, i32Constant(b, loc, lanes));
    lane = LLVM::UDivOp::create(b, loc, lane, i32Constant(b, loc, lanes));
    Value warpCoord = LLVM::URemOp::create(b, loc, warp, i32Constant(b, loc, warps));
    warp = LLVM::UDivOp::create(b, loc, warp, i32Constant(b, loc, warps));
    if (distinctLanes < lanes)
      owner = LLVM::AndOp::create(
          b, loc, owner,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, laneCoord,
                               i32Constant(b, loc, distinctLanes)));
    if (distinctWarps < warps)
      owner = LLVM::AndOp::create(
          b, loc, owner,
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, warpCoord,
                               i32Constant(b, loc, distinctWarps)));
  }
  return owner;
}

/// The integer type an atomic's value travels in.
Type getWordType(OpBuilder &b, Type element) {
  if (isa<LLVM::LLVMPointerType>(element))
    return b.getI64Type();
  return b.getIntegerType(element.getIntOrFloatBitWidth());
}

Value toWord(OpBuilder &b, Location loc, Value value, Type word) {
  if (value.getType() == word)
    return value;
  if (isa<LLVM::LLVMPointerType>(value.getType()))
    return LLVM::PtrToIntOp::create(b, loc, word, value);
  return LLVM::BitcastOp::create(b, loc, word, value);
}

Value fromWord(OpBuilder &b, Location loc, Value word, Type element) {
  if (word.getType() == element)
    return word;
  if (isa<LLVM::LLVMPointerType>(element))
    return LLVM::IntToPtrOp::create(b, loc, element, word);
  return LLVM::BitcastOp::create(b, loc, element, word);
}

StringRef constraintFor(unsigned bits) {
  return bits == 64 ? "l" : bits == 16 ? "h" : "r";
}

/// Emits `atom` asm: "$0 = old; inputs: ptr, operands..., predicates...".
Value emitAtomAsm(OpBuilder &b, Location loc, Type word,
                  ArrayRef<std::string> instructions, Value ptr,
                  ArrayRef<Value> operands, ArrayRef<Value> predicates) {
  unsigned bits = word.getIntOrFloatBitWidth();
  std::string constraints = ("=&" + constraintFor(bits) + ",l").str();
  SmallVector<Value> inputs{ptr};
  for (Value operand : operands) {
    inputs.push_back(operand);
    constraints += "," + constraintFor(bits).str();
  }
  for (Value predicate : predicates) {
    inputs.push_back(predicate);
    constraints += ",b";
  }
  std::string text = llvm::formatv("mov.b{0} $0, 0;\n", bits).str();
  unsigned firstPredicate = 2 + operands.size();
  for (auto [index, instruction] : llvm::enumerate(instructions)) {
    std::string operandText;
    for (unsigned i = 0; i < operands.size(); ++i)
      operandText += llvm::formatv(", ${0}", 2 + i).str();
    text += llvm::formatv("@${0} {1} $0, [ $1 + 0 ]{2};\n",
                          firstPredicate + index, instruction, operandText)
                .str();
  }
  return emitInlineAsm(b, loc, word, inputs, text, constraints).getResult(0);
}

struct AtomicRMWLowering : public ConvertOpToLLVMPattern<tile::AtomicRMWOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::AtomicRMWOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type valueType = op.getVal().getType();
    Type element = getTypeConverter()->convertType(getElementTypeOrSelf(valueType));
    Type word = getWordType(rewriter, element);
    unsigned bits = word.getIntOrFloatBitWidth();
    bool isFloat = isa<FloatType>(element);
    std::string prefix = "atom" + semanticSuffix(op.getSem()) +
                         scopeSuffix(op.getScope()) + ".global";
    std::string b = std::to_string(bits);
    // The instruction(s) for this kind; float max/min need two.
    SmallVector<std::string> instructions;
    bool splitBySign = false;
    switch (op.getKind()) {
    case tile::RMWKind::Add:
      instructions = {prefix + ".add.u" + b};
      break;
    case tile::RMWKind::FAdd:
      if (element.isBF16() && !targetsHopper(op))
        return op.emitError("atomic fadd on bf16 needs sm_90 or newer");
      instructions = {prefix + ".add" +
                      (bits == 16 ? ".noftz" : "") +
                      (element.isBF16() ? ".bf16" : ".f" + b)};
      break;
    case tile::RMWKind::And:
      instructions = {prefix + ".and.b" + b};
      break;
    case tile::RMWKind::Or:
      instructions = {prefix + ".or.b" + b};
      break;
    case tile::RMWKind::Xor:
      instructions = {prefix + ".xor.b" + b};
      break;
    case tile::RMWKind::UMax:
      instructions = {prefix + ".max.u" + b};
      break;
    case tile::RMWKind::UMin:
      instructions = {prefix + ".min.u" + b};
      break;
    case tile::RMWKind::Max:
    case tile::RMWKind::Min: {
      bool isMax = op.getKind() == tile::RMWKind::Max;
      if (!isFloat) {
        instructions = {prefix + (isMax ? ".max.s" : ".min.s") + b};
        break;
      }
      splitBySign = true;
      instructions = {prefix + (isMax ? ".max.s" : ".min.s") + b,
                      prefix + (isMax ? ".min.u" : ".max.u") + b};
      break;
    }
    case tile::RMWKind::Xchg:
      if (bits == 16)
        return op.emitError("16-bit atomic exchange has no PTX instruction");
      instructions = {prefix + ".exch.b" + b};
      break;
    }

    unsigned count = getTotalElemsPerThread(valueType);
    SmallVector<Value> ptrs =
        getElements(rewriter, loc, adaptor.getPtr(), op.getPtr().getType(), count);
    SmallVector<Value> values =
        getElements(rewriter, loc, adaptor.getVal(), valueType, count);
    SmallVector<Value> masks;
    if (op.getMask())
      masks = getElements(rewriter, loc, adaptor.getMask(),
                          op.getMask().getType(), count);
    Value owner = emitOwnerPredicate(rewriter, loc, op.getPtr().getType());
    SmallVector<Value> results;
    for (unsigned index = 0; index < count; ++index) {
      Value predicate = op.getMask() ? LLVM::AndOp::create(rewriter, loc, owner,
                                                           masks[index])
                                     : owner;
      Value operand = toWord(rewriter, loc, values[index], word);
      SmallVector<Value> predicates{predicate};
      if (splitBySign) {
        Value negative = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::slt, operand,
            LLVM::ConstantOp::create(rewriter, loc, word,
                                     rewriter.getIntegerAttr(word, 0)));
        Value positive = LLVM::XOrOp::create(rewriter, loc, negative,
                                             i1Constant(rewriter, loc, true));
        predicates = {LLVM::AndOp::create(rewriter, loc, predicate, positive),
                      LLVM::AndOp::create(rewriter, loc, predicate, negative)};
      }
      Value old = emitAtomAsm(rewriter, loc, word, instructions, ptrs[index],
                              {operand}, predicates);
      results.push_back(fromWord(rewriter, loc, old, element));
    }
    if (!isa<RankedTensorType>(valueType)) {
      rewriter.replaceOp(op, broadcastFromOwner(rewriter, loc, op, results[0]));
      return success();
    }
    replaceWithElements(rewriter, op, valueType, results, *getTypeConverter());
    return success();
  }
};

struct AtomicCASLowering : public ConvertOpToLLVMPattern<tile::AtomicCASOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::AtomicCASOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type valueType = op.getVal().getType();
    Type element = getTypeConverter()->convertType(getElementTypeOrSelf(valueType));
    Type word = getWordType(rewriter, element);
    std::string instruction =
        "atom" + semanticSuffix(op.getSem()) + scopeSuffix(op.getScope()) +
        ".global.cas.b" + std::to_string(word.getIntOrFloatBitWidth());
    unsigned count = getTotalElemsPerThread(valueType);
    SmallVector<Value> ptrs =
        getElements(rewriter, loc, adaptor.getPtr(), op.getPtr().getType(), count);
    SmallVector<Value> compares =
        getElements(rewriter, loc, adaptor.getCmp(), valueType, count);
    SmallVector<Value> values =
        getElements(rewriter, loc, adaptor.getVal(), valueType, count);
    Value owner = emitOwnerPredicate(rewriter, loc, op.getPtr().getType());
    SmallVector<Value> results;
    for (unsigned index = 0; index < count; ++index) {
      Value old = emitAtomAsm(rewriter, loc, word, {instruction}, ptrs[index],
                              {toWord(rewriter, loc, compares[index], word),
                               toWord(rewriter, loc, values[index], word)},
                              {owner});
      results.push_back(fromWord(rewriter, loc, old, element));
    }
    if (!isa<RankedTensorType>(valueType)) {
      rewriter.replaceOp(op, broadcastFromOwner(rewriter, loc, op, results[0]));
      return success();
    }
    replaceWithElements(rewriter, op, valueType, results, *getTypeConverter());
    return success();
  }
};

} // namespace

Value tilelang::lowering::broadcastFromOwner(OpBuilder &b, Location loc,
                                            Operation *op, Value value) {
  Type word = getWordType(b, value.getType());
  Value slot = getSharedMemoryBase(b, loc, op);
  emitBarrier(b, loc);
  Value isOwner = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                       getThreadId(b, loc),
                                       i32Constant(b, loc, 0));
  // Only thread 0's value is the block's (a scalar atomic's old value, a
  // volatile scalar load's); it alone stores it.
  emitPredicatedSharedStore(b, loc, slot, toWord(b, loc, value, word),
                            isOwner);
  emitBarrier(b, loc);
  Value shared = LLVM::LoadOp::create(b, loc, word, slot);
  return fromWord(b, loc, shared, value.getType());
}

void tilelang::lowering::populateAtomicOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<AtomicRMWLowering, AtomicCASLowering>(converter);
}
