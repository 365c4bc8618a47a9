//===- TestCrash.cpp - a pass that crashes on purpose ---------------------===//
//
// Part of tilelang. The test-crash pass: holds memory the ways a real pass
// does and then crashes, so that the crash-recovery tests can measure what
// a recovered compilation leaves allocated.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Analysis/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "llvm/Support/ErrorHandling.h"

#include <csignal>
#include <cstring>
#include <vector>

namespace tilelang {
#define GEN_PASS_DEF_TESTCRASH
#include "tilelang/Analysis/Passes.h.inc"
} // namespace tilelang

using namespace mlir;

namespace {
/// A buffer of `kilobytes`, written so that it is resident, not only
/// reserved.
std::vector<char> residentBuffer(unsigned kilobytes) {
  std::vector<char> buffer(size_t(kilobytes) << 10);
  std::memset(buffer.data(), 1, buffer.size());
  return buffer;
}

/// Holds memory in its object, its frame, a detached copy of the module and
/// a cached analysis, then crashes.
struct TestCrashPass : public tilelang::impl::TestCrashBase<TestCrashPass> {
  using TestCrashBase::TestCrashBase;

  void runOnOperation() override {
    if (kind != "segfault" && kind != "fatal-error") {
      getOperation().emitError("test-crash: unknown kind '")
          << kind << "' (expected segfault or fatal-error)";
      return signalPassFailure();
    }
    held = residentBuffer(objectKilobytes);
    std::vector<char> local = residentBuffer(frameKilobytes);
    OwningOpRef<ModuleOp> detached = getOperation().clone();
    (void)getAnalysis<DominanceInfo>();
    // Keep `local` alive up to the crash.
    asm volatile("" : : "r"(local.data()) : "memory");
    if (kind == "fatal-error")
      llvm::report_fatal_error("test-crash: a fatal error on purpose");
    std::raise(SIGSEGV);
  }

  std::vector<char> held;
};
} // namespace
