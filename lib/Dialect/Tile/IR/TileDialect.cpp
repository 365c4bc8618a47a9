//===- TileDialect.cpp - tile dialect registration and types --------------===//
//
// Part of tilelang. Registers the tile dialect's ops and types, materializes
// folded constants, and defines the pointer type and its helpers.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilelang::tile;

#include "tilelang/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tilelang/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tilelang/Dialect/Tile/IR/TileTypes.cpp.inc"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tilelang/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tilelang/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  if (!arith::ConstantOp::isBuildableWith(value, type))
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, cast<TypedAttr>(value));
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  if (attribute.getName() != kDivisibilityAttrName)
    return op->emitError("unknown tile argument attribute '")
           << attribute.getName().getValue() << "' on argument " << argIndex;
  auto divisor = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!divisor || divisor.getValue().isNonPositive() ||
      !divisor.getValue().isPowerOf2())
    return op->emitError("'")
           << kDivisibilityAttrName << "' of argument " << argIndex
           << " must be a positive power-of-two integer, got "
           << attribute.getValue();
  // A function's argument types come from its type: its entry block may not
  // match the type (the function's own verifier reports that, after this
  // hook) and a declaration has no block at all.
  Type argType;
  if (auto function = dyn_cast<FunctionOpInterface>(op)) {
    if (argIndex < function.getNumArguments())
      argType = function.getArgumentTypes()[argIndex];
  } else if (regionIndex < op->getNumRegions() &&
             argIndex < op->getRegion(regionIndex).getNumArguments()) {
    argType = op->getRegion(regionIndex).getArgument(argIndex).getType();
  }
  if (!argType)
    return op->emitError("'") << kDivisibilityAttrName << "' on argument "
                              << argIndex << ", which does not exist";
  if (!isa<IntegerType, PointerType>(argType))
    return op->emitError("'")
           << kDivisibilityAttrName << "' applies to integer and pointer "
           << "arguments; argument " << argIndex << " is " << argType;
  return success();
}

//===----------------------------------------------------------------------===//
// Pointer type
//===----------------------------------------------------------------------===//

LogicalResult
PointerType::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                    Type pointeeType, int addressSpace) {
  if (!isa<IntegerType, FloatType, PointerType>(pointeeType))
    return emitError() << "pointee type must be an integer, a float or a "
                          "pointer, got "
                       << pointeeType;
  if (auto integer = dyn_cast<IntegerType>(pointeeType)) {
    if (!integer.isSignless())
      return emitError() << "pointee integer type must be signless, got "
                         << pointeeType;
    unsigned width = integer.getWidth();
    if (width != 1 && width != 8 && width != 16 && width != 32 && width != 64)
      return emitError() << "pointee integers are i1, i8, i16, i32 or i64, "
                            "got "
                         << pointeeType;
  }
  if (isa<FloatType>(pointeeType) &&
      !isa<Float8E4M3FNType, Float8E5M2Type, Float16Type, BFloat16Type,
           Float32Type, Float64Type>(pointeeType))
    return emitError() << "pointee floats are f8E4M3FN, f8E5M2, f16, bf16, "
                          "f32 or f64, got "
                       << pointeeType;
  if (addressSpace < 0)
    return emitError() << "address space must be non-negative, got "
                       << addressSpace;
  return success();
}

Type tilelang::tile::getPointeeType(Type ptrLike) {
  if (auto tensor = dyn_cast<RankedTensorType>(ptrLike)) {
    auto pointer = dyn_cast<PointerType>(tensor.getElementType());
    return pointer ? tensor.clone(pointer.getPointeeType()) : Type();
  }
  if (auto pointer = dyn_cast<PointerType>(ptrLike))
    return pointer.getPointeeType();
  return Type();
}

Type tilelang::tile::getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(i1);
  return i1;
}

bool tilelang::tile::isBlockShape(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasStaticShape() &&
         llvm::all_of(shaped.getShape(), [](int64_t size) {
           return size > 0 && llvm::isPowerOf2_64(size);
         });
}

unsigned tilelang::tile::getElementBitWidth(Type elementType) {
  if (isa<PointerType>(elementType))
    return 64;
  return elementType.getIntOrFloatBitWidth();
}

/// Whether `type` is a tensor of more than kMaxTensorElements elements,
/// without forming products that overflow (tensor<2^62 x 4 x f32> has a
/// wrapped element count).
static bool isOverLargeTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return false;
  int64_t elements = 1;
  for (int64_t size : tensor.getShape()) {
    if (ShapedType::isDynamic(size))
      return false;
    if (size > kMaxTensorElements)
      return true;
    elements *= size; // both factors are at most 2^20
    if (elements > kMaxTensorElements)
      return true;
  }
  return false;
}

LogicalResult tilelang::tile::verifyTensorSizes(Operation *root) {
  auto report = [](Operation *op, Type type) {
    op->emitError() << type << " has more than " << kMaxTensorElements
                    << " (2^20) elements, the most a tensor may hold";
  };
  // Operands are results or block arguments of ops under `root`.
  WalkResult result = root->walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      if (isOverLargeTensor(type)) {
        report(op, type);
        return WalkResult::interrupt();
      }
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (isOverLargeTensor(type)) {
            report(op, type);
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Elements of `type` per thread when spread over `threads` threads, or 0
/// for a type that is not a statically shaped tensor (verifyTensorSizes has
/// bounded the product by then).
static int64_t elementsPerThread(Type type, int64_t threads) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  return llvm::divideCeil(tensor.getNumElements(), threads);
}

LogicalResult tilelang::tile::verifyElementsPerThread(Operation *root,
                                                      unsigned numWarps) {
  const int64_t threads = int64_t(32) * numWarps;
  auto report = [&](Operation *op, Type type, int64_t perThread,
                    StringRef what) {
    auto tensor = cast<RankedTensorType>(type);
    // The fewest warps that bring it under the limit: a power of two, at
    // most 32 because kMaxTensorElements = 32 * 32 * kMaxElementsPerThread.
    uint64_t needed = llvm::PowerOf2Ceil(llvm::divideCeil(
        tensor.getNumElements(), 32 * kMaxElementsPerThread));
    op->emitError() << what << " " << type << " puts " << perThread
                    << " elements in each thread at num_warps=" << numWarps
                    << " (" << tensor.getNumElements() << " elements over "
                    << threads << " threads), more than the "
                    << kMaxElementsPerThread
                    << " one tensor may put in a thread (a thread has at most "
                       "255 registers; compile time grows faster than the "
                       "count): launch with num_warps="
                    << needed
                    << " or more, use a smaller block, or loop over "
                       "smaller blocks";
  };
  // A splat constant is hoisted to the top of the function, away from the
  // line that chose the shape: it is reported only if no other op is over.
  Operation *constant = nullptr;
  Type constantType;
  WalkResult result = root->walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      int64_t perThread = elementsPerThread(type, threads);
      if (perThread <= kMaxElementsPerThread)
        continue;
      if (!op->hasTrait<OpTrait::ConstantLike>()) {
        report(op, type, perThread, "this");
        return WalkResult::interrupt();
      }
      if (!constant) {
        constant = op;
        constantType = type;
      }
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes()) {
          int64_t perThread = elementsPerThread(type, threads);
          if (perThread > kMaxElementsPerThread) {
            report(op, type, perThread,
                   isa<FunctionOpInterface>(op) ? "an argument"
                                                : "a loop-carried");
            return WalkResult::interrupt();
          }
        }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (constant) {
    report(constant, constantType,
           elementsPerThread(constantType, threads), "this");
    return failure();
  }
  return success();
}

LogicalResult tilelang::tile::verifyControlFlowCount(Operation *root) {
  int64_t count = 0;
  WalkResult result = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (!isa<scf::IfOp, scf::ForOp, scf::WhileOp, scf::IndexSwitchOp>(op))
      return WalkResult::advance();
    if (++count <= kMaxControlFlowOps)
      return WalkResult::advance();
    op->emitError() << "this kernel has more than " << kMaxControlFlowOps
                    << " run-time branches and loops (if, for, while), the "
                       "most one kernel may hold (compile time grows faster "
                       "than their number): make conditions known at "
                       "compile time (tl.constexpr), or split the work into "
                       "several kernels";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}
