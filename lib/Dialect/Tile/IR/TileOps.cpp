//===- TileOps.cpp - tile op definitions ----------------------------------===//
//
// Part of tilelang. Instantiates the ODS-generated op classes. Verifiers,
// folders and canonicalizations live beside this file, one file per op
// family.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Dialect/Tile/IR/TileOps.h"

using namespace mlir;
using namespace tilelang::tile;

#define GET_OP_CLASSES
#include "tilelang/Dialect/Tile/IR/TileOps.cpp.inc"
