//===- AxisInfo.cpp - contiguity, divisibility, constancy -----------------===//
//
// Part of tilelang. Transfer functions of the axis-info analysis: how
// constants, ranges, splats, integer arithmetic, pointer arithmetic,
// comparisons and shape ops change what is known about each dimension.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Analysis/AxisInfo.h"

#include "tilelang/Dialect/Tile/IR/TileOps.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace tilelang;

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

AxisInfo::AxisInfo(DimVector contiguity, DimVector divisibility,
                   DimVector constancy, std::optional<int64_t> constantValue)
    : initialized(true), contiguity(std::move(contiguity)),
      divisibility(std::move(divisibility)), constancy(std::move(constancy)),
      constantValue(constantValue) {}

/// The shape the analysis uses for a value: [1] for scalars.
static SmallVector<int64_t> getAnalysisShape(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {1};
}

AxisInfo AxisInfo::getPessimisticState(Value value) {
  size_t rank = getAnalysisShape(value.getType()).size();
  return AxisInfo(DimVector(rank, 1), DimVector(rank, 1), DimVector(rank, 1));
}

AxisInfo AxisInfo::getConstantState(ArrayRef<int64_t> shape, int64_t constant) {
  return AxisInfo(DimVector(shape.size(), 1),
                  DimVector(shape.size(), highestPowerOf2Divisor(constant)),
                  DimVector(shape.begin(), shape.end()), constant);
}

int64_t AxisInfo::highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  return std::min<int64_t>(value & -value, kMaxDivisibility);
}

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (!lhs.isInitialized())
    return rhs;
  if (!rhs.isInitialized())
    return lhs;
  DimVector contiguity, divisibility, constancy;
  for (unsigned dim = 0; dim < lhs.getRank(); ++dim) {
    contiguity.push_back(std::gcd(lhs.contiguity[dim], rhs.contiguity[dim]));
    divisibility.push_back(
        std::gcd(lhs.divisibility[dim], rhs.divisibility[dim]));
    constancy.push_back(std::gcd(lhs.constancy[dim], rhs.constancy[dim]));
  }
  std::optional<int64_t> constant;
  if (lhs.constantValue == rhs.constantValue)
    constant = lhs.constantValue;
  return AxisInfo(contiguity, divisibility, constancy, constant);
}

void AxisInfo::print(raw_ostream &os) const {
  if (!initialized) {
    os << "<uninitialized>";
    return;
  }
  auto list = [&](StringRef name, const DimVector &values) {
    os << name << " = [";
    llvm::interleaveComma(values, os);
    os << "]";
  };
  list("contiguity", contiguity);
  list(", divisibility", divisibility);
  list(", constancy", constancy);
  if (constantValue)
    os << ", constant = " << *constantValue;
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

namespace {
using DimVector = AxisInfo::DimVector;

int64_t capDivisibility(int64_t value) {
  return std::min(value, AxisInfo::kMaxDivisibility);
}

/// Applies `fn(dim)` -> (contiguity, divisibility, constancy) to each dim.
template <typename Fn>
AxisInfo perDim(unsigned rank, Fn fn,
                std::optional<int64_t> constant = std::nullopt) {
  DimVector contiguity, divisibility, constancy;
  for (unsigned dim = 0; dim < rank; ++dim) {
    auto [contig, div, cst] = fn(dim);
    contiguity.push_back(contig);
    divisibility.push_back(capDivisibility(div));
    constancy.push_back(cst);
  }
  return AxisInfo(contiguity, divisibility, constancy, constant);
}

/// Folds a binary integer op over known constants.
std::optional<int64_t> foldConstants(const AxisInfo &lhs, const AxisInfo &rhs,
                                     llvm::function_ref<std::optional<int64_t>(
                                         int64_t, int64_t)> fn) {
  if (lhs.getConstantValue() && rhs.getConstantValue())
    return fn(*lhs.getConstantValue(), *rhs.getConstantValue());
  return std::nullopt;
}

/// x + y (or pointer + offset with `rhsScale` bytes per offset unit).
AxisInfo addInfo(const AxisInfo &lhs, const AxisInfo &rhs, bool subtract,
                 int64_t rhsScale = 1) {
  auto constant = foldConstants(lhs, rhs, [&](int64_t a, int64_t b) {
    return std::optional<int64_t>(subtract ? a - b : a + b * rhsScale);
  });
  return perDim(
      lhs.getRank(),
      [&](unsigned d) {
        // A contiguous run stays one when the other side is constant over
        // it; subtracting a contiguous run reverses it.
        int64_t contig = std::gcd(lhs.getContiguity(d), rhs.getConstancy(d));
        if (!subtract)
          contig = std::max(
              contig, std::gcd(rhs.getContiguity(d), lhs.getConstancy(d)));
        int64_t div = std::gcd(lhs.getDivisibility(d),
                               capDivisibility(rhs.getDivisibility(d) *
                                               rhsScale));
        return std::make_tuple(
            contig, div, std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
      },
      constant);
}

AxisInfo mulInfo(const AxisInfo &lhs, const AxisInfo &rhs) {
  // Multiplying by one changes nothing.
  if (rhs.getConstantValue() == 1)
    return lhs;
  if (lhs.getConstantValue() == 1)
    return rhs;
  auto constant = foldConstants(
      lhs, rhs, [](int64_t a, int64_t b) { return std::optional(a * b); });
  return perDim(
      lhs.getRank(),
      [&](unsigned d) {
        int64_t contig = 1;
        if (lhs.getConstantValue() == 1)
          contig = rhs.getContiguity(d);
        else if (rhs.getConstantValue() == 1)
          contig = lhs.getContiguity(d);
        // Divisibility holds for every element only where runs have
        // length 1; inside a run only its first element is known.
        int64_t lhsDiv = lhs.getContiguity(d) > 1 ? 1 : lhs.getDivisibility(d);
        int64_t rhsDiv = rhs.getContiguity(d) > 1 ? 1 : rhs.getDivisibility(d);
        return std::make_tuple(
            contig, lhsDiv * rhsDiv,
            std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
      },
      constant);
}

/// x / c and x % c for a constant power of two c; otherwise only constancy
/// survives.
AxisInfo divRemInfo(const AxisInfo &lhs, const AxisInfo &rhs, bool isRem) {
  auto constant = foldConstants(lhs, rhs, [&](int64_t a, int64_t b) {
    if (b == 0)
      return std::optional<int64_t>();
    return std::optional<int64_t>(isRem ? a % b : a / b);
  });
  std::optional<int64_t> divisor = rhs.getConstantValue();
  bool powerOf2 = divisor && *divisor > 0 && llvm::isPowerOf2_64(*divisor);
  return perDim(
      lhs.getRank(),
      [&](unsigned d) {
        int64_t constancy = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
        if (!powerOf2)
          return std::make_tuple(int64_t(1), int64_t(1), constancy);
        if (isRem) {
          // Runs of x continue in x % c until they wrap at multiples of c.
          int64_t contig = std::gcd(lhs.getContiguity(d), *divisor);
          return std::make_tuple(
              contig, std::gcd(lhs.getDivisibility(d), *divisor), constancy);
        }
        // x / c is constant over aligned runs of c consecutive values; its
        // divisibility is known only where x is not a run (every element
        // then shares x's divisibility).
        int64_t div = lhs.getContiguity(d) == 1 &&
                              lhs.getDivisibility(d) >= *divisor
                          ? lhs.getDivisibility(d) / *divisor
                          : 1;
        if (lhs.getDivisibility(d) >= *divisor)
          constancy = std::max(constancy,
                               std::gcd(lhs.getContiguity(d), *divisor));
        return std::make_tuple(int64_t(1), div, constancy);
      },
      constant);
}

AxisInfo cmpInfo(arith::CmpIPredicate predicate, const AxisInfo &lhs,
                 const AxisInfo &rhs, ArrayRef<int64_t> shape) {
  using P = arith::CmpIPredicate;
  // A run x, x+1, ... compared with a bound b constant over it flips where
  // x reaches b (for x < b and x >= b) or b + 1 (for x <= b and x > b).
  // Only the first flips at a multiple of b's divisibility, so only then
  // are aligned groups of elements uniform.
  bool runOnLeftFlipsAtBound = predicate == P::slt || predicate == P::sge ||
                               predicate == P::ult || predicate == P::uge;
  bool runOnRightFlipsAtBound = predicate == P::sgt || predicate == P::sle ||
                                predicate == P::ugt || predicate == P::ule;
  return perDim(lhs.getRank(), [&](unsigned d) {
    int64_t constancy = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
    auto runAgainstBound = [&](const AxisInfo &run, const AxisInfo &bound) {
      if (bound.getConstancy(d) < run.getContiguity(d))
        return int64_t(1);
      return std::gcd(run.getContiguity(d),
                      std::min(run.getDivisibility(d),
                               bound.getDivisibility(d)));
    };
    if (runOnLeftFlipsAtBound)
      constancy = std::max(constancy, runAgainstBound(lhs, rhs));
    if (runOnRightFlipsAtBound)
      constancy = std::max(constancy, runAgainstBound(rhs, lhs));
    constancy = std::min<int64_t>(constancy, shape[d]);
    return std::make_tuple(int64_t(1), int64_t(1), constancy);
  });
}
} // namespace

LogicalResult
AxisInfoAnalysis::visitOperation(Operation *op,
                                 ArrayRef<const AxisInfoLattice *> operands,
                                 ArrayRef<AxisInfoLattice *> results) {
  if (llvm::any_of(operands, [](const AxisInfoLattice *lattice) {
        return !lattice->getValue().isInitialized();
      }))
    return success();
  auto info = [&](unsigned index) -> const AxisInfo & {
    return operands[index]->getValue();
  };
  auto set = [&](unsigned index, const AxisInfo &value) {
    propagateIfChanged(results[index], results[index]->join(value));
  };
  auto setAllPessimistic = [&] {
    for (auto [index, result] : llvm::enumerate(op->getResults()))
      set(index, AxisInfo::getPessimisticState(result));
  };
  if (op->getNumResults() == 0)
    return success();
  Value result = op->getResult(0);
  SmallVector<int64_t> shape = getAnalysisShape(result.getType());

  llvm::TypeSwitch<Operation *>(op)
      .Case([&](arith::ConstantOp constant) {
        APInt value;
        if (matchPattern(constant.getResult(), m_ConstantInt(&value)))
          return set(0, AxisInfo::getConstantState(shape,
                                                   value.getSExtValue()));
        // Non-integer splats are at least constant.
        if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
            dense && dense.isSplat())
          return set(0, AxisInfo(DimVector(shape.size(), 1),
                                 DimVector(shape.size(), 1),
                                 DimVector(shape.begin(), shape.end())));
        setAllPessimistic();
      })
      .Case([&](tile::MakeRangeOp range) {
        int64_t start = static_cast<int32_t>(range.getStart());
        set(0, AxisInfo({shape[0]},
                        {AxisInfo::highestPowerOf2Divisor(start)}, {1}));
      })
      .Case([&](tile::SplatOp) {
        const AxisInfo &src = info(0);
        set(0, perDim(
                   shape.size(),
                   [&](unsigned d) {
                     return std::make_tuple(int64_t(1),
                                            src.getDivisibility(0), shape[d]);
                   },
                   src.getConstantValue()));
      })
      .Case([&](tile::AddPtrOp addptr) {
        Type pointee = getElementTypeOrSelf(
            tile::getPointeeType(addptr.getPtr().getType()));
        int64_t bytes =
            std::max<int64_t>(1, tile::getElementBitWidth(pointee) / 8);
        set(0, addInfo(info(0), info(1), /*subtract=*/false, bytes));
      })
      .Case([&](arith::AddIOp) {
        set(0, addInfo(info(0), info(1), /*subtract=*/false));
      })
      .Case([&](arith::SubIOp) {
        set(0, addInfo(info(0), info(1), /*subtract=*/true));
      })
      .Case([&](arith::MulIOp) { set(0, mulInfo(info(0), info(1))); })
      .Case<arith::DivSIOp, arith::DivUIOp>(
          [&](auto) { set(0, divRemInfo(info(0), info(1), false)); })
      .Case<arith::RemSIOp, arith::RemUIOp>(
          [&](auto) { set(0, divRemInfo(info(0), info(1), true)); })
      // Bitwise ops (2-D masks are and-ed row and column masks): equal
      // inputs give equal outputs, so runs of both survive.
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>([&](auto) {
        const AxisInfo &lhs = info(0), &rhs = info(1);
        set(0, perDim(shape.size(), [&](unsigned d) {
              return std::make_tuple(
                  int64_t(1), int64_t(1),
                  std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
            }));
      })
      .Case([&](arith::CmpIOp cmp) {
        set(0, cmpInfo(cmp.getPredicate(), info(0), info(1), shape));
      })
      .Case([&](arith::SelectOp select) {
        const AxisInfo &cond = info(0), &lhs = info(1), &rhs = info(2);
        // A scalar condition picks one side for the whole tensor.
        bool scalarCondition =
            !isa<RankedTensorType>(select.getCondition().getType());
        set(0, perDim(shape.size(), [&](unsigned d) {
              bool uniform = scalarCondition ||
                             cond.getConstancy(d) >= shape[d];
              int64_t contig =
                  uniform ? std::gcd(lhs.getContiguity(d), rhs.getContiguity(d))
                          : 1;
              int64_t constancy =
                  std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
              if (!scalarCondition)
                constancy = std::gcd(constancy, cond.getConstancy(d));
              return std::make_tuple(
                  contig,
                  std::gcd(lhs.getDivisibility(d), rhs.getDivisibility(d)),
                  constancy);
            }));
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
            arith::IndexCastOp, tilegpu::ConvertLayoutOp, tile::BitcastOp,
            tile::IntToPtrOp, tile::PtrToIntOp>(
          [&](auto) { set(0, info(0)); })
      .Case([&](tile::ExpandDimsOp expand) {
        const AxisInfo &src = info(0);
        unsigned axis = expand.getAxis();
        DimVector contig = src.getContiguity(), div = src.getDivisibility(),
                  cst = src.getConstancy();
        // Along the new dimension each element is its own run, so only a
        // divisibility every element shares carries over: none if the
        // source has runs (whose later elements are unknown).
        bool hasRuns = llvm::any_of(contig, [](int64_t c) { return c > 1; });
        int64_t everyElement = hasRuns ? 1 : *llvm::min_element(div);
        contig.insert(contig.begin() + axis, 1);
        div.insert(div.begin() + axis, everyElement);
        cst.insert(cst.begin() + axis, 1);
        set(0, AxisInfo(contig, div, cst, src.getConstantValue()));
      })
      .Case([&](tile::BroadcastOp broadcast) {
        const AxisInfo &src = info(0);
        ArrayRef<int64_t> srcShape = broadcast.getSrc().getType().getShape();
        set(0, perDim(
                   shape.size(),
                   [&](unsigned d) {
                     if (srcShape[d] == 1 && shape[d] != 1)
                       return std::make_tuple(int64_t(1),
                                              src.getDivisibility(d), shape[d]);
                     return std::make_tuple(src.getContiguity(d),
                                            src.getDivisibility(d),
                                            src.getConstancy(d));
                   },
                   src.getConstantValue()));
      })
      .Case([&](tile::TransOp trans) {
        const AxisInfo &src = info(0);
        DimVector contig, div, cst;
        for (int32_t dim : trans.getOrder()) {
          contig.push_back(src.getContiguity(dim));
          div.push_back(src.getDivisibility(dim));
          cst.push_back(src.getConstancy(dim));
        }
        set(0, AxisInfo(contig, div, cst, src.getConstantValue()));
      })
      .Default([&](Operation *) { setAllPessimistic(); });
  return success();
}

void AxisInfoAnalysis::visitNonControlFlowArguments(
    Operation *op, const RegionSuccessor &successor,
    ArrayRef<AxisInfoLattice *> argLattices, unsigned firstIndex) {
  // The body of an scf.for: the induction variable, then the iter_args
  // (the successor inputs). A loop without iter_args has no inputs, and the
  // framework then reports firstIndex 0, so the body is recognized by its
  // region rather than by firstIndex.
  auto forOp = dyn_cast<scf::ForOp>(op);
  if (!forOp || successor.getSuccessor() != &forOp.getRegion() ||
      argLattices.empty())
    return SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(
        op, successor, argLattices, firstIndex);
  // The induction variable: lb + k * step. The bounds are read on behalf of
  // the body's entry, so that a later change to them (a bound carried by an
  // enclosing loop, say) revisits the body's arguments; read for the point
  // after the loop, a change revisited only the loop's results and left the
  // induction variable too optimistic.
  ProgramPoint *bodyEntry = getProgramPointBefore(&forOp.getRegion().front());
  const AxisInfo &lb =
      getLatticeElementFor(bodyEntry, forOp.getLowerBound())->getValue();
  const AxisInfo &step =
      getLatticeElementFor(bodyEntry, forOp.getStep())->getValue();
  int64_t div = 1;
  if (lb.isInitialized() && step.isInitialized())
    div = std::gcd(lb.getDivisibility(0), step.getDivisibility(0));
  propagateIfChanged(argLattices[0],
                     argLattices[0]->join(AxisInfo({1}, {div}, {1})));
  size_t inputs = successor.getSuccessorInputs().size();
  setAllToEntryStates(argLattices.drop_front(1 + inputs));
}

void AxisInfoAnalysis::setToEntryState(AxisInfoLattice *lattice) {
  Value value = lattice->getAnchor();
  AxisInfo state = AxisInfo::getPessimisticState(value);
  // Kernel arguments may promise divisibility.
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func =
        dyn_cast_if_present<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock()) {
      if (auto divisor = func.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), tile::TileDialect::kDivisibilityAttrName))
        state = AxisInfo({1}, {capDivisibility(divisor.getInt())}, {1});
    }
  }
  propagateIfChanged(lattice, lattice->join(state));
}

//===----------------------------------------------------------------------===//
// ModuleAxisInfo
//===----------------------------------------------------------------------===//

ModuleAxisInfo::ModuleAxisInfo(Operation *root) {
  dataflow::loadBaselineAnalyses(solver);
  solver.load<AxisInfoAnalysis>();
  (void)solver.initializeAndRun(root);
}

AxisInfo ModuleAxisInfo::get(Value value) const {
  if (auto *lattice = solver.lookupState<AxisInfoLattice>(value))
    if (lattice->getValue().isInitialized())
      return lattice->getValue();
  return AxisInfo::getPessimisticState(value);
}

unsigned ModuleAxisInfo::getPointerVectorWidth(Value ptr, unsigned dim,
                                               unsigned elementBytes,
                                               unsigned maxBytes) const {
  AxisInfo axis = get(ptr);
  if (dim >= axis.getRank() || elementBytes == 0)
    return 1;
  int64_t contiguous = axis.getContiguity(dim);
  int64_t alignedElements =
      std::max<int64_t>(1, axis.getDivisibility(dim) / elementBytes);
  int64_t width = std::min({contiguous, alignedElements,
                            std::max<int64_t>(1, maxBytes / elementBytes)});
  return llvm::bit_floor(static_cast<uint64_t>(std::max<int64_t>(width, 1)));
}

unsigned ModuleAxisInfo::getMaskConstancy(Value mask, unsigned dim) const {
  if (!mask) {
    return std::numeric_limits<unsigned>::max();
  }
  AxisInfo axis = get(mask);
  if (dim >= axis.getRank())
    return 1;
  return axis.getConstancy(dim);
}
