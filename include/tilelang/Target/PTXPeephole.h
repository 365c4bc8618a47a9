//===- PTXPeephole.h - Rewrites of the emitted PTX for ptxas ----*- C++ -*-===//
//
// Part of tilelang. Small, local rewrites of the PTX text that LLVM's NVPTX
// backend prints, where an equivalent spelling leads ptxas to better code.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_TARGET_PTXPEEPHOLE_H
#define TILELANG_TARGET_PTXPEEPHOLE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace tilelang {

/// Spells every `mul.wide.s32 %rdD, %rS, 2^k` (k = 1..4: an element offset
/// scaled to bytes) as `cvt.s64.s32 %rdD, %rS; shl.b64 %rdD, %rdD, k`.
/// Given mul.wide, ptxas folds the scaling into each later 64-bit add as an
/// IMAD.WIDE and recomputes it at every use, inside loops too, where those
/// wide multiplies compete for the FMA pipe with the address arithmetic of
/// the copies next to the tensor-core products (dispatch stalls); given the
/// shift, it keeps the 64-bit byte offset in registers and adds with IADD3,
/// as for Triton's PTX. Only in kernels with wgmma products: elsewhere
/// there is no such contention, and the 64-bit offsets ptxas then keeps can
/// cost registers (a 2-warp layer-norm row of 4096 fp16: 148 -> 198).
/// Returns the PTX unchanged where there is nothing to rewrite.
std::string splitScaledWideMultiplies(llvm::StringRef ptx);

} // namespace tilelang

#endif // TILELANG_TARGET_PTXPEEPHOLE_H
