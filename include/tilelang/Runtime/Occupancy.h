//===- Occupancy.h - blocks per SM a kernel is compiled for -----*- C++ -*-===//
//
// Part of tilelang. The occupancy search that the runtime runs with the
// driver's JIT (linkPTX) and tilelang-compile's report runs with ptxas: a
// kernel whose PTX asks for a minimum of resident blocks per SM
// (`.minnctapersm`) is compiled for more, and the most blocks that need no
// local memory win (docs/runtime.md, "Occupancy search"). Nothing here
// needs CUDA: the compiler of a trial is the caller's.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_RUNTIME_OCCUPANCY_H
#define TILELANG_RUNTIME_OCCUPANCY_H

#include "tilelang/Compiler/Compiler.h"

#include <functional>
#include <string>

namespace tilelang::runtime {

/// A kernel entry's performance directives in PTX.
struct EntryDirectives {
  /// The product of `.maxntid`, 0 when absent.
  int threadsPerBlock = 0;
  /// The value of `.minnctapersm`, 0 when absent, and where its digits are.
  int minBlocksPerSM = 0;
  size_t minBlocksBegin = std::string::npos, minBlocksEnd = 0;
};

/// The directives of entry `name` in `ptx` (between its parameter list and
/// its body); all zero when there is no such entry.
TILELANG_API EntryDirectives readEntryDirectives(const std::string &ptx,
                                                 const std::string &name);

/// `ptx` with the `.minnctapersm` of `directives` (read from it) set to
/// `blocks`.
TILELANG_API std::string withMinBlocksPerSM(const std::string &ptx,
                                            const EntryDirectives &directives,
                                            int blocks);

/// What bounds the resident blocks of an SM, registers aside.
struct SMLimits {
  int maxThreadsPerSM = 0, maxBlocksPerSM = 0;
  /// Shared memory per SM and what the driver reserves of it per block.
  int maxSharedPerSM = 0, reservedSharedPerBlock = 0;
};

/// The limits of the GPUs of architecture `arch` ("sm_80", "sm_90a", ...),
/// as CUDA documents them; all zero for an unknown one.
TILELANG_API SMLimits smLimitsOfArch(const std::string &arch);

/// How many blocks of `threadsPerBlock` threads taking `sharedBytes` of
/// dynamic shared memory an SM with `limits` holds; 0 when unknown.
TILELANG_API int residentBlockLimit(const SMLimits &limits,
                                    int threadsPerBlock,
                                    long long sharedBytes);

/// The outcome of compiling a kernel for a number of blocks per SM.
enum class OccupancyTrial { Fits, Spills, Failed };

/// The most blocks per SM in (`base`, `top`] for which `tryBlocks` says
/// Fits, or `base` when none does (or a trial Failed, which ends the
/// search). The largest first, since most kernels fit it; then a bisection,
/// which assumes that a kernel that spills at some count also spills at
/// every larger one (where the compiler does otherwise, the search may
/// settle lower than it could, never on a count that spills). `tryBlocks`
/// is called at most about log2(top - base) + 1 times.
TILELANG_API int
searchMinBlocksPerSM(int base, int top,
                     const std::function<OccupancyTrial(int)> &tryBlocks);

} // namespace tilelang::runtime

#endif // TILELANG_RUNTIME_OCCUPANCY_H
