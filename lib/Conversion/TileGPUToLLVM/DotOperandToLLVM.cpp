//===- DotOperandToLLVM.cpp - mma.sync operands through ldmatrix ----------===//
//
// Part of tilelang. Lowers a convert_layout of a 16-bit tensor to an
// mma.sync operand layout: the source is written to shared memory in rows
// along its contiguous dimension, 16-byte chunks XOR-swizzled so that
// neither the writes nor ldmatrix's eight row reads of a matrix share a
// bank, and each warp then reads its fragments with ldmatrix.x4 (.trans
// when K is not the contiguous dimension). Other operands take the generic
// element-by-element redistribution (ShapeOpToLLVM.cpp).
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

/// A 2-D tile in shared memory, rows along `contiguousDim`, with 8-element
/// (16-byte) chunks swizzled by (row / perPhase) % maxPhase.
struct SwizzledTile {
  unsigned contiguousDim;
  int64_t rowLength;
  unsigned perPhase, maxPhase;

  SwizzledTile(ArrayRef<int64_t> shape, unsigned contiguousDim)
      : contiguousDim(contiguousDim), rowLength(shape[contiguousDim]) {
    // Rows of 128 bytes or more swizzle each row over 8 chunks; shorter
    // rows share a phase so that 8 consecutive rows still fill 128 bytes.
    int64_t rowBytes = rowLength * 2;
    perPhase = std::max<int64_t>(1, 128 / rowBytes);
    maxPhase = std::min<int64_t>(rowLength / 8, 8 / perPhase);
  }

  /// Element offset of the element at `coords` (i32 values; the chunk
  /// coordinate is a multiple of 8 when `chunkAligned`).
  Value emitOffset(OpBuilder &b, Location loc, ArrayRef<Value> coords) const {
    auto constant = [&](int64_t value) { return i32Constant(b, loc, value); };
    Value row = coords[1 - contiguousDim], column = coords[contiguousDim];
    Value phase = LLVM::URemOp::create(
        b, loc, LLVM::UDivOp::create(b, loc, row, constant(perPhase)),
        constant(maxPhase));
    Value chunk = LLVM::UDivOp::create(b, loc, column, constant(8));
    Value swizzled = LLVM::XOrOp::create(b, loc, chunk, phase);
    Value inChunk = LLVM::URemOp::create(b, loc, column, constant(8));
    Value rowStart = LLVM::MulOp::create(b, loc, row, constant(rowLength));
    return LLVM::AddOp::create(
        b, loc, rowStart,
        LLVM::AddOp::create(
            b, loc, LLVM::MulOp::create(b, loc, swizzled, constant(8)),
            inChunk));
  }
};

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
    std::optional<MmaV2Tile> tile = getMmaV2Tile(operand);
    if (!tile || type.getElementType().getIntOrFloatBitWidth() != 16 ||
        !isa<BlockedEncodingAttr>(srcType.getEncoding()) ||
        operand.getKWidth() != 2)
      return failure();
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = type.getShape();
    SwizzledTile smem(shape, getFastestDim(srcType));
    if (smem.rowLength % 8 != 0)
      return failure();

    Type elementType = getTypeConverter()->convertType(type.getElementType());
    Value base = getSharedMemoryBase(rewriter, loc, op);
    auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), 3);
    auto address = [&](Value offset) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, sharedPtr, elementType, base,
                                 ValueRange{offset});
    };

    // Write: each thread's runs along the contiguous dimension (at most one
    // chunk each) as one vector store.
    emitBarrier(rewriter, loc);
    SmallVector<Value> elements =
        unpackStruct(rewriter, loc, adaptor.getSrc());
    SmallVector<SmallVector<Value>> coords =
        emitElementCoordinates(rewriter, loc, srcType);
    unsigned run = std::min(getContiguousPerThread(srcType), 8u);
    auto vectorType = VectorType::get(run, elementType);
    for (unsigned start = 0; start < elements.size(); start += run) {
      Value vector = LLVM::UndefOp::create(rewriter, loc, vectorType);
      for (unsigned x = 0; x < run; ++x)
        vector = LLVM::InsertElementOp::create(rewriter, loc, vector,
                                               elements[start + x],
                                               i32Constant(rewriter, loc, x));
      LLVM::StoreOp::create(rewriter, loc, vector,
                            address(smem.emitOffset(rewriter, loc,
                                                    coords[start])),
                            run * 2);
    }
    emitBarrier(rewriter, loc);

    // Read: four 8x8 matrices per ldmatrix.x4. Lane l gives the address of
    // row l % 8 of matrix l / 8.
    auto mma = cast<MmaEncodingAttr>(operand.getParent());
    ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
    auto constant = [&](int64_t value) { return i32Constant(rewriter, loc, value); };
    auto add = [&](Value x, Value y) {
      return LLVM::AddOp::create(rewriter, loc, x, y);
    };
    Value lane = getLaneId(rewriter, loc), warp = getWarpId(rewriter, loc);
    Value matrix = LLVM::UDivOp::create(rewriter, loc, lane, constant(8));
    Value rowInMatrix = LLVM::URemOp::create(rewriter, loc, lane, constant(8));
    Value matrixLow = LLVM::URemOp::create(rewriter, loc, matrix, constant(2));
    Value matrixHigh = LLVM::UDivOp::create(rewriter, loc, matrix, constant(2));
    Value warpN = LLVM::URemOp::create(rewriter, loc, warp, constant(warps[1]));
    Value warpM = LLVM::URemOp::create(
        rewriter, loc,
        LLVM::UDivOp::create(rewriter, loc, warp, constant(warps[1])),
        constant(warps[0]));
    unsigned opIdx = operand.getOpIdx();
    unsigned kDim = opIdx == 0 ? 1 : 0, otherDim = 1 - kDim;
    // K contiguous: stored rows run along the other dimension (plain
    // ldmatrix); otherwise along K (ldmatrix.trans).
    bool transposed = smem.contiguousDim != kDim;
    unsigned repOther = llvm::divideCeil(shape[otherDim], tile->ctaTile[otherDim]);
    unsigned repK = llvm::divideCeil(shape[kDim], 16);
    // A's matrices: (rows +0/+8, K +0/+8) = matrixLow, matrixHigh. B's:
    // (N block j/j+1, K +0/+8) = matrixHigh, matrixLow.
    Value otherStep = opIdx == 0 ? matrixLow : matrixHigh;
    Value kStep = opIdx == 0 ? matrixHigh : matrixLow;
    Value warpBase = opIdx == 0 ? LLVM::MulOp::create(rewriter, loc, warpM,
                                                      constant(16))
                                : LLVM::MulOp::create(rewriter, loc, warpN,
                                                      constant(8));
    // Distance between the two non-K blocks of one ldmatrix.x4.
    int64_t otherStride = opIdx == 0 ? 8 : tile->ctaTile[1];
    unsigned repsPerLoad = opIdx == 0 ? 1 : 2;

    auto i32 = rewriter.getI32Type();
    auto x4Type = LLVM::LLVMStructType::getLiteral(getContext(),
                                                   SmallVector<Type>(4, i32));
    // regs[rep][kk] = the rep's registers for one K step (4 for A, 2 for B).
    SmallVector<SmallVector<SmallVector<Value>>> regs(
        repOther, SmallVector<SmallVector<Value>>(repK));
    for (unsigned rep = 0; rep < repOther; rep += repsPerLoad) {
      for (unsigned kk = 0; kk < repK; ++kk) {
        Value other = add(add(warpBase, constant(rep * tile->ctaTile[otherDim])),
                          LLVM::MulOp::create(rewriter, loc, otherStep,
                                              constant(otherStride)));
        Value k = add(constant(kk * 16),
                      LLVM::MulOp::create(rewriter, loc, kStep, constant(8)));
        if (transposed)
          k = add(k, rowInMatrix);
        else
          other = add(other, rowInMatrix);
        // A layout larger than the tensor wraps around it (replication).
        if (tile->ctaTile[otherDim] > shape[otherDim] ||
            (repsPerLoad == 2 && rep + 1 == repOther))
          other = LLVM::URemOp::create(rewriter, loc, other,
                                       constant(shape[otherDim]));
        SmallVector<Value> at(2);
        at[kDim] = k;
        at[otherDim] = other;
        Value ptr = address(smem.emitOffset(rewriter, loc, at));
        Value loaded = NVVM::LdMatrixOp::create(
            rewriter, loc, x4Type, ptr, /*num=*/4,
            transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
            NVVM::LdStMatrixShapeAttr::get(getContext(), 8, 8),
            NVVM::LdStMatrixEltType::B16);
        SmallVector<Value> words = unpackStruct(rewriter, loc, loaded);
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
          Value pair = LLVM::BitcastOp::create(rewriter, loc, pairType, word);
          for (unsigned x = 0; x < 2; ++x)
            result.push_back(LLVM::ExtractElementOp::create(
                rewriter, loc, pair, constant(x)));
        }
    rewriter.replaceOp(op, packStruct(rewriter, loc,
                                      getTypeConverter()->convertType(type),
                                      result));
    return success();
  }
};

} // namespace

void tilelang::lowering::populateDotOperandToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotOperandLoadLowering>(converter);
}
