//===- AsyncProducts.h - wgmma products kept in flight ----------*- C++ -*-===//
//
// Part of tilelang. How tilegpu-pipeline keeps the wgmma products of a
// pipelined loop asynchronous: which products may be, where each one is
// waited for, and where the copies that refill a stage may go.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_DIALECT_TILEGPU_TRANSFORMS_ASYNCPRODUCTS_H
#define TILELANG_LIB_DIALECT_TILEGPU_TRANSFORMS_ASYNCPRODUCTS_H

#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace tilelang::tilegpu {

/// A wgmma product of a loop body that is issued asynchronously.
struct AsyncProduct {
  WarpGroupDotOp dot;
  /// The yield operand its result is carried through, still in flight, to
  /// the next iteration; -1 when it is waited for within its iteration.
  int carriedIndex = -1;
  /// Whether it would be carried but retires within its iteration because
  /// the registers in flight across the back edge would exceed
  /// kCarriedProductRegisters: the loop is bound by registers.
  bool retiredForRegisters = false;
};

/// The most registers a thread may hold in flight across a loop's back
/// edge (the carried products' accumulators and register operands, and the
/// result of the next iteration's first product when that is not carried)
/// before the carried products retire within their iteration instead: three
/// quarters of the 255 a thread can have, the rest for the loop's other
/// values.
constexpr unsigned kCarriedProductRegisters = 192;

/// Whether `alloc` copies a tensor defined outside its loop into an
/// immutable buffer the loop never frees: a copy that moves before the loop
/// (tilegpu-pipeline's last step), so the buffer outlives every iteration.
bool isLoopInvariantSharedCopy(LocalAllocOp alloc);

/// The products of `loop`'s body (not nested) that can be asynchronous:
/// each shared operand is `isStage` (a pipeline stage, which is refilled
/// only after the copies' wait) or a buffer of the iteration (a local_alloc
/// in the body). A product whose only use is the yield and whose operands
/// outlive the iteration (stages, values defined outside the loop, and
/// copies of them to shared memory, which move before the loop) stays in
/// flight across the back edge, unless the registers in flight there would
/// exceed kCarriedProductRegisters.
llvm::SmallVector<AsyncProduct>
findAsyncProducts(mlir::scf::ForOp loop,
                  llvm::function_ref<bool(mlir::Value)> isStage);

/// Marks `products` asynchronous and inserts, before every op that reads a
/// product's result (or the iter_arg a carried product arrives through),
/// the warp_group_dot_wait that retires it and the products issued before
/// it; a later product may accumulate into a result in flight. Right after
/// the last product, the previous iteration's products must be complete
/// (the stage they read gets refilled): a wait is placed there when none
/// has retired them yet. Returns the op after which the refilling copies
/// go (that wait, or the last product).
mlir::Operation *placeProductWaits(mlir::Block *body,
                                   llvm::ArrayRef<AsyncProduct> products);

/// The results of `loop` at the carried products' indices, waited for
/// after it; `loop` is the rewritten loop, `products` its products.
/// Returns the op whose results replace the loop's: a guard that waits on
/// the loop's exit path and skips a loop of zero iterations.
mlir::Operation *waitAfterLoop(mlir::scf::ForOp loop,
                               llvm::ArrayRef<AsyncProduct> products);

/// The most registers a thread may hold in flight where a deferred
/// product's iteration computes its softmax: the accumulator and the
/// register operand (P) of the product in flight, the first product's
/// result (S) and the next register operand made from it. Beyond this the
/// softmax's own temporaries crowd the 255 and deferring costs more than it
/// overlaps (flash attention's tutorial configs, bench/parity/results,
/// 2026-11-25, run 15).
constexpr unsigned kDeferredProductRegisters = 128;

/// The tensor work, in byte-MACs (multiply-accumulates times the operands'
/// element bytes, which the tensor cores' rate is inverse to), that the
/// copies of a loop must run ahead of its product to hide their latency when
/// they run num_stages - 2 iterations ahead instead of num_stages - 1: two
/// iterations of a 256x128x64 16-bit product. Less work ahead left the
/// copies exposed: the tutorial matmul's configs with half of it ran slower
/// refilled early, those with this much faster (bench/parity/results,
/// 2026-11-25, run 16).
constexpr int64_t kEarlyRefillByteMacs = int64_t(1) << 23;

/// Whether a loop whose one product is carried in flight (a matmul's)
/// should refill the stage read two iterations before, right after issuing
/// its product, instead of the stage the previous product read, after the
/// wait that retires it and a second barrier: where num_stages - 2 of its
/// iterations hold kEarlyRefillByteMacs of tensor work or more. The loop's
/// first barrier then also tells every thread that the stage is free.
bool shouldRefillEarly(llvm::ArrayRef<AsyncProduct> products,
                       unsigned numStages);

/// Whether the carried product of `products` (findAsyncProducts') can be
/// issued one iteration late, after the next iteration's first product:
/// flash attention's O += P V, whose P comes from the softmax of this
/// iteration's S = Q K^T. Then the softmax of S_j runs while the tensor cores
/// compute P_{j-1} V_{j-1} (FlashAttention-3's overlap within a warpgroup),
/// instead of waiting for both. Requires exactly two products, the first not
/// carried, the second carried with its A operand in registers, its B
/// operand a pipeline stage (`isStage`) and its accumulator computed in the
/// body by ops without memory effects (they move to the end of the body);
/// and the registers in flight within kDeferredProductRegisters.
/// Returns the carried product's index.
std::optional<unsigned>
findDeferrableProduct(llvm::ArrayRef<AsyncProduct> products,
                      llvm::function_ref<bool(mlir::Value)> isStage);

/// Defers `carried` (a product of `body`, B a view of a stage): right after
/// `first` (the body's first product), the body issues the previous
/// iteration's product into the carried accumulator,
/// `previousA` x stage `previousStage` + the accumulator's iter_arg, and
/// every other reader of that iter_arg reads this product instead (the
/// ops that depend on it move to the end of the body, so that it is waited
/// for as late as possible). `carried` is erased; its yield operand becomes
/// its accumulator. Returns the new product and the A operand the body must
/// yield for the next iteration (with the stage it reads this iteration).
std::pair<WarpGroupDotOp, mlir::Value>
deferCarriedProduct(mlir::Block *body, const AsyncProduct &carried,
                    WarpGroupDotOp first, mlir::Value previousA,
                    mlir::Value previousStage);

/// The most registers a thread may hold where a loop whose first product
/// runs one iteration ahead computes its softmax: two results of the first
/// product (the one the softmax reads and the next one, in flight), the
/// carried accumulator in flight and two register operands of the second
/// product (the one it reads in flight and the one the softmax makes).
/// Flash attention at 128x64 with 8 warps and a head of 128 holds 160
/// (ptxas: 196 registers), at 128x128 and a head of 64 224 (240); at 256
/// (128x128 with a head of 128, or 4 warps on 128x64 and a head of 64) the
/// loop spills 32 to 128 bytes.
constexpr unsigned kAheadProductRegisters = 224;

/// Whether the first product of `products` (findAsyncProducts') can be
/// issued one iteration ahead: iteration j issues S_{j+1} = Q K_{j+1}^T and
/// then runs the softmax of S_j, issued by iteration j - 1 and carried to
/// this one, while the tensor cores compute the carried P_{j-1} V_{j-1} and
/// S_{j+1} (the loop software pipelined at the level of its products).
/// Requires exactly two products, the first not carried and read (through
/// ops of the body) by the second, the second carried; the first's shared
/// operands are each a pipeline stage (`isStage`) or defined outside the
/// loop, its A operand not in registers and its accumulator a constant or
/// defined outside the loop, so that the product of the next iteration
/// depends on nothing but the next stage; and the registers within
/// kAheadProductRegisters.
bool canIssueFirstProductAhead(mlir::scf::ForOp loop,
                               llvm::ArrayRef<AsyncProduct> products,
                               llvm::function_ref<bool(mlir::Value)> isStage);

/// A copy of `dot` (a product of a loop body whose operands are views of a
/// stage or defined outside the loop) at `builder`, reading stage `stage`:
/// its stage views rebuilt for `stage` and a constant accumulator of the
/// body cloned. Issued asynchronously.
WarpGroupDotOp issueProductForStage(mlir::OpBuilder &builder,
                                    WarpGroupDotOp dot, mlir::Value stage);

/// Issues the first product of `body` (`first`, reading stage views indexed
/// by the read stage) one iteration ahead: at `builder`, the product of the
/// next stage `nextStage`, appended to the yield; every reader of `first`
/// reads `current` instead (the iter_arg that brings the product the
/// previous iteration issued), and `first` goes. Returns the new product.
WarpGroupDotOp issueFirstProductAhead(mlir::OpBuilder &builder,
                                      mlir::Block *body, WarpGroupDotOp first,
                                      mlir::Value nextStage,
                                      mlir::BlockArgument current);

/// Issues after `loop` the product its last iteration deferred (`deferred`,
/// the body's product, into result `accIndex`, reading results `aIndex` and
/// `stageIndex`) and waits for it, on the loop's own exit path (a guard
/// skips a loop of zero iterations, whose results are its inits). Returns
/// the op whose results replace the loop's.
mlir::Operation *issueDeferredAfterLoop(mlir::scf::ForOp loop,
                                        WarpGroupDotOp deferred,
                                        unsigned accIndex, unsigned aIndex,
                                        unsigned stageIndex);

} // namespace tilelang::tilegpu

#endif // TILELANG_LIB_DIALECT_TILEGPU_TRANSFORMS_ASYNCPRODUCTS_H
