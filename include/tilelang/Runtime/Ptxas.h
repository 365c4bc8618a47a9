//===- Ptxas.h - whole-program compiles with the ptxas binary ---*- C++ -*-===//
//
// Part of tilelang. The driver's linker (cuLinkAddData) and nvJitLink both
// compile PTX as relocatable code (ptxas -c), which the occupancy search's
// whole-program step cannot use (docs/runtime.md, "Occupancy search"); the
// ptxas binary of a CUDA toolkit compiles a whole program by default. Found
// at run time, never a build dependency: without it the step is skipped.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_RUNTIME_PTXAS_H
#define TILELANG_RUNTIME_PTXAS_H

#include "tilelang/Support/Export.h"

#include <string>

namespace tilelang::runtime {

/// The ptxas to run: `$TILELANG_PTXAS`, else `$CUDA_HOME/bin/ptxas`, else
/// the first `ptxas` on `$PATH`, else `/usr/local/cuda/bin/ptxas`; empty
/// when none of these is an executable file (`$TILELANG_PTXAS` is taken as
/// given, so that a wrong one fails visibly).
TILELANG_API std::string findPtxas();

/// Runs `ptxas` on `ptx` for `arch` as a whole program (no `-c`), with
/// `-v` where `verbose`. True when it exits 0; `cubin` then holds its
/// output, and `log` holds what it printed either way (or why it could not
/// run). A run that takes longer than `$TILELANG_PTXAS_TIMEOUT` seconds
/// (60 by default) is killed and counts as failed; a value of it that is
/// not a whole number above 0 fails the call before ptxas runs, `log`
/// naming the variable. `rejected`, where
/// given, says whether a failure was ptxas's own answer (it ran to its
/// exit and refused the PTX), which the same ptxas repeats, rather than a
/// run that could not start or finish (no temporary directory, no such
/// binary, the time limit, a malformed time limit), which may pass.
TILELANG_API bool compileWithPtxas(const std::string &ptxas,
                                   const std::string &ptx,
                                   const std::string &arch, bool verbose,
                                   std::string &cubin, std::string &log,
                                   bool *rejected = nullptr);

} // namespace tilelang::runtime

#endif // TILELANG_RUNTIME_PTXAS_H
