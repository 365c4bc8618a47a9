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

#include "tilelang/Support/Export.h"

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
  /// Where the entry's body starts (its `{`), after every directive.
  size_t bodyBegin = std::string::npos;
  /// Whether the entry caps its registers (`.maxnreg`, a user's choice the
  /// occupancy search leaves alone).
  bool capsRegisters = false;
};

/// The directives of entry `name` in `ptx` (between its parameter list and
/// its body); all zero when there is no such entry.
TILELANG_API EntryDirectives readEntryDirectives(const std::string &ptx,
                                                 const std::string &name);

/// `ptx` with the `.minnctapersm` of `directives` (read from it) set to
/// `blocks`; added before the entry's body when it has none.
TILELANG_API std::string withMinBlocksPerSM(const std::string &ptx,
                                            const EntryDirectives &directives,
                                            int blocks);

/// `ptx` without the `.minnctapersm` of `directives` (read from it); `ptx`
/// itself when it has none.
TILELANG_API std::string
withoutMinBlocksPerSM(const std::string &ptx,
                      const EntryDirectives &directives);

/// Whether `ptx` links nothing: it declares no external function (what the
/// driver's linker or ptxas would have to resolve, such as `vprintf` for a
/// device print), so that it can be compiled as a whole program.
TILELANG_API bool linksNothing(const std::string &ptx);

/// The architecture `ptx` targets (its `.target`, e.g. "sm_90a"); empty
/// when it names none.
TILELANG_API std::string ptxTarget(const std::string &ptx);

/// What bounds the resident blocks of an SM.
struct SMLimits {
  int maxThreadsPerSM = 0, maxBlocksPerSM = 0;
  /// Shared memory per SM and what the driver reserves of it per block.
  int maxSharedPerSM = 0, reservedSharedPerBlock = 0;
  /// 32-bit registers per SM.
  int registersPerSM = 0;
};

/// The limits of the GPUs of architecture `arch` ("sm_80", "sm_90a", ...),
/// as CUDA documents them; all zero for an unknown one.
TILELANG_API SMLimits smLimitsOfArch(const std::string &arch);

/// How many blocks of `threadsPerBlock` threads taking `sharedBytes` of
/// dynamic shared memory an SM with `limits` holds, registers aside; 0 when
/// unknown.
TILELANG_API int residentBlockLimit(const SMLimits &limits,
                                    int threadsPerBlock,
                                    long long sharedBytes);

/// How many such blocks fit the register file when each thread takes
/// `registers` (allocated per warp in units of 256, from the register file
/// of one of the SM's four sub-partitions).
TILELANG_API int blocksWithRegisters(const SMLimits &limits,
                                     int threadsPerBlock, int registers);

/// What compiling a kernel for a number of blocks per SM gave: whether it
/// needs no local memory (Fits), needs some (Spills) or failed, the
/// registers a thread takes and the local memory it needs.
struct OccupancyTrial {
  enum Outcome { Fits, Spills, Failed } outcome = Failed;
  int registers = 0;
  long long localBytes = 0;
};

/// The blocks per SM to compile a kernel for, given the count its PTX asks
/// for (`base`; 0 when it asks for none), the most an SM holds (`top`, residentBlockLimit) and
/// `tryBlocks`, which compiles it for a count and says how that went
/// (`base` meaning the PTX as written). Returns `base` unless another count
/// Fits where `base` spills, or a larger count Fits and beats what `base`'s
/// own registers already allow.
///
/// `base` is tried first. If it fails, that is the answer. If it spills
/// (the lowering's floor of resident warps asks for more than the kernel's
/// registers allow), the most blocks below it that Fit, by bisection, win;
/// if none does, the count tried with the least local memory (the most
/// blocks among equals). If its registers already give at least three
/// quarters of the SM's threads (or `top` blocks), `base`. Otherwise `top`,
/// then a bisection between the two. Both bisections assume that a kernel
/// spilling at some count also spills at every larger one (where the
/// compiler does otherwise the search settles lower than it could, never on
/// a count that spills); a failed trial ends a search with `base`. Measured
/// on memory-bound kernels, more resident blocks won wherever they did not
/// spill, and fewer blocks without local memory, or with less of it, beat
/// more with more of it (docs/runtime.md, "Occupancy search").
TILELANG_API int searchMinBlocksPerSM(
    int base, int top, const SMLimits &limits, int threadsPerBlock,
    const std::function<OccupancyTrial(int)> &tryBlocks);

/// The blocks of `threadsPerBlock` threads an SM keeps resident with the
/// registers of `trial`, at most `top`.
TILELANG_API int residentBlocks(const SMLimits &limits, int top,
                                int threadsPerBlock,
                                const OccupancyTrial &trial);

/// The whole-program step after the search (docs/runtime.md, "Occupancy
/// search"): where the search kept a floor (`kept` blocks per SM, > 0) and
/// its cubin (`linked`) fits, the directive is a register budget that
/// ptxas schedules to even where its own choice needs none. The PTX without
/// `.minnctapersm`, compiled as a whole program (the driver's linker
/// compiles relocatably and then takes more registers), may keep as many
/// blocks with a better schedule. Measured on the H200 (same PTX, with the
/// floor through the driver's linker against without it as a whole
/// program), that exchange won on blocks of 8 warps of which at most 3 stay
/// resident and lost up to 5% elsewhere (2, 4 and 16 warps, or more
/// resident blocks): so it is only tried there.
///
/// Whether the step is worth a compile for a kernel linked for `kept`
/// blocks per SM whose cubin is `linked`.
TILELANG_API bool tryWholeProgram(const SMLimits &limits, int top,
                                  int threadsPerBlock, int kept,
                                  const OccupancyTrial &linked);

/// Whether the whole-program compile without the directive (`unbound`)
/// replaces the kept cubin: tryWholeProgram holds, it needs no local memory
/// and its registers keep exactly the blocks the kept cubin's do.
TILELANG_API bool keepWholeProgram(const SMLimits &limits, int top,
                                   int threadsPerBlock, int kept,
                                   const OccupancyTrial &linked,
                                   const OccupancyTrial &unbound);

} // namespace tilelang::runtime

#endif // TILELANG_RUNTIME_OCCUPANCY_H
