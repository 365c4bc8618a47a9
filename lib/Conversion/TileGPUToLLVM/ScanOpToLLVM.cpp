//===- ScanOpToLLVM.cpp - prefix scans along an axis ----------------------===//
//
// Part of tilelang. Lowers tile.scan with a layout-independent parallel
// (Hillis-Steele) scan in shared memory: every thread writes its elements at
// their coordinates, then in log2(n) steps each element combines with the
// one 1, 2, 4, ... positions before it along the axis. Correct for any
// layout, replicated elements included; O(n log n) work, fine for the block
// sizes tile programs use.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

namespace {

struct ScanOpLowering : public ConvertOpToLLVMPattern<tile::ScanOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getSrcs().front().getType());
    if (!isLowerableLayout(type.getEncoding()))
      return op.emitError("scan needs a blocked (or sliced) layout");
    unsigned axis = op.getAxis();
    bool reverse = op.getReverse();
    int64_t size = type.getDimSize(axis);
    int64_t stride = 1;
    for (int64_t dim = type.getRank() - 1; dim > axis; --dim)
      stride *= type.getDimSize(dim);
    unsigned numOperands = op.getSrcs().size();

    // One shared-memory section per operand, each the whole tensor.
    Value base = getSharedMemoryBase(rewriter, loc, op);
    auto sharedPtr = LLVM::LLVMPointerType::get(getContext(), 3);
    SmallVector<SmallVector<Value>> values;
    SmallVector<Type> elementTypes, storageTypes;
    SmallVector<Value> sections;
    int64_t offset = 0;
    for (auto [operand, src] : llvm::enumerate(adaptor.getSrcs())) {
      values.push_back(unpackStruct(rewriter, loc, src));
      Type element = values.back().front().getType();
      Type storage = getStorageType(element);
      elementTypes.push_back(element);
      storageTypes.push_back(storage);
      sections.push_back(LLVM::GEPOp::create(
          rewriter, loc, sharedPtr, rewriter.getI8Type(), base,
          ValueRange{i32Constant(rewriter, loc, offset)}));
      offset += llvm::alignTo(type.getNumElements() *
                                  std::max(1u, storage.getIntOrFloatBitWidth() /
                                                   8),
                              16);
    }
    auto slot = [&](unsigned operand, Value index) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, sharedPtr,
                                 storageTypes[operand], sections[operand],
                                 ValueRange{index});
    };

    // Linear index and axis coordinate of each element.
    SmallVector<Value> linear, axisCoord;
    for (auto &coords : emitElementCoordinates(rewriter, loc, type)) {
      Value index = i32Constant(rewriter, loc, 0);
      for (auto [dim, coord] : llvm::enumerate(coords))
        index = LLVM::AddOp::create(
            rewriter, loc,
            LLVM::MulOp::create(rewriter, loc, index,
                                i32Constant(rewriter, loc,
                                            type.getDimSize(dim))),
            coord);
      linear.push_back(index);
      axisCoord.push_back(coords[axis]);
    }
    auto writeAll = [&] {
      emitBarrier(rewriter, loc);
      for (unsigned operand = 0; operand < numOperands; ++operand)
        for (auto [value, index] : llvm::zip_equal(values[operand], linear))
          LLVM::StoreOp::create(rewriter, loc, toStorage(rewriter, loc, value),
                                slot(operand, index));
      emitBarrier(rewriter, loc);
    };

    writeAll();
    for (int64_t distance = 1; distance < size; distance *= 2) {
      SmallVector<SmallVector<Value>> next(numOperands);
      for (unsigned element = 0; element < linear.size(); ++element) {
        // The partner `distance` positions earlier in scan order, if any.
        Value hasPartner =
            reverse ? LLVM::ICmpOp::create(
                          rewriter, loc, LLVM::ICmpPredicate::slt,
                          axisCoord[element],
                          i32Constant(rewriter, loc, size - distance))
                    : LLVM::ICmpOp::create(
                          rewriter, loc, LLVM::ICmpPredicate::sge,
                          axisCoord[element],
                          i32Constant(rewriter, loc, distance));
        Value partnerIndex = LLVM::AddOp::create(
            rewriter, loc, linear[element],
            i32Constant(rewriter, loc,
                        (reverse ? distance : -distance) * stride));
        Value safeIndex = LLVM::SelectOp::create(rewriter, loc, hasPartner,
                                                 partnerIndex, linear[element]);
        SmallVector<Value> partner, current;
        for (unsigned operand = 0; operand < numOperands; ++operand) {
          Value stored = LLVM::LoadOp::create(rewriter, loc,
                                              storageTypes[operand],
                                              slot(operand, safeIndex));
          partner.push_back(
              fromStorage(rewriter, loc, stored, elementTypes[operand]));
          current.push_back(values[operand][element]);
        }
        SmallVector<Value> combined =
            inlineCombineRegion(rewriter, op.getCombineOp(), partner, current);
        for (unsigned operand = 0; operand < numOperands; ++operand)
          next[operand].push_back(LLVM::SelectOp::create(
              rewriter, loc, hasPartner, combined[operand], current[operand]));
      }
      values = std::move(next);
      if (distance * 2 < size)
        writeAll();
    }

    SmallVector<Value> results;
    for (unsigned operand = 0; operand < numOperands; ++operand)
      results.push_back(packStruct(
          rewriter, loc,
          getTypeConverter()->convertType(op.getResult()[operand].getType()),
          values[operand]));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void tilelang::lowering::populateScanOpToLLVMPatterns(
    TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ScanOpLowering>(converter);
}
