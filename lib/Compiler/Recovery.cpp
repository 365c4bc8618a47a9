//===- Recovery.cpp - crash recovery for concurrent compilations ----------===//
//
// Part of tilelang. LLVM's crash recovery, its fatal-error and bad-alloc
// handlers and operator new's handler are process-wide: the signal handlers
// and the handler functions are installed for everyone. Each compilation
// therefore takes a reference on them (the first installs them, the last
// removes them, so that nothing of ours stays in the process between
// compilations), and everything that belongs to one compilation lives in
// thread-local state: LLVM keeps the current recovery context per thread,
// and the fatal-error message goes to a per-thread slot.
//
// Running out of memory ends a compilation like a crash. Without the
// handlers, operator new would throw std::bad_alloc through LLVM and MLIR,
// which are built without exceptions: nothing on the way would be freed or
// unlocked, the recovery context would be left registered, and the process
// would abort wherever the throw could not pass.
//
//===----------------------------------------------------------------------===//

#include "Recovery.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unistd.h>

namespace tilelang {

namespace {

/// The fatal-error message of the compilation running on this thread.
thread_local std::string *currentFatalMessage = nullptr;

/// Records `reason` for the compilation on this thread. LLVM then calls
/// exit, which the thread's recovery context turns into a jump back to
/// RunSafely; a fatal error outside any compilation is printed as LLVM's own
/// handler would before the process exits.
void recordFatalError(void *, const char *reason, bool) {
  if (currentFatalMessage) {
    *currentFatalMessage = reason;
    return;
  }
  llvm::errs() << "LLVM ERROR: " << reason << "\n";
}

/// Set when the compilation on this thread ran out of memory.
thread_local bool ranOutOfMemory = false;

/// Ends the compilation on this thread, which ran out of memory: the
/// thread's recovery context turns the exit into a jump back to RunSafely.
[[noreturn]] void endCompilationOutOfMemory() {
  ranOutOfMemory = true;
  llvm::sys::Process::Exit(1);
}

/// operator new's handler before the first compilation installed ours.
std::new_handler previousNewHandler = nullptr;

/// operator new's handler while compilations run. A thread that is not
/// compiling sees operator new as without it.
void handleNewFailure() {
  if (currentFatalMessage)
    endCompilationOutOfMemory();
  if (previousNewHandler)
    return previousNewHandler();
  throwBadAlloc();
}

/// LLVM's handler for its own failed allocations (safe_malloc and the
/// like). A thread that is not compiling gets what LLVM does without one.
void handleLLVMBadAlloc(void *, const char *, bool) {
  if (currentFatalMessage)
    endCompilationOutOfMemory();
  static const char message[] = "LLVM ERROR: out of memory\n";
  (void)!::write(2, message, sizeof(message) - 1);
  std::abort();
}

/// The process's compilation counters, guarded by `mutex`.
struct Counters {
  std::mutex mutex;
  /// Compilations in flight now.
  unsigned active = 0;
  CompilerStatistics statistics;
};

Counters &counters() {
  static Counters instance;
  return instance;
}

/// Counts the compilations in flight; installs the process-wide handlers
/// while there is at least one.
class RecoveryScope {
public:
  RecoveryScope() {
    Counters &state = counters();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.active++ == 0) {
      llvm::install_fatal_error_handler(recordFatalError, nullptr);
      llvm::install_bad_alloc_error_handler(handleLLVMBadAlloc, nullptr);
      previousNewHandler = std::set_new_handler(handleNewFailure);
      llvm::CrashRecoveryContext::Enable();
    }
    ++state.statistics.compilations;
    state.statistics.peakConcurrent =
        std::max(state.statistics.peakConcurrent, state.active);
  }
  ~RecoveryScope() {
    Counters &state = counters();
    std::lock_guard<std::mutex> lock(state.mutex);
    if (recovered)
      ++state.statistics.recoveredCrashes;
    if (--state.active == 0) {
      llvm::CrashRecoveryContext::Disable();
      std::set_new_handler(previousNewHandler);
      llvm::remove_bad_alloc_error_handler();
      llvm::remove_fatal_error_handler();
    }
  }
  RecoveryScope(const RecoveryScope &) = delete;
  RecoveryScope &operator=(const RecoveryScope &) = delete;

  /// Set when the compilation had to be recovered.
  bool recovered = false;
};

} // namespace

bool runRecoverably(std::vector<Diagnostic> &diagnostics,
                    llvm::function_ref<void()> body,
                    llvm::function_ref<void()> release) {
  RecoveryScope scope;
  std::string fatalMessage;
  currentFatalMessage = &fatalMessage;
  ranOutOfMemory = false;
  // The thread's stack of pretty-stack-trace entries (LLVM's pass managers
  // push one per pass) would keep pointing into the abandoned frames.
  const void *prettyStack = llvm::SavePrettyStackState();
  bool completed;
  {
    llvm::CrashRecoveryContext recovery;
    completed = recovery.RunSafely(body);
  }
  if (!completed)
    llvm::RestorePrettyStackState(prettyStack);
  bool outOfMemory = ranOutOfMemory;
  if (!completed && release) {
    // Under recovery too: if the crash left the IR inconsistent and freeing
    // it crashes, the rest stays allocated, as all of it did before.
    std::string ignored;
    currentFatalMessage = &ignored;
    llvm::CrashRecoveryContext recovery;
    recovery.RunSafely(release);
  }
  currentFatalMessage = nullptr;
  ranOutOfMemory = false;
  if (completed)
    return true;
  scope.recovered = true;
  Diagnostic diagnostic;
  diagnostic.file = "<compiler>";
  if (outOfMemory)
    diagnostic.message = "the compiler ran out of memory (the kernel is too "
                         "large to compile with the memory available)";
  else
    diagnostic.message =
        "internal compiler error: " +
        (fatalMessage.empty() ? std::string("the compiler crashed")
                              : fatalMessage) +
        " (please report it with the input that caused it)";
  diagnostics.push_back(std::move(diagnostic));
  return false;
}

CompilerStatistics getCompilerStatistics() {
  Counters &state = counters();
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.statistics;
}

} // namespace tilelang
