//===- ConvertLayoutToLLVM.cpp - layout conversions through shared memory -===//
//
// Part of tilelang. A convert_layout that moves elements between threads
// goes through the op's scratch space: every thread writes its elements at
// their row-major slots of the scratch shape (getScratchShape: 2-D rows of
// 128 bytes or more padded by 16 bytes), a barrier, and every thread reads
// the elements of its result. Both sides move whole vectors rather than
// elements, read off the two layouts' LayoutMaps:
//
// - a side whose consecutive registers hold consecutive elements along the
//   last dimension accesses them as one vector (up to 16 bytes);
// - on sm_90, a source of 16-bit elements placed as an mma fragment (the
//   8x8 matrices of mma.sync and wgmma accumulators) is written with
//   stmatrix.x4: four 8x8 matrices per instruction, each of its rows one
//   16-byte vector, where plain stores could only write the thread's
//   4-byte pairs.
//
// Bank conflicts: the padding moves each row of 128 bytes or more 16 bytes
// (one bank group of four banks) past the previous row's, so that the
// eight rows of a matrix, and the rows a warp's scalar or pair accesses
// span, fall into different banks. stmatrix is used only where that holds
// (the row stride is an odd number of 16-byte units); the scratch space
// stays what getScratchBytes has always reserved.
//
// Conversions of layouts without a LayoutMap, and to mma.sync operand
// layouts (ldmatrix, DotOperandToLLVM.cpp), are not handled here.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

/// Bytes one element takes in the scratch space (getStorageType's type).
unsigned storageBytes(Type storageType) {
  return std::max(1u, storageType.getIntOrFloatBitWidth() / 8);
}

/// Elements per vector access of one side: the thread's first register
/// bases step 1, 2, 4, ... along the last dimension (so each group of that
/// many consecutive registers is a run of consecutive elements), no other
/// base moves a run off its alignment, at most 16 bytes, and rows of the
/// scratch a whole number of vectors long.
unsigned getVectorWidth(const LayoutMap &map, unsigned bytes,
                        int64_t rowLength) {
  unsigned rank = map.getRank(), last = rank - 1;
  unsigned run = 1, runBits = 0;
  for (ArrayRef<int64_t> base : map.registers) {
    bool unit = true;
    for (unsigned dim = 0; dim < rank; ++dim)
      unit &= base[dim] == (dim == last ? int64_t(run) : 0);
    if (!unit)
      break;
    run *= 2;
    ++runBits;
  }
  auto keepsAlignment = [&](ArrayRef<int64_t> base) {
    return base[last] % run == 0;
  };
  for (ArrayRef<int64_t> base : llvm::concat<const SmallVector<int64_t>>(
           ArrayRef(map.registers).drop_front(runBits), map.lanes, map.warps))
    while (!keepsAlignment(base))
      run /= 2;
  while (run > 1 && (run * bytes > 16 || rowLength % run != 0))
    run /= 2;
  return run;
}

/// Whether a thread's elements are placed as ldmatrix and stmatrix hand
/// them out: in each 8x8 matrix (rows along dimension 0), lane 4r + c holds
/// row r, columns 2c and 2c + 1, in two consecutive registers; the other
/// register bases (at least two, for four matrices per access) and the warp
/// bases move whole matrices.
bool isMatrixFragment(const LayoutMap &map) {
  using Base = SmallVector<int64_t>;
  static const Base pairStep = {0, 1};
  static const SmallVector<Base> laneSteps = {
      {0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  if (map.getRank() != 2 || map.registers.size() < 3 ||
      map.registers[0] != pairStep || !llvm::equal(map.lanes, laneSteps))
    return false;
  auto movesWholeMatrices = [](ArrayRef<int64_t> base) {
    return base[0] % 8 == 0 && base[1] % 8 == 0;
  };
  return llvm::all_of(ArrayRef(map.registers).drop_front(),
                      movesWholeMatrices) &&
         llvm::all_of(map.warps, movesWholeMatrices);
}

/// Row-major strides of the scratch shape.
SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int dim = int(shape.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * shape[dim + 1];
  return strides;
}

/// The slot (an i32 element index) of a thread's start coordinates.
Value emitSlot(OpBuilder &b, Location loc, ArrayRef<Value> starts,
               ArrayRef<int64_t> strides) {
  Value slot;
  for (auto [start, stride] : llvm::zip_equal(starts, strides)) {
    Value term = stride == 1 ? start
                             : Value(LLVM::MulOp::create(
                                   b, loc, start, i32Constant(b, loc, stride)));
    slot = slot ? Value(LLVM::AddOp::create(b, loc, slot, term)) : term;
  }
  return slot;
}

int64_t constantSlot(ArrayRef<int64_t> coords, ArrayRef<int64_t> strides) {
  int64_t slot = 0;
  for (auto [coord, stride] : llvm::zip_equal(coords, strides))
    slot += coord * stride;
  return slot;
}

/// The address `offset` elements past `threadBase`, as a second GEP,
/// as two GEPs, so that the constant becomes an immediate offset.
Value emitAddress(OpBuilder &b, Location loc, Value threadBase,
                  Type storageType, int64_t offset) {
  if (offset == 0)
    return threadBase;
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::GEPOp::create(b, loc, sharedPtr, storageType, threadBase,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

/// Writes the source's elements with stmatrix.x4: lane l gives the address
/// of row l % 8 of matrix l / 8, the matrices of one store being the
/// thread's register pairs 4g .. 4g + 3, each pair one 32-bit word.
void storeMatrices(OpBuilder &b, Location loc, const LayoutMap &map,
                   ArrayRef<Value> elements, Value base, Type storageType,
                   ArrayRef<int64_t> strides) {
  MLIRContext *context = b.getContext();
  auto sharedPtr = LLVM::LLVMPointerType::get(context, 3);
  // Lane bits 0-2 pick the row of a matrix, bits 3-4 the matrix: the
  // register bases of pairs 1 and 2 (the map is linear, so these are the
  // steps from the first matrix to the others of every store).
  SmallVector<SmallVector<int64_t>> laneBases = {
      {1, 0}, {2, 0}, {4, 0}, map.registers[1], map.registers[2]};
  SmallVector<Value> starts = emitThreadStarts(b, loc, laneBases, map.warps, 2);
  Value threadBase =
      LLVM::GEPOp::create(b, loc, sharedPtr, storageType, base,
                          ValueRange{emitSlot(b, loc, starts, strides)});
  auto pairType = VectorType::get(2, storageType);
  Type i32 = b.getI32Type();
  for (unsigned first = 0; first < elements.size(); first += 8) {
    SmallVector<Value> words;
    for (unsigned pair = first; pair < first + 8; pair += 2) {
      Value vector = LLVM::UndefOp::create(b, loc, pairType);
      for (unsigned x = 0; x < 2; ++x)
        vector = LLVM::InsertElementOp::create(
            b, loc, vector, elements[pair + x], i32Constant(b, loc, x));
      words.push_back(LLVM::BitcastOp::create(b, loc, i32, vector));
    }
    Value address = emitAddress(b, loc, threadBase, storageType,
                                constantSlot(map.apply(first, 0, 0), strides));
    NVVM::StMatrixOp::create(b, loc, address, words, NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
                             NVVM::LdStMatrixEltType::B16);
  }
}

/// The scratch address of each of a thread's vectors of `width` elements
/// (every `width`-th register starts one).
SmallVector<Value> emitVectorAddresses(OpBuilder &b, Location loc,
                                       const LayoutMap &map, unsigned width,
                                       Value base, Type storageType,
                                       ArrayRef<int64_t> strides) {
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  SmallVector<Value> starts =
      emitThreadStarts(b, loc, map.lanes, map.warps, map.getRank());
  Value threadBase =
      LLVM::GEPOp::create(b, loc, sharedPtr, storageType, base,
                          ValueRange{emitSlot(b, loc, starts, strides)});
  SmallVector<Value> addresses;
  for (unsigned first = 0; first < map.getNumRegisters(); first += width)
    addresses.push_back(
        emitAddress(b, loc, threadBase, storageType,
                    constantSlot(map.apply(first, 0, 0), strides)));
  return addresses;
}

/// convert_layout between layouts with LayoutMaps, through shared memory.
struct SharedConvertLayoutLowering
    : public ConvertOpToLLVMPattern<ConvertLayoutOp> {
  SharedConvertLayoutLowering(TileGPUTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    // mma.sync operands are read with ldmatrix (DotOperandToLLVM.cpp) or
    // element by element.
    if (isa<DotOperandEncodingAttr>(type.getEncoding()))
      return failure();
    std::optional<LayoutMap> srcMap =
        LayoutMap::get(srcType.getEncoding(), srcType.getShape());
    std::optional<LayoutMap> map =
        LayoutMap::get(type.getEncoding(), type.getShape());
    if (!srcMap || !map)
      return failure();

    Location loc = op.getLoc();
    Type elementType = getTypeConverter()->convertType(type.getElementType());
    Type storageType = getStorageType(elementType);
    unsigned bytes = storageBytes(storageType);
    SmallVector<int64_t> scratchShape = getScratchShape(op);
    SmallVector<int64_t> strides = getStrides(scratchShape);
    int64_t rowBytes = scratchShape.back() * bytes;
    Value base = getSharedMemoryBase(rewriter, loc, op);

    // Wait until earlier users of the scratch space are done with it.
    emitBarrier(rewriter, loc);
    SmallVector<Value> srcElements;
    for (Value element : unpackStruct(rewriter, loc, adaptor.getSrc()))
      srcElements.push_back(toStorage(rewriter, loc, element));
    // stmatrix writes a matrix's eight rows at once: conflict-free when
    // consecutive rows start an odd number of 16-byte units apart.
    bool matrixStores = targetsHopper(op) && bytes == 2 &&
                        isMatrixFragment(*srcMap) && rowBytes % 16 == 0 &&
                        (rowBytes / 16) % 2 == 1;
    if (matrixStores) {
      storeMatrices(rewriter, loc, *srcMap, srcElements, base, storageType,
                    strides);
    } else {
      unsigned width = getVectorWidth(*srcMap, bytes, scratchShape.back());
      SmallVector<Value> addresses = emitVectorAddresses(
          rewriter, loc, *srcMap, width, base, storageType, strides);
      for (auto [index, address] : llvm::enumerate(addresses)) {
        ArrayRef<Value> run =
            ArrayRef<Value>(srcElements).slice(index * width, width);
        Value stored = run.front();
        if (width > 1) {
          stored = LLVM::UndefOp::create(rewriter, loc,
                                         VectorType::get(width, storageType));
          for (auto [x, element] : llvm::enumerate(run))
            stored = LLVM::InsertElementOp::create(
                rewriter, loc, stored, element, i32Constant(rewriter, loc, x));
        }
        LLVM::StoreOp::create(rewriter, loc, stored, address, width * bytes);
      }
    }
    emitBarrier(rewriter, loc);

    unsigned width = getVectorWidth(*map, bytes, scratchShape.back());
    SmallVector<Value> elements;
    for (Value address : emitVectorAddresses(rewriter, loc, *map, width, base,
                                             storageType, strides)) {
      Type loadedType =
          width > 1 ? Type(VectorType::get(width, storageType)) : storageType;
      Value loaded = LLVM::LoadOp::create(rewriter, loc, loadedType, address,
                                          width * bytes);
      for (unsigned x = 0; x < width; ++x) {
        Value element =
            width > 1
                ? Value(LLVM::ExtractElementOp::create(
                      rewriter, loc, loaded, i32Constant(rewriter, loc, x)))
                : loaded;
        elements.push_back(fromStorage(rewriter, loc, element, elementType));
      }
    }
    replaceWithElements(rewriter, op, type, elements, *getTypeConverter());
    return success();
  }
};

} // namespace

void tilelang::lowering::populateConvertLayoutToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<SharedConvertLayoutLowering>(converter);
}
