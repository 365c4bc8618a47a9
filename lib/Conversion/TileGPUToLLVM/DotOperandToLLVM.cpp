//===- DotOperandToLLVM.cpp - mma.sync operands through ldmatrix ----------===//
//
// Part of tilelang. mma.sync operands of 16-bit types are read from
// shared memory with ldmatrix.x4 (.trans when K is not the tile's contiguous
// dimension), from tiles whose 16-byte vectors are XOR-swizzled so that
// neither writes nor ldmatrix's eight row reads of a matrix share a bank.
// Two ways in: a convert_layout to an operand layout stages its source in
// the scratch area first; a local_load reads a pipeline buffer directly.
// Other operands take the generic element-by-element redistribution
// (ShapeOpToLLVM.cpp).
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

void tilelang::lowering::storeSwizzled(OpBuilder &b, Location loc,
                                       Value srcStruct,
                                       RankedTensorType srcType, Value base,
                                       const SwizzledTile &smem,
                                       const TypeConverter &converter) {
  Type elementType = converter.convertType(srcType.getElementType());
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  SmallVector<Value> elements = unpackStruct(b, loc, srcStruct);
  // Each thread's runs along the contiguous dimension (at most one vector
  // of the swizzle each) as one vector store.
  unsigned run = std::min(getContiguousPerThread(srcType), smem.vec);
  unsigned bytes = run * elementType.getIntOrFloatBitWidth() / 8;
  auto vectorType = VectorType::get(run, elementType);
  SmallVector<unsigned> vectorStarts;
  for (unsigned start = 0; start < elements.size(); start += run)
    vectorStarts.push_back(start);
  SmallVector<Value> offsets = smem.emitOffsets(
      b, loc, emitThreadElementCoordinates(b, loc, srcType), vectorStarts);
  for (auto [start, offset] : llvm::zip_equal(vectorStarts, offsets)) {
    Value vector = LLVM::UndefOp::create(b, loc, vectorType);
    for (unsigned x = 0; x < run; ++x)
      vector = LLVM::InsertElementOp::create(
          b, loc, vector, elements[start + x], i32Constant(b, loc, x));
    Value address = LLVM::GEPOp::create(b, loc, sharedPtr, elementType, base,
                                        ValueRange{offset});
    LLVM::StoreOp::create(b, loc, vector, address, bytes);
  }
}

bool tilelang::lowering::canLoadWithLdMatrix(RankedTensorType type,
                                             const SwizzledTile &smem) {
  auto operand = dyn_cast<DotOperandEncodingAttr>(type.getEncoding());
  return getMmaV2Tile(operand) && operand.getKWidth() == 2 &&
         type.getElementType().getIntOrFloatBitWidth() == 16 && smem.vec == 8 &&
         smem.rowLength % 8 == 0;
}

Value tilelang::lowering::emitLdMatrixOperand(OpBuilder &b, Location loc,
                                              Value base,
                                              const SwizzledTile &smem,
                                              RankedTensorType type,
                                              const TypeConverter &converter) {
  // Four 8x8 matrices per ldmatrix.x4. Lane l gives the address of row
  // l % 8 of matrix l / 8.
  auto operand = cast<DotOperandEncodingAttr>(type.getEncoding());
  MmaV2Tile tile = *getMmaV2Tile(operand);
  ArrayRef<int64_t> shape = type.getShape();
  MLIRContext *context = b.getContext();
  Type elementType = converter.convertType(type.getElementType());
  auto sharedPtr = LLVM::LLVMPointerType::get(context, 3);
  auto address = [&](Value offset) -> Value {
    return LLVM::GEPOp::create(b, loc, sharedPtr, elementType, base,
                               ValueRange{offset});
  };
  auto mma = cast<MmaEncodingAttr>(operand.getParent());
  auto constant = [&](int64_t value) { return i32Constant(b, loc, value); };
  auto add = [&](Value x, Value y) {
    return LLVM::AddOp::create(b, loc, x, y);
  };
  Value lane = getLaneId(b, loc);
  Value matrix = LLVM::UDivOp::create(b, loc, lane, constant(8));
  Value rowInMatrix = LLVM::URemOp::create(b, loc, lane, constant(8));
  Value matrixLow = LLVM::URemOp::create(b, loc, matrix, constant(2));
  Value matrixHigh = LLVM::UDivOp::create(b, loc, matrix, constant(2));
  auto [warpM, warpN] = emitMmaWarpCoordinates(b, loc, mma);
  unsigned opIdx = operand.getOpIdx();
  unsigned kDim = opIdx == 0 ? 1 : 0, otherDim = 1 - kDim;
  // K contiguous: stored rows run along the other dimension (plain
  // ldmatrix); otherwise along K (ldmatrix.trans).
  bool transposed = smem.contiguousDim != kDim;
  unsigned repOther = llvm::divideCeil(shape[otherDim], tile.ctaTile[otherDim]);
  unsigned repK = llvm::divideCeil(shape[kDim], 16);
  // A's matrices: (rows +0/+8, K +0/+8) = matrixLow, matrixHigh. B's:
  // (N block j/j+1, K +0/+8) = matrixHigh, matrixLow.
  Value otherStep = opIdx == 0 ? matrixLow : matrixHigh;
  Value kStep = opIdx == 0 ? matrixHigh : matrixLow;
  Value warpBase = opIdx == 0 ? LLVM::MulOp::create(b, loc, warpM, constant(16))
                              : LLVM::MulOp::create(b, loc, warpN, constant(8));
  // Distance between the two non-K blocks of one ldmatrix.x4.
  int64_t otherStride = opIdx == 0 ? 8 : tile.ctaTile[1];
  unsigned repsPerLoad = opIdx == 0 ? 1 : 2;

  auto i32 = b.getI32Type();
  auto x4Type =
      LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(4, i32));
  // regs[rep][kk] = the rep's registers for one K step (4 for A, 2 for B).
  SmallVector<SmallVector<SmallVector<Value>>> regs(
      repOther, SmallVector<SmallVector<Value>>(repK));
  for (unsigned rep = 0; rep < repOther; rep += repsPerLoad) {
    for (unsigned kk = 0; kk < repK; ++kk) {
      Value other =
          add(add(warpBase, constant(rep * tile.ctaTile[otherDim])),
              LLVM::MulOp::create(b, loc, otherStep, constant(otherStride)));
      Value k = add(constant(kk * 16),
                    LLVM::MulOp::create(b, loc, kStep, constant(8)));
      if (transposed)
        k = add(k, rowInMatrix);
      else
        other = add(other, rowInMatrix);
      // A layout larger than the tensor wraps around it (replication).
      if (tile.ctaTile[otherDim] > shape[otherDim] ||
          (repsPerLoad == 2 && rep + 1 == repOther))
        other = LLVM::URemOp::create(b, loc, other, constant(shape[otherDim]));
      SmallVector<Value> at(2);
      at[kDim] = k;
      at[otherDim] = other;
      Value ptr = address(smem.emitOffset(b, loc, at));
      Value loaded = NVVM::LdMatrixOp::create(
          b, loc, x4Type, ptr, /*num=*/4,
          transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
          NVVM::LdStMatrixEltType::B16);
      SmallVector<Value> words = unpackStruct(b, loc, loaded);
      if (opIdx == 0) {
        regs[rep][kk] = words;
      } else {
        regs[rep][kk] = {words[0], words[1]};
        if (rep + 1 < repOther)
          regs[rep + 1][kk] = {words[2], words[3]};
      }
    }
  }

  // Unpack registers into the operand's struct order (rep, kk, register,
  // element; see getElementIndices).
  auto pairType = VectorType::get(2, elementType);
  SmallVector<Value> result;
  for (unsigned rep = 0; rep < repOther; ++rep)
    for (unsigned kk = 0; kk < repK; ++kk)
      for (Value word : regs[rep][kk]) {
        Value pair = LLVM::BitcastOp::create(b, loc, pairType, word);
        for (unsigned x = 0; x < 2; ++x)
          result.push_back(
              LLVM::ExtractElementOp::create(b, loc, pair, constant(x)));
      }
  return packStruct(b, loc, converter.convertType(type), result);
}

namespace {

/// convert_layout of a 16-bit tensor to an mma.sync operand -> swizzled
/// shared-memory tile + ldmatrix.
struct DotOperandLoadLowering : public ConvertOpToLLVMPattern<ConvertLayoutOp> {
  DotOperandLoadLowering(TileGPUTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    auto operand = dyn_cast<DotOperandEncodingAttr>(type.getEncoding());
    auto blocked = dyn_cast<BlockedEncodingAttr>(srcType.getEncoding());
    if (!operand || !blocked)
      return failure();
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = type.getShape();
    SwizzledTile smem(shape, getSwizzledSharedEncoding(getContext(), shape,
                                                       blocked.getOrder(), 16));
    if (!canLoadWithLdMatrix(type, smem))
      return failure();

    Value base = getSharedMemoryBase(rewriter, loc, op);
    emitBarrier(rewriter, loc);
    storeSwizzled(rewriter, loc, adaptor.getSrc(), srcType, base, smem,
                  *getTypeConverter());
    emitBarrier(rewriter, loc);

    rewriter.replaceOp(op, emitLdMatrixOperand(rewriter, loc, base, smem, type,
                                               *getTypeConverter()));
    return success();
  }
};

/// local_load of a pipeline buffer into an mma.sync operand -> ldmatrix.
struct LocalLoadLowering : public ConvertOpToLLVMPattern<LocalLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<SwizzledTile> smem = SwizzledTile::get(op.getSrc().getType());
    RankedTensorType type = op.getType();
    if (!smem)
      return op.emitError("local_load reads 2-D #tilegpu.shared buffers only");
    if (!canLoadWithLdMatrix(type, *smem))
      return op.emitError("local_load into ")
             << type << " cannot be lowered yet (16-bit mma.sync operands "
             << "only)";
    rewriter.replaceOp(op, emitLdMatrixOperand(rewriter, op.getLoc(),
                                               adaptor.getSrc(), *smem, type,
                                               *getTypeConverter()));
    return success();
  }
};

} // namespace

void tilelang::lowering::populateDotOperandToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotOperandLoadLowering, LocalLoadLowering>(converter);
}
