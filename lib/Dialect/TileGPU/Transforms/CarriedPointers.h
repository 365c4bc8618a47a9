//===- CarriedPointers.h - pointer tensors carried as a scalar --*- C++ -*-===//
//
// Part of tilelang. How tilegpu-pipeline stops a loop from carrying one
// 64-bit pointer per element of a pointer tensor that only moves by a
// uniform step: the loop carries the tensor's scalar base instead, and the
// tensor is recomputed in the body from that base and its loop-invariant
// offset tensors (docs/lowering.md, "Carried pointer tensors").
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_DIALECT_TILEGPU_TRANSFORMS_CARRIEDPOINTERS_H
#define TILELANG_LIB_DIALECT_TILEGPU_TRANSFORMS_CARRIEDPOINTERS_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tilelang::tilegpu {

/// The most offset tensors a rebased pointer tensor is rebuilt from: each
/// stays live across the loop (the distinct values a thread holds, one per
/// vector at most), so a sum of many terms could hold more registers than
/// the pointers it replaces. Two covers the tutorial forms: one combined
/// offset (`a_ptr + (rows[:, None] * s0 + cols[None, :] * s1)`) or two
/// added one after the other (flash attention's `K + offs_d[:, None] +
/// offs_n[None, :] * stride_kn`), where the term along the vector is one
/// value a thread.
constexpr unsigned kMaxRebasedTerms = 2;

/// If iter_arg `arg` of `loop` is a pointer tensor that each iteration
/// advances by a loop-invariant scalar (`p = tile.addptr p, splat(step)`)
/// and whose initial value is a splat of one scalar pointer moved by at
/// most kMaxRebasedTerms i32 offset tensors (through tile.addptr,
/// tile.broadcast and tile.expand_dims), rewrites the loop to carry that
/// scalar pointer (advanced by `step`) and returns the tensor rebuilt at
/// the start of the body as splat(base) + term + ..., which replaces the
/// iter_arg's uses; the loop's result is rebuilt after the loop the same
/// way. Otherwise changes nothing and returns a null value.
mlir::Value rebaseCarriedPointerTensor(mlir::scf::ForOp loop,
                                       mlir::BlockArgument arg);

} // namespace tilelang::tilegpu

#endif // TILELANG_LIB_DIALECT_TILEGPU_TRANSFORMS_CARRIEDPOINTERS_H
