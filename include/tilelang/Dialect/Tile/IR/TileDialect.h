//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
//
// Part of tilelang. Declares the tile dialect, its pointer type and the
// helpers that relate pointer types to the values they point to.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEDIALECT_H
#define TILELANG_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "tilelang/Dialect/Tile/IR/TileDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tilelang/Dialect/Tile/IR/TileTypes.h.inc"

namespace tilelang::tile {

/// Returns what `ptrLike` points to: T for !tile.ptr<T>, tensor<S x T> for
/// tensor<S x !tile.ptr<T>>, and a null type for anything else.
mlir::Type getPointeeType(mlir::Type ptrLike);

/// Returns i1 for a scalar and tensor<S x i1> for a tensor of shape S.
mlir::Type getI1SameShape(mlir::Type type);

/// Whether `type` is a shaped type whose dimensions are all static powers
/// of two, as every tile block is.
bool isBlockShape(mlir::Type type);

/// Returns the bit width of a tile element type; pointers count as 64 bits.
unsigned getElementBitWidth(mlir::Type elementType);

/// The most elements one tensor may hold: Triton's cap, which the frontend
/// enforces too (tl.TRITON_MAX_TENSOR_NUMEL). A tensor lives in one
/// program's registers; larger ones only exhaust the compiler's time and
/// memory once they are distributed to threads.
constexpr int64_t kMaxTensorElements = int64_t(1) << 20;

/// Reports, at its op, the first value under `root` whose tensor type holds
/// more than kMaxTensorElements elements, and fails. The lowering passes
/// call it first, so that IR given directly to tilelang-opt or
/// tilelang-compile is refused before it is distributed to threads.
mlir::LogicalResult verifyTensorSizes(mlir::Operation *root);

/// The most elements one tensor value may put in each thread of a program:
/// its element count over the program's 32 * num_warps threads (what an even
/// distribution gives each; a layout never gives fewer). A thread has at
/// most 255 32-bit registers, so a value past this count lives mostly in
/// local memory, and its per-element code makes compile time grow faster
/// than the count (ptxas allocating and spilling registers; LLVM's
/// straight-line strength reduction, see lib/Target/PTX.cpp): a 2^16-element
/// softmax row at one warp (2,048 per thread) took ptxas 40 s, 2^20 elements
/// hours. Four times the register file, four times the largest count in the
/// project's kernels (a 256x128 block at 4 warps: 256), and at 32 warps
/// exactly kMaxTensorElements, so that every tensor that may exist fits some
/// num_warps.
constexpr int64_t kMaxElementsPerThread = 1024;

/// Reports, at its op, the first value under `root` whose tensor type puts
/// more than kMaxElementsPerThread elements in each of 32 * `numWarps`
/// threads, saying which num_warps would hold it, and fails.
/// convert-tile-to-tilegpu calls it before distributing tensors to threads.
mlir::LogicalResult verifyElementsPerThread(mlir::Operation *root,
                                            unsigned numWarps);

/// The most run-time control-flow ops (scf.if, scf.for, scf.while,
/// scf.index_switch) a module may hold. Their lowering takes time and memory
/// that grow faster than their number: SCF to CF splits the block at each
/// one, moving every op after it, and LLVM's loop passes (induction
/// variables, rotation) follow chains of sequential loops. Past this limit a
/// kernel would take more than seconds to compile (and Triton, which has no
/// limit, takes longer on the same source); 50,000 `if`s ran the compiler
/// out of memory.
constexpr int64_t kMaxControlFlowOps = 1024;

/// Reports, at the first op past the limit, a module `root` that holds more
/// than kMaxControlFlowOps control-flow ops, and fails. convert-tile-to-tilegpu
/// calls it first.
mlir::LogicalResult verifyControlFlowCount(mlir::Operation *root);

} // namespace tilelang::tile

#endif // TILELANG_DIALECT_TILE_IR_TILEDIALECT_H
