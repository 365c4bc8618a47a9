//===- TileGPUDialect.cpp - tilegpu dialect registration and types --------===//
//
// Part of tilelang. Registers the tilegpu dialect, prints layouts under short
// aliases (#blocked, #mma, ...), verifies the module and op attributes it
// owns (SharedRange.h's among them) and defines the shared-memory
// descriptor type (the tensor map argument attribute is verified in
// TensorMapEncoding.cpp).
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/IR/SharedRange.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace tilelang::tilegpu;

#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"
#include "tilelang/Dialect/TileGPU/IR/TileGPUAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tilelang/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tilelang/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"

namespace {
/// Prints layouts as #blocked, #slice, #mma, ... instead of in full at every
/// use.
struct TileGPUOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    StringRef name = llvm::TypeSwitch<Attribute, StringRef>(attr)
                         .Case([](BlockedEncodingAttr) { return "blocked"; })
                         .Case([](SliceEncodingAttr) { return "slice"; })
                         .Case([](MmaEncodingAttr) { return "mma"; })
                         .Case([](DotOperandEncodingAttr) { return "dot_op"; })
                         .Case([](SharedEncodingAttr) { return "shared"; })
                         .Case([](NVMMASharedEncodingAttr) {
                           return "nvmma_shared";
                         })
                         .Default([](Attribute) { return StringRef(); });
    if (name.empty())
      return AliasResult::NoAlias;
    os << name;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileGPUDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
      >();
  addInterfaces<TileGPUOpAsmInterface>();
}

void TileGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tilelang/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
      >();
}

void TileGPUDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilelang/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Module attributes
//===----------------------------------------------------------------------===//

std::optional<unsigned> tilelang::tilegpu::getNumWarps(ModuleOp module) {
  auto attr = module->getAttrOfType<IntegerAttr>(
      TileGPUDialect::kNumWarpsAttrName);
  if (!attr)
    return std::nullopt;
  return attr.getInt();
}

/// Checks that every distributed tensor in `module` uses `numWarps` warps.
static LogicalResult verifyWarpCounts(ModuleOp module, unsigned numWarps) {
  auto check = [&](Operation *op, Type type, StringRef what) {
    DistributedEncodingAttr layout = getDistributedEncoding(type);
    if (!layout || getNumWarps(layout) == numWarps)
      return true;
    op->emitOpError() << what << " layout uses " << getNumWarps(layout)
                      << " warps but the module has "
                      << TileGPUDialect::kNumWarpsAttrName << " = "
                      << numWarps;
    return false;
  };
  WalkResult result = module.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (!check(op, type, "result"))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (!check(op, type, "block argument"))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult TileGPUDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kNumWarpsAttrName) {
    auto module = dyn_cast<ModuleOp>(op);
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!module)
      return op->emitError("'") << name << "' belongs on a builtin.module";
    if (!value || value.getValue().isNonPositive() ||
        !value.getValue().isPowerOf2() || value.getInt() > 32)
      return op->emitError("'")
             << name << "' must be a power of two in [1, 32], got "
             << attr.getValue();
    return verifyWarpCounts(module, value.getInt());
  }
  if (name == kTargetAttrName) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    static const llvm::Regex targetPattern("^sm_[0-9]+a?$");
    if (!value || !targetPattern.match(value.getValue()))
      return op->emitError("'")
             << name << "' must be a string such as \"sm_90a\", got "
             << attr.getValue();
    return success();
  }
  if (name == kSharedBytesAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || value.getValue().isNegative())
      return op->emitError("'")
             << name << "' must be a non-negative integer, got "
             << attr.getValue();
    return success();
  }
  if (name == kSharedOffsetAttrName) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (isa<ModuleOp>(op) || !value || value.getValue().isNegative())
      return op->emitError("'")
             << name
             << "' must be a non-negative integer on an op that uses shared "
                "memory, got "
             << attr.getValue();
    return success();
  }
  if (name == kUserBarrierAttrName) {
    // By name: the dialect does not depend on NVVM's.
    if (!isa<UnitAttr>(attr.getValue()) ||
        !(isa<BarrierOp>(op) ||
          op->getName().getStringRef() == "nvvm.barrier0"))
      return op->emitError("'")
             << name
             << "' must be a unit attribute on tilegpu.barrier or "
                "nvvm.barrier0";
    return success();
  }
  if (name == kSharedRangeAttrName) {
    auto range = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!range || range.size() != 2 || range[0] < 0 || range[1] < range[0])
      return op->emitError("'")
             << name
             << "' must be an array of two i64, begin <= end, both >= 0, got "
             << attr.getValue();
    return success();
  }
  return op->emitError("unknown tilegpu attribute '") << name << "'";
}

//===----------------------------------------------------------------------===//
// MemDescType
//===----------------------------------------------------------------------===//

Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(encoding))
    return Type();
  bool isMutable = succeeded(parser.parseOptionalComma());
  if (isMutable && parser.parseKeyword("mutable"))
    return Type();
  if (parser.parseGreater())
    return Type();
  return parser.getChecked<MemDescType>(parser.getContext(), shape,
                                        elementType, encoding, isMutable);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << '<';
  for (int64_t dim : getShape())
    printer << dim << 'x';
  printer << getElementType() << ", " << getEncoding();
  if (getMutableMemory())
    printer << ", mutable";
  printer << '>';
}

LogicalResult MemDescType::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  Attribute encoding, bool) {
  if (shape.empty())
    return emitError() << "memdesc needs at least one dimension";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "memdesc dimensions must be positive, got " << dim;
  if (!elementType.isIntOrFloat())
    return emitError() << "memdesc elements must be integers or floats, got "
                       << elementType;
  if (auto shared = dyn_cast<SharedEncodingAttr>(encoding)) {
    size_t rank = shared.getOrder().size();
    if (rank != shape.size() && rank + 1 != shape.size())
      return emitError() << "shared layout of rank " << rank
                         << " cannot lay out a " << shape.size()
                         << "-D buffer (only a leading stage dimension may "
                            "be added)";
    return success();
  }
  if (isa<NVMMASharedEncodingAttr>(encoding))
    return success();
  return emitError() << "memdesc encoding must be a shared layout, got "
                     << encoding;
}

int64_t MemDescType::getNumElements() const {
  int64_t count = 1;
  for (int64_t dim : getShape())
    count *= dim;
  return count;
}

MemDescType MemDescType::getStageType() const {
  return MemDescType::get(getContext(), getShape().drop_front(),
                          getElementType(), getEncoding(), getMutableMemory());
}

int64_t MemDescType::getSizeInBytes() const {
  return getNumElements() * getElementType().getIntOrFloatBitWidth() / 8;
}
