//===- TileEnums.td - tile dialect enum attributes ---------*- tablegen -*-===//
//
// Part of tilelang. Enumerations used as op attributes: program axes, cache
// and eviction hints, atomic kinds, memory semantics and scopes, dot
// precision. They print as bare keywords in the ops' assembly formats.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_DIALECT_TILE_IR_TILEENUMS_TD
#define TILELANG_DIALECT_TILE_IR_TILEENUMS_TD

include "mlir/IR/EnumAttr.td"

def Tile_ProgramAxisAttr : I32EnumAttr<"ProgramAxis", "axis of the launch grid", [
    I32EnumAttrCase<"X", 0, "x">,
    I32EnumAttrCase<"Y", 1, "y">,
    I32EnumAttrCase<"Z", 2, "z">]> {
  let cppNamespace = "::tilelang::tile";
}

def Tile_CacheModifierAttr : I32EnumAttr<"CacheModifier", "cache operator of a memory access", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"CA", 1, "ca">,
    I32EnumAttrCase<"CG", 2, "cg">,
    I32EnumAttrCase<"CS", 3, "cs">,
    I32EnumAttrCase<"CV", 4, "cv">,
    I32EnumAttrCase<"WB", 5, "wb">,
    I32EnumAttrCase<"WT", 6, "wt">]> {
  let cppNamespace = "::tilelang::tile";
}

def Tile_EvictionPolicyAttr : I32EnumAttr<"EvictionPolicy", "L1 eviction priority of a memory access", [
    I32EnumAttrCase<"Normal", 0, "evict_normal">,
    I32EnumAttrCase<"EvictFirst", 1, "evict_first">,
    I32EnumAttrCase<"EvictLast", 2, "evict_last">]> {
  let cppNamespace = "::tilelang::tile";
}

def Tile_RMWKindAttr : I32EnumAttr<"RMWKind", "read-modify-write operation of an atomic", [
    I32EnumAttrCase<"And", 0, "and">,
    I32EnumAttrCase<"Or", 1, "or">,
    I32EnumAttrCase<"Xor", 2, "xor">,
    I32EnumAttrCase<"Add", 3, "add">,
    I32EnumAttrCase<"FAdd", 4, "fadd">,
    I32EnumAttrCase<"Max", 5, "max">,
    I32EnumAttrCase<"Min", 6, "min">,
    I32EnumAttrCase<"UMax", 7, "umax">,
    I32EnumAttrCase<"UMin", 8, "umin">,
    I32EnumAttrCase<"Xchg", 9, "xchg">]> {
  let cppNamespace = "::tilelang::tile";
}

def Tile_MemSemanticAttr : I32EnumAttr<"MemSemantic", "memory ordering of an atomic", [
    I32EnumAttrCase<"Relaxed", 0, "relaxed">,
    I32EnumAttrCase<"Acquire", 1, "acquire">,
    I32EnumAttrCase<"Release", 2, "release">,
    I32EnumAttrCase<"AcqRel", 3, "acq_rel">]> {
  let cppNamespace = "::tilelang::tile";
}

def Tile_MemScopeAttr : I32EnumAttr<"MemScope", "set of threads an atomic is ordered with", [
    I32EnumAttrCase<"GPU", 0, "gpu">,
    I32EnumAttrCase<"CTA", 1, "cta">,
    I32EnumAttrCase<"System", 2, "sys">]> {
  let cppNamespace = "::tilelang::tile";
}

def Tile_InputPrecisionAttr : I32EnumAttr<"InputPrecision", "precision of float32 dot operands", [
    I32EnumAttrCase<"TF32", 0, "tf32">,
    I32EnumAttrCase<"TF32x3", 1, "tf32x3">,
    I32EnumAttrCase<"IEEE", 2, "ieee">]> {
  let cppNamespace = "::tilelang::tile";
}

#endif // TILELANG_DIALECT_TILE_IR_TILEENUMS_TD
