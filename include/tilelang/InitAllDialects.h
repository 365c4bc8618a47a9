//===- InitAllDialects.h - register tilelang's dialects ---------*- C++ -*-===//
//
// Part of tilelang. One place that lists every dialect a tilelang program may
// contain, shared by tilelang-opt and the compiler library.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_INITALLDIALECTS_H
#define TILELANG_INITALLDIALECTS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"

#include "tilelang/Dialect/Tile/IR/TileDialect.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.h"

namespace tilelang {

/// Adds tilelang's dialects and the upstream ones its programs use.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<tile::TileDialect, tilegpu::TileGPUDialect,
                  mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect>();
}

} // namespace tilelang

#endif // TILELANG_INITALLDIALECTS_H
