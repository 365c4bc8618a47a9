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
/// "internal compiler error" diagnostic, and running out of memory an
/// ordinary one, instead of ending the process (the user's Python
/// interpreter) or leaving it unable to compile. Any number of threads may
/// call it at once. Returns false (after adding a diagnostic) if it had to
/// recover; `release` then runs, itself recoverably, to free what `body`
/// allocated: a recovery returns without running the destructors of the
/// frames it abandons, so what a compilation allocates must be owned
/// outside them for `release` to free it.
bool runRecoverably(std::vector<Diagnostic> &diagnostics,
                    llvm::function_ref<void()> body,
                    llvm::function_ref<void()> release = nullptr);

/// Throws std::bad_alloc; for the code of this library, which is built
/// without exceptions (BadAlloc.cpp).
[[noreturn]] void throwBadAlloc();

} // namespace tilelang

#endif // TILELANG_LIB_COMPILER_RECOVERY_H
