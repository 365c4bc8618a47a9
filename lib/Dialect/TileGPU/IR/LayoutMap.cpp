//===- LayoutMap.cpp - distributed layouts as maps of bits ----------------===//
//
// Part of tilelang. Builds the (register, lane, warp) -> coordinates map of
// each distributed encoding, and answers from it how a layout spreads along
// a dimension and whether two layouts differ only in register order.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/IR/LayoutMap.h"

#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// Appends the bases of one layout kind by kind, checking that every count
/// is a power of two.
class MapBuilder {
public:
  explicit MapBuilder(ArrayRef<int64_t> shape) {
    map.shape.assign(shape.begin(), shape.end());
    for (int64_t size : shape)
      valid &= size > 0 && llvm::isPowerOf2_64(size);
  }

  /// `count` registers stepping `step` apart along `dim` (the index
  /// dimension too): bases step, 2 step, 4 step, ...
  void registers(unsigned dim, int64_t step, int64_t count) {
    for (int64_t multiple : steps(count)) {
      map.registers.push_back(along(dim, step * multiple));
      map.registerDims.push_back(dim);
    }
  }
  /// `count` lanes stepping `step` apart along `dim`; step 0 replicates.
  void lanes(unsigned dim, int64_t step, int64_t count) {
    for (int64_t multiple : steps(count))
      map.lanes.push_back(along(dim, step * multiple));
  }
  /// `count` warps stepping `step` apart along `dim`; step 0 replicates.
  void warps(unsigned dim, int64_t step, int64_t count) {
    for (int64_t multiple : steps(count))
      map.warps.push_back(along(dim, step * multiple));
  }

  std::optional<LayoutMap> finish() {
    if (!valid)
      return std::nullopt;
    return std::move(map);
  }

private:
  /// 1, 2, 4, ... below `count` (one per bit of an id below `count`).
  SmallVector<int64_t> steps(int64_t count) {
    SmallVector<int64_t> result;
    if (count <= 0 || !llvm::isPowerOf2_64(count)) {
      valid = false;
      return result;
    }
    for (int64_t multiple = 1; multiple < count; multiple *= 2)
      result.push_back(multiple);
    return result;
  }
  /// A coordinate `step` along `dim`; steps past the tensor wrap to 0 (the
  /// element repeats), as sizes are powers of two.
  SmallVector<int64_t> along(unsigned dim, int64_t step) {
    SmallVector<int64_t> base(map.shape.size(), 0);
    if (valid)
      base[dim] = step % map.shape[dim];
    return base;
  }

  LayoutMap map;
  bool valid = true;
};

/// Repetitions of a layout tile of `tile` elements over `size`.
int64_t repetitions(int64_t size, unsigned tile) {
  return llvm::divideCeil(size, int64_t(tile));
}

std::optional<LayoutMap> getBlockedMap(BlockedEncodingAttr layout,
                                       ArrayRef<int64_t> shape) {
  MapBuilder builder(shape);
  ArrayRef<unsigned> sizePerThread = layout.getSizePerThread();
  SmallVector<unsigned> tile = getShapePerCTATile(layout);
  // Struct order: the order's dimensions fastest first; within one, the
  // contiguous elements, then the repetitions of the CTA tile.
  for (unsigned dim : layout.getOrder()) {
    builder.registers(dim, 1, sizePerThread[dim]);
    builder.registers(dim, tile[dim], repetitions(shape[dim], tile[dim]));
  }
  for (unsigned dim : layout.getOrder())
    builder.lanes(dim, sizePerThread[dim], layout.getThreadsPerWarp()[dim]);
  for (unsigned dim : layout.getOrder())
    builder.warps(dim,
                  int64_t(sizePerThread[dim]) * layout.getThreadsPerWarp()[dim],
                  layout.getWarpsPerCTA()[dim]);
  return builder.finish();
}

/// The registers and lanes of mma.sync's A fragment, `repK` steps of
/// 8 * `width` along K and `repM` tiles of `rowTile` rows: lane 4g + t holds
/// rows g and g + 8, `width` consecutive K elements at t * width and
/// 4 * width further (wgmma's register A is this fragment with width 2).
void addOperandAFragment(MapBuilder &builder, int64_t width, int64_t repK,
                         int64_t rowTile, int64_t repM) {
  builder.registers(1, 1, width);
  builder.registers(0, 8, 2);
  builder.registers(1, 4 * width, 2);
  builder.registers(1, 8 * width, repK);
  builder.registers(0, rowTile, repM);
  builder.lanes(1, width, 4);
  builder.lanes(0, 1, 8);
}

/// mma.sync (version 2) accumulators and operands, after the PTX ISA's
/// fragments: lane 4g + t holds rows g and g + 8, and 2 (accumulator) or
/// kWidth (operand) consecutive elements at 2t (or t * kWidth) along the
/// columns, A's K columns also at 4 kWidth further. Warps are numbered
/// N-fastest.
std::optional<LayoutMap> getMmaV2Map(Attribute layout,
                                     ArrayRef<int64_t> shape) {
  MmaV2Tile tile = *getMmaV2Tile(layout);
  MapBuilder builder(shape);
  auto operand = dyn_cast<DotOperandEncodingAttr>(layout);
  auto mma = cast<MmaEncodingAttr>(operand ? operand.getParent() : layout);
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  int64_t repM = repetitions(shape[0], tile.ctaTile[0]);
  int64_t repN = repetitions(shape[1], tile.ctaTile[1]);
  if (!operand) {
    builder.registers(1, 1, 2);
    builder.registers(0, 8, 2);
    builder.registers(1, tile.ctaTile[1], repN);
    builder.registers(0, tile.ctaTile[0], repM);
    builder.lanes(1, 2, 4);
    builder.lanes(0, 1, 8);
    builder.warps(1, 8, warps[1]);
    builder.warps(0, 16, warps[0]);
    return builder.finish();
  }
  int64_t width = operand.getKWidth();
  if (operand.getOpIdx() == 0) {
    addOperandAFragment(builder, width, repN, tile.ctaTile[0], repM);
    builder.warps(1, 0, warps[1]);
    builder.warps(0, 16, warps[0]);
    return builder.finish();
  }
  builder.registers(0, 1, width);
  builder.registers(0, 4 * width, 2);
  builder.registers(0, 8 * width, repM);
  builder.registers(1, tile.ctaTile[1], repN);
  builder.lanes(0, width, 4);
  builder.lanes(1, 1, 8);
  builder.warps(1, 8, warps[1]);
  builder.warps(0, 0, warps[0]);
  return builder.finish();
}

/// wgmma accumulators: as mma.sync's within each 8-column group of an
/// m64nN instruction, N/8 groups per lane; warps numbered M-fastest, 4 of a
/// warpgroup on 16 rows each of its 64.
std::optional<LayoutMap> getMmaV3Map(Attribute layout,
                                     ArrayRef<int64_t> shape) {
  MmaV2Tile tile = *getMmaV3Tile(layout);
  auto mma = cast<MmaEncodingAttr>(layout);
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  unsigned instrN = mma.getInstrShape()[1];
  MapBuilder builder(shape);
  builder.registers(1, 1, 2);
  builder.registers(0, 8, 2);
  builder.registers(1, 8, instrN / 8);
  builder.registers(1, tile.ctaTile[1], repetitions(shape[1], tile.ctaTile[1]));
  builder.registers(0, tile.ctaTile[0], repetitions(shape[0], tile.ctaTile[0]));
  builder.lanes(1, 2, 4);
  builder.lanes(0, 1, 8);
  builder.warps(0, 16, warps[0]);
  builder.warps(1, instrN, warps[1]);
  return builder.finish();
}

/// wgmma's A operand in registers: per K step of 16, mma.sync's A fragment
/// (kWidth 2) with the accumulator's warps (M-fastest; those along N hold
/// the same rows).
std::optional<LayoutMap> getWgmmaOperandMap(Attribute layout,
                                            ArrayRef<int64_t> shape) {
  MmaV2Tile tile = *getWgmmaOperandTile(layout);
  auto mma = cast<MmaEncodingAttr>(
      cast<DotOperandEncodingAttr>(layout).getParent());
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  MapBuilder builder(shape);
  addOperandAFragment(builder, /*width=*/2,
                      repetitions(shape[1], tile.ctaTile[1]), tile.ctaTile[0],
                      repetitions(shape[0], tile.ctaTile[0]));
  builder.warps(0, 16, warps[0]);
  builder.warps(1, 0, warps[1]);
  return builder.finish();
}

/// A slice holds its parent's elements at index 0 of the sliced dimension:
/// the parent's map without that dimension's register bits and coordinate.
std::optional<LayoutMap> getSliceMap(SliceEncodingAttr slice,
                                     ArrayRef<int64_t> shape) {
  unsigned dim = slice.getDim();
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + dim, 1);
  std::optional<LayoutMap> parent =
      LayoutMap::get(slice.getParent(), parentShape);
  if (!parent)
    return std::nullopt;
  LayoutMap map;
  map.shape.assign(shape.begin(), shape.end());
  auto drop = [&](SmallVector<int64_t> base) {
    base.erase(base.begin() + dim);
    return base;
  };
  for (auto [base, baseDim] :
       llvm::zip_equal(parent->registers, parent->registerDims)) {
    if (baseDim == dim)
      continue;
    map.registers.push_back(drop(base));
    map.registerDims.push_back(baseDim > dim ? baseDim - 1 : baseDim);
  }
  for (const SmallVector<int64_t> &base : parent->lanes)
    map.lanes.push_back(drop(base));
  for (const SmallVector<int64_t> &base : parent->warps)
    map.warps.push_back(drop(base));
  return map;
}

} // namespace

std::optional<LayoutMap> LayoutMap::get(Attribute layout,
                                        ArrayRef<int64_t> shape) {
  if (auto blocked = dyn_cast_if_present<BlockedEncodingAttr>(layout))
    return shape.size() == blocked.getRank() ? getBlockedMap(blocked, shape)
                                             : std::nullopt;
  if (auto slice = dyn_cast_if_present<SliceEncodingAttr>(layout))
    return getSliceMap(slice, shape);
  if (shape.size() != 2)
    return std::nullopt;
  if (getMmaV2Tile(layout))
    return getMmaV2Map(layout, shape);
  if (getMmaV3Tile(layout))
    return getMmaV3Map(layout, shape);
  if (getWgmmaOperandTile(layout))
    return getWgmmaOperandMap(layout, shape);
  return std::nullopt;
}

SmallVector<int64_t> LayoutMap::apply(unsigned reg, unsigned lane,
                                      unsigned warp) const {
  SmallVector<int64_t> coords(shape.size(), 0);
  auto accumulate = [&](ArrayRef<SmallVector<int64_t>> bases, unsigned id) {
    for (auto [bit, base] : llvm::enumerate(bases))
      if (id >> bit & 1)
        for (unsigned dim = 0; dim < coords.size(); ++dim)
          coords[dim] ^= base[dim];
  };
  accumulate(registers, reg);
  accumulate(lanes, lane);
  accumulate(warps, warp);
  return coords;
}

/// Distinct positions and id stride of `bases` along `dim`; false when the
/// bits stepping along `dim` are not contiguous or step elsewhere too.
static bool spreadAlong(ArrayRef<SmallVector<int64_t>> bases, unsigned dim,
                        unsigned &distinct, unsigned &stride) {
  int first = -1, count = 0;
  for (auto [bit, base] : llvm::enumerate(bases)) {
    if (base[dim] == 0)
      continue;
    for (unsigned other = 0; other < base.size(); ++other)
      if (other != dim && base[other] != 0)
        return false;
    if (first < 0)
      first = bit;
    else if (int(bit) != first + count)
      return false;
    ++count;
  }
  distinct = 1u << count;
  stride = first < 0 ? 1 : 1u << first;
  return true;
}

std::optional<DimSpread> tilelang::tilegpu::getDimSpread(const LayoutMap &map,
                                                         unsigned dim) {
  for (auto [base, baseDim] : llvm::zip_equal(map.registers, map.registerDims))
    if (baseDim == dim && base[dim] == 0)
      return std::nullopt;
  DimSpread spread;
  if (!spreadAlong(map.lanes, dim, spread.distinctLanes, spread.laneStride) ||
      !spreadAlong(map.warps, dim, spread.distinctWarps, spread.warpStride))
    return std::nullopt;
  return spread;
}

std::optional<SmallVector<unsigned>>
tilelang::tilegpu::getRegisterPermutation(Attribute from, Attribute to,
                                          ArrayRef<int64_t> shape) {
  std::optional<LayoutMap> source = LayoutMap::get(from, shape);
  std::optional<LayoutMap> target = LayoutMap::get(to, shape);
  if (!source || !target || source->lanes != target->lanes ||
      source->warps != target->warps)
    return std::nullopt;
  auto linear = [&](ArrayRef<int64_t> coords) {
    int64_t index = 0;
    for (auto [coord, size] : llvm::zip_equal(coords, shape))
      index = index * size + coord;
    return index;
  };
  llvm::DenseMap<int64_t, unsigned> sourceRegister;
  for (unsigned reg = 0; reg < source->getNumRegisters(); ++reg)
    sourceRegister.try_emplace(linear(source->apply(reg, 0, 0)), reg);
  SmallVector<unsigned> permutation;
  for (unsigned reg = 0; reg < target->getNumRegisters(); ++reg) {
    auto it = sourceRegister.find(linear(target->apply(reg, 0, 0)));
    if (it == sourceRegister.end())
      return std::nullopt;
    permutation.push_back(it->second);
  }
  return permutation;
}
