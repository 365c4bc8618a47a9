// tilelang-opt's command line: --help describes the tool and its passes,
// --version names the LLVM it is built on, and a crash outside the
// recovery context that turns crashes into errors (here a SIGSEGV sent
// while it waits for standard input) is reported with tilelang's message
// and the stack dump llvm::InitLLVM sets up, not a silent signal.
// RUN: tilelang-opt --help | FileCheck %s --check-prefix=HELP
// RUN: tilelang-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: sleep 5 | not timeout -s SEGV 3 tilelang-opt 2>&1 | FileCheck %s --check-prefix=CRASH
// HELP: OVERVIEW: tilelang optimizer driver
// HELP: --convert-tilegpu-to-llvm
// VERSION: LLVM version 22
// CRASH: tilelang-opt: error: internal compiler error: crashed
// CRASH: Stack dump:
// CRASH: Program arguments: {{.*}}tilelang-opt
