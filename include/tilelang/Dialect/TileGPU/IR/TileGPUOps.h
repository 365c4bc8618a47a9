//===- TileGPUOps.h - tilegpu dialect operations ----------------*- C++ -*-===//
//
// Part of tilelang. Declares the tilegpu ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_IR_TILEGPUOPS_H
#define TILELANG_DIALECT_TILEGPU_IR_TILEGPUOPS_H

#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#define GET_OP_CLASSES
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h.inc"

#endif // TILELANG_DIALECT_TILEGPU_IR_TILEGPUOPS_H
