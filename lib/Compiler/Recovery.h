//===- Recovery.h - crash recovery for concurrent compilations --*- C++ -*-===//
//
// Part of tilelang. Runs one compilation so that a crash or an LLVM fatal
// error inside it becomes a diagnostic, while other threads keep compiling.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_COMPILER_RECOVERY_H
#define TILELANG_LIB_COMPILER_RECOVERY_H

#include "tilelang/Compiler/Compiler.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace tilelang {

/// Runs `body` so that a crash or an LLVM fatal error inside it becomes an
/// "internal compiler error" diagnostic instead of ending the process (the
/// user's Python interpreter). Any number of threads may call it at once.
/// Returns false (after adding a diagnostic) if it had to recover.
bool runRecoverably(std::vector<Diagnostic> &diagnostics,
                    llvm::function_ref<void()> body);

} // namespace tilelang

#endif // TILELANG_LIB_COMPILER_RECOVERY_H
