//===- TestAxisInfo.cpp - print axis info as remarks ----------------------===//
//
// Part of tilelang. The test-print-axis-info pass, which makes the axis-info
// analysis checkable from lit tests.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Analysis/AxisInfo.h"
#include "tilelang/Analysis/Passes.h"

#include "tilelang/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"

namespace tilelang {
#define GEN_PASS_DEF_TESTPRINTAXISINFO
#include "tilelang/Analysis/Passes.h.inc"
} // namespace tilelang

using namespace mlir;
using namespace tilelang;

namespace {
/// Emits one remark per integer or pointer result with its axis info.
struct TestPrintAxisInfoPass
    : public tilelang::impl::TestPrintAxisInfoBase<TestPrintAxisInfoPass> {
  void runOnOperation() override {
    ModuleAxisInfo axisInfo(getOperation());
    getOperation().walk([&](Operation *op) {
      if (op->getNumResults() == 0)
        return;
      Type element = getElementTypeOrSelf(op->getResult(0).getType());
      if (!isa<IntegerType, tile::PointerType>(element))
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      axisInfo.get(op->getResult(0)).print(os);
      op->emitRemark(text);
    });
  }
};
} // namespace
