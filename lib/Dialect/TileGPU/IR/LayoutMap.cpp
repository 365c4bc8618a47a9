//===- LayoutMap.cpp - distributed layouts as maps of bits ----------------===//
//
// Part of tilelang. Builds the (register, lane, warp) -> coordinates map of
// each distributed encoding, the one place each layout's fragment is
// written, and answers from it how a layout spreads along a dimension and
// whether two layouts differ only in register order.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/IR/LayoutMap.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// Builds a layout's bases kind by kind: first one repetition of the layout
/// (its lanes, warps and registers; the tile it covers grows with each),
/// then registers repeating that tile over the tensor. Checks that every
/// count is a power of two and that a tile's bases along a dimension cover
/// it, so that a repetition steps exactly one tile.
class MapBuilder {
public:
  /// Over `shape`; with no shape (`rank` dimensions), one repetition only.
  MapBuilder(unsigned rank, std::optional<ArrayRef<int64_t>> shape)
      : rank(rank), covered(rank, 1), extent(rank, 1) {
    if (!shape)
      return;
    tensorShape.emplace(shape->begin(), shape->end());
    for (int64_t size : *shape)
      valid &= size > 0 && llvm::isPowerOf2_64(size);
  }

  /// `count` registers stepping `step` apart along `dim` (the index
  /// dimension too): bases step, 2 step, 4 step, ...
  void registers(unsigned dim, int64_t step, int64_t count) {
    for (int64_t multiple : steps(dim, step, count)) {
      map.registers.push_back(along(dim, step * multiple));
      map.registerDims.push_back(dim);
    }
  }
  /// `count` lanes stepping `step` apart along `dim`; step 0 replicates.
  void lanes(unsigned dim, int64_t step, int64_t count) {
    for (int64_t multiple : steps(dim, step, count))
      map.lanes.push_back(along(dim, step * multiple));
  }
  /// `count` warps stepping `step` apart along `dim`; step 0 replicates.
  void warps(unsigned dim, int64_t step, int64_t count) {
    for (int64_t multiple : steps(dim, step, count))
      map.warps.push_back(along(dim, step * multiple));
  }
  /// Registers repeating the tile built so far along `dim` over the tensor
  /// (none when the tile covers it, or for one repetition).
  void repeat(unsigned dim) {
    // The tile's bases along `dim` must be 1, 2, 4, ... up to half the
    // tile, each once: then the next repetition starts one tile on.
    if (covered[dim] != extent[dim])
      valid = false;
    if (tensorShape)
      registers(dim, extent[dim],
                llvm::divideCeil((*tensorShape)[dim], extent[dim]));
  }

  /// The map: over the tensor, bases that step past it wrap around it (the
  /// element repeats, as sizes are powers of two); for one repetition, over
  /// the tile.
  std::optional<LayoutMap> finish() {
    if (!valid)
      return std::nullopt;
    map.shape = tensorShape ? *tensorShape : extent;
    auto wrap = [&](SmallVector<SmallVector<int64_t>> &bases) {
      for (SmallVector<int64_t> &base : bases)
        for (unsigned dim = 0; dim < rank; ++dim)
          base[dim] %= map.shape[dim];
    };
    wrap(map.registers);
    wrap(map.lanes);
    wrap(map.warps);
    return std::move(map);
  }

private:
  /// 1, 2, 4, ... below `count` (one per bit of an id below `count`);
  /// records what they add to the tile along `dim`.
  SmallVector<int64_t> steps(unsigned dim, int64_t step, int64_t count) {
    SmallVector<int64_t> result;
    if (count <= 0 || !llvm::isPowerOf2_64(count) || step < 0 ||
        (step && !llvm::isPowerOf2_64(step)) || dim >= rank) {
      valid = false;
      return result;
    }
    for (int64_t multiple = 1; multiple < count; multiple *= 2)
      result.push_back(multiple);
    if (step) {
      covered[dim] *= count;
      extent[dim] = std::max(extent[dim], step * count);
    }
    return result;
  }
  /// A coordinate `step` along `dim`.
  SmallVector<int64_t> along(unsigned dim, int64_t step) {
    SmallVector<int64_t> base(rank, 0);
    base[dim] = step;
    return base;
  }

  unsigned rank;
  std::optional<SmallVector<int64_t>> tensorShape;
  /// Per dimension, the positions the bases so far reach (their counts'
  /// product) and the extent they span.
  SmallVector<int64_t> covered, extent;
  LayoutMap map;
  bool valid = true;
};

using Shape = std::optional<ArrayRef<int64_t>>;

std::optional<LayoutMap> getBlockedMap(BlockedEncodingAttr layout,
                                       Shape shape) {
  MapBuilder builder(layout.getRank(), shape);
  ArrayRef<unsigned> sizePerThread = layout.getSizePerThread();
  for (unsigned dim : layout.getOrder())
    builder.lanes(dim, sizePerThread[dim], layout.getThreadsPerWarp()[dim]);
  for (unsigned dim : layout.getOrder())
    builder.warps(dim,
                  int64_t(sizePerThread[dim]) * layout.getThreadsPerWarp()[dim],
                  layout.getWarpsPerCTA()[dim]);
  // Struct order: the order's dimensions fastest first; within one, the
  // contiguous elements, then the repetitions of the CTA tile.
  for (unsigned dim : layout.getOrder()) {
    builder.registers(dim, 1, sizePerThread[dim]);
    builder.repeat(dim);
  }
  return builder.finish();
}

/// mma.sync's A fragment with `width` elements per 32-bit register: lane
/// 4g + t holds rows g and g + 8, `width` consecutive K elements at
/// t * width and 4 * width further; registers in the instruction's operand
/// order (a0: rows g, a1: g + 8, a2 and a3 the same 4 * width along K),
/// repeated along K, then M. Warps tile M by 16 rows (numbered M-fastest
/// or N-fastest); those along N hold the same rows. wgmma's register A is
/// this fragment with width 2.
std::optional<LayoutMap> getOperandAMap(int64_t width, ArrayRef<unsigned> warps,
                                        bool warpsMFastest, Shape shape) {
  MapBuilder builder(2, shape);
  builder.lanes(1, width, 4);
  builder.lanes(0, 1, 8);
  if (warpsMFastest) {
    builder.warps(0, 16, warps[0]);
    builder.warps(1, 0, warps[1]);
  } else {
    builder.warps(1, 0, warps[1]);
    builder.warps(0, 16, warps[0]);
  }
  builder.registers(1, 1, width);
  builder.registers(0, 8, 2);
  builder.registers(1, 4 * width, 2);
  builder.repeat(1);
  builder.repeat(0);
  return builder.finish();
}

/// mma.sync (version 2) accumulators and operands, after the PTX ISA's
/// fragments: lane 4g + t holds rows g and g + 8, and 2 (accumulator) or
/// kWidth (operand) consecutive elements at 2t (or t * kWidth) along the
/// columns, A's K columns also at 4 kWidth further; B column g at those K
/// rows. Registers in the instruction's operand order, then repetitions:
/// N then M for the accumulator, K then the other dimension for operands.
/// Warps are numbered N-fastest; an operand's replicate along the other
/// operand's dimension.
std::optional<LayoutMap> getMmaV2Map(Attribute layout, Shape shape) {
  auto operand = dyn_cast<DotOperandEncodingAttr>(layout);
  auto mma = cast<MmaEncodingAttr>(operand ? operand.getParent() : layout);
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  MapBuilder builder(2, shape);
  if (!operand) {
    builder.lanes(1, 2, 4);
    builder.lanes(0, 1, 8);
    builder.warps(1, 8, warps[1]);
    builder.warps(0, 16, warps[0]);
    builder.registers(1, 1, 2);
    builder.registers(0, 8, 2);
    builder.repeat(1);
    builder.repeat(0);
    return builder.finish();
  }
  int64_t width = operand.getKWidth();
  if (operand.getOpIdx() == 0)
    return getOperandAMap(width, warps, /*warpsMFastest=*/false, shape);
  builder.lanes(0, width, 4);
  builder.lanes(1, 1, 8);
  builder.warps(1, 8, warps[1]);
  builder.warps(0, 0, warps[0]);
  builder.registers(0, 1, width);
  builder.registers(0, 4 * width, 2);
  builder.repeat(0);
  builder.repeat(1);
  return builder.finish();
}

/// wgmma accumulators: as mma.sync's within each 8-column group of an
/// m64nN instruction, N/8 groups per lane; warps numbered M-fastest, 4 of a
/// warpgroup on 16 rows each of its 64.
std::optional<LayoutMap> getMmaV3Map(MmaEncodingAttr mma, Shape shape) {
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  unsigned instrN = mma.getInstrShape()[1];
  MapBuilder builder(2, shape);
  builder.lanes(1, 2, 4);
  builder.lanes(0, 1, 8);
  builder.warps(0, 16, warps[0]);
  builder.warps(1, instrN, warps[1]);
  builder.registers(1, 1, 2);
  builder.registers(0, 8, 2);
  builder.registers(1, 8, instrN / 8);
  builder.repeat(1);
  builder.repeat(0);
  return builder.finish();
}

/// The 2-D mma layout or dot operand `layout` names, built over `shape`;
/// nullopt for other layouts.
std::optional<LayoutMap> getTensorCoreMap(Attribute layout, Shape shape) {
  auto operand = dyn_cast_if_present<DotOperandEncodingAttr>(layout);
  auto mma = dyn_cast_if_present<MmaEncodingAttr>(operand ? operand.getParent()
                                                          : layout);
  if (!mma || mma.getRank() != 2)
    return std::nullopt;
  if (mma.getVersion() == 2)
    return getMmaV2Map(layout, shape);
  if (mma.getVersion() != 3)
    return std::nullopt;
  if (!operand)
    return getMmaV3Map(mma, shape);
  // wgmma's A operand in registers: per K step of 16, mma.sync's A
  // fragment (kWidth 2) with the accumulator's warps.
  if (operand.getOpIdx() == 0 && operand.getKWidth() == 2)
    return getOperandAMap(2, mma.getWarpsPerCTA(), /*warpsMFastest=*/true,
                          shape);
  return std::nullopt;
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
  return getTensorCoreMap(layout, shape);
}

std::optional<LayoutMap> LayoutMap::getTile(Attribute layout) {
  if (auto blocked = dyn_cast_if_present<BlockedEncodingAttr>(layout))
    return getBlockedMap(blocked, std::nullopt);
  return getTensorCoreMap(layout, std::nullopt);
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

SmallVector<unsigned> LayoutMap::getRegistersPerDim() const {
  SmallVector<unsigned> counts(getRank(), 1);
  for (unsigned dim : registerDims)
    counts[dim] *= 2;
  return counts;
}

SmallVector<unsigned> LayoutMap::getRegisterIndex(unsigned reg) const {
  SmallVector<unsigned> index(getRank(), 0), bits(getRank(), 0);
  for (auto [bit, dim] : llvm::enumerate(registerDims))
    index[dim] |= (reg >> bit & 1) << bits[dim]++;
  return index;
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
