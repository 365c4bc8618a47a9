//===- BadAlloc.cpp - std::bad_alloc for code built without exceptions ----===//
//
// Part of tilelang. The library is built without exceptions, as LLVM is, but
// the out-of-memory handler of Recovery.cpp must fail the allocations of
// threads that are not compiling as operator new does without a handler:
// by throwing std::bad_alloc. This file alone is built with exceptions.
//
//===----------------------------------------------------------------------===//

#include "Recovery.h"

#include <new>

void tilelang::throwBadAlloc() { throw std::bad_alloc(); }
