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
  AxisInfo state(DimVector(shape.size(), 1),
                 DimVector(shape.size(), highestPowerOf2Divisor(constant)),
                 DimVector(shape.begin(), shape.end()), constant);
  state.setNonNegative(constant >= 0);
  return state;
}

/// The low `width` bits set (all 64 for width >= 64).
static uint64_t lowBitsMask(unsigned width) {
  return width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
}

/// The divisibility of `info`'s values at the starts of aligned runs of
/// length `runs` along `dim`. Where those are starts of `info`'s own runs
/// it is `info`'s divisibility; elsewhere they fall inside its runs, at
/// offsets that are multiples of gcd(runs, own run length) steps, and only
/// that much of the divisibility survives. `step` is what one step of a run
/// adds (1, or a pointee's bytes when known; 1 is always safe).
static int64_t divisibilityAtRuns(const AxisInfo &info, unsigned dim,
                                  int64_t runs, int64_t step = 1) {
  int64_t own = info.getContiguity(dim);
  if (runs % own == 0)
    return info.getDivisibility(dim);
  return std::gcd(info.getDivisibility(dim), std::gcd(runs, own) * step);
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
    int64_t runs = std::gcd(lhs.contiguity[dim], rhs.contiguity[dim]);
    contiguity.push_back(runs);
    // Shorter runs start inside the longer ones of either side.
    divisibility.push_back(std::gcd(divisibilityAtRuns(lhs, dim, runs),
                                    divisibilityAtRuns(rhs, dim, runs)));
    constancy.push_back(std::gcd(lhs.constancy[dim], rhs.constancy[dim]));
  }
  std::optional<int64_t> constant;
  if (lhs.constantValue == rhs.constantValue)
    constant = lhs.constantValue;
  AxisInfo joined(contiguity, divisibility, constancy, constant);
  joined.setNonNegative(lhs.nonNegative && rhs.nonNegative);
  return joined;
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
  // Folded in two's complement (the result is wrapped to its width later).
  auto constant = foldConstants(lhs, rhs, [&](int64_t a, int64_t b) {
    uint64_t ua = a, ub = b;
    return std::optional<int64_t>(
        int64_t(subtract ? ua - ub : ua + ub * uint64_t(rhsScale)));
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
        int64_t div = std::gcd(
            divisibilityAtRuns(lhs, d, contig),
            capDivisibility(divisibilityAtRuns(rhs, d, contig) * rhsScale));
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
  auto constant = foldConstants(lhs, rhs, [](int64_t a, int64_t b) {
    return std::optional(int64_t(uint64_t(a) * uint64_t(b)));
  });
  return perDim(
      lhs.getRank(),
      [&](unsigned d) {
        // No runs survive (a factor of one returned early); every element
        // is divisible by what each side has at every element.
        return std::make_tuple(
            int64_t(1),
            capDivisibility(divisibilityAtRuns(lhs, d, 1) *
                            divisibilityAtRuns(rhs, d, 1)),
            std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
      },
      constant);
}

/// Dimension `d` of x / c for a power of two c, given the constancy both
/// operands offer: x / c is constant over aligned runs of c consecutive
/// values when the division floors, or truncates values >= 0
/// (`groupsAgree`); its divisibility is known only where x is not a run
/// (every element then shares x's divisibility).
std::tuple<int64_t, int64_t, int64_t>
divideByPowerOf2(const AxisInfo &x, unsigned d, int64_t c, int64_t constancy,
                 bool groupsAgree) {
  int64_t div = x.getContiguity(d) == 1 && x.getDivisibility(d) >= c
                    ? x.getDivisibility(d) / c
                    : 1;
  if (groupsAgree && x.getDivisibility(d) >= c)
    constancy = std::max(constancy, std::gcd(x.getContiguity(d), c));
  return std::make_tuple(int64_t(1), div, constancy);
}

/// x / y and x % y. For x >= 0, the multiples of y, where x % y wraps and
/// x / y steps, are multiples of D (what every element of y is divisible
/// by): aligned groups of g elements of x, g dividing x's runs, their
/// starts and D, and y constant over each group, contain none of them
/// inside. So x % y keeps runs of g and x / y is constant over them. For a
/// constant power of two the quotient's divisibility is known too.
AxisInfo divRemInfo(const AxisInfo &lhs, const AxisInfo &rhs, bool isRem,
                    bool isUnsigned, unsigned width) {
  auto constant = foldConstants(lhs, rhs, [&](int64_t a, int64_t b) {
    if (b == 0 || (!isUnsigned && a == INT64_MIN && b == -1))
      return std::optional<int64_t>();
    if (isUnsigned) {
      uint64_t mask = lowBitsMask(width);
      uint64_t ua = uint64_t(a) & mask, ub = uint64_t(b) & mask;
      if (ub == 0)
        return std::optional<int64_t>();
      return std::optional<int64_t>(int64_t(isRem ? ua % ub : ua / ub));
    }
    return std::optional<int64_t>(isRem ? a % b : a / b);
  });
  std::optional<int64_t> divisor = rhs.getConstantValue();
  bool powerOf2 = divisor && *divisor > 0 && llvm::isPowerOf2_64(*divisor);
  return perDim(
      lhs.getRank(),
      [&](unsigned d) {
        int64_t constancy = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
        int64_t divisorDivisibility = divisibilityAtRuns(rhs, d, 1);
        // Runs of x only survive for x >= 0: rounding toward zero makes
        // -4..-1 give 0,-3,-2,-1 (mod 4) and -1,0,0,0 (/ 4).
        int64_t group = 1;
        if (lhs.isNonNegative())
          group =
              std::gcd(std::gcd(lhs.getContiguity(d), lhs.getDivisibility(d)),
                       std::gcd(divisorDivisibility, rhs.getConstancy(d)));
        if (isRem) {
          // x - q * y: whatever divides both x and y divides the result.
          return std::make_tuple(
              group,
              std::gcd(divisibilityAtRuns(lhs, d, group), divisorDivisibility),
              constancy);
        }
        if (powerOf2)
          return divideByPowerOf2(lhs, d, *divisor, constancy,
                                  lhs.isNonNegative());
        return std::make_tuple(int64_t(1), int64_t(1),
                               std::max(constancy, group));
      },
      constant);
}

/// x << k and x >> k (arithmetic or logical) for a constant k in
/// [0, width): a left shift multiplies every element by 2^k; a right shift
/// is a floor division by 2^k, constant over aligned groups of 2^k
/// consecutive values whatever their sign (the wrap of an unsigned view,
/// between -1 and 0, falls on such a boundary).
AxisInfo shiftInfo(const AxisInfo &lhs, const AxisInfo &rhs, bool left,
                   bool arithmetic, unsigned width) {
  std::optional<int64_t> amount = rhs.getConstantValue();
  bool known = amount && *amount >= 0 && *amount < int64_t(width);
  auto constant = foldConstants(lhs, rhs, [&](int64_t a, int64_t) {
    if (!known)
      return std::optional<int64_t>();
    uint64_t mask = lowBitsMask(width);
    if (left)
      return std::optional<int64_t>(int64_t(uint64_t(a) << *amount));
    if (arithmetic)
      return std::optional<int64_t>(
          llvm::SignExtend64(uint64_t(a) & mask, width) >> *amount);
    return std::optional<int64_t>(int64_t((uint64_t(a) & mask) >> *amount));
  });
  return perDim(
      lhs.getRank(),
      [&](unsigned d) {
        int64_t constancy = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
        if (!known)
          return std::make_tuple(int64_t(1), int64_t(1), constancy);
        int64_t factor = int64_t(1) << std::min<int64_t>(*amount, 30);
        if (*amount == 0)
          return std::make_tuple(lhs.getContiguity(d), lhs.getDivisibility(d),
                                 lhs.getConstancy(d));
        if (left)
          return std::make_tuple(
              int64_t(1),
              capDivisibility(divisibilityAtRuns(lhs, d, 1) * factor),
              lhs.getConstancy(d));
        return divideByPowerOf2(lhs, d, factor, constancy,
                                /*groupsAgree=*/true);
      },
      constant);
}

/// max and min pick one side per element: every element has the
/// divisibility both sides have at every element.
AxisInfo minMaxInfo(const AxisInfo &lhs, const AxisInfo &rhs) {
  return perDim(lhs.getRank(), [&](unsigned d) {
    return std::make_tuple(int64_t(1),
                           std::gcd(divisibilityAtRuns(lhs, d, 1),
                                    divisibilityAtRuns(rhs, d, 1)),
                           std::gcd(lhs.getConstancy(d), rhs.getConstancy(d)));
  });
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
/// `info` with every element a run of its own: divisibility where every
/// element has it (a run's elements are `step` apart), constancy and the
/// constant kept.
AxisInfo withoutRuns(const AxisInfo &info, int64_t step = 1) {
  AxisInfo result = perDim(
      info.getRank(),
      [&](unsigned d) {
        return std::make_tuple(int64_t(1),
                               divisibilityAtRuns(info, d, 1, step),
                               info.getConstancy(d));
      },
      info.getConstantValue());
  result.setNonNegative(info.isNonNegative());
  return result;
}

/// The bits of an integer (or index: 64) element type.
unsigned getIntegerWidth(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (isa<IndexType>(element))
    return 64;
  return element.getIntOrFloatBitWidth();
}

/// What one step of a run of `type` values is worth in the units
/// divisibility counts: 1 for integers, the pointee's bytes for pointers;
/// 0 for anything else.
int64_t getContiguityStep(Type type) {
  if (isa<IntegerType, IndexType>(type))
    return 1;
  if (auto pointer = dyn_cast<tile::PointerType>(type))
    return std::max<int64_t>(
        1, tile::getElementBitWidth(getElementTypeOrSelf(
               tile::getPointeeType(pointer))) /
               8);
  return 0;
}
} // namespace

/// Whether `op`'s first result is >= 0 wherever its operands' facts hold
/// (wrap-around ignored). i1 values are not: true reads as -1 when signed.
static bool isNonNegativeResult(Operation *op,
                                ArrayRef<const AxisInfoLattice *> operands) {
  if (op->getNumResults() == 0 ||
      getElementTypeOrSelf(op->getResult(0).getType()).isInteger(1))
    return false;
  auto nonNegative = [&](unsigned index) {
    return operands[index]->getValue().isNonNegative();
  };
  auto all = [&](ArrayRef<unsigned> indices) {
    return llvm::all_of(indices, nonNegative);
  };
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<tile::ProgramIdOp, tile::NumProgramsOp>([](auto) { return true; })
      .Case([](tile::MakeRangeOp range) {
        return static_cast<int32_t>(range.getStart()) >= 0;
      })
      .Case<tile::SplatOp, tile::BroadcastOp, tile::ExpandDimsOp,
            tile::TransOp, tilegpu::ConvertLayoutOp, arith::ExtSIOp,
            arith::IndexCastOp>([&](auto) { return all({0}); })
      // Zero-extension of anything but i1 (excluded above as a result,
      // and a zero-extended i1 is 0 or 1) is >= 0 in the wider type.
      .Case([](arith::ExtUIOp) { return true; })
      .Case<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::DivUIOp,
            arith::RemUIOp, arith::OrIOp, arith::XOrIOp>(
          [&](auto) { return all({0, 1}); })
      // x % y has x's sign; x & y is >= 0 if either is.
      .Case([&](arith::RemSIOp) { return all({0}); })
      .Case([&](arith::AndIOp) { return nonNegative(0) || nonNegative(1); })
      .Case<arith::ShRSIOp, arith::MinSIOp>([&](auto) { return all({0, 1}); })
      .Case([&](arith::MaxSIOp) { return nonNegative(0) || nonNegative(1); })
      .Case([&](arith::SelectOp) { return all({1, 2}); })
      .Default([](Operation *) { return false; });
}

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
  bool nonNegative = isNonNegativeResult(op, operands);
  auto set = [&](unsigned index, AxisInfo value) {
    if (index == 0 && nonNegative)
      value.setNonNegative(true);
    value = withPromises(op->getResult(index), std::move(value));
    // Folded constants wrap to the result's width, as the op does.
    Type element = getElementTypeOrSelf(op->getResult(index).getType());
    if (auto constant = value.getConstantValue();
        constant && element.isInteger() && element.getIntOrFloatBitWidth() < 64)
      value.setConstantValue(
          llvm::SignExtend64(uint64_t(*constant),
                             element.getIntOrFloatBitWidth()));
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
      .Case<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(
          [&](auto divRem) {
            using Op = decltype(divRem);
            constexpr bool isRem = std::is_same_v<Op, arith::RemSIOp> ||
                                   std::is_same_v<Op, arith::RemUIOp>;
            constexpr bool isUnsigned = std::is_same_v<Op, arith::DivUIOp> ||
                                        std::is_same_v<Op, arith::RemUIOp>;
            set(0, divRemInfo(info(0), info(1), isRem, isUnsigned,
                              getIntegerWidth(result.getType())));
          })
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
      .Case<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>([&](auto shift) {
        using Op = decltype(shift);
        set(0, shiftInfo(info(0), info(1), std::is_same_v<Op, arith::ShLIOp>,
                         std::is_same_v<Op, arith::ShRSIOp>,
                         getIntegerWidth(result.getType())));
      })
      .Case<arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(
          [&](auto) { set(0, minMaxInfo(info(0), info(1))); })
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
                  std::gcd(divisibilityAtRuns(lhs, d, contig),
                           divisibilityAtRuns(rhs, d, contig)),
                  constancy);
            }));
      })
      // Value-preserving casts.
      .Case<arith::ExtSIOp, arith::IndexCastOp, tilegpu::ConvertLayoutOp>(
          [&](auto) { set(0, info(0)); })
      // Zero extension keeps runs of values >= 0 only (-1, 0 becomes
      // 2^32 - 1, 0); a constant is its low bits, read unsigned.
      .Case([&](arith::ExtUIOp ext) {
        AxisInfo value = info(0);
        if (!value.isNonNegative())
          value = withoutRuns(value);
        if (auto constant = value.getConstantValue()) {
          unsigned width = getIntegerWidth(ext.getIn().getType());
          value.setConstantValue(int64_t(uint64_t(*constant) &
                                         lowBitsMask(width)));
        }
        set(0, value);
      })
      // Truncation to w bits, read signed, wraps at multiples of 2^(w-1)
      // (0..127 then -128..-1 for i8): a run survives if it fits between
      // two of them. Divisibility up to 2^w survives at the (new) run
      // starts.
      .Case([&](arith::TruncIOp) {
        const AxisInfo &src = info(0);
        unsigned width = getIntegerWidth(result.getType());
        auto powerOf2 = [](unsigned bits) {
          return bits >= 31 ? AxisInfo::kMaxDivisibility : int64_t(1) << bits;
        };
        int64_t runPeriod = powerOf2(width - 1), divPeriod = powerOf2(width);
        set(0, perDim(shape.size(), [&](unsigned d) {
              int64_t contig = std::gcd(
                  std::gcd(src.getContiguity(d), src.getDivisibility(d)),
                  runPeriod);
              return std::make_tuple(
                  contig,
                  std::gcd(divisibilityAtRuns(src, d, contig), divPeriod),
                  src.getConstancy(d));
            }));
      })
      // Reinterpretations between integers and pointers: contiguity counts
      // steps of one integer or of one pointee, so it survives only between
      // types with the same step; divisibility (values, or bytes for
      // pointers) and constancy always do.
      .Case<tile::BitcastOp, tile::IntToPtrOp, tile::PtrToIntOp>([&](auto) {
        Type from = getElementTypeOrSelf(op->getOperand(0).getType());
        Type to = getElementTypeOrSelf(result.getType());
        int64_t fromStep = getContiguityStep(from), toStep = getContiguityStep(to);
        if (fromStep == 0 || toStep == 0)
          return setAllPessimistic();
        set(0, fromStep == toStep ? info(0) : withoutRuns(info(0), fromStep));
      })
      .Case([&](tile::ExpandDimsOp expand) {
        const AxisInfo &src = info(0);
        unsigned axis = expand.getAxis();
        DimVector contig = src.getContiguity(), div = src.getDivisibility(),
                  cst = src.getConstancy();
        // Along the new dimension each element is its own run, so only a
        // divisibility every element shares carries over.
        int64_t everyElement = AxisInfo::kMaxDivisibility;
        for (unsigned d = 0; d < src.getRank(); ++d)
          everyElement =
              std::min(everyElement, divisibilityAtRuns(src, d, 1));
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
  bool nonNegative = false;
  if (lb.isInitialized() && step.isInitialized()) {
    div = std::gcd(lb.getDivisibility(0), step.getDivisibility(0));
    // lb, lb + step, ... below ub: >= 0 when lb and step are.
    nonNegative = lb.isNonNegative() && step.isNonNegative();
  }
  AxisInfo inductionVariable({1}, {div}, {1});
  inductionVariable.setNonNegative(nonNegative);
  propagateIfChanged(argLattices[0],
                     argLattices[0]->join(withPromises(
                         forOp.getInductionVar(), inductionVariable)));
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
      auto divisor = func.getArgAttrOfType<IntegerAttr>(
          arg.getArgNumber(), tile::TileDialect::kDivisibilityAttrName);
      // The promise is about a scalar (an integer or a pointer).
      if (divisor && state.getRank() == 1 &&
          !isa<RankedTensorType>(value.getType()))
        state = AxisInfo({1}, {capDivisibility(divisor.getInt())}, {1});
    }
  }
  propagateIfChanged(lattice, lattice->join(withPromises(value, state)));
}

//===----------------------------------------------------------------------===//
// Promises: tile.assume and tile.hint
//===----------------------------------------------------------------------===//

/// The block `value` belongs to: its defining op's, or its own as an
/// argument.
static Block *getOwnerBlock(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner();
  return value.getDefiningOp()->getBlock();
}

/// Records what the comparison `condition`, assumed true in `block`,
/// promises about values of that block.
static void addComparison(Value condition, Block *block, AssumedFacts &facts) {
  using P = arith::CmpIPredicate;
  auto cmp = condition.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return;
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  P predicate = cmp.getPredicate();
  APInt bound;
  // The constant on the right: c <= x is x >= c.
  if (matchPattern(lhs, m_ConstantInt(&bound)) &&
      !matchPattern(rhs, m_Constant())) {
    std::swap(lhs, rhs);
    predicate = predicate == P::slt   ? P::sgt
                : predicate == P::sle ? P::sge
                : predicate == P::sgt ? P::slt
                : predicate == P::sge ? P::sle
                : predicate == P::ult ? P::ugt
                : predicate == P::ule ? P::uge
                : predicate == P::ugt ? P::ult
                : predicate == P::uge ? P::ule
                                      : predicate;
  }
  if (!matchPattern(rhs, m_ConstantInt(&bound)) || getOwnerBlock(lhs) != block)
    return;
  int64_t c = bound.getSExtValue();
  if ((predicate == P::sge && c >= 0) || (predicate == P::sgt && c >= -1))
    facts.nonNegative.insert(lhs);
  // x % k == 0: x is a multiple of k's power-of-two part.
  if (predicate == P::eq && c == 0) {
    Operation *rem = lhs.getDefiningOp();
    APInt divisor;
    if (rem && isa<arith::RemSIOp, arith::RemUIOp>(rem) &&
        matchPattern(rem->getOperand(1), m_ConstantInt(&divisor)) &&
        divisor.isStrictlyPositive()) {
      Value x = rem->getOperand(0);
      if (getOwnerBlock(x) != block || isa<RankedTensorType>(x.getType()))
        return;
      int64_t &known = facts.divisibility[x];
      known = std::max(
          known, AxisInfo::highestPowerOf2Divisor(divisor.getSExtValue()));
    }
  }
}

/// Records what `condition`, assumed true in `block`, promises: each
/// comparison among its conjuncts. A worklist with a visited set rather than
/// recursion: a chain of 50,000 `and`s would overflow the stack, and `and`s
/// sharing operands would be walked once per path (exponentially often).
static void addAssumption(Value condition, Block *block, AssumedFacts &facts) {
  SmallVector<Value> pending{condition};
  llvm::DenseSet<Value> seen;
  while (!pending.empty()) {
    Value next = pending.pop_back_val();
    if (!seen.insert(next).second)
      continue;
    if (auto both = next.getDefiningOp<arith::AndIOp>()) {
      pending.push_back(both.getRhs());
      pending.push_back(both.getLhs());
      continue;
    }
    addComparison(next, block, facts);
  }
}

AssumedFacts AssumedFacts::collect(Operation *root) {
  AssumedFacts facts;
  root->walk([&](tile::AssumeOp assume) {
    addAssumption(assume.getCondition(), assume->getBlock(), facts);
  });
  return facts;
}

AxisInfo AxisInfoAnalysis::withPromises(Value value, AxisInfo info) const {
  if (!info.isInitialized())
    return info;
  if (assumed.nonNegative.contains(value))
    info.setNonNegative(true);
  auto divisibility = assumed.divisibility.find(value);
  DimVector contiguity = info.getContiguity(),
            divisible = info.getDivisibility(), constancy = info.getConstancy();
  bool changed = false;
  if (divisibility != assumed.divisibility.end() &&
      divisibility->second > divisible[0]) {
    divisible[0] = divisibility->second;
    changed = true;
  }
  // Hints replace what was derived, dimension by dimension.
  SmallVector<int64_t> shape = getAnalysisShape(value.getType());
  auto apply = [&](DictionaryAttr attrs, StringRef prefix) {
    auto read = [&](StringRef name) {
      auto facts = dyn_cast_if_present<DenseI64ArrayAttr>(
          attrs.get((prefix + name).str()));
      return facts && facts.size() == int64_t(shape.size()) ? facts : nullptr;
    };
    if (auto facts = read("max_contiguous")) {
      for (auto [dim, fact] : llvm::enumerate(facts.asArrayRef())) {
        int64_t runs = std::clamp<int64_t>(fact, 1, shape[dim]);
        // Shorter runs start inside the derived ones, at what those
        // offsets leave of the divisibility (longer runs start at a subset
        // of the derived starts).
        if (runs < contiguity[dim])
          divisible[dim] =
              std::gcd(divisible[dim], std::gcd(runs, contiguity[dim]));
        contiguity[dim] = runs;
      }
      changed = true;
    }
    if (auto facts = read("multiple_of")) {
      for (auto [dim, fact] : llvm::enumerate(facts.asArrayRef()))
        divisible[dim] =
            AxisInfo::highestPowerOf2Divisor(std::max<int64_t>(fact, 1));
      changed = true;
    }
    if (auto facts = read("max_constancy")) {
      for (auto [dim, fact] : llvm::enumerate(facts.asArrayRef()))
        constancy[dim] = std::clamp<int64_t>(fact, 1, shape[dim]);
      changed = true;
    }
  };
  if (auto result = dyn_cast<OpResult>(value);
      result && result.getOwner()->getNumResults() == 1)
    apply(result.getOwner()->getDiscardableAttrDictionary(), "tile.");
  for (Operation *user : value.getUsers())
    if (auto hint = dyn_cast<tile::HintOp>(user);
        hint && hint.getSrc() == value)
      apply(hint->getAttrDictionary(), "");
  if (!changed)
    return info;
  AxisInfo promised(contiguity, divisible, constancy, info.getConstantValue());
  promised.setNonNegative(info.isNonNegative());
  return promised;
}

//===----------------------------------------------------------------------===//
// ModuleAxisInfo
//===----------------------------------------------------------------------===//

ModuleAxisInfo::ModuleAxisInfo(Operation *root)
    : assumed(AssumedFacts::collect(root)) {
  dataflow::loadBaselineAnalyses(solver);
  solver.load<AxisInfoAnalysis>(assumed);
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
