//===- TileGPUOps.td - tilegpu operations ------------------*- tablegen -*-===//
//
// Part of tilelang. Layout conversion, thread-local reductions, shared
// memory, asynchronous copies, bulk tensor copies with mbarriers, and
// barriers.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
#define TILELANG_DIALECT_TILEGPU_IR_TILEGPUOPS_TD

include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.td"
include "tilelang/Dialect/TileGPU/IR/TileGPUTypes.td"
include "tilelang/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// Shared memory, the resource of local_* ops and async copies.
def TileGPU_SharedMemory : Resource<"::tilelang::tilegpu::SharedMemory">;

def TileGPU_MemDesc : Type<CPred<"::llvm::isa<::tilelang::tilegpu::MemDescType>($_self)">,
                           "shared-memory descriptor", "::tilelang::tilegpu::MemDescType">;
def TileGPU_AsyncToken : Type<CPred<"::llvm::isa<::tilelang::tilegpu::AsyncTokenType>($_self)">,
                              "async token", "::tilelang::tilegpu::AsyncTokenType">,
                         BuildableType<"::tilelang::tilegpu::AsyncTokenType::get($_builder.getContext())">;

//===----------------------------------------------------------------------===//
// Layout conversion
//===----------------------------------------------------------------------===//

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure]> {
  let summary = "Redistribute a tensor's elements to another layout";
  let description = [{
    Same shape and element type, another encoding. Lowered through shared
    memory or warp shuffles; a pass removes the conversions it can.

    ```mlir
    %y = tilegpu.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #b>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Thread-local reduction
//===----------------------------------------------------------------------===//

def TileGPU_ThreadReduceOp : TileGPU_Op<"thread_reduce", [
    Pure, SingleBlock]> {
  let summary = "Combine the elements each thread holds along an axis";
  let description = [{
    The first step of a reduction, without communication: every thread
    combines the elements of `src` it holds along `axis`, keeping one
    partial result per thread there. `src` has a blocked layout whose
    repetition (sizePerThread * threadsPerWarp * warpsPerCTA) divides the
    axis; the result has threadsPerWarp * warpsPerCTA elements along it, in
    the same layout with sizePerThread 1 there, so element `i` is the
    partial of the threads at position `i` along the axis. A tile.reduce of
    the result along the axis gives what one of `src` gives, the combine
    being associative and commutative. tilegpu-accumulate-per-thread uses it
    to carry loop accumulators as partials.

    ```mlir
    %p = tilegpu.thread_reduce %x axis = 0 : tensor<4096xf32, #blocked> -> tensor<256xf32, #blocked1> {
    ^bb0(%acc: f32, %v: f32):
      %0 = arith.addf %acc, %v : f32
      tilegpu.thread_reduce.return %0 : f32
    }
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $src `axis` `=` $axis attr-dict `:` type($src) `->` type($result) $combineOp
  }];
  let hasRegionVerifier = 1;
}

def TileGPU_ThreadReduceReturnOp : TileGPU_Op<"thread_reduce.return", [
    Pure, Terminator, ReturnLike, HasParent<"ThreadReduceOp">]> {
  let summary = "Yield the combined value from a thread_reduce region";
  let arguments = (ins AnyType:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc", [
    MemoryEffects<[MemAlloc<TileGPU_SharedMemory>]>]> {
  let summary = "Allocate a shared-memory buffer, optionally filled from a tensor";
  let description = [{
    Without `src` the buffer is uninitialized and must be mutable; with it,
    it holds `src`'s elements.

    ```mlir
    %m = tilegpu.local_alloc %t : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16, #shared, mutable>
    ```
  }];
  let arguments = (ins Optional<Tile_Tensor>:$src);
  let results = (outs TileGPU_MemDesc:$result);
  let assemblyFormat = "$src attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def TileGPU_LocalDeallocOp : TileGPU_Op<"local_dealloc", [
    MemoryEffects<[MemFree<TileGPU_SharedMemory>]>]> {
  let summary = "End the lifetime of a shared-memory buffer";
  let arguments = (ins TileGPU_MemDesc:$src);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src))";
}

def TileGPU_LocalLoadOp : TileGPU_Op<"local_load", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>]>]> {
  let summary = "Read a shared-memory buffer into a distributed tensor";
  let description = [{
    ```mlir
    %t = tilegpu.local_load %m : !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #dot_a>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` type($result)";
  let hasVerifier = 1;
}

def TileGPU_LocalStoreOp : TileGPU_Op<"local_store", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Write a distributed tensor into a mutable shared-memory buffer";
  let description = [{
    ```mlir
    tilegpu.local_store %t, %m : tensor<64x64xf16, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, TileGPU_MemDesc:$dst);
  let assemblyFormat = [{
    $src `,` $dst attr-dict `:` type($src) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TileGPU_MemDescIndexOp : TileGPU_Op<"memdesc_index", [Pure]> {
  let summary = "Select one buffer of a multi-buffered allocation";
  let description = [{
    Drops the leading dimension: stage `index` of a pipeline's buffers.

    ```mlir
    %s = tilegpu.memdesc_index %m[%i] : !tilegpu.memdesc<3x64x64xf16, #shared, mutable> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$src, I32:$index);
  let results = (outs TileGPU_MemDesc:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TileGPU_MemDescTransOp : TileGPU_Op<"memdesc_trans", [Pure]> {
  let summary = "View a 2-D tile in shared memory transposed";
  let description = [{
    The same bytes read with the two dimensions swapped: the shape and the
    shared layout's order are permuted, nothing moves. A product that reads
    `b.T` of a tile loaded as (N, K) reads the tile as stored, K-major,
    instead of transposing it through registers, and the load feeding it
    stays a plain copy to shared memory that a pipeline can take.

    ```mlir
    %t = tilegpu.memdesc_trans %m : !tilegpu.memdesc<256x64xf16, #shared> -> !tilegpu.memdesc<64x256xf16, #shared1>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$src);
  let results = (outs TileGPU_MemDesc:$result);
  let builders = [OpBuilder<(ins "::mlir::Value":$src)>];
  let assemblyFormat = [{
    $src attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let extraClassDeclaration = [{
    /// The type of `src` seen transposed.
    static MemDescType getTransposedType(MemDescType src);
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warpgroup matrix product
//===----------------------------------------------------------------------===//

def TileGPU_WarpGroupDotOp : TileGPU_Op<"warp_group_dot", [
    AllTypesMatch<["c", "d"]>,
    MemoryEffects<[MemRead<TileGPU_SharedMemory>]>]> {
  let summary = "d = a * b + c on Hopper's warpgroup tensor cores (wgmma)";
  let description = [{
    `a` (MxK) and `b` (KxN) are tiles in shared memory with swizzled
    #tilegpu.shared layouts, read by wgmma through matrix descriptors:
    both f16, both bf16, or both fp8 (f8E4M3FN and f8E5M2 may mix) with
    an f32 accumulator, or both i8 (signed) with an i32 one; 8-bit tiles
    must be K-major, as wgmma cannot transpose 8-bit operands. A
    16-bit `a` may instead be a tensor in registers, in the
    `#tilegpu.dot_op<opIdx = 0>` layout of the accumulator's (a value
    computed in the accumulator's layout gets there by reordering each
    thread's registers, without shared memory). `c` and `d` have an mma
    version-3 layout. The product
    completes before the op's result is available, unless `isAsync` is set:
    then it is only issued (and committed as one wgmma group), `d` may be
    passed to nothing but a `warp_group_dot_wait` or a later asynchronous
    product, and `a` and `b` must stay unchanged until that wait.

    `descriptorsAtIssue` (set by tilegpu-pipeline on a product in a loop
    bound by registers that reads a shared operand defined outside the
    loop) forms each instruction's matrix descriptors at the instruction:
    one base descriptor per operand is live, and each instruction adds its
    constant offset to it as it issues. Otherwise the offsets are added
    beforehand, and for a loop-invariant operand LLVM hoists one 64-bit
    descriptor per instruction out of the loop, which holds them all live
    across it.

    ```mlir
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<128x64xf16, #shared> * !tilegpu.memdesc<64x128xf16, #shared1> -> tensor<128x128xf32, #mma3>
    ```
  }];
  let arguments = (ins AnyTypeOf<[TileGPU_MemDesc, Tile_Tensor]>:$a,
                       TileGPU_MemDesc:$b, Tile_Tensor:$c, UnitAttr:$isAsync,
                       UnitAttr:$descriptorsAtIssue);
  let results = (outs Tile_Tensor:$d);
  let extraClassDeclaration = [{
    /// The A operand's shape and element type, in shared memory or not.
    ::llvm::ArrayRef<int64_t> getAShape();
    ::mlir::Type getAElementType();
    /// Whether A is a tensor in registers.
    bool isAInRegisters() {
      return ::llvm::isa<::mlir::RankedTensorType>(getA().getType());
    }
  }];
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` qualified(type($a)) `*` qualified(type($b))
    `->` type($d)
  }];
  let hasVerifier = 1;
}

def TileGPU_WarpGroupDotWaitOp : TileGPU_Op<"warp_group_dot_wait", [
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Wait until at most `pendings` wgmma groups are in flight";
  let description = [{
    Returns its inputs, the results of asynchronous `warp_group_dot`s, once
    all but the last `pendings` committed wgmma groups of the warpgroup
    have completed (wgmma.wait_group). The results are the values to read:
    tying them to the wait keeps every read after it.

    ```mlir
    %done = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #mma3>
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$inputs, I32Attr:$pendings);
  let results = (outs Variadic<Tile_Tensor>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies and synchronization
//===----------------------------------------------------------------------===//

def TileGPU_AsyncCopyGlobalToLocalOp : TileGPU_Op<"async_copy_global_to_local", [
    AttrSizedOperandSegments,
    MemoryEffects<[MemRead<Tile_GlobalMemory>, MemWrite<TileGPU_SharedMemory>]>,
    OptionalTypesMatchWith<"mask is i1 of the shape of ptrs", "ptrs", "mask",
                           "::tilelang::tile::getI1SameShape($_self)">,
    OptionalTypesMatchWith<"other is the pointee of ptrs", "ptrs", "other",
                           "::tilelang::tile::getPointeeType($_self)">]> {
  let summary = "Start copying global memory into shared memory (cp.async)";
  let description = [{
    Each pointer's element goes to the matching element of `dst`; masked-off
    elements receive `other` (zero when absent). The copy completes after
    its group is committed and waited for.

    `steppedOffsets` (set by tilegpu-pipeline on the copies of a loop bound
    by registers) asks the lowering to read an offset that is a uniform
    scale times a coordinate (`offs_n[None, :] * stride`) at a thread's
    first vector only and to step each other vector's address from there
    by the scale times an immediate, rather than to keep every vector's
    offset in a register across the loop.

    ```mlir
    %t = tilegpu.async_copy_global_to_local %ptrs, %buf mask %m : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    ```
  }];
  let arguments = (ins
    Tile_PtrTensor:$ptrs,
    TileGPU_MemDesc:$dst,
    Optional<Tile_BoolTensor>:$mask,
    Optional<Tile_Tensor>:$other,
    UnitAttr:$steppedOffsets);
  let results = (outs TileGPU_AsyncToken:$token);
  let assemblyFormat = [{
    $ptrs `,` $dst (`mask` $mask^)? (`other` $other^)? attr-dict `:`
    type($ptrs) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCommitGroupOp : TileGPU_Op<"async_commit_group"> {
  let summary = "Close the current group of asynchronous copies";
  let arguments = (ins Variadic<TileGPU_AsyncToken>:$tokens);
  let results = (outs TileGPU_AsyncToken:$result);
  let assemblyFormat = "$tokens attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait"> {
  let summary = "Wait until at most `pending` copy groups are in flight";
  let arguments = (ins Variadic<TileGPU_AsyncToken>:$tokens, I32Attr:$pending);
  let results = (outs TileGPU_AsyncToken:$result);
  let assemblyFormat = "$tokens attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Bulk tensor copies and memory barriers (sm_90)
//===----------------------------------------------------------------------===//

def TileGPU_InitBarrierOp : TileGPU_Op<"init_barrier", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Initialize an mbarrier in shared memory";
  let description = [{
    Thread 0 initializes the 64-bit mbarrier `barrier` (a one-element
    buffer of i64) to expect `count` arrivals per phase, then makes it
    visible to the bulk copy engine; a CTA barrier must follow before other
    threads use it.

    ```mlir
    tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #shared, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$barrier, I32Attr:$count);
  let assemblyFormat = "$barrier `,` $count attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileGPU_InvalBarrierOp : TileGPU_Op<"inval_barrier", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Invalidate an mbarrier so that its memory can be reused";
  let arguments = (ins TileGPU_MemDesc:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileGPU_BarrierExpectOp : TileGPU_Op<"barrier_expect", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Arrive on an mbarrier, expecting `bytes` of bulk copies";
  let description = [{
    Where `pred` holds, thread 0 arrives on `barrier` and adds `bytes` to
    the transaction count its current phase waits for: the phase completes
    once the bulk copies signalling it have written that much.
  }];
  let arguments = (ins TileGPU_MemDesc:$barrier, I32Attr:$bytes, I1:$pred);
  let assemblyFormat = [{
    $barrier `,` $bytes `,` $pred attr-dict `:` qualified(type($barrier))
  }];
  let hasVerifier = 1;
}

def TileGPU_WaitBarrierOp : TileGPU_Op<"wait_barrier", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>, MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Wait for the phase of parity `phase` of an mbarrier";
  let description = [{
    Every thread spins until the phase of `barrier` with parity `phase`
    (0 or 1) has completed; the shared memory its bulk copies wrote is
    then visible to the thread, including to wgmma.
  }];
  let arguments = (ins TileGPU_MemDesc:$barrier, I32:$phase);
  let assemblyFormat = "$barrier `,` $phase attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def TileGPU_AsyncTMACopyGlobalToLocalOp
    : TileGPU_Op<"async_tma_copy_global_to_local", [
        MemoryEffects<[MemRead<Tile_GlobalMemory>, MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Start a bulk tensor copy of one block into shared memory";
  let description = [{
    Where `pred` holds, thread 0 copies the block of `dst`'s shape whose
    first element is at `coords` (one per dimension, outermost first) of the
    tensor that `tensormap` describes into `dst`, in `dst`'s swizzled
    layout, and signals `barrier` with the bytes written. Elements outside
    the tensor are written as zero. `dst` is 2-D with 16-bit elements and
    rows of 32, 64 or 128 bytes per column block (the swizzle of the tensor
    map): one copy per column block.

    ```mlir
    tilegpu.async_tma_copy_global_to_local %map[%i, %k] %buf, %bar, %p
        : !tilegpu.memdesc<128x64xbf16, #shared, mutable>, !tilegpu.memdesc<1xi64, #shared1, mutable>
    ```
  }];
  let arguments = (ins Tile_TensorMap:$tensormap, Variadic<I32>:$coords,
                       TileGPU_MemDesc:$dst, TileGPU_MemDesc:$barrier, I1:$pred);
  let assemblyFormat = [{
    $tensormap `[` $coords `]` $dst `,` $barrier `,` $pred attr-dict `:`
    qualified(type($dst)) `,` qualified(type($barrier))
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncTMACopyLocalToGlobalOp
    : TileGPU_Op<"async_tma_copy_local_to_global", [
        MemoryEffects<[MemRead<TileGPU_SharedMemory>, MemWrite<Tile_GlobalMemory>]>]> {
  let summary = "Start a bulk tensor copy of one block from shared memory";
  let description = [{
    Thread 0 copies `src` (2-D, 16-bit elements, a swizzled layout as for
    async_tma_copy_global_to_local) into the block whose first element is at
    `coords` of the tensor that `tensormap` describes; elements outside the
    tensor are not written. The copies form one bulk group, which
    async_tma_store_wait waits for. `src` must be complete and visible to
    the async proxy (a local_alloc with a source is).

    ```mlir
    tilegpu.async_tma_copy_local_to_global %map[%i, %j] %buf : !tilegpu.memdesc<128x256xbf16, #shared>
    ```
  }];
  let arguments = (ins Tile_TensorMap:$tensormap, Variadic<I32>:$coords,
                       TileGPU_MemDesc:$src);
  let assemblyFormat = [{
    $tensormap `[` $coords `]` $src attr-dict `:` qualified(type($src))
  }];
  let hasVerifier = 1;
}

// (Modelled as writing shared memory too, so that it is never dropped as
// dead: it orders the buffer's reuse after the copies' reads.)
def TileGPU_AsyncTMAStoreWaitOp : TileGPU_Op<"async_tma_store_wait", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>, MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Wait until the bulk stores have read their shared memory";
  let description = [{
    Until at most `pendings` bulk store groups may still read shared memory
    (`cp.async.bulk.wait_group.read`); their buffers can be reused after.
  }];
  let arguments = (ins I32Attr:$pendings);
  let assemblyFormat = "attr-dict";
}

def TileGPU_FenceAsyncSharedOp : TileGPU_Op<"fence_async_shared", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>, MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Order this thread's shared-memory accesses before the async proxy's";
  let description = [{
    `fence.proxy.async.shared::cta`: the thread's earlier shared-memory
    accesses (through the generic proxy) are ordered before later accesses
    by the bulk copy engine and wgmma (the async proxy), once a barrier
    publishes them.
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_BarrierOp : TileGPU_Op<"barrier"> {
  let summary = "Synchronize the threads of the CTA (bar.sync 0)";
  let assemblyFormat = "attr-dict";
}

#endif // TILELANG_DIALECT_TILEGPU_IR_TILEGPUOPS_TD
