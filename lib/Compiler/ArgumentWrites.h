//===- ArgumentWrites.h - the arguments a kernel writes through -*- C++ -*-===//
//
// Part of tilelang. The analysis behind findWrittenArguments (Compiler.h):
// the arguments of a kernel from which an address may reach a write.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_COMPILER_ARGUMENTWRITES_H
#define TILELANG_LIB_COMPILER_ARGUMENTWRITES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace tilelang {

/// Per argument of `kernel`, whether memory may be written through it (see
/// findWrittenArguments in Compiler.h for what counts).
std::vector<bool> findWrittenArguments(mlir::func::FuncOp kernel);

} // namespace tilelang

#endif // TILELANG_LIB_COMPILER_ARGUMENTWRITES_H
