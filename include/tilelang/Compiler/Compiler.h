//===- Compiler.h - the public API of libtilelang ---------------*- C++ -*-===//
//
// Part of tilelang. The stable, MLIR-free interface of the compiler library:
// it takes IR as text and returns text plus structured diagnostics, and never
// aborts on bad input. Only standard-library types cross it, so the Python
// extension compiles against this header alone, in seconds, on hosts that
// have no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_COMPILER_COMPILER_H
#define TILELANG_COMPILER_COMPILER_H

#include "tilelang/Support/Export.h"
#include "tilelang/Support/LaunchDefaults.h"
#include "tilelang/Support/TensorMapEncoding.h"

#include <string>
#include <vector>

namespace tilelang {

/// How serious a diagnostic is.
enum class Severity { Error, Warning, Note, Remark };

/// One message from the compiler, located in the source text when possible.
struct Diagnostic {
  Severity severity = Severity::Error;
  /// Source file (or buffer name) the message points into; empty if unknown.
  std::string file;
  /// 1-based line and column; 0 when the location is unknown.
  unsigned line = 0;
  unsigned column = 0;
  std::string message;

  /// Renders "file:line:col: error: message", as compilers print it.
  TILELANG_API std::string str() const;
};

/// Options of runPipeline.
struct PipelineOptions {
  /// A textual pass pipeline as tilelang-opt takes it, e.g.
  /// "canonicalize,cse"; empty to only parse and verify.
  std::string pipeline;
  /// Name that diagnostics give the source text when its ops carry no
  /// locations of their own.
  std::string sourceName = "<tile-ir>";
  /// Verify the IR after every pass, not only at the end.
  bool verifyEachPass = true;
  /// Print the generic op form instead of the custom assembly formats.
  bool printGenericForm = false;
  /// Print `loc(...)` attributes.
  bool printLocations = false;
};

/// Result of runPipeline.
struct PipelineResult {
  /// True when the source parsed and verified and every pass succeeded.
  bool success = false;
  /// The IR after the pipeline; empty on failure.
  std::string output;
  /// Errors, warnings, notes and remarks, in the order they were emitted.
  std::vector<Diagnostic> diagnostics;
};

/// Parses `source` (MLIR text in tilelang's dialects), verifies it, runs
/// `options.pipeline` on it and prints the result. Thread-safe: every call
/// works in a context of its own.
TILELANG_API PipelineResult runPipeline(const std::string &source,
                                        const PipelineOptions &options);

/// Options of compile.
struct CompileOptions {
  /// The limits of the launch options below: compile refuses values outside
  /// them, and Python checks them where a user gives the options
  /// (tilelang._C.launch_option_limits).
  static constexpr unsigned kMaxWarps = 32;
  static constexpr unsigned kMinMaxRegisters = 16;
  static constexpr unsigned kMaxMaxRegisters = 255;

  /// Target GPU: sm_80, sm_86, sm_89, sm_90 or sm_90a.
  std::string arch = "sm_90a";
  /// Warps per CTA (a power of two from 1 to kMaxWarps).
  unsigned numWarps = kDefaultNumWarps;
  /// Software-pipelining depth of loops feeding dots (0 and 1: none).
  unsigned numStages = kDefaultNumStages;
  /// Registers a thread may use at most (PTX .maxnreg, Triton's maxnreg),
  /// from kMinMaxRegisters to kMaxMaxRegisters; 0 leaves it to ptxas and,
  /// for kernels without tensor-core products, to the occupancy floor and
  /// the runtime's search.
  unsigned maxRegisters = 0;
  /// Name diagnostics give the source when its ops carry no locations.
  std::string sourceName = "<tile-ir>";
  /// Keep the IR after every stage in CompileResult::stages.
  bool keepStages = false;
};

/// The IR of one compilation stage, for inspection.
struct Stage {
  /// "tile", "tilegpu", "llvm" (LLVM dialect) or "llvm-ir".
  std::string name;
  std::string ir;
};

/// Result of compile.
struct CompileResult {
  bool success = false;
  std::string ptx;
  /// The kernel's symbol in the PTX.
  std::string kernelName;
  /// Dynamic shared memory the kernel needs at launch, in bytes.
  long long sharedBytes = 0;
  unsigned numWarps = 0;
  std::string arch;
  /// The tensor maps the launcher must encode (descriptors whose blocks the
  /// kernel copies in bulk); other descriptors' maps stay zero.
  std::vector<TensorMapEncoding> tensorMaps;
  /// Filled when CompileOptions::keepStages is set.
  std::vector<Stage> stages;
  std::vector<Diagnostic> diagnostics;
};

/// Compiles one kernel (the module's only public func.func) from tile IR
/// text to PTX. Never aborts: every problem comes back as a diagnostic.
/// Thread-safe.
TILELANG_API CompileResult compile(const std::string &source,
                                   const CompileOptions &options);

/// Result of findWrittenArguments.
struct WrittenArguments {
  /// True when the source parsed and verified and has one kernel.
  bool success = false;
  /// Per argument of the kernel, whether it may write memory through it.
  std::vector<bool> mayWrite;
  std::vector<Diagnostic> diagnostics;
};

/// Which arguments of the kernel (the module's only public func.func) it
/// may write memory through: those from which an address reaches a store,
/// an atomic or a call, through any computation but a load (a loaded value
/// is memory's contents, not an address derived from the argument). An
/// address stored as data counts as written through. Sound, not precise:
/// the launcher refuses read-only arrays only for these arguments.
/// Thread-safe.
TILELANG_API WrittenArguments findWrittenArguments(
    const std::string &source, const std::string &sourceName = "<tile-ir>");

/// What this process's compilations (runPipeline and compile calls) did.
struct CompilerStatistics {
  /// Calls started.
  unsigned long long compilations = 0;
  /// Calls that crashed or hit an LLVM fatal error and were turned into an
  /// "internal compiler error" diagnostic.
  unsigned long long recoveredCrashes = 0;
  /// The most calls that were in flight at the same time (calls from
  /// different threads run concurrently).
  unsigned peakConcurrent = 0;
};

/// The counters of this process's compilations so far.
TILELANG_API CompilerStatistics getCompilerStatistics();

/// The compiler's version, e.g. "0.1.0 (LLVM 22.1.8)".
TILELANG_API std::string getVersion();

/// The GNU build ID of the loaded libtilelang (a hash of its contents, in
/// hex), or "" when it has none. Two builds of different code differ, so
/// the on-disk cache keys on it: a rebuilt compiler never reuses kernels
/// compiled by another one.
TILELANG_API std::string getBuildId();

} // namespace tilelang

#endif // TILELANG_COMPILER_COMPILER_H
