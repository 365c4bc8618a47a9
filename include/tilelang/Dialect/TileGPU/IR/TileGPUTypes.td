//===- TileGPUTypes.td - tilegpu types ---------------------*- tablegen -*-===//
//
// Part of tilelang. Shared-memory buffer descriptors and async-copy tokens.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD
#define TILELANG_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD

include "tilelang/Dialect/TileGPU/IR/TileGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class TileGPU_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TileGPU_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def TileGPU_MemDescType : TileGPU_Type<"MemDesc", "memdesc"> {
  let summary = "A buffer in shared memory";
  let description = [{
    A shared-memory buffer of `shape` elements laid out by `encoding` (a
    shared layout). `mutable` buffers may be written after allocation; the
    leading dimension of a multi-buffered allocation indexes pipeline stages.

    ```mlir
    !tilegpu.memdesc<3x128x64xf16, #shared, mutable>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::Type":$elementType,
    "::mlir::Attribute":$encoding,
    "bool":$mutableMemory);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of elements in the buffer.
    int64_t getNumElements() const;
    /// Size of the buffer in bytes.
    int64_t getSizeInBytes() const;
    /// One stage of a multi-buffered allocation: the leading dimension
    /// dropped (what memdesc_index gives).
    MemDescType getStageType() const;
  }];
}

def TileGPU_AsyncTokenType : TileGPU_Type<"AsyncToken", "async.token"> {
  let summary = "Completion token of an asynchronous copy group";
}

#endif // TILELANG_DIALECT_TILEGPU_IR_TILEGPUTYPES_TD
