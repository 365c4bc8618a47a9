//===- Utility.cpp - shared pieces of the LLVM lowering -------------------===//
//
// Part of tilelang. The type converter, the mapping from a thread's struct
// elements to tensor coordinates, struct packing, thread ids, and shared
// memory access used by every op family's lowering.
//
//===----------------------------------------------------------------------===//

#include "TileGPUToLLVM.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

//===----------------------------------------------------------------------===//
// Layout queries
//===----------------------------------------------------------------------===//

unsigned tilelang::lowering::getContiguousPerThread(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 1;
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(tensor.getEncoding()))
    return blocked.getSizePerThread()[blocked.getOrder()[0]];
  // mma.sync and wgmma accumulators: each register pair holds two adjacent
  // columns, next to each other in the struct (see the element orders below).
  if (isa<MmaEncodingAttr>(tensor.getEncoding()) && tensor.getRank() == 2 &&
      (getMmaV2Tile(tensor.getEncoding()) || getMmaV3Tile(tensor.getEncoding())))
    return 2;
  return 1;
}

unsigned tilelang::lowering::getFastestDim(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(tensor.getEncoding()))
    return blocked.getOrder()[0];
  return tensor.getRank() - 1;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

TileGPUTypeConverter::TileGPUTypeConverter(MLIRContext *context,
                                           const LowerToLLVMOptions &options)
    : LLVMTypeConverter(context, options) {
  addConversion([context](tile::PointerType type) -> Type {
    return LLVM::LLVMPointerType::get(context, type.getAddressSpace());
  });
  // A shared-memory buffer is its address; async tokens order nothing
  // once lowered (the PTX groups do).
  addConversion([context](MemDescType) -> Type {
    return LLVM::LLVMPointerType::get(context, 3);
  });
  // A host-encoded TMA tensor map is passed by value; the function sees
  // the address of its parameter (see FuncOpLowering).
  addConversion([context](tile::TensorMapType) -> Type {
    return LLVM::LLVMPointerType::get(context);
  });
  addConversion([context](AsyncTokenType) -> Type {
    return IntegerType::get(context, 32);
  });
  // A distributed tensor is the struct of a thread's elements (layouts only
  // conversions produce, like wgmma's register operand, included).
  addConversion([this](RankedTensorType type) -> std::optional<Type> {
    if (!isLowerableLayout(type.getEncoding()) &&
        !LayoutMap::get(type.getEncoding(), type.getShape()))
      return std::nullopt;
    Type element = convertType(type.getElementType());
    if (!element)
      return std::nullopt;
    unsigned count = getTotalElemsPerThread(type);
    return LLVM::LLVMStructType::getLiteral(type.getContext(),
                                            SmallVector<Type>(count, element));
  });
}

//===----------------------------------------------------------------------===//
// Element indexing
//===----------------------------------------------------------------------===//

bool tilelang::lowering::isLowerableLayout(Attribute layout) {
  if (isa_and_present<BlockedEncodingAttr>(layout) ||
      getMmaV2Tile(layout).has_value() || getMmaV3Tile(layout).has_value())
    return true;
  if (auto slice = dyn_cast_if_present<SliceEncodingAttr>(layout))
    return isLowerableLayout(slice.getParent());
  return false;
}

/// Struct order of mma.sync layouts: repetitions outermost (M then N for the
/// accumulator, the non-K dimension then K for operands), then the
/// registers of one instruction, then the elements packed in a register.
static ElementIndices getMmaV2ElementIndices(Attribute layout,
                                             ArrayRef<int64_t> shape) {
  MmaV2Tile tile = *getMmaV2Tile(layout);
  auto reps = [&](unsigned dim) {
    return unsigned(llvm::divideCeil(shape[dim], int64_t(tile.ctaTile[dim])));
  };
  ElementIndices result;
  auto operand = dyn_cast<DotOperandEncodingAttr>(layout);
  if (!operand) {
    for (unsigned i = 0; i < reps(0); ++i)
      for (unsigned j = 0; j < reps(1); ++j)
        for (unsigned e = 0; e < 4; ++e)
          result.push_back({i * 2 + e / 2, j * 2 + e % 2});
    return result;
  }
  unsigned width = operand.getKWidth();
  if (operand.getOpIdx() == 0) {
    for (unsigned i = 0; i < reps(0); ++i)
      for (unsigned kk = 0; kk < reps(1); ++kk)
        for (unsigned reg = 0; reg < 4; ++reg)
          for (unsigned x = 0; x < width; ++x)
            result.push_back(
                {i * 2 + reg % 2, kk * 2 * width + (reg / 2) * width + x});
    return result;
  }
  for (unsigned j = 0; j < reps(1); ++j)
    for (unsigned kk = 0; kk < reps(0); ++kk)
      for (unsigned reg = 0; reg < 2; ++reg)
        for (unsigned x = 0; x < width; ++x)
          result.push_back({kk * 2 * width + reg * width + x, j});
  return result;
}

/// Struct order of wgmma accumulators: repetitions (M, then N), then the
/// N/8 column groups of one instruction, then their 4 registers.
static ElementIndices getMmaV3ElementIndices(Attribute layout,
                                             ArrayRef<int64_t> shape) {
  MmaV2Tile tile = *getMmaV3Tile(layout);
  unsigned repM = llvm::divideCeil(shape[0], int64_t(tile.ctaTile[0]));
  unsigned repN = llvm::divideCeil(shape[1], int64_t(tile.ctaTile[1]));
  unsigned groups = tile.perThread[1] / 2;
  ElementIndices result;
  for (unsigned i = 0; i < repM; ++i)
    for (unsigned j = 0; j < repN; ++j)
      for (unsigned group = 0; group < groups; ++group)
        for (unsigned e = 0; e < 4; ++e)
          result.push_back(
              {i * 2 + e / 2, j * tile.perThread[1] + group * 2 + e % 2});
  return result;
}

ElementIndices
tilelang::lowering::getElementIndices(DistributedEncodingAttr layout,
                                      ArrayRef<int64_t> shape) {
  if (getMmaV2Tile(layout))
    return getMmaV2ElementIndices(layout, shape);
  if (getMmaV3Tile(layout))
    return getMmaV3ElementIndices(layout, shape);
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(layout)) {
    SmallVector<unsigned> elems = getElemsPerThread(blocked, shape);
    unsigned total = 1;
    for (unsigned count : elems)
      total *= count;
    ElementIndices result;
    for (unsigned linear = 0; linear < total; ++linear) {
      SmallVector<unsigned> index(shape.size());
      unsigned rest = linear;
      for (unsigned dim : blocked.getOrder()) {
        index[dim] = rest % elems[dim];
        rest /= elems[dim];
      }
      result.push_back(index);
    }
    return result;
  }
  if (auto slice = dyn_cast<SliceEncodingAttr>(layout)) {
    SmallVector<int64_t> parentShape(shape);
    parentShape.insert(parentShape.begin() + slice.getDim(), 1);
    ElementIndices result;
    for (SmallVector<unsigned> index : getElementIndices(
             cast<DistributedEncodingAttr>(slice.getParent()), parentShape)) {
      if (index[slice.getDim()] != 0)
        continue;
      index.erase(index.begin() + slice.getDim());
      result.push_back(index);
    }
    return result;
  }
  return {};
}

/// Per dimension, the tensor's size where a layout tile of `tile` is larger
/// than the tensor and wraps around it (replication), else 0.
static SmallVector<int64_t> getWrapSizes(ArrayRef<unsigned> tile,
                                         ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sizes;
  for (auto [size, extent] : llvm::zip_equal(tile, shape))
    sizes.push_back(size > extent ? extent : 0);
  return sizes;
}

/// Coordinates of the elements of an mma.sync layout or operand: within a
/// warp's instruction tile, lane = 4 * g + t holds accumulator rows g and
/// g + 8 at columns 2t and 2t + 1; operand A rows g and g + 8 at K columns
/// t*w + [0, w) and 4w + t*w + [0, w); operand B column g at those K rows
/// (w = kWidth). This is the fragment layout of the PTX ISA.
static ThreadElementCoordinates
emitMmaV2Coordinates(OpBuilder &b, Location loc, Attribute layout,
                     ArrayRef<int64_t> shape) {
  MmaV2Tile tile = *getMmaV2Tile(layout);
  auto operand = dyn_cast<DotOperandEncodingAttr>(layout);
  auto mma = cast<MmaEncodingAttr>(operand ? operand.getParent() : layout);
  auto constant = [&](int64_t value) { return i32Constant(b, loc, value); };
  auto add = [&](Value x, Value y) {
    return LLVM::AddOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) {
    return LLVM::MulOp::create(b, loc, x, constant(y));
  };
  Value lane = getLaneId(b, loc);
  Value group = LLVM::UDivOp::create(b, loc, lane, constant(4));
  Value inGroup = LLVM::URemOp::create(b, loc, lane, constant(4));
  auto [warpM, warpN] = emitMmaWarpCoordinates(b, loc, mma);
  // Thread-dependent bases along each dimension.
  Value rowBase = add(mul(warpM, 16), group);
  Value colBase = add(mul(warpN, 8), mul(inGroup, 2));
  unsigned width = operand ? operand.getKWidth() : 0;
  Value kBase = operand ? mul(inGroup, width) : Value();
  Value nBase = add(mul(warpN, 8), group);
  // Position of K index `index` within the thread's K elements.
  auto kOffset = [&](unsigned index) {
    return (index / (2 * width)) * 8 * width +
           ((index % (2 * width)) / width) * 4 * width + index % width;
  };
  ThreadElementCoordinates result;
  if (!operand)
    result.starts = {rowBase, colBase};
  else if (operand.getOpIdx() == 0)
    result.starts = {rowBase, kBase};
  else
    result.starts = {kBase, nBase};
  for (const SmallVector<unsigned> &index :
       getMmaV2ElementIndices(layout, shape)) {
    SmallVector<int64_t> offsets(2);
    if (!operand) {
      offsets[0] = (index[0] / 2) * tile.ctaTile[0] + 8 * (index[0] % 2);
      offsets[1] = (index[1] / 2) * tile.ctaTile[1] + index[1] % 2;
    } else if (operand.getOpIdx() == 0) {
      offsets[0] = (index[0] / 2) * tile.ctaTile[0] + 8 * (index[0] % 2);
      offsets[1] = kOffset(index[1]);
    } else {
      offsets[0] = kOffset(index[0]);
      offsets[1] = index[1] * tile.ctaTile[1];
    }
    result.offsets.push_back(offsets);
  }
  result.wrapSizes = getWrapSizes(tile.ctaTile, shape);
  return result;
}

/// Coordinates of the elements of a wgmma accumulator: warp w of a
/// warpgroup holds rows 16 * (w % 4) + [0, 16) of its 64; within them lane
/// 4g + t holds rows g and g + 8 at columns 8c + 2t and 8c + 2t + 1 of
/// every column group c (the PTX ISA's fragment layout).
static ThreadElementCoordinates
emitMmaV3Coordinates(OpBuilder &b, Location loc, Attribute layout,
                     ArrayRef<int64_t> shape) {
  MmaV2Tile tile = *getMmaV3Tile(layout);
  auto constant = [&](int64_t value) { return i32Constant(b, loc, value); };
  auto [warpM, warpN] =
      emitMmaWarpCoordinates(b, loc, cast<MmaEncodingAttr>(layout));
  Value lane = getLaneId(b, loc);
  Value group = LLVM::UDivOp::create(b, loc, lane, constant(4));
  Value inGroup = LLVM::URemOp::create(b, loc, lane, constant(4));
  unsigned instrN = tile.perThread[1] * 4;
  Value rowBase = LLVM::AddOp::create(
      b, loc, LLVM::MulOp::create(b, loc, warpM, constant(16)), group);
  Value colBase = LLVM::AddOp::create(
      b, loc, LLVM::MulOp::create(b, loc, warpN, constant(instrN)),
      LLVM::MulOp::create(b, loc, inGroup, constant(2)));
  ThreadElementCoordinates result;
  result.starts = {rowBase, colBase};
  for (const SmallVector<unsigned> &index :
       getMmaV3ElementIndices(layout, shape)) {
    unsigned within = index[1] % tile.perThread[1];
    result.offsets.push_back(
        {(index[0] / 2) * tile.ctaTile[0] + 8 * (index[0] % 2),
         (index[1] / tile.perThread[1]) * tile.ctaTile[1] + 8 * (within / 2) +
             within % 2});
  }
  result.wrapSizes = getWrapSizes(tile.ctaTile, shape);
  return result;
}

/// Coordinates read off a layout's LayoutMap: the lane and warp bits set
/// in this thread's ids add their bases to the start, the register bits
/// give each element's constant offset.
static ThreadElementCoordinates emitMapCoordinates(OpBuilder &b, Location loc,
                                                   const LayoutMap &map) {
  auto constant = [&](int64_t value) { return i32Constant(b, loc, value); };
  SmallVector<Value> starts(map.getRank(), constant(0));
  auto addBits = [&](ArrayRef<SmallVector<int64_t>> bases, Value id) {
    for (auto [bit, base] : llvm::enumerate(bases))
      for (unsigned dim = 0; dim < map.getRank(); ++dim) {
        if (base[dim] == 0)
          continue;
        Value set = LLVM::AndOp::create(
            b, loc, LLVM::LShrOp::create(b, loc, id, constant(bit)),
            constant(1));
        starts[dim] = LLVM::AddOp::create(
            b, loc, starts[dim],
            LLVM::MulOp::create(b, loc, set, constant(base[dim])));
      }
  };
  addBits(map.lanes, getLaneId(b, loc));
  addBits(map.warps, getWarpId(b, loc));
  ThreadElementCoordinates result;
  result.starts = starts;
  for (unsigned reg = 0; reg < map.getNumRegisters(); ++reg)
    result.offsets.push_back(map.apply(reg, 0, 0));
  result.wrapSizes.assign(map.getRank(), 0);
  return result;
}

/// This thread's elements of a `shape` tensor in `layout`, in struct order.
static ThreadElementCoordinates
emitCoordinates(OpBuilder &b, Location loc, DistributedEncodingAttr layout,
                ArrayRef<int64_t> shape) {
  // Layouts without a hand-written case (wgmma's register operand) are read
  // off their LayoutMap.
  if (!isLowerableLayout(layout))
    if (std::optional<LayoutMap> map = LayoutMap::get(layout, shape))
      return emitMapCoordinates(b, loc, *map);
  if (getMmaV2Tile(layout))
    return emitMmaV2Coordinates(b, loc, layout, shape);
  if (getMmaV3Tile(layout))
    return emitMmaV3Coordinates(b, loc, layout, shape);
  if (auto slice = dyn_cast<SliceEncodingAttr>(layout)) {
    SmallVector<int64_t> parentShape(shape);
    parentShape.insert(parentShape.begin() + slice.getDim(), 1);
    auto parent = cast<DistributedEncodingAttr>(slice.getParent());
    ElementIndices parentIndices = getElementIndices(parent, parentShape);
    ThreadElementCoordinates result =
        emitCoordinates(b, loc, parent, parentShape);
    unsigned dim = slice.getDim();
    result.starts.erase(result.starts.begin() + dim);
    result.wrapSizes.erase(result.wrapSizes.begin() + dim);
    SmallVector<SmallVector<int64_t>> kept;
    for (auto [index, offsets] :
         llvm::zip_equal(parentIndices, result.offsets)) {
      if (index[dim] != 0)
        continue;
      kept.push_back(offsets);
      kept.back().erase(kept.back().begin() + dim);
    }
    result.offsets = std::move(kept);
    return result;
  }
  auto blocked = cast<BlockedEncodingAttr>(layout);
  unsigned rank = shape.size();
  ArrayRef<unsigned> sizePerThread = blocked.getSizePerThread();
  ArrayRef<unsigned> threadsPerWarp = blocked.getThreadsPerWarp();
  ArrayRef<unsigned> warpsPerCTA = blocked.getWarpsPerCTA();
  SmallVector<unsigned> tile = getShapePerCTATile(blocked);

  // Where this thread's first element sits along each dimension.
  Value lane = getLaneId(b, loc), warp = getWarpId(b, loc);
  SmallVector<Value> threadBase(rank);
  for (unsigned dim : blocked.getOrder()) {
    Value laneCoord = LLVM::URemOp::create(
        b, loc, lane, i32Constant(b, loc, threadsPerWarp[dim]));
    lane = LLVM::UDivOp::create(b, loc, lane,
                                i32Constant(b, loc, threadsPerWarp[dim]));
    Value warpCoord = LLVM::URemOp::create(
        b, loc, warp, i32Constant(b, loc, warpsPerCTA[dim]));
    warp = LLVM::UDivOp::create(b, loc, warp,
                                i32Constant(b, loc, warpsPerCTA[dim]));
    Value thread = LLVM::AddOp::create(
        b, loc,
        LLVM::MulOp::create(b, loc, warpCoord,
                            i32Constant(b, loc, threadsPerWarp[dim])),
        laneCoord);
    threadBase[dim] = LLVM::MulOp::create(
        b, loc, thread, i32Constant(b, loc, sizePerThread[dim]));
  }

  ThreadElementCoordinates result;
  result.starts = threadBase;
  for (const SmallVector<unsigned> &index : getElementIndices(blocked, shape)) {
    SmallVector<int64_t> offsets(rank);
    for (unsigned dim = 0; dim < rank; ++dim)
      offsets[dim] = (index[dim] / sizePerThread[dim]) * tile[dim] +
                     index[dim] % sizePerThread[dim];
    result.offsets.push_back(offsets);
  }
  result.wrapSizes = getWrapSizes(tile, shape);
  return result;
}

std::optional<ThreadElementPlacement>
tilelang::lowering::getThreadElementPlacement(RankedTensorType type) {
  DistributedEncodingAttr layout = getDistributedEncoding(type);
  std::optional<unsigned> slicedDim;
  if (auto slice = dyn_cast_or_null<SliceEncodingAttr>(layout)) {
    slicedDim = slice.getDim();
    layout = cast<DistributedEncodingAttr>(slice.getParent());
  }
  auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(layout);
  if (!blocked)
    return std::nullopt;
  ThreadElementPlacement placement;
  placement.indices = getElementIndices(getDistributedEncoding(type),
                                        type.getShape());
  SmallVector<unsigned> tile = getShapePerCTATile(blocked);
  for (unsigned dim = 0; dim < tile.size(); ++dim) {
    if (slicedDim && dim == *slicedDim)
      continue;
    placement.run.push_back(blocked.getSizePerThread()[dim]);
    placement.tile.push_back(tile[dim]);
  }
  return placement;
}

SmallVector<Value>
ThreadElementCoordinates::emit(OpBuilder &b, Location loc,
                               unsigned element) const {
  SmallVector<Value> coords;
  for (auto [start, offset, wrap] :
       llvm::zip_equal(starts, offsets[element], wrapSizes)) {
    Value coord =
        LLVM::AddOp::create(b, loc, start, i32Constant(b, loc, offset));
    if (wrap)
      coord = LLVM::URemOp::create(b, loc, coord, i32Constant(b, loc, wrap));
    coords.push_back(coord);
  }
  return coords;
}

ThreadElementCoordinates
tilelang::lowering::emitThreadElementCoordinates(OpBuilder &builder,
                                                 Location loc,
                                                 RankedTensorType type) {
  return emitCoordinates(builder, loc, getDistributedEncoding(type),
                         type.getShape());
}

SmallVector<SmallVector<Value>>
tilelang::lowering::emitElementCoordinates(OpBuilder &builder, Location loc,
                                           RankedTensorType type) {
  ThreadElementCoordinates elements =
      emitThreadElementCoordinates(builder, loc, type);
  SmallVector<SmallVector<Value>> result;
  for (unsigned element = 0; element < elements.offsets.size(); ++element)
    result.push_back(elements.emit(builder, loc, element));
  return result;
}

FailureOr<DimSpread>
tilelang::lowering::getDimDistribution(DistributedEncodingAttr layout,
                                       ArrayRef<int64_t> shape, unsigned dim) {
  std::optional<LayoutMap> map = LayoutMap::get(layout, shape);
  if (!map)
    return failure();
  std::optional<DimSpread> spread = getDimSpread(*map, dim);
  if (!spread)
    return failure();
  return *spread;
}

//===----------------------------------------------------------------------===//
// Structs, constants, thread ids
//===----------------------------------------------------------------------===//

SmallVector<Value> tilelang::lowering::unpackStruct(OpBuilder &builder,
                                                    Location loc,
                                                    Value packed) {
  auto type = dyn_cast<LLVM::LLVMStructType>(packed.getType());
  if (!type)
    return {packed};
  SmallVector<Value> elements;
  for (unsigned index = 0; index < type.getBody().size(); ++index)
    elements.push_back(LLVM::ExtractValueOp::create(builder, loc, packed,
                                                    ArrayRef<int64_t>{index}));
  return elements;
}

Value tilelang::lowering::packStruct(OpBuilder &builder, Location loc,
                                     Type type, ValueRange elements) {
  Value result = LLVM::UndefOp::create(builder, loc, type);
  for (auto [index, element] : llvm::enumerate(elements))
    result = LLVM::InsertValueOp::create(builder, loc, result, element,
                                         ArrayRef<int64_t>{int64_t(index)});
  return result;
}

SmallVector<Value> tilelang::lowering::getElements(OpBuilder &builder,
                                                   Location loc,
                                                   Value converted,
                                                   Type originalType,
                                                   unsigned count) {
  if (isa<RankedTensorType>(originalType))
    return unpackStruct(builder, loc, converted);
  return SmallVector<Value>(count, converted);
}

void tilelang::lowering::replaceWithElements(
    ConversionPatternRewriter &rewriter, Operation *op, Type resultType,
    ValueRange elements, const TypeConverter &converter) {
  if (!isa<RankedTensorType>(resultType)) {
    rewriter.replaceOp(op, elements.front());
    return;
  }
  rewriter.replaceOp(op,
                     packStruct(rewriter, op->getLoc(),
                                converter.convertType(resultType), elements));
}

LLVM::InlineAsmOp
tilelang::lowering::emitInlineAsm(OpBuilder &builder, Location loc,
                                  TypeRange resultTypes, ValueRange operands,
                                  StringRef text, StringRef constraints,
                                  bool hasSideEffects) {
  Type resultType;
  if (resultTypes.size() == 1)
    resultType = resultTypes.front();
  else if (!resultTypes.empty())
    resultType = LLVM::LLVMStructType::getLiteral(builder.getContext(),
                                                  llvm::to_vector(resultTypes));
  return LLVM::InlineAsmOp::create(
      builder, loc, resultType ? TypeRange(resultType) : TypeRange(), operands,
      text, constraints, hasSideEffects, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(builder.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

SmallVector<Value> tilelang::lowering::inlineCombineRegion(OpBuilder &builder,
                                                           Region &region,
                                                           ValueRange earlier,
                                                           ValueRange later) {
  Block &block = region.front();
  IRMapping mapping;
  for (auto [arg, input] : llvm::zip_equal(
           block.getArguments(), llvm::concat<const Value>(earlier, later)))
    mapping.map(arg, input);
  for (Operation &nested : block.without_terminator())
    builder.clone(nested, mapping);
  SmallVector<Value> result;
  for (Value yielded : block.getTerminator()->getOperands())
    result.push_back(mapping.lookupOrDefault(yielded));
  return result;
}

Value tilelang::lowering::i32Constant(OpBuilder &builder, Location loc,
                                      int64_t value) {
  return LLVM::ConstantOp::create(builder, loc, builder.getI32Type(),
                                  builder.getI32IntegerAttr(value));
}

std::pair<Value, Value>
tilelang::lowering::emitMmaWarpCoordinates(OpBuilder &b, Location loc,
                                           MmaEncodingAttr mma,
                                           Value warp) {
  // mma.sync numbers warps N-fastest over the warpsPerCTA grid; wgmma
  // M-fastest, so that the 4 warps of a warpgroup share its 64 rows.
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  if (!warp)
    warp = getWarpId(b, loc);
  if (mma.getVersion() == 3) {
    Value warpM =
        LLVM::URemOp::create(b, loc, warp, i32Constant(b, loc, warps[0]));
    Value warpN = LLVM::URemOp::create(
        b, loc,
        LLVM::UDivOp::create(b, loc, warp, i32Constant(b, loc, warps[0])),
        i32Constant(b, loc, warps[1]));
    return {warpM, warpN};
  }
  Value warpN =
      LLVM::URemOp::create(b, loc, warp, i32Constant(b, loc, warps[1]));
  Value warpM = LLVM::URemOp::create(
      b, loc, LLVM::UDivOp::create(b, loc, warp, i32Constant(b, loc, warps[1])),
      i32Constant(b, loc, warps[0]));
  return {warpM, warpN};
}

bool tilelang::lowering::targetsHopper(Operation *op) {
  return getComputeCapability(op) >= 90;
}

Value tilelang::lowering::getThreadId(OpBuilder &builder, Location loc) {
  return NVVM::ThreadIdXOp::create(builder, loc, builder.getI32Type());
}

Value tilelang::lowering::getLaneId(OpBuilder &builder, Location loc) {
  return LLVM::URemOp::create(
      builder, loc, getThreadId(builder, loc),
      i32Constant(builder, loc, TileGPUDialect::kThreadsPerWarp));
}

Value tilelang::lowering::getWarpId(OpBuilder &builder, Location loc) {
  return LLVM::UDivOp::create(
      builder, loc, getThreadId(builder, loc),
      i32Constant(builder, loc, TileGPUDialect::kThreadsPerWarp));
}

Value tilelang::lowering::getUniformWarpId(OpBuilder &builder, Location loc) {
  Type i32 = builder.getI32Type();
  return NVVM::ShflOp::create(builder, loc, i32, i32Constant(builder, loc, -1),
                              getWarpId(builder, loc),
                              i32Constant(builder, loc, 0),
                              i32Constant(builder, loc, 0x1f),
                              NVVM::ShflKind::idx, UnitAttr());
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

Value tilelang::lowering::getSharedMemoryBase(OpBuilder &builder, Location loc,
                                              Operation *op) {
  auto ptrType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  Value base =
      LLVM::AddressOfOp::create(builder, loc, ptrType, kSharedMemorySymbol);
  // The op's own room, where allocateSharedMemory placed it.
  auto offset = op->getAttrOfType<IntegerAttr>(kSharedOffsetAttrName);
  if (!offset || offset.getInt() == 0)
    return base;
  return LLVM::GEPOp::create(builder, loc, ptrType, builder.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset.getInt())});
}

void tilelang::lowering::emitBarrier(OpBuilder &builder, Location loc) {
  NVVM::Barrier0Op::create(builder, loc);
}

Type tilelang::lowering::getStorageType(Type llvmElementType) {
  MLIRContext *context = llvmElementType.getContext();
  if (isa<LLVM::LLVMPointerType>(llvmElementType))
    return IntegerType::get(context, 64);
  if (llvmElementType.isInteger(1))
    return IntegerType::get(context, 8);
  return llvmElementType;
}

Value tilelang::lowering::toStorage(OpBuilder &builder, Location loc,
                                    Value value) {
  Type type = value.getType();
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::PtrToIntOp::create(builder, loc, builder.getI64Type(), value);
  if (type.isInteger(1))
    return LLVM::ZExtOp::create(builder, loc, builder.getI8Type(), value);
  return value;
}

Value tilelang::lowering::fromStorage(OpBuilder &builder, Location loc,
                                      Value stored, Type llvmElementType) {
  if (isa<LLVM::LLVMPointerType>(llvmElementType))
    return LLVM::IntToPtrOp::create(builder, loc, llvmElementType, stored);
  if (llvmElementType.isInteger(1))
    return LLVM::TruncOp::create(builder, loc, llvmElementType, stored);
  return stored;
}

SwizzledTile::SwizzledTile(ArrayRef<int64_t> shape, SharedEncodingAttr encoding)
    : contiguousDim(encoding.getOrder()[0]),
      rowLength(shape[encoding.getOrder()[0]]),
      numRows(shape[1 - encoding.getOrder()[0]]), vec(encoding.getVec()),
      perPhase(encoding.getPerPhase()), maxPhase(encoding.getMaxPhase()),
      blockLength(getSwizzleBlockLength(encoding, rowLength)) {}

std::optional<SwizzledTile> SwizzledTile::get(MemDescType buffer) {
  auto encoding = dyn_cast<SharedEncodingAttr>(buffer.getEncoding());
  if (!encoding || buffer.getShape().size() != 2)
    return std::nullopt;
  return SwizzledTile(buffer.getShape(), encoding);
}

Value SwizzledTile::emitOffset(OpBuilder &b, Location loc,
                               ArrayRef<Value> coords) const {
  auto constant = [&](int64_t value) { return i32Constant(b, loc, value); };
  auto mul = [&](Value x, int64_t y) {
    return LLVM::MulOp::create(b, loc, x, constant(y));
  };
  Value row = coords[1 - contiguousDim], column = coords[contiguousDim];
  Value phase = LLVM::URemOp::create(
      b, loc, LLVM::UDivOp::create(b, loc, row, constant(perPhase)),
      constant(maxPhase));
  Value inBlock = column;
  Value offset = mul(row, blockLength);
  if (blockLength < rowLength) {
    Value block = LLVM::UDivOp::create(b, loc, column, constant(blockLength));
    inBlock = LLVM::URemOp::create(b, loc, column, constant(blockLength));
    offset = LLVM::AddOp::create(b, loc, offset,
                                 mul(block, numRows * blockLength));
  }
  Value chunk = LLVM::UDivOp::create(b, loc, inBlock, constant(vec));
  Value swizzled = LLVM::XOrOp::create(b, loc, chunk, phase);
  Value inChunk = LLVM::URemOp::create(b, loc, inBlock, constant(vec));
  return LLVM::AddOp::create(
      b, loc, offset,
      LLVM::AddOp::create(b, loc, mul(swizzled, vec), inChunk));
}

SmallVector<Value>
SwizzledTile::emitOffsets(OpBuilder &b, Location loc,
                          const ThreadElementCoordinates &elements,
                          ArrayRef<unsigned> indices) const {
  auto add = [&](Value x, int64_t y) {
    return LLVM::AddOp::create(b, loc, x, i32Constant(b, loc, y));
  };
  unsigned rowDim = 1 - contiguousDim;
  SmallVector<Value> result;
  // Wrapped coordinates are no start plus a constant: each on its own.
  if (elements.wrapSizes[rowDim] || elements.wrapSizes[contiguousDim]) {
    for (unsigned index : indices)
      result.push_back(emitOffset(b, loc, elements.emit(b, loc, index)));
    return result;
  }
  // Rows a whole swizzle period apart share their phase, columns whole
  // blocks apart their position in the block.
  int64_t rowPeriod = int64_t(perPhase) * maxPhase;
  llvm::DenseMap<std::pair<int64_t, int64_t>, Value> residueOffsets;
  for (unsigned index : indices) {
    int64_t row = elements.offsets[index][rowDim];
    int64_t column = elements.offsets[index][contiguousDim];
    int64_t rowResidue = row % rowPeriod;
    int64_t columnResidue = column % blockLength;
    Value &offset = residueOffsets[{rowResidue, columnResidue}];
    if (!offset) {
      SmallVector<Value> coords(2);
      coords[rowDim] = add(elements.starts[rowDim], rowResidue);
      coords[contiguousDim] =
          add(elements.starts[contiguousDim], columnResidue);
      offset = emitOffset(b, loc, coords);
    }
    int64_t distance =
        (row - rowResidue) * blockLength +
        (column - columnResidue) / blockLength * numRows * blockLength;
    result.push_back(distance ? add(offset, distance) : offset);
  }
  return result;
}

/// Bytes one element of a tile type takes in shared memory.
static int64_t storageBytes(Type elementType) {
  if (isa<tile::PointerType>(elementType))
    return 8;
  return std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
}

SmallVector<int64_t> tilelang::lowering::getScratchShape(Operation *op) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t bytes = storageBytes(type.getElementType());
  if (isa<ConvertLayoutOp>(op) && shape.size() == 2 && bytes <= 16 &&
      shape[1] * bytes >= 128)
    shape[1] += 16 / bytes;
  return shape;
}

int64_t tilelang::lowering::getScratchBytes(Operation *op) {
  // Conversions that only reorder each thread's registers need no room.
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    if (getRegisterPermutation(convert.getSrc().getType().getEncoding(),
                               convert.getType().getEncoding(),
                               convert.getType().getShape()))
      return 0;
  if (isa<ConvertLayoutOp, tile::ReshapeOp, tile::TransOp>(op)) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t elements = 1;
    for (int64_t size : getScratchShape(op))
      elements *= size;
    return elements * storageBytes(type.getElementType());
  }
  // A scalar atomic shares its old value through one slot.
  if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op) &&
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return 8;
  if (auto scan = dyn_cast<tile::ScanOp>(op)) {
    auto type = cast<RankedTensorType>(scan.getSrcs().front().getType());
    int64_t bytes = 0;
    for (Value src : scan.getSrcs())
      bytes +=
          llvm::alignTo(type.getNumElements() *
                            storageBytes(getElementTypeOrSelf(src.getType())),
                        16);
    return bytes;
  }
  if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    auto srcType = cast<RankedTensorType>(reduce.getSrcs().front().getType());
    auto distribution = getDimDistribution(
        getDistributedEncoding(srcType), srcType.getShape(), reduce.getAxis());
    if (failed(distribution) || distribution->distinctWarps == 1)
      return 0;
    int64_t sliceElements =
        srcType.getNumElements() / srcType.getDimSize(reduce.getAxis());
    int64_t bytes = 0;
    for (Value src : reduce.getSrcs())
      bytes +=
          llvm::alignTo(distribution->distinctWarps * sliceElements *
                            storageBytes(getElementTypeOrSelf(src.getType())),
                        16);
    return bytes;
  }
  return 0;
}
