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
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;
using namespace tilelang::lowering;

//===----------------------------------------------------------------------===//
// Layout queries
//===----------------------------------------------------------------------===//

unsigned tilelang::lowering::getContiguousPerThread(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  // Blocked layouts and tensor-core accumulators; operands and slices
  // count 1.
  if (!tensor || !isa_and_present<BlockedEncodingAttr, MmaEncodingAttr>(
                     tensor.getEncoding()))
    return 1;
  std::optional<LayoutMap> tile = LayoutMap::getTile(tensor.getEncoding());
  if (!tile)
    return 1;
  // The thread's first registers, while they step 1, 2, 4, ... along the
  // fastest dimension.
  unsigned dim = getFastestDim(type), run = 1;
  for (ArrayRef<int64_t> base : tile->registers) {
    SmallVector<int64_t> next(base.size(), 0);
    next[dim] = run;
    if (base != ArrayRef<int64_t>(next))
      break;
    run *= 2;
  }
  return run;
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

ElementIndices
tilelang::lowering::getElementIndices(DistributedEncodingAttr layout,
                                      ArrayRef<int64_t> shape) {
  std::optional<LayoutMap> map = LayoutMap::get(layout, shape);
  if (!map)
    return {};
  ElementIndices result;
  for (unsigned reg = 0; reg < map->getNumRegisters(); ++reg)
    result.push_back(map->getRegisterIndex(reg));
  return result;
}

namespace {
/// Consecutive bits of a lane or warp id whose bases double along one
/// dimension: a field of the id that places the thread along it, the
/// first bit's base apart per step.
struct IdField {
  unsigned dim, firstBit, numBits;
  int64_t step;
};
} // namespace

/// The fields of an id whose bases are `bases`. Every encoding's bases step
/// along one dimension each, by a power of two (LayoutMap).
static SmallVector<IdField> getIdFields(ArrayRef<SmallVector<int64_t>> bases) {
  auto dimOf = [](ArrayRef<int64_t> base) -> std::optional<unsigned> {
    std::optional<unsigned> found;
    for (auto [dim, step] : llvm::enumerate(base)) {
      if (step == 0)
        continue;
      assert(!found && llvm::isPowerOf2_64(step) &&
             "a layout base steps along more than one dimension");
      found = dim;
    }
    return found;
  };
  SmallVector<IdField> fields;
  for (unsigned bit = 0; bit < bases.size();) {
    std::optional<unsigned> dim = dimOf(bases[bit]);
    if (!dim) {
      ++bit;
      continue;
    }
    unsigned end = bit + 1;
    while (end < bases.size() && dimOf(bases[end]) == dim &&
           bases[end][*dim] == 2 * bases[end - 1][*dim])
      ++end;
    fields.push_back({*dim, bit, end - bit, bases[bit][*dim]});
    bit = end;
  }
  return fields;
}

// The sum of the thread's lane and warp fields, each times its step. Where
// the thread id's bits run on from the lane field into the warp field along
// the same steps, the two join as `(warp * lanes + lane) * step`, which LLVM
// folds into the thread id.
SmallVector<Value> tilelang::lowering::emitThreadStarts(
    OpBuilder &b, Location loc, ArrayRef<SmallVector<int64_t>> laneBases,
    ArrayRef<SmallVector<int64_t>> warpBases, unsigned rank) {
  auto constant = [&](int64_t value) { return i32Constant(b, loc, value); };
  Value laneId = getLaneId(b, loc), warpId = getWarpId(b, loc);
  // As a quotient's remainder rather than shift-and-mask: LLVM folds
  // `(warp % w) * 32 + lane % 32` back into the thread id in this form.
  auto extract = [&](Value id, const IdField &field) -> Value {
    Value value = id;
    if (field.firstBit)
      value = LLVM::UDivOp::create(b, loc, value,
                                   constant(int64_t(1) << field.firstBit));
    return LLVM::URemOp::create(b, loc, value,
                                constant(int64_t(1) << field.numBits));
  };
  auto scale = [&](Value value, int64_t step) -> Value {
    return step == 1
               ? value
               : Value(LLVM::MulOp::create(b, loc, value, constant(step)));
  };
  SmallVector<IdField> laneFields = getIdFields(laneBases);
  SmallVector<IdField> warpFields = getIdFields(warpBases);
  // Dimensions in the order the lane fields, then the warp fields, step
  // along them (the fastest first).
  SmallVector<unsigned> dims;
  for (const IdField &field :
       llvm::concat<const IdField>(laneFields, warpFields))
    if (!llvm::is_contained(dims, field.dim))
      dims.push_back(field.dim);
  SmallVector<Value> starts(rank);
  for (unsigned dim : dims) {
    auto along = [&](ArrayRef<IdField> fields) {
      SmallVector<IdField> result;
      for (const IdField &field : fields)
        if (field.dim == dim)
          result.push_back(field);
      return result;
    };
    SmallVector<IdField> lanes = along(laneFields), warps = along(warpFields);
    SmallVector<Value> terms;
    if (lanes.size() == 1 && warps.size() == 1 &&
        lanes[0].firstBit + lanes[0].numBits == laneBases.size() &&
        warps[0].firstBit == 0 &&
        warps[0].step == lanes[0].step << lanes[0].numBits) {
      Value laneField = extract(laneId, lanes[0]);
      Value warpField = extract(warpId, warps[0]);
      Value thread = LLVM::AddOp::create(
          b, loc, scale(warpField, int64_t(1) << lanes[0].numBits), laneField);
      terms.push_back(scale(thread, lanes[0].step));
    } else {
      for (const IdField &field : lanes)
        terms.push_back(scale(extract(laneId, field), field.step));
      SmallVector<Value> warpTerms;
      for (const IdField &field : warps)
        warpTerms.push_back(scale(extract(warpId, field), field.step));
      terms.insert(terms.begin(), warpTerms.begin(), warpTerms.end());
    }
    Value start = terms.front();
    for (Value term : ArrayRef<Value>(terms).drop_front())
      start = LLVM::AddOp::create(b, loc, start, term);
    starts[dim] = start;
  }
  for (Value &start : starts)
    if (!start)
      start = constant(0);
  return starts;
}

/// This thread's elements of a `shape` tensor in `layout`, in struct
/// order, read off the layout's LayoutMap: the lane and warp bases give the
/// thread's start, the register bases each element's constant offset.
/// Bases already wrap around a tensor smaller than the layout's tile, so
/// every coordinate is inside the tensor.
static ThreadElementCoordinates
emitCoordinates(OpBuilder &b, Location loc, DistributedEncodingAttr layout,
                ArrayRef<int64_t> shape) {
  std::optional<LayoutMap> map = LayoutMap::get(layout, shape);
  ThreadElementCoordinates result;
  // No elements where there is no map (see getElemsPerThread).
  if (!map) {
    result.starts.assign(shape.size(), i32Constant(b, loc, 0));
    return result;
  }
  result.starts =
      emitThreadStarts(b, loc, map->lanes, map->warps, map->getRank());
  for (unsigned reg = 0; reg < map->getNumRegisters(); ++reg)
    result.offsets.push_back(map->apply(reg, 0, 0));
  return result;
}

std::optional<FragmentRepetitions>
tilelang::lowering::getFragmentRepetitions(RankedTensorType type) {
  if (!isa_and_present<MmaEncodingAttr, DotOperandEncodingAttr>(
          type.getEncoding()))
    return std::nullopt;
  std::optional<LayoutMap> map =
      LayoutMap::get(type.getEncoding(), type.getShape());
  std::optional<LayoutMap> tile = LayoutMap::getTile(type.getEncoding());
  if (!map || !tile)
    return std::nullopt;
  // The tile's registers come first, its repetitions after: along each
  // dimension a register's index splits into repetition and position in
  // the tile.
  assert(ArrayRef<unsigned>(map->registerDims)
             .take_front(tile->registerDims.size()) ==
         ArrayRef<unsigned>(tile->registerDims));
  SmallVector<unsigned> perTile = tile->getRegistersPerDim();
  FragmentRepetitions result;
  unsigned count = 1;
  for (auto [total, inTile] :
       llvm::zip_equal(map->getRegistersPerDim(), perTile)) {
    result.reps.push_back(total / inTile);
    count *= total / inTile;
  }
  result.positions.resize(count);
  for (unsigned reg = 0; reg < map->getNumRegisters(); ++reg) {
    SmallVector<unsigned> index = map->getRegisterIndex(reg);
    unsigned linear = 0;
    for (auto [position, inTile, reps] :
         llvm::zip_equal(index, perTile, result.reps))
      linear = linear * reps + position / inTile;
    result.positions[linear].push_back(reg);
  }
  return result;
}

ArrayRef<unsigned> FragmentRepetitions::get(ArrayRef<unsigned> rep) const {
  unsigned linear = 0;
  for (auto [index, count] : llvm::zip_equal(rep, reps))
    linear = linear * count + index;
  return positions[linear];
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
  for (auto [start, offset] : llvm::zip_equal(starts, offsets[element]))
    coords.push_back(
        LLVM::AddOp::create(b, loc, start, i32Constant(b, loc, offset)));
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

void tilelang::lowering::emitPredicatedSharedStore(OpBuilder &builder,
                                                   Location loc, Value pointer,
                                                   Value value,
                                                   Value predicate) {
  unsigned bits = value.getType().getIntOrFloatBitWidth();
  // PTX has no 8-bit registers: a byte is stored from a 16-bit one.
  if (bits == 8)
    value = LLVM::ZExtOp::create(builder, loc, builder.getI16Type(), value);
  unsigned registerBits = std::max(bits, 16u);
  StringRef constraint = registerBits == 64   ? "l"
                         : registerBits == 16 ? "h"
                                              : "r";
  std::string text =
      llvm::formatv("@$2 st.shared.b{0} [ $0 ], $1;", bits).str();
  emitInlineAsm(builder, loc, TypeRange{},
                ValueRange{pointer, value, predicate}, text,
                ("l," + constraint + ",b").str());
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
  // A scalar atomic shares its old value through one slot, and so does a
  // volatile scalar load (broadcastFromOwner).
  if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op) &&
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return 8;
  if (auto load = dyn_cast<tile::LoadOp>(op))
    if (load.getIsVolatile() && !isa<RankedTensorType>(load.getType()))
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
