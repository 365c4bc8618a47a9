//===- TileDialect.td - the tile dialect definition --------*- tablegen -*-===//
//
// Part of tilelang. The `tile` dialect: block programs with Triton-level
// semantics, the form the Python frontend emits.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILELANG_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tilelang::tile";
  let summary = "Block-level GPU programs on ranked tensors";
  let description = [{
    A `tile` program describes what one program instance (one CTA) computes on
    whole blocks of data: ranked tensors whose shapes are compile-time
    constants. Tensors carry no layout yet; how their elements are spread over
    threads is decided when the program is lowered to `tilegpu`. Memory is
    reached through typed pointers (`!tile.ptr<T>`) and tensors of pointers,
    so that masked, gathered and strided accesses all have one form.

    Elementwise arithmetic, math functions and control flow come from the
    upstream `arith`, `math` and `scf` dialects, applied to scalars or tensors;
    functions are `func.func`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::func::FuncDialect"
  ];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Argument attribute: the value (an integer, or a pointer's address in
    /// bytes) is divisible by this power of two. The launcher specializes
    /// kernels on it; axis analysis uses it to prove aligned, vector accesses.
    static constexpr ::llvm::StringLiteral kDivisibilityAttrName = "tile.divisibility";
  }];
}

/// Global memory, the resource that loads, stores and atomics touch.
def Tile_GlobalMemory : Resource<"::tilelang::tile::GlobalMemory">;
/// The device's debug output stream, written by print and assert.
def Tile_DebugStream : Resource<"::tilelang::tile::DebugStream">;
/// What the program promises about its values (tl.assume, tl.multiple_of,
/// ...): "written" by the promise ops so that they are never erased as dead.
def Tile_Promises : Resource<"::tilelang::tile::Promises">;

/// Base class of every tile op.
class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILELANG_DIALECT_TILE_IR_TILEDIALECT_TD
