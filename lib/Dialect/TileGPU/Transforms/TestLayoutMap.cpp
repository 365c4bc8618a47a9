//===- TestLayoutMap.cpp - print the LayoutMap of layouts -----------------===//
//
// Part of tilelang. A test pass: remarks with what the lowering reads off
// each function argument's LayoutMap (tile, registers, lane and warp
// bases), so that lit tests can check every layout's fragment.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/TileGPU/IR/LayoutMap.h"
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

namespace tilelang::tilegpu {
#define GEN_PASS_DEF_TILEGPUTESTLAYOUTMAP
#include "tilelang/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace tilelang::tilegpu

using namespace mlir;
using namespace tilelang;
using namespace tilelang::tilegpu;

namespace {

/// `(a,b)` for coordinates, `[a,b]` for indices and counts.
template <typename Range>
void printTuple(llvm::raw_ostream &os, const Range &values, char open,
                char close) {
  os << open;
  llvm::interleave(values, os, ",");
  os << close;
}

void printBases(llvm::raw_ostream &os, StringRef name,
                ArrayRef<SmallVector<int64_t>> bases) {
  os << " | " << name;
  for (const SmallVector<int64_t> &base : bases) {
    os << ' ';
    printTuple(os, base, '(', ')');
  }
}

/// One line: tile, registers per dimension, each register's offset and
/// index, lane and warp bases.
std::string describe(RankedTensorType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::optional<LayoutMap> map =
      LayoutMap::get(type.getEncoding(), type.getShape());
  if (!map)
    return "no layout map";
  os << "tile ";
  if (std::optional<LayoutMap> tile = LayoutMap::getTile(type.getEncoding())) {
    printTuple(os, tile->shape, '[', ']');
    os << " of ";
    printTuple(os, tile->getRegistersPerDim(), '[', ']');
  } else {
    os << "none";
  }
  os << " | registers ";
  printTuple(os, map->getRegistersPerDim(), '[', ']');
  os << ':';
  for (unsigned reg = 0; reg < map->getNumRegisters(); ++reg) {
    os << ' ';
    printTuple(os, map->apply(reg, 0, 0), '(', ')');
    printTuple(os, map->getRegisterIndex(reg), '[', ']');
  }
  printBases(os, "lanes", map->lanes);
  printBases(os, "warps", map->warps);
  return text;
}

/// Remarks on every function's distributed tensor arguments; see
/// Passes.td.
struct TileGPUTestLayoutMapPass
    : public tilelang::tilegpu::impl::TileGPUTestLayoutMapBase<
          TileGPUTestLayoutMapPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp function) {
      for (Type type : function.getArgumentTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(type))
          if (tensor.getEncoding())
            function.emitRemark() << describe(tensor);
    });
  }
};

} // namespace
