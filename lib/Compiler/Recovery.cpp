//===- Recovery.cpp - crash recovery for concurrent compilations ----------===//
//
// Part of tilelang. LLVM's crash recovery and its fatal-error handler are
// process-wide: the signal handlers and the handler function are installed
// for everyone. Each compilation therefore takes a reference on them (the
// first installs them, the last removes them, so that nothing of ours stays
// in the process between compilations), and everything that belongs to one
// compilation lives in thread-local state: LLVM keeps the current recovery
// context per thread, and the fatal-error message goes to a per-thread slot.
//
//===----------------------------------------------------------------------===//

#include "Recovery.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <mutex>

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
                    llvm::function_ref<void()> body) {
  RecoveryScope scope;
  std::string fatalMessage;
  currentFatalMessage = &fatalMessage;
  llvm::CrashRecoveryContext recovery;
  bool completed = recovery.RunSafely(body);
  currentFatalMessage = nullptr;
  if (completed)
    return true;
  scope.recovered = true;
  Diagnostic diagnostic;
  diagnostic.file = "<compiler>";
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
