//===- LaunchDefaults.h - the default launch options ------------*- C++ -*-===//
//
// Part of tilelang. The warps and pipeline stages a kernel gets when its
// launch does not say, defined once for the compiler's options
// (CompileOptions), the named pass pipelines, the passes' own options and
// tilelang-compile; Python reads them through tilelang._C.compile_defaults.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_SUPPORT_LAUNCHDEFAULTS_H
#define TILELANG_SUPPORT_LAUNCHDEFAULTS_H

namespace tilelang {

/// Warps per CTA (Triton's default too).
inline constexpr unsigned kDefaultNumWarps = 4;
/// Shared-memory buffers per software-pipelined load (Triton's default too).
inline constexpr unsigned kDefaultNumStages = 3;

} // namespace tilelang

#endif // TILELANG_SUPPORT_LAUNCHDEFAULTS_H
