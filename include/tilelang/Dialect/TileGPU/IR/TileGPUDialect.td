//===- TileGPUDialect.td - the tilegpu dialect -------------*- tablegen -*-===//
//
// Part of tilelang. The `tilegpu` dialect: tile programs whose tensors carry
// a layout saying which thread holds which element, plus the shared-memory,
// asynchronous-copy and synchronization ops a GPU program needs.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
#define TILELANG_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD

include "mlir/IR/OpBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::tilelang::tilegpu";
  let summary = "Tile programs mapped onto the threads of a CTA";
  let description = [{
    After tile → tilegpu conversion every tensor type carries a layout
    encoding (`tensor<128x64xf16, #tilegpu.blocked<...>>`): a function from
    (warp, lane, register) to tensor element. Ops are still the tile, arith
    and math ops; what changes is that each is lowered per thread from its
    operands' layouts. This dialect adds the encodings, the ops that move
    data between layouts and through shared memory, and module attributes
    such as `tilegpu.num_warps`.
  }];
  let dependentDialects = ["::tilelang::tile::TileDialect"];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Module attribute: warps per CTA of every kernel in the module.
    static constexpr ::llvm::StringLiteral kNumWarpsAttrName = "tilegpu.num_warps";
    /// Module attribute: the target, e.g. "sm_90a".
    static constexpr ::llvm::StringLiteral kTargetAttrName = "tilegpu.target";
    /// Module attribute: bytes of (scratch) shared memory the kernel needs
    /// at launch, set by convert-tilegpu-to-llvm.
    static constexpr ::llvm::StringLiteral kSharedBytesAttrName = "tilegpu.shared";
    /// Op attribute: the byte offset of the op's buffer or scratch space in
    /// dynamic shared memory, set by convert-tilegpu-to-llvm's allocation.
    static constexpr ::llvm::StringLiteral kSharedOffsetAttrName = "tilegpu.offset";
    /// Unit attribute of a barrier the user wrote (`tl.debug_barrier()`):
    /// on `tilegpu.barrier`, and on the `nvvm.barrier0` it lowers to, where
    /// tilelang-remove-redundant-barriers keeps it whatever it orders.
    static constexpr ::llvm::StringLiteral kUserBarrierAttrName = "tilegpu.user_barrier";
    /// Argument attribute of a `!tile.tensormap`: its #tilegpu.tma encoding.
    static constexpr ::llvm::StringLiteral kTensorMapEncodingAttrName = "tilegpu.tma";
    /// Threads per warp on every NVIDIA GPU.
    static constexpr unsigned kThreadsPerWarp = 32;

  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

/// Base class of every tilegpu op.
class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

#endif // TILELANG_DIALECT_TILEGPU_IR_TILEGPUDIALECT_TD
