//===- TileGPUToLLVM.h - shared pieces of the LLVM lowering -----*- C++ -*-===//
//
// Part of tilelang. Private to lib/Conversion/TileGPUToLLVM: the type
// converter, per-thread element indexing of layouts, struct packing, thread
// ids, shared memory, and the populate functions of each op family.
//
// A tensor in a distributed layout becomes, in each thread, an LLVM struct
// of the elements that thread holds, in the register order of the layout's
// LayoutMap.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_LIB_CONVERSION_TILEGPUTOLLVM_H
#define TILELANG_LIB_CONVERSION_TILEGPUTOLLVM_H

#include "tilelang/Analysis/AxisInfo.h"
#include "tilelang/Dialect/TileGPU/IR/LayoutMap.h"
#include "tilelang/Dialect/TileGPU/IR/LayoutUtils.h"
#include "tilelang/Dialect/TileGPU/IR/TileGPUOps.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilelang::lowering {

/// Converts tile and tilegpu types: distributed tensors to structs of the
/// elements one thread holds, pointers to LLVM pointers.
class TileGPUTypeConverter : public mlir::LLVMTypeConverter {
public:
  TileGPUTypeConverter(mlir::MLIRContext *context,
                       const mlir::LowerToLLVMOptions &options);
};

/// Whether the lowering can index `layout`: blocked layouts, mma.sync
/// accumulators and their dot operands, wgmma accumulators, and slices of
/// these.
bool isLowerableLayout(mlir::Attribute layout);

/// Per-dimension element index within a thread, for every element the
/// thread holds, in struct order.
using ElementIndices = llvm::SmallVector<llvm::SmallVector<unsigned>>;

/// The elements a thread holds of a `shape` tensor in `layout`, as
/// per-dimension indices (LayoutMap::getRegisterIndex: the register bits
/// along each dimension), in struct order; empty for layouts without a
/// LayoutMap. Blocked: order[0] varies fastest. Slice: the parent's
/// elements at index 0 of the sliced dimension.
ElementIndices getElementIndices(tilegpu::DistributedEncodingAttr layout,
                                 llvm::ArrayRef<int64_t> shape);

/// The elements a thread holds of a tensor, in struct order: along each
/// dimension, a thread-dependent start plus a constant per element (the
/// lane and warp bases, and the register bases, of the layout's
/// LayoutMap). Elements whose constants differ by a known amount sit that
/// far apart, which address arithmetic can fold into immediate offsets.
struct ThreadElementCoordinates {
  llvm::SmallVector<mlir::Value> starts;
  llvm::SmallVector<llvm::SmallVector<int64_t>> offsets;

  /// Emits the coordinates (i32 values) of element `element`.
  llvm::SmallVector<mlir::Value> emit(mlir::OpBuilder &b, mlir::Location loc,
                                      unsigned element) const;
};
/// The coordinates (i32 values) a thread's lane and warp ids select from
/// `laneBases` and `warpBases` (bases as LayoutMap's: each a power of two
/// along one dimension, summed over the set bits of the ids).
llvm::SmallVector<mlir::Value>
emitThreadStarts(mlir::OpBuilder &b, mlir::Location loc,
                 llvm::ArrayRef<llvm::SmallVector<int64_t>> laneBases,
                 llvm::ArrayRef<llvm::SmallVector<int64_t>> warpBases,
                 unsigned rank);
ThreadElementCoordinates
emitThreadElementCoordinates(mlir::OpBuilder &builder, mlir::Location loc,
                             mlir::RankedTensorType type);

/// A tensor-core layout's registers by repetition of its tile (the
/// fragment of one mma.sync or wgmma across the CTA): `reps` along each
/// dimension and, per repetition, the struct positions of its elements in
/// register order, the order of the instruction's operand registers.
struct FragmentRepetitions {
  llvm::SmallVector<unsigned> reps;
  llvm::SmallVector<llvm::SmallVector<unsigned>> positions;

  /// The positions of repetition `rep` (its index along each dimension).
  llvm::ArrayRef<unsigned> get(llvm::ArrayRef<unsigned> rep) const;
};
/// The repetitions of `type`'s layout, read off its LayoutMap; nullopt for
/// layouts without a tile (blocked tiles too, slices).
std::optional<FragmentRepetitions>
getFragmentRepetitions(mlir::RankedTensorType type);

/// Where a blocked layout (or a slice of one) places a thread's elements,
/// known before lowering: element e sits along dimension d at
/// start + (indices[e][d] / run[d]) * tile[d] + indices[e][d] % run[d], the
/// thread's start a multiple of run[d] below tile[d].
struct ThreadElementPlacement {
  ElementIndices indices;
  llvm::SmallVector<int64_t> run, tile;
};
std::optional<ThreadElementPlacement>
getThreadElementPlacement(mlir::RankedTensorType type);

/// Emits, for every element this thread holds, its coordinates in the
/// tensor (i32 values, one per dimension).
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
emitElementCoordinates(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::RankedTensorType type);

/// How `layout` spreads a `shape` tensor's dimension `dim` over lanes and
/// warps (see getDimSpread); failure where its LayoutMap cannot say.
mlir::FailureOr<tilegpu::DimSpread>
getDimDistribution(tilegpu::DistributedEncodingAttr layout,
                   llvm::ArrayRef<int64_t> shape, unsigned dim);

/// Splits an LLVM struct value into its elements.
llvm::SmallVector<mlir::Value> unpackStruct(mlir::OpBuilder &builder,
                                           mlir::Location loc,
                                           mlir::Value packed);
/// Builds a struct of `type` from `elements`.
mlir::Value packStruct(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Type type, mlir::ValueRange elements);

/// Replaces `op`'s single result by `elements`: packed into the converted
/// struct for a tensor of `resultType`, or the one element for a scalar.
void replaceWithElements(mlir::ConversionPatternRewriter &rewriter,
                         mlir::Operation *op, mlir::Type resultType,
                         mlir::ValueRange elements,
                         const mlir::TypeConverter &converter);

/// Inline PTX in the AT&T dialect, as NVPTX expects. With side effects (the
/// default) LLVM neither drops nor reorders it across memory operations;
/// without, LLVM may schedule, duplicate or drop it like any pure
/// computation.
mlir::LLVM::InlineAsmOp emitInlineAsm(mlir::OpBuilder &builder,
                                      mlir::Location loc,
                                      mlir::TypeRange resultTypes,
                                      mlir::ValueRange operands,
                                      llvm::StringRef text,
                                      llvm::StringRef constraints,
                                      bool hasSideEffects = true);

/// Clones the single-block combine region of a reduce or scan on
/// (earlier..., later...) values and returns what it yields.
llvm::SmallVector<mlir::Value> inlineCombineRegion(mlir::OpBuilder &builder,
                                                  mlir::Region &region,
                                                  mlir::ValueRange earlier,
                                                  mlir::ValueRange later);

/// Converted values of `operand`: its elements if it is a tensor, or the
/// scalar repeated `count` times.
llvm::SmallVector<mlir::Value> getElements(mlir::OpBuilder &builder,
                                          mlir::Location loc,
                                          mlir::Value converted,
                                          mlir::Type originalType,
                                          unsigned count);

mlir::Value i32Constant(mlir::OpBuilder &builder, mlir::Location loc,
                        int64_t value);

/// Elements a thread holds contiguously along the fastest dimension, read
/// off the layout's LayoutMap (blocked layouts and mma accumulators; 1 for
/// other layouts); they are adjacent in its element list.
unsigned getContiguousPerThread(mlir::Type type);
/// The fastest-varying dimension of a tensor's layout.
unsigned getFastestDim(mlir::Type type);
/// This warp's (M, N) position in the warp grid of an mma layout, from
/// `warp` (getWarpId's when null).
std::pair<mlir::Value, mlir::Value>
emitMmaWarpCoordinates(mlir::OpBuilder &builder, mlir::Location loc,
                       tilegpu::MmaEncodingAttr mma,
                       mlir::Value warp = nullptr);
/// Whether the module targets sm_90 or newer (from tilegpu.target).
bool targetsHopper(mlir::Operation *op);
/// threadIdx.x, lane id (tid % 32) and warp id (tid / 32).
mlir::Value getThreadId(mlir::OpBuilder &builder, mlir::Location loc);
mlir::Value getLaneId(mlir::OpBuilder &builder, mlir::Location loc);
mlir::Value getWarpId(mlir::OpBuilder &builder, mlir::Location loc);
/// The warp id as lane 0 holds it (shfl.sync.idx), which ptxas knows to be
/// the same in every lane: values derived from it can live in uniform
/// registers (wgmma descriptors). Only where the whole warp is converged.
mlir::Value getUniformWarpId(mlir::OpBuilder &builder, mlir::Location loc);

/// Address of `op`'s room in the kernel's dynamic shared memory: its
/// buffer (local_alloc) or scratch space, at the offset allocateSharedMemory
/// recorded on it (the array's base without one).
mlir::Value getSharedMemoryBase(mlir::OpBuilder &builder, mlir::Location loc,
                                mlir::Operation *op);
/// Name of the module's dynamic shared-memory symbol.
inline constexpr llvm::StringLiteral kSharedMemorySymbol = "tilelang_smem";
/// The attribute holding the byte offset of an op's buffer or scratch space
/// in dynamic shared memory (verified by the tilegpu dialect).
inline constexpr llvm::StringLiteral kSharedOffsetAttrName =
    tilegpu::TileGPUDialect::kSharedOffsetAttrName;

/// bar.sync 0 across the CTA.
void emitBarrier(mlir::OpBuilder &builder, mlir::Location loc);

/// `@predicate st.shared.bN [pointer], value;` for an integer `value` of 8,
/// 16, 32 or 64 bits (a storage word): where one thread of several holding
/// the same value is to write it. Predicated in the PTX rather than branched
/// around, and never a store by every thread: ptxas schedules the loads
/// before a shared store that all lanes of a warp make to one address less
/// eagerly (a one-row layer norm issued 3 of its 8 row loads before their
/// first use instead of all 8; bench/parity/results, run 22).
void emitPredicatedSharedStore(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::Value pointer, mlir::Value value,
                               mlir::Value predicate);

/// Thread 0's `value` in every thread of the CTA, through `op`'s 8-byte
/// scratch slot (barrier, predicated store, barrier, load): a scalar is one
/// value per program, and a scalar atomic's old value or a volatile scalar
/// load's value is only known, or only the same, in one thread.
mlir::Value broadcastFromOwner(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::Operation *op, mlir::Value value);

/// The type an element is kept as in shared memory (i1 -> i8, ptr -> i64).
mlir::Type getStorageType(mlir::Type llvmElementType);
mlir::Value toStorage(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value value);
mlir::Value fromStorage(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value stored, mlir::Type llvmElementType);

/// A 2-D tile in shared memory laid out by a #tilegpu.shared encoding: rows
/// along order[0], `vec`-element vectors XOR-swizzled by
/// (row / perPhase) % maxPhase. Rows longer than one swizzle pattern
/// (vec * maxPhase elements) are cut into column blocks of that width, each
/// holding all rows: with 128-byte patterns this is the canonical layout
/// that wgmma reads through matrix descriptors.
struct SwizzledTile {
  unsigned contiguousDim;
  int64_t rowLength;
  int64_t numRows;
  unsigned vec, perPhase, maxPhase;
  /// Elements of a row in one column block.
  int64_t blockLength;

  SwizzledTile(llvm::ArrayRef<int64_t> shape,
               tilegpu::SharedEncodingAttr encoding);
  /// The tile of a 2-D buffer with a #tilegpu.shared encoding, if it is one.
  static std::optional<SwizzledTile> get(tilegpu::MemDescType buffer);
  /// Element offset (i32) of the element at `coords` (i32 values).
  mlir::Value emitOffset(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<mlir::Value> coords) const;
  /// Element offsets of `elements`' entries `indices`: entries whose
  /// constant parts differ by whole swizzle periods of rows and whole
  /// column blocks (the same swizzle phase and position in the block) share
  /// one emitted offset plus a constant.
  llvm::SmallVector<mlir::Value>
  emitOffsets(mlir::OpBuilder &b, mlir::Location loc,
              const ThreadElementCoordinates &elements,
              llvm::ArrayRef<unsigned> indices) const;
};

/// Writes a distributed tensor (`srcStruct` of `srcType`, in a layout whose
/// runs along the tile's rows stay within one swizzle vector) into the tile
/// at `base`. No barriers.
void storeSwizzled(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::Value srcStruct, mlir::RankedTensorType srcType,
                   mlir::Value base, const SwizzledTile &smem,
                   const mlir::TypeConverter &converter);
/// Whether emitLdMatrixOperand can read an operand of `type` from `tile`:
/// a 16-bit mma.sync operand whose rows hold whole 8-element vectors.
bool canLoadWithLdMatrix(mlir::RankedTensorType type,
                         const SwizzledTile &tile);
/// Reads an mma.sync operand of `type` from the tile at `base` with
/// ldmatrix.x4 (.trans when K is not the contiguous dimension); returns
/// the operand's struct.
mlir::Value emitLdMatrixOperand(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value base, const SwizzledTile &tile,
                                mlir::RankedTensorType type,
                                const mlir::TypeConverter &converter);

/// Shared-memory bytes an op needs as scratch (0 if none).
int64_t getScratchBytes(mlir::Operation *op);
/// The shape a 2-D convert_layout lays its tensor out in through shared
/// memory: rows padded by 16 bytes when they are 128 bytes or longer, so
/// that the rows of an mma accumulator fall into different banks while
/// 16-byte vectors along a row stay aligned. Other ops use their shape.
llvm::SmallVector<int64_t> getScratchShape(mlir::Operation *op);

/// Double-precision exp, log and sin/cos (cosine = true) from polynomials.
mlir::Value emitExpF64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
mlir::Value emitLogF64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
mlir::Value emitSinCosF64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          bool cosine);

/// Pattern populators, one per op family.
/// Kernels get `maxRegisters` as .maxnreg when it is not 0.
void populateFuncOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  unsigned numWarps, unsigned maxRegisters);
void populateElementwiseOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns,
                                         const ModuleAxisInfo &axisInfo);
void populateMemoryOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const ModuleAxisInfo &axisInfo);
void populateShapeOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
/// convert_layout through shared memory in vectors (and stmatrix on sm_90),
/// between layouts with LayoutMaps; see ConvertLayoutToLLVM.cpp.
void populateConvertLayoutToLLVMPatterns(TileGPUTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);
/// Lays out the kernel's shared memory by liveness and returns its size,
/// the peak: every local_alloc buffer is live from its definition to the
/// last use of any memdesc derived from it (through views and branches; an
/// asynchronous product reading it until its wait), every op's scratch
/// space (getScratchBytes) for that op alone, and each gets the lowest
/// offset that nothing live at the same time occupies (attribute
/// tilegpu.offset, read by getSharedMemoryBase). See
/// SharedMemoryAllocation.cpp.
int64_t allocateSharedMemory(mlir::ModuleOp module);
/// Pipeline buffers, cp.async and its groups.
void populateAsyncCopyToLLVMPatterns(TileGPUTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     const ModuleAxisInfo &axisInfo);
/// tile.dot on mma.sync; warp_group_dot and warp_group_dot_wait on wgmma.
void populateBulkCopyToLLVMPatterns(TileGPUTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
void populateDotOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
/// mma.sync operands through ldmatrix (convert_layout, local_load).
void populateDotOperandToLLVMPatterns(TileGPUTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);
void populateReduceOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
void populateScanOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns);
void populateAtomicOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
void populateDebugOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
/// fp8 casts (scalar arith.extf / truncf) and scalar fp8 constants.
void populateFp8OpToLLVMPatterns(TileGPUTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns);
/// Reports, before the conversion, the fp8 ops it cannot lower: arithmetic
/// on fp8 values, and narrowing to fp8 before sm_89.
mlir::LogicalResult verifyFp8Ops(mlir::ModuleOp module);
/// `value` as an LLVM constant attribute: an fp8 float becomes its bit
/// pattern (i8, the converted type); other attributes are kept.
mlir::TypedAttr getLLVMConstantAttr(mlir::TypedAttr value);
/// tile.assume (llvm.intr.assume) and tile.hint (erased).
void populatePromiseOpToLLVMPatterns(TileGPUTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns);
/// Ops the lowering does not handle yet: a clear error instead of
/// "failed to legalize".
void populateUnsupportedOpPatterns(TileGPUTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

} // namespace tilelang::lowering

#endif // TILELANG_LIB_CONVERSION_TILEGPUTOLLVM_H
