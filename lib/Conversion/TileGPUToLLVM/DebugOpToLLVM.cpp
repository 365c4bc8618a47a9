//===- DebugOpToLLVM.cpp - device-side print and assert -------------------===//
//
// Part of tilelang. Lowers tile.print to one vprintf call per element (with
// the program id and the element's coordinates) and tile.assert to a branch
// that prints the failed condition's source location and message, then
// traps. vprintf is provided by the CUDA driver when it links the PTX.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

/// The module's vprintf declaration (created on first use).
LLVM::LLVMFuncOp getVprintf(OpBuilder &b, Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>("vprintf"))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto type = LLVM::LLVMFunctionType::get(b.getI32Type(), {ptr, ptr});
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), "vprintf", type);
}

/// A pointer to a NUL-terminated global copy of `text`.
Value getStringPointer(OpBuilder &b, Location loc, Operation *op,
                       StringRef text) {
  auto module = op->getParentOfType<ModuleOp>();
  std::string contents = text.str();
  contents.push_back('\0');
  // One global per distinct string.
  std::string name = "tilelang_str_" + llvm::utohexstr(llvm::hash_value(text));
  auto arrayType = LLVM::LLVMArrayType::get(b.getI8Type(), contents.size());
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           b.getStringAttr(contents));
  }
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  return LLVM::AddressOfOp::create(b, loc, ptr, name);
}

/// Calls vprintf(format, {args...}).
void emitPrintf(OpBuilder &b, Location loc, Operation *op, StringRef format,
                ArrayRef<Value> args) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value buffer = LLVM::ZeroOp::create(b, loc, ptr);
  if (!args.empty()) {
    SmallVector<Type> types;
    for (Value arg : args)
      types.push_back(arg.getType());
    auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
    buffer = LLVM::AllocaOp::create(b, loc, ptr, structType,
                                    i32Constant(b, loc, 1));
    for (auto [index, arg] : llvm::enumerate(args)) {
      Value field = LLVM::GEPOp::create(
          b, loc, ptr, structType, buffer,
          ArrayRef<LLVM::GEPArg>{0, int32_t(index)});
      LLVM::StoreOp::create(b, loc, arg, field);
    }
  }
  LLVM::CallOp::create(b, loc, getVprintf(b, op),
                       ValueRange{getStringPointer(b, loc, op, format), buffer});
}

/// A printf conversion for a value, and the value as vprintf expects it
/// (floats as double, narrow integers widened).
std::pair<std::string, Value> formatValue(OpBuilder &b, Location loc,
                                          Value value, bool isSigned,
                                          bool hex) {
  Type type = value.getType();
  if (isa<LLVM::LLVMPointerType>(type))
    return {"%p", value};
  if (auto floatType = dyn_cast<FloatType>(type)) {
    if (hex) {
      Value bits = LLVM::BitcastOp::create(
          b, loc, b.getIntegerType(floatType.getWidth()), value);
      if (floatType.getWidth() < 32)
        bits = LLVM::ZExtOp::create(b, loc, b.getI32Type(), bits);
      return {floatType.getWidth() == 64 ? "0x%llx" : "0x%x", bits};
    }
    Value wide = floatType.isF64()
                     ? value
                     : LLVM::FPExtOp::create(b, loc, b.getF64Type(), value);
    return {"%f", wide};
  }
  unsigned width = type.getIntOrFloatBitWidth();
  if (width < 32)
    value = isSigned ? Value(LLVM::SExtOp::create(b, loc, b.getI32Type(), value))
                     : Value(LLVM::ZExtOp::create(b, loc, b.getI32Type(), value));
  bool wide = width > 32;
  if (hex)
    return {wide ? "0x%llx" : "0x%x", value};
  return {std::string(wide ? "%ll" : "%") + (isSigned ? "d" : "u"), value};
}

/// `text` with '%' doubled, so that it cannot inject printf conversions.
std::string escapePercent(StringRef text) {
  std::string result;
  for (char c : text)
    result += c == '%' ? std::string("%%") : std::string(1, c);
  return result;
}

/// The program ids, for messages.
SmallVector<Value> programIds(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type();
  return {NVVM::BlockIdXOp::create(b, loc, i32),
          NVVM::BlockIdYOp::create(b, loc, i32),
          NVVM::BlockIdZOp::create(b, loc, i32)};
}

struct PrintOpLowering : public ConvertOpToLLVMPattern<tile::PrintOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::string prefix = escapePercent(op.getPrefix());
    SmallVector<Value> pids = programIds(rewriter, loc);
    if (op.getArgs().empty()) {
      emitPrintf(rewriter, loc, op, "pid (%u, %u, %u) " + prefix + "\n", pids);
      rewriter.eraseOp(op);
      return success();
    }
    std::optional<ArrayRef<int32_t>> isSigned = op.getIsSigned();
    for (auto [index, arg] : llvm::enumerate(op.getArgs())) {
      Value converted = adaptor.getArgs()[index];
      bool signedValue = !isSigned || (*isSigned)[index] != 0;
      auto tensor = dyn_cast<RankedTensorType>(arg.getType());
      if (tensor && !isLowerableLayout(tensor.getEncoding()))
        return op.emitError("printing tensors in this layout is not "
                            "supported yet");
      SmallVector<Value> elements = unpackStruct(rewriter, loc, converted);
      SmallVector<SmallVector<Value>> coords;
      if (tensor)
        coords = emitElementCoordinates(rewriter, loc, tensor);
      for (auto [position, element] : llvm::enumerate(elements)) {
        auto [conversion, value] =
            formatValue(rewriter, loc, element, signedValue, op.getHex());
        std::string format = "pid (%u, %u, %u)";
        SmallVector<Value> values(pids);
        if (tensor) {
          format += " idx (";
          for (auto [dim, coord] : llvm::enumerate(coords[position])) {
            format += dim ? ", %u" : "%u";
            values.push_back(coord);
          }
          format += ")";
        }
        if (op.getArgs().size() > 1)
          format += " (operand " + std::to_string(index) + ")";
        format += " " + prefix + conversion + "\n";
        values.push_back(value);
        emitPrintf(rewriter, loc, op, format, values);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AssertOpLowering : public ConvertOpToLLVMPattern<tile::AssertOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // Every element this thread checks must hold.
    Value holds = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                           rewriter.getBoolAttr(true));
    for (Value element : unpackStruct(rewriter, loc, adaptor.getCondition()))
      holds = LLVM::AndOp::create(rewriter, loc, holds, element);

    std::string where = "<unknown>";
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      where = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
               ":" + Twine(file.getColumn()))
                  .str();
    std::string message = escapePercent(op.getMessage());

    Block *before = rewriter.getInsertionBlock();
    Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
    Block *failed = rewriter.createBlock(after);
    rewriter.setInsertionPointToEnd(before);
    LLVM::CondBrOp::create(rewriter, loc, holds, after, failed);

    rewriter.setInsertionPointToStart(failed);
    SmallVector<Value> values = programIds(rewriter, loc);
    values.push_back(getThreadId(rewriter, loc));
    emitPrintf(rewriter, loc, op,
               where + ": pid (%u, %u, %u) thread %u: Assertion `" + message +
                   "` failed.\n",
               values);
    LLVM::Trap::create(rewriter, loc);
    LLVM::BrOp::create(rewriter, loc, after);

    rewriter.setInsertionPointToStart(after);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilelang::lowering::populateDebugOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<PrintOpLowering, AssertOpLowering>(converter);
}
