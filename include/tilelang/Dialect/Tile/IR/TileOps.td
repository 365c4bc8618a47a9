//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
//
// Part of tilelang. The operations of the tile dialect, by family: program
// geometry, tensor construction and shape manipulation, pointers and memory,
// tensor descriptors, matrix products, reductions and scans, atomics, casts,
// and debugging.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEOPS_TD
#define TILELANG_DIALECT_TILE_IR_TILEOPS_TD

include "tilelang/Dialect/Tile/IR/TileDialect.td"
include "tilelang/Dialect/Tile/IR/TileTypes.td"
include "tilelang/Dialect/Tile/IR/TileEnums.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Program geometry
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "Index of this program instance along one grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id x : i32
    ```
  }];
  let arguments = (ins Tile_ProgramAxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "Number of program instances along one grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs y : i32
    ```
  }];
  let arguments = (ins Tile_ProgramAxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Tensor construction and shape manipulation
//===----------------------------------------------------------------------===//

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "The 1-D tensor [start, start + 1, ..., end - 1]";
  let description = [{
    The number of elements, `end - start`, must be a power of two, as every
    block dimension in tile programs is.

    ```mlir
    %r = tile.make_range 0 to 128 : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `to` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "A tensor whose every element is one scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : f32 -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_Elem:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "Repeat a tensor along its dimensions of size 1";
  let description = [{
    Source and result have the same rank and element type; every dimension of
    the source is 1 or equal to the result's.

    ```mlir
    %b = tile.broadcast %row : tensor<1x128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "Insert a dimension of size 1 at `axis`";
  let description = [{
    ```mlir
    %c = tile.expand_dims %v {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "View a tensor with another shape of the same size";
  let description = [{
    Elements keep their row-major order unless `allow_reorder` is set, in
    which case the compiler may choose any order that is cheapest for the
    layout (useful when the caller only reduces over the result).

    ```mlir
    %r = tile.reshape %t : tensor<16x16xf32> -> tensor<256xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, UnitAttr:$allowReorder);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src (`allow_reorder` $allowReorder^)? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "Permute the dimensions of a tensor";
  let description = [{
    Result dimension `i` is source dimension `order[i]`.

    ```mlir
    %t = tile.trans %m {order = array<i32: 1, 0>} : tensor<32x64xf16> -> tensor<64x32xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

// `Elementwise` (MLIR's trait) marks the ops that pair the i-th element of
// every tensor operand and result, whether or not they touch memory: loads,
// atomics, inline assembly and the pointer casts, like arith and math ops.
// The layout passes (tilegpu-coalesce, tilegpu-remove-layout-conversions)
// ask for the trait instead of listing ops.

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, Elementwise,
                                       AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Advance pointers by a number of elements";
  let description = [{
    `offset` counts elements of the pointee type, not bytes. Pointer and
    offset are both scalars or tensors of the same shape.

    ```mlir
    %p = tile.addptr %base, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
  let hasFolder = 1;
}

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments, Elementwise,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::tilelang::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 of the shape of ptr", "ptr", "mask",
                           "::tilelang::tile::getI1SameShape($_self)">,
    OptionalTypesMatchWith<"other is the pointee of ptr", "ptr", "other",
                           "::tilelang::tile::getPointeeType($_self)">]> {
  let summary = "Load through a pointer or a tensor of pointers";
  let description = [{
    Where `mask` is false, nothing is read and the result holds `other`
    (undefined when `other` is absent). `cache` and `evict` are the PTX cache
    operator and L1 eviction priority of the access; PTX takes one
    or the other, not both.

    ```mlir
    %v = tile.load %p, %m, %zero cache = cg evict = evict_last : tensor<128x!tile.ptr<f16>>
    ```
  }];
  let arguments = (ins
    Tile_PtrLike:$ptr,
    Optional<Tile_BoolLike>:$mask,
    Optional<Tile_Type>:$other,
    DefaultValuedAttr<Tile_CacheModifierAttr, "::tilelang::tile::CacheModifier::None">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tilelang::tile::EvictionPolicy::Normal">:$evict,
    UnitAttr:$isVolatile);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)? (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    (`volatile` $isVolatile^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite<Tile_GlobalMemory>]>,
    TypesMatchWith<"value is the pointee of ptr", "ptr", "value",
                   "::tilelang::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 of the shape of ptr", "ptr", "mask",
                           "::tilelang::tile::getI1SameShape($_self)">]> {
  let summary = "Store through a pointer or a tensor of pointers";
  let description = [{
    Where `mask` is false, nothing is written.

    ```mlir
    tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins
    Tile_PtrLike:$ptr,
    Tile_Type:$value,
    Optional<Tile_BoolLike>:$mask,
    DefaultValuedAttr<Tile_CacheModifierAttr, "::tilelang::tile::CacheModifier::None">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicyAttr, "::tilelang::tile::EvictionPolicy::Normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

def Tile_MakeTensorDescOp : Tile_Op<"make_tensor_descriptor", [
    Pure, AttrSizedOperandSegments]> {
  let summary = "Describe a strided tensor in global memory";
  let description = [{
    A descriptor of the tensor at `base` with extents `shape` (i32) and
    element strides `strides` (i64, the last one 1), read and written in
    blocks of the result's block type. `tensormap`, when present, is the
    same tensor encoded by the host for the bulk tensor copy engine (a
    descriptor passed to a kernel as an argument has one; one made in the
    kernel has none).

    ```mlir
    %d = tile.make_tensor_descriptor %a, [%m, %k], [%sm, %c1] map %map
        : !tile.ptr<bf16> -> !tile.tensordesc<tensor<128x64xbf16>>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I32>:$shape,
                       Variadic<I64>:$strides, Optional<Tile_TensorMap>:$tensormap);
  let results = (outs Tile_TensorDesc:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` (`map` $tensormap^)? attr-dict
    `:` type($base) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [
    MemoryEffects<[MemRead<Tile_GlobalMemory>]>]> {
  let summary = "Load one block through a tensor descriptor";
  let description = [{
    The block of the descriptor's block type whose first element is at
    element `offsets` (i32, one per dimension, any value); elements outside
    the tensor's extents read as zero. The result has the block's shape and
    element type, and a layout once the ops have one.

    ```mlir
    %a = tile.descriptor_load %d[%i, %k]
        : !tile.tensordesc<tensor<128x64xbf16>> -> tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $offsets `]` attr-dict `:` type($desc) `->` type($result)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$desc, "::mlir::ValueRange":$offsets), [{
      build($_builder, $_state,
            ::llvm::cast<::tilelang::tile::TensorDescType>(desc.getType()).getBlockType(),
            desc, offsets);
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [
    MemoryEffects<[MemWrite<Tile_GlobalMemory>]>]> {
  let summary = "Store one block through a tensor descriptor";
  let description = [{
    Writes `value`, of the descriptor's block type, to the block whose first
    element is at element `offsets`; elements outside the tensor's extents
    are not written.

    ```mlir
    tile.descriptor_store %d[%i, %j], %c
        : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$offsets,
                       Tile_Tensor:$value);
  let assemblyFormat = [{
    $desc `[` $offsets `]` `,` $value attr-dict `:` type($desc) `,` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix product
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "Matrix product with accumulation: d = a * b + c";
  let description = [{
    `a` is MxK, `b` is KxN, `c` and `d` are MxN, each optionally with a
    leading batch dimension of the same size. M, N and K are at least 16.
    Operands are f16, bf16, f32, f64, fp8 (e4m3/e5m2, mixable) or i8; the
    accumulator is f32 (f16 also for f16 operands), f64 for f64 and i32 for
    i8. `inputPrecision` says how f32 operands reach the tensor cores (tf32,
    three tf32 products, or exact fma) and is ignored for other types.

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins
    Tile_Tensor:$a,
    Tile_Tensor:$b,
    Tile_Tensor:$c,
    DefaultValuedAttr<Tile_InputPrecisionAttr, "::tilelang::tile::InputPrecision::TF32">:$inputPrecision,
    DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs Tile_Tensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`inputPrecision` `=` $inputPrecision^)?
    (`maxNumImpreciseAcc` `=` $maxNumImpreciseAcc^)?
    attr-dict `:` type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [
    RecursiveMemoryEffects, RecursivelySpeculatable, SingleBlock]> {
  let summary = "Reduce tensors along one axis with a combine region";
  let description = [{
    All sources have one shape. The region combines two partial results: its
    block takes the element types of every source twice (the running values,
    then the new ones) and yields one value per source with
    `tile.reduce.return`. Each result has the source's shape without `axis`;
    reducing a 1-D tensor gives a scalar. The combine function is assumed
    associative and commutative.

    ```mlir
    %s = tile.reduce %x axis = 1 : tensor<64x128xf32> -> tensor<64xf32> {
    ^bb0(%acc: f32, %v: f32):
      %0 = arith.addf %acc, %v : f32
      tile.reduce.return %0 : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Type>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs `axis` `=` $axis attr-dict `:` type($srcs) `->` type($result) $combineOp
  }];
  let hasRegionVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [
    RecursiveMemoryEffects, RecursivelySpeculatable, SingleBlock,
    RangedTypesMatchWith<"results have the types of the sources", "srcs",
                         "result", "$_self">]> {
  let summary = "Inclusive prefix scan along one axis with a combine region";
  let description = [{
    Like `tile.reduce`, but every result has its source's shape and holds
    the running combination up to and including each element, from the end
    of the axis when `reverse` is set. The combine function is assumed
    associative.

    ```mlir
    %c = tile.scan %x axis = 0 : tensor<128xi32> {
    ^bb0(%acc: i32, %v: i32):
      %0 = arith.addi %acc, %v : i32
      tile.scan.return %0 : i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis, UnitAttr:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs `axis` `=` $axis (`reverse` $reverse^)? attr-dict `:` type($srcs) $combineOp
  }];
  let hasRegionVerifier = 1;
}

/// Terminator of a combine region.
class Tile_CombineReturnOp<string mnemonic, string parent>
    : Tile_Op<mnemonic, [Pure, Terminator, ReturnLike, HasParent<parent>]> {
  let summary = "Yield the combined values from a " # parent # " region";
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

def Tile_ReduceReturnOp : Tile_CombineReturnOp<"reduce.return", "ReduceOp">;
def Tile_ScanReturnOp : Tile_CombineReturnOp<"scan.return", "ScanOp">;

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    Elementwise,
    MemoryEffects<[MemRead<Tile_GlobalMemory>, MemWrite<Tile_GlobalMemory>]>,
    TypesMatchWith<"val is the pointee of ptr", "ptr", "val",
                   "::tilelang::tile::getPointeeType($_self)">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::tilelang::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask is i1 of the shape of ptr", "ptr", "mask",
                           "::tilelang::tile::getI1SameShape($_self)">]> {
  let summary = "Atomic read-modify-write; returns the old values";
  let description = [{
    ```mlir
    %old = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins
    Tile_RMWKindAttr:$kind,
    Tile_MemSemanticAttr:$sem,
    Tile_MemScopeAttr:$scope,
    Tile_PtrLike:$ptr,
    Tile_Type:$val,
    Optional<Tile_BoolLike>:$mask);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $kind `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    Elementwise,
    MemoryEffects<[MemRead<Tile_GlobalMemory>, MemWrite<Tile_GlobalMemory>]>,
    TypesMatchWith<"cmp is the pointee of ptr", "ptr", "cmp",
                   "::tilelang::tile::getPointeeType($_self)">,
    TypesMatchWith<"val is the pointee of ptr", "ptr", "val",
                   "::tilelang::tile::getPointeeType($_self)">,
    TypesMatchWith<"result is the pointee of ptr", "ptr", "result",
                   "::tilelang::tile::getPointeeType($_self)">]> {
  let summary = "Atomic compare-and-swap; returns the old values";
  let description = [{
    Where the value in memory equals `cmp`, `val` replaces it.

    ```mlir
    %old = tile.atomic_cas acq_rel, gpu, %lock, %zero, %one : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins
    Tile_MemSemanticAttr:$sem,
    Tile_MemScopeAttr:$scope,
    Tile_PtrLike:$ptr,
    Tile_Type:$cmp,
    Tile_Type:$val);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Inline assembly
//===----------------------------------------------------------------------===//

def Tile_ElementwiseInlineAsmOp : Tile_Op<"elementwise_inline_asm", [
    Elementwise,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Inline PTX applied to the elements of tensors (tl.inline_asm_elementwise)";
  let description = [{
    The operands and results are tensors of one shape (or all scalars). Each
    thread runs `asm_string` once per group of `pack` elements it holds, with
    the same elements of every operand and result: an operand or result of
    `b`-bit elements takes `pack / min(pack, 32 / b)` registers per run
    (elements narrower than 32 bits share 32-bit registers, as vectors), the
    results' registers first, in the order `constraints` lists them. Without
    `pure` the assembly counts as reading and writing global memory, and is
    neither removed nor reordered across memory operations.

    ```mlir
    %y = tile.elementwise_inline_asm "shl.b32 $0, $1, 3;" {constraints = "=r,r", pack = 1 : i32, pure}
           %x : tensor<128xi32> -> tensor<128xi32>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, I32Attr:$pack, UnitAttr:$pure,
                       Variadic<Tile_Type>:$args);
  let results = (outs Variadic<Tile_Type>:$results);
  let assemblyFormat = "$asm_string attr-dict ($args^ `:` type($args))? `->` type($results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

def Tile_BitcastOp : Tile_Op<"bitcast", [Pure, Elementwise]> {
  let summary = "Reinterpret the bits of each element as another type";
  let description = [{
    Element types have the same width (pointers count as 64 bits); shapes
    are equal.

    ```mlir
    %i = tile.bitcast %f : tensor<128xf32> -> tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_Type:$src);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure, Elementwise]> {
  let summary = "Turn 64-bit addresses into pointers";
  let arguments = (ins Tile_IntLike:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure, Elementwise]> {
  let summary = "Turn pointers into 64-bit addresses";
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_IntLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Promises (compiler hints)
//===----------------------------------------------------------------------===//

def Tile_AssumeOp : Tile_Op<"assume", [MemoryEffects<[MemWrite<Tile_Promises>]>]> {
  let summary = "Promise that a scalar condition holds (tl.assume)";
  let description = [{
    The program promises that `condition` is true wherever this op runs; a
    false condition is undefined behaviour. Axis info reads the promises
    about values defined in the assume's own block (or, for block
    arguments, of the block they belong to): `x >= c` with c >= 0 and
    `x > c` with c >= -1 (x is non-negative, so that remainders and
    divisions keep x's runs), `x % c == 0` with c > 0 (x is a multiple of
    c's largest power-of-two factor), and conjunctions of these. Lowered to
    `llvm.intr.assume`.

    ```mlir
    %ok = arith.cmpi sge, %pid_m, %c0 : i32
    tile.assume %ok
    ```
  }];
  let arguments = (ins I1:$condition);
  let assemblyFormat = "$condition attr-dict";
}

def Tile_HintOp : Tile_Op<"hint", [MemoryEffects<[MemWrite<Tile_Promises>]>]> {
  let summary = "Promise facts about a value's runs (tl.multiple_of, ...)";
  let description = [{
    Triton's `tl.multiple_of`, `tl.max_contiguous` and `tl.max_constancy`:
    per dimension (one entry for a scalar), the first value of each run of
    `src` is a multiple of `multiple_of` (bytes for pointers), runs of
    consecutive values are `max_contiguous` long, runs of equal values
    `max_constancy` long. The promise replaces what axis info would derive,
    for every use of `src`, as Triton's hints do.

    Canonicalization moves the promise onto the op defining `src` (as the
    discardable attributes `tile.multiple_of`, `tile.max_contiguous`,
    `tile.max_constancy`), so that copies of that op keep it; a promise
    about a block argument stays a `tile.hint`, which the LLVM lowering
    erases.

    ```mlir
    tile.hint %offs {multiple_of = array<i64: 128>, max_contiguous = array<i64: 128>} : tensor<128xi32>
    ```
  }];
  let arguments = (ins
    AnyTypeOf<[Tile_IntLike, Tile_PtrLike]>:$src,
    OptionalAttr<DenseI64ArrayAttr>:$multiple_of,
    OptionalAttr<DenseI64ArrayAttr>:$max_contiguous,
    OptionalAttr<DenseI64ArrayAttr>:$max_constancy);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
  let extraClassDeclaration = [{
    /// The discardable attributes that carry a hint on the op defining the
    /// hinted value, in the order multiple_of, max_contiguous,
    /// max_constancy.
    static constexpr ::llvm::StringLiteral kMultipleOfAttrName = "tile.multiple_of";
    static constexpr ::llvm::StringLiteral kMaxContiguousAttrName = "tile.max_contiguous";
    static constexpr ::llvm::StringLiteral kMaxConstancyAttrName = "tile.max_constancy";
  }];
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_AssertOp : Tile_Op<"assert", [MemoryEffects<[MemWrite<Tile_DebugStream>]>]> {
  let summary = "Stop the kernel with a message where a condition is false";
  let description = [{
    ```mlir
    tile.assert %ok, "index out of range" : tensor<128xi1>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite<Tile_DebugStream>]>]> {
  let summary = "Print values from the device, each line led by `prefix`";
  let description = [{
    Integers print as signed unless `isSigned` says otherwise per argument
    (1 signed, 0 unsigned); `hex` prints every value's bits in hexadecimal.

    ```mlir
    tile.print "x: " %x : tensor<16xf32>
    ```
  }];
  let arguments = (ins
    StrAttr:$prefix,
    UnitAttr:$hex,
    Variadic<Tile_Type>:$args,
    OptionalAttr<DenseI32ArrayAttr>:$isSigned);
  let assemblyFormat = [{
    $prefix (`hex` $hex^)? attr-dict ($args^ `:` type($args))?
  }];
  let hasVerifier = 1;
}

#endif // TILELANG_DIALECT_TILE_IR_TILEOPS_TD
