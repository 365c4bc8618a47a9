//===- TileTypes.td - tile dialect types and constraints ---*- tablegen -*-===//
//
// Part of tilelang. The pointer and tensor descriptor types and the type
// constraints that the tile ops share (element types, pointer-like and
// integer-like values).
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILETYPES_TD
#define TILELANG_DIALECT_TILE_IR_TILETYPES_TD

include "tilelang/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"

//===----------------------------------------------------------------------===//
// Pointer type
//===----------------------------------------------------------------------===//

def Tile_PointerType : TypeDef<Tile_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "Pointer to an element in an address space";
  let description = [{
    A pointer to a scalar of `pointeeType` in `addressSpace` (1, global memory,
    unless written otherwise; 3 is shared memory). Pointers to pointers are
    allowed (`!tile.ptr<!tile.ptr<f32>>`), as in Triton.

    ```mlir
    !tile.ptr<f16>        // global memory
    !tile.ptr<f32, 3>     // shared memory
    ```
  }];
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"int", "1">:$addressSpace);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

def Tile_TensorMapType : TypeDef<Tile_Dialect, "TensorMap"> {
  let mnemonic = "tensormap";
  let summary = "A TMA tensor map encoded on the host";
  let description = [{
    The 128-byte CUtensorMap that the launcher encodes for a tensor
    descriptor argument (cuTensorMapEncodeTiled: base, extents, strides, box
    and 128-byte swizzle). Kernels receive it as a `__grid_constant__`
    parameter, aligned to 64 bytes, so that the bulk tensor copy engine can
    read it in place. Only function arguments have this type.
  }];
  let extraClassDeclaration = [{
    /// A CUtensorMap's size and alignment in bytes.
    static constexpr unsigned kBytes = 128;
    static constexpr unsigned kAlignment = 64;
  }];
}

def Tile_TensorDescType : TypeDef<Tile_Dialect, "TensorDesc"> {
  let mnemonic = "tensordesc";
  let summary = "A strided tensor in global memory, read and written by block";
  let description = [{
    A descriptor of a tensor in global memory (base pointer, extents and
    strides, the last stride 1) through which whole blocks of `blockType` are
    loaded and stored at element offsets; elements outside the extents read
    as zero and are not written. Triton's `tl.tensor_descriptor`.

    ```mlir
    !tile.tensordesc<tensor<128x64xbf16>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
  let genVerifyDecl = 1;
}

def Tile_TensorDesc : Type<CPred<"::llvm::isa<::tilelang::tile::TensorDescType>($_self)">,
                           "tensor descriptor", "::tilelang::tile::TensorDescType">;
def Tile_TensorMap
    : Type<CPred<"::llvm::isa<::tilelang::tile::TensorMapType>($_self)">,
           "TMA tensor map", "::tilelang::tile::TensorMapType">,
      BuildableType<"::tilelang::tile::TensorMapType::get($_builder.getContext())">;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F16, BF16, F32, F64], "floating-point">;
def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64], "signless integer">;
def Tile_Ptr : Type<CPred<"::llvm::isa<::tilelang::tile::PointerType>($_self)">,
                    "tile pointer", "::tilelang::tile::PointerType">;
def Tile_Elem : AnyTypeOf<[Tile_Float, Tile_Int, Tile_Ptr], "tile element">;

// Block shapes are compile-time powers of two (as in Triton): layouts tile
// them exactly or wrap around them, never leave a ragged edge.
def Tile_BlockShapePred : CPred<"::tilelang::tile::isBlockShape($_self)">;
def Tile_Tensor : RankedTensorOf<[Tile_Elem], [Tile_BlockShapePred],
                                 "tensor with power-of-two dimensions">;
def Tile_IntTensor : RankedTensorOf<[Tile_Int], [Tile_BlockShapePred],
                                    "tensor with power-of-two dimensions">;
def Tile_PtrTensor : RankedTensorOf<[Tile_Ptr], [Tile_BlockShapePred],
                                    "tensor with power-of-two dimensions">;
def Tile_BoolTensor : RankedTensorOf<[I1], [Tile_BlockShapePred],
                                     "tensor with power-of-two dimensions">;

/// A scalar or a tensor of any tile element type.
def Tile_Type : AnyTypeOf<[Tile_Elem, Tile_Tensor], "tile value">;
/// A pointer or a tensor of pointers.
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTensor], "pointer or tensor of pointers">;
/// A signless integer or a tensor of them.
def Tile_IntLike : AnyTypeOf<[Tile_Int, Tile_IntTensor], "integer or tensor of integers">;
/// An i1 or a tensor of i1.
def Tile_BoolLike : AnyTypeOf<[I1, Tile_BoolTensor], "i1 or tensor of i1">;

#endif // TILELANG_DIALECT_TILE_IR_TILETYPES_TD
