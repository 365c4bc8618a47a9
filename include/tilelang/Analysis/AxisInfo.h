//===- AxisInfo.h - contiguity, divisibility, constancy ---------*- C++ -*-===//
//
// Part of tilelang. A forward dataflow analysis that tracks, for every
// integer and pointer value (scalar or tensor) and along each dimension:
//   contiguity   - length of runs of consecutive values (x, x+1, x+2, ...)
//   divisibility - largest power of two dividing the first value of each run
//                  (bytes for pointers)
//   constancy    - length of runs of equal values
// Coalescing uses it to choose 16-byte accesses, and the lowering to prove
// that vectorized loads and stores are aligned and uniformly masked.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_ANALYSIS_AXISINFO_H
#define TILELANG_ANALYSIS_AXISINFO_H

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace tilelang {

/// What the analysis knows about one value, dimension by dimension. Scalars
/// are treated as tensors of shape [1].
class AxisInfo {
public:
  using DimVector = llvm::SmallVector<int64_t, 4>;

  /// The largest divisibility tracked (also that of the constant 0).
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

  /// The uninitialized state (nothing known yet; the lattice's bottom).
  AxisInfo() = default;
  AxisInfo(DimVector contiguity, DimVector divisibility, DimVector constancy,
           std::optional<int64_t> constantValue = std::nullopt);

  /// Nothing known: runs of length 1, divisibility 1.
  static AxisInfo getPessimisticState(mlir::Value value);
  /// All that a value equal to `constant` everywhere offers.
  static AxisInfo getConstantState(llvm::ArrayRef<int64_t> shape,
                                   int64_t constant);

  bool isInitialized() const { return initialized; }
  unsigned getRank() const { return contiguity.size(); }
  int64_t getContiguity(unsigned dim) const { return contiguity[dim]; }
  int64_t getDivisibility(unsigned dim) const { return divisibility[dim]; }
  int64_t getConstancy(unsigned dim) const { return constancy[dim]; }
  const DimVector &getContiguity() const { return contiguity; }
  const DimVector &getDivisibility() const { return divisibility; }
  const DimVector &getConstancy() const { return constancy; }
  std::optional<int64_t> getConstantValue() const { return constantValue; }
  /// Whether every value is known to be >= 0 (ignoring wrap-around, as the
  /// other facts do). Signed division and remainder keep runs only then.
  bool isNonNegative() const { return nonNegative; }
  void setNonNegative(bool value) { nonNegative = value; }
  void setConstantValue(std::optional<int64_t> value) { constantValue = value; }

  /// The least upper bound: what holds on both paths (gcd of each entry).
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);

  bool operator==(const AxisInfo &other) const {
    return initialized == other.initialized &&
           contiguity == other.contiguity &&
           divisibility == other.divisibility &&
           constancy == other.constancy &&
           constantValue == other.constantValue &&
           nonNegative == other.nonNegative;
  }
  void print(llvm::raw_ostream &os) const;

  /// The largest power of two that divides `value` (kMaxDivisibility for 0).
  static int64_t highestPowerOf2Divisor(int64_t value);

private:
  bool initialized = false;
  DimVector contiguity, divisibility, constancy;
  std::optional<int64_t> constantValue;
  bool nonNegative = false;
};

using AxisInfoLattice = mlir::dataflow::Lattice<AxisInfo>;

/// What `tile.assume` ops promise about values of their own block (see the
/// op's description): read once, before the analysis runs.
struct AssumedFacts {
  /// Values promised to be >= 0.
  llvm::DenseSet<mlir::Value> nonNegative;
  /// Scalars promised to be multiples of a power of two.
  llvm::DenseMap<mlir::Value, int64_t> divisibility;

  /// Collects the promises of every tile.assume under `root`.
  static AssumedFacts collect(mlir::Operation *root);
};

/// The sparse forward analysis computing AxisInfo for every value.
class AxisInfoAnalysis
    : public mlir::dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  AxisInfoAnalysis(mlir::DataFlowSolver &solver, const AssumedFacts &assumed)
      : SparseForwardDataFlowAnalysis(solver), assumed(assumed) {}

  mlir::LogicalResult
  visitOperation(mlir::Operation *op,
                 llvm::ArrayRef<const AxisInfoLattice *> operands,
                 llvm::ArrayRef<AxisInfoLattice *> results) override;

  void visitNonControlFlowArguments(
      mlir::Operation *op, const mlir::RegionSuccessor &successor,
      llvm::ArrayRef<AxisInfoLattice *> argLattices,
      unsigned firstIndex) override;

  void setToEntryState(AxisInfoLattice *lattice) override;

private:
  /// `info` for `value` with what the program promises about it: assumed
  /// facts added, and tile.hint facts (on the defining op, or hints about
  /// `value` itself) replacing the derived ones.
  AxisInfo withPromises(mlir::Value value, AxisInfo info) const;

  const AssumedFacts &assumed;
};

/// Runs the analysis over an operation (usually the module) and answers
/// queries about its values.
class ModuleAxisInfo {
public:
  explicit ModuleAxisInfo(mlir::Operation *root);
  // The solver's analysis refers to `assumed`: neither may move.
  ModuleAxisInfo(const ModuleAxisInfo &) = delete;
  ModuleAxisInfo &operator=(const ModuleAxisInfo &) = delete;

  /// What is known about `value` (pessimistic if the analysis has nothing).
  AxisInfo get(mlir::Value value) const;

  /// Elements of `ptr` (a tensor of pointers) that one access may cover
  /// along `dim`: contiguous, and aligned to `elementBytes * result`,
  /// capped at `maxBytes`.
  unsigned getPointerVectorWidth(mlir::Value ptr, unsigned dim,
                                 unsigned elementBytes,
                                 unsigned maxBytes = 16) const;

  /// Runs of equal mask values along `dim` (how many elements one predicate
  /// may guard); unlimited (UINT_MAX) when there is no mask.
  unsigned getMaskConstancy(mlir::Value mask, unsigned dim) const;

private:
  AssumedFacts assumed;
  mlir::DataFlowSolver solver;
};

} // namespace tilelang

#endif // TILELANG_ANALYSIS_AXISINFO_H
