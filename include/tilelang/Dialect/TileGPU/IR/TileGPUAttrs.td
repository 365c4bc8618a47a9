//===- TileGPUAttrs.td - layout encodings ------------------*- tablegen -*-===//
//
// Part of tilelang. The layout encodings of tilegpu tensors: how a block's
// elements are distributed over registers, lanes and warps (blocked, slice,
// mma, dot operand), how a buffer is laid out in shared memory (shared,
// nvmma_shared), and how the launcher encodes a bulk copy's tensor map (tma).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
#define TILELANG_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD

include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/TensorEncoding.td"

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

def TileGPU_DistributedEncoding : AttrInterface<"DistributedEncodingAttr"> {
  let cppNamespace = "::tilelang::tilegpu";
  let description = [{
    A layout that spreads a tensor's elements over the registers of the
    threads of a CTA. Every distributed layout answers the same questions, so
    that generic code (reductions, conversions, loads) needs no case per
    layout.
  }];
  let methods = [
    InterfaceMethod<"Rank of the tensors this layout applies to.",
                    "unsigned", "getRank">,
    InterfaceMethod<"Warps per CTA along each dimension.",
                    "::llvm::SmallVector<unsigned>", "getWarpsPerCTAVector">,
    InterfaceMethod<"Lanes per warp along each dimension.",
                    "::llvm::SmallVector<unsigned>", "getThreadsPerWarpVector">,
    InterfaceMethod<"Contiguous elements per thread along each dimension.",
                    "::llvm::SmallVector<unsigned>", "getSizePerThreadVector">,
    InterfaceMethod<"Dimensions from fastest- to slowest-varying.",
                    "::llvm::SmallVector<unsigned>", "getOrderVector">
  ];
}

/// Base class of tilegpu attributes.
class TileGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TileGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

/// Base class of distributed layouts: they verify against the tensors they
/// encode.
class TileGPU_DistributedAttr<string name, string attrMnemonic>
    : TileGPU_Attr<name, attrMnemonic, [
        DeclareAttrInterfaceMethods<VerifiableTensorEncoding>,
        DeclareAttrInterfaceMethods<TileGPU_DistributedEncoding>]> {
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Distributed layouts
//===----------------------------------------------------------------------===//

def TileGPU_BlockedEncodingAttr : TileGPU_DistributedAttr<"BlockedEncoding", "blocked"> {
  let summary = "Regular tiling of a tensor over registers, lanes and warps";
  let description = [{
    Each thread holds `sizePerThread[d]` contiguous elements along dimension
    `d`; a warp's 32 lanes form a `threadsPerWarp` grid and the CTA's warps a
    `warpsPerCTA` grid; `order` lists dimensions fastest first. The pattern
    repeats to cover larger tensors and wraps (replicates) over smaller ones.

    ```mlir
    #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8],
                     warpsPerCTA = [4, 1], order = [1, 0]>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `order` `=` `[` $order `]` `>`
  }];
}

def TileGPU_SliceEncodingAttr : TileGPU_DistributedAttr<"SliceEncoding", "slice"> {
  let summary = "A parent layout with one dimension removed";
  let description = [{
    The layout of the result of reducing a tensor of layout `parent` along
    `dim` (and of the operand of expand_dims): element `i` lives where the
    parent's elements with index `i` (outside `dim`) live.

    ```mlir
    #tilegpu.slice<dim = 1, parent = #blocked>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
}

def TileGPU_MmaEncodingAttr : TileGPU_DistributedAttr<"MmaEncoding", "mma"> {
  let summary = "Accumulator layout of tensor-core instructions";
  let description = [{
    `version = 2`: mma.sync m16n8 tiles (instrShape [16, 8]), sm_80 and newer.
    `version = 3`: Hopper wgmma (instrShape [64, N, 16] with N a multiple of
    8 up to 256), issued by warpgroups of 4 warps.

    ```mlir
    #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
    ```
  }];
  let parameters = (ins
    "unsigned":$version,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$instrShape);
  let assemblyFormat = [{
    `<` `version` `=` $version `,` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `instrShape` `=` `[` $instrShape `]` `>`
  }];
}

def TileGPU_DotOperandEncodingAttr : TileGPU_DistributedAttr<"DotOperandEncoding", "dot_op"> {
  let summary = "Register layout of a dot operand feeding a parent layout";
  let description = [{
    Operand `opIdx` (0 for A, 1 for B) of a dot whose result has layout
    `parent`. For mma parents, `kWidth` is the number of consecutive K
    elements each thread holds (e.g. 2 for f16 mma.sync, 4 for 8-bit).

    ```mlir
    #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent,
                        DefaultValuedParameter<"unsigned", "0">:$kWidth);
  let assemblyFormat = [{
    `<` `opIdx` `=` $opIdx `,` `parent` `=` $parent (`,` `kWidth` `=` $kWidth^)? `>`
  }];
}

//===----------------------------------------------------------------------===//
// Shared-memory layouts
//===----------------------------------------------------------------------===//

def TileGPU_SharedEncodingAttr : TileGPU_Attr<"SharedEncoding", "shared"> {
  let summary = "Swizzled shared-memory layout";
  let description = [{
    Rows (along `order[0]`) are stored contiguously; vectors of `vec`
    elements are XOR-swizzled by `(row / perPhase) % maxPhase` to keep
    row and column accesses free of bank conflicts. `vec = 1, perPhase = 1,
    maxPhase = 1` is no swizzle. Rows longer than `vec * maxPhase` elements
    are stored as column blocks of that width, one after the other, each
    holding every row: with 16-byte vectors and 8 phases this is the
    128-byte-swizzled layout that wgmma's matrix descriptors describe.

    ```mlir
    #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,` `maxPhase` `=` $maxPhase `,`
        `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_NVMMASharedEncodingAttr : TileGPU_Attr<"NVMMASharedEncoding", "nvmma_shared"> {
  let summary = "Shared-memory layout that wgmma and TMA read directly";
  let description = [{
    The canonical layouts of the Hopper tensor cores and bulk copy engine:
    rows of `swizzle` bytes (0, 32, 64 or 128) with the matching hardware
    swizzle, for elements of `elementBitWidth` bits; `transposed` when the
    contiguous dimension is the outer one.

    ```mlir
    #tilegpu.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false>
    ```
  }];
  let parameters = (ins "unsigned":$swizzle, "unsigned":$elementBitWidth,
                        "bool":$transposed);
  let assemblyFormat = [{
    `<` `swizzle` `=` $swizzle `,` `elementBitWidth` `=` $elementBitWidth `,`
        `transposed` `=` $transposed `>`
  }];
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Bulk tensor copies
//===----------------------------------------------------------------------===//

def TileGPU_TensorMapEncodingAttr : TileGPU_Attr<"TensorMapEncoding", "tma"> {
  let summary = "How the launcher encodes a tensor map for bulk copies";
  let description = [{
    Recorded by the passes that make bulk tensor copies (tilegpu-pipeline,
    tilegpu-lower-descriptor-accesses) on the `!tile.tensormap` argument
    they copy through, as `tilegpu.tma`, and read by the compiler library,
    which hands it to the launcher (cuTensorMapEncodeTiled): the box each
    copy moves (outermost dimension first, as many dimensions as the
    descriptor's tensor), the swizzle span in bytes (0 for none, 32, 64 or
    128) and the element type (f16 or bf16). The kernel's copies fill one
    swizzled column block of a shared tile per copy, so the box is the
    tile's rows by one block's width.

    ```mlir
    func.func @k(%map: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 64], swizzle = 128, element = f16>})
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int32_t">:$box, "unsigned":$swizzle,
                        "::mlir::Type":$element);
  let assemblyFormat = [{
    `<` `box` `=` `[` $box `]` `,` `swizzle` `=` $swizzle `,`
        `element` `=` $element `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The encoding whose copies fill a 2-D tile of `shape` and 16-bit
    /// `element`s laid out as `layout` in shared memory, one column block
    /// per copy; null when the copy engine's swizzle modes do not produce
    /// that layout or the box would be too large.
    static TensorMapEncodingAttr getForTile(::llvm::ArrayRef<int64_t> shape,
                                            SharedEncodingAttr layout,
                                            ::mlir::Type element);
  }];
}

#endif // TILELANG_DIALECT_TILEGPU_IR_TILEGPUATTRS_TD
