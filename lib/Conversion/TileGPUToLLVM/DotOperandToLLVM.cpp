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
  // Everything below is read off the operand's LayoutMap. A 32-bit register
  // of the operand (two elements adjacent along K) is one row of an 8x8
  // matrix of the tile: ldmatrix.x4 loads four such matrices, lane l giving
  // the address of row l % 8 of matrix l / 8, and hands lane 4r + c/2 the
  // register holding row r, columns c and c + 1 of each (.trans: of each
  // transposed).
  auto operand = cast<DotOperandEncodingAttr>(type.getEncoding());
  ArrayRef<int64_t> shape = type.getShape();
  LayoutMap map = *LayoutMap::get(operand, shape);
  FragmentRepetitions fragments = *getFragmentRepetitions(type);
  MLIRContext *context = b.getContext();
  Type elementType = converter.convertType(type.getElementType());
  auto sharedPtr = LLVM::LLVMPointerType::get(context, 3);
  unsigned kDim = operand.getOpIdx() == 0 ? 1 : 0, otherDim = 1 - kDim;
  // K contiguous: stored rows run along the other dimension (plain
  // ldmatrix); otherwise along K (ldmatrix.trans).
  bool transposed = smem.contiguousDim != kDim;
  auto repetition = [&](unsigned other, unsigned k) {
    SmallVector<unsigned> rep(2);
    rep[otherDim] = other;
    rep[kDim] = k;
    return fragments.get(rep);
  };

  // The matrices of one load: the registers (first elements' struct
  // positions) of consecutive repetitions along the other dimension, four
  // in all. With fewer repetitions than a load takes, the last matrices
  // repeat the first (their registers are not used).
  unsigned perRepetition = repetition(0, 0).size() / 2;
  unsigned repsPerLoad = 4 / perRepetition;
  unsigned repOther = fragments.reps[otherDim], repK = fragments.reps[kDim];
  auto matrices = [&](unsigned other, unsigned k) {
    SmallVector<unsigned> registers;
    for (unsigned next = 0; next < repsPerLoad; ++next)
      for (unsigned element :
           repetition(std::min(other + next, repOther - 1), k))
        if (element % 2 == 0)
          registers.push_back(element);
    return registers;
  };
  // The coordinates lane `lane` of warp 0 gives the address of, in the
  // load whose matrices are `registers`.
  auto laneCoords = [&](ArrayRef<unsigned> registers, unsigned lane) {
    unsigned row = lane % 8, matrix = lane / 8;
    if (transposed)
      return map.apply(registers[matrix] + row % 2, row / 2, 0);
    return map.apply(registers[matrix], 4 * row, 0);
  };
  // The address is linear in the lane's bits (the map is): per lane bit,
  // the step it adds, the same for every load (repetitions only move the
  // constant part).
  SmallVector<unsigned> first = matrices(0, 0);
  SmallVector<int64_t> origin = laneCoords(first, 0);
  SmallVector<SmallVector<int64_t>> laneBases;
  for (unsigned bit = 0; bit < 5; ++bit) {
    SmallVector<int64_t> step = laneCoords(first, 1u << bit);
    for (auto [value, start] : llvm::zip_equal(step, origin)) {
      value -= start;
      assert(value >= 0 && "a lane bit steps back (bases not disjoint)");
    }
    laneBases.push_back(step);
  }
  SmallVector<Value> starts = emitThreadStarts(b, loc, laneBases, map.warps, 2);

  auto i32 = b.getI32Type();
  auto x4Type =
      LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(4, i32));
  SmallVector<Value> words(map.getNumRegisters() / 2);
  for (unsigned other = 0; other < repOther; other += repsPerLoad) {
    for (unsigned k = 0; k < repK; ++k) {
      SmallVector<unsigned> registers = matrices(other, k);
      SmallVector<int64_t> offsets = laneCoords(registers, 0);
      SmallVector<Value> at;
      for (auto [start, offset] : llvm::zip_equal(starts, offsets))
        at.push_back(
            LLVM::AddOp::create(b, loc, start, i32Constant(b, loc, offset)));
      Value ptr = LLVM::GEPOp::create(b, loc, sharedPtr, elementType, base,
                                      ValueRange{smem.emitOffset(b, loc, at)});
      Value loaded = NVVM::LdMatrixOp::create(
          b, loc, x4Type, ptr, /*num=*/4,
          transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
          NVVM::LdStMatrixEltType::B16);
      for (auto [matrix, word] :
           llvm::zip_equal(registers, unpackStruct(b, loc, loaded)))
        if (!words[matrix / 2])
          words[matrix / 2] = word;
    }
  }

  // Each word's two elements at their struct positions.
  auto pairType = VectorType::get(2, elementType);
  SmallVector<Value> result;
  for (Value word : words) {
    Value pair = LLVM::BitcastOp::create(b, loc, pairType, word);
    for (unsigned x = 0; x < 2; ++x)
      result.push_back(
          LLVM::ExtractElementOp::create(b, loc, pair, i32Constant(b, loc, x)));
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
