// #tilegpu.tma, the encoding of a tensor map for bulk copies, and the
// `tilegpu.tma` argument attribute that carries it: the custom form
// round-trips, and the verifiers reject what the copy engine or the
// launcher cannot encode and encodings that disagree with the descriptors
// and copies using the map.
// RUN: tilelang-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @encoded
// CHECK-SAME: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 64], swizzle = 128, element = bf16>}
func.func @encoded(%map: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 64], swizzle = 128, element = bf16>},
                   %base: !tile.ptr<bf16>, %m: i32, %n: i32, %stride: i64) {
  %one = arith.constant 1 : i64
  %d = tile.make_tensor_descriptor %base, [%m, %n], [%stride, %one] map %map : !tile.ptr<bf16> -> !tile.tensordesc<tensor<64x128xbf16>>
  return
}

// -----

// expected-error @+1 {{box must have 1 to 5 dimensions, got 6}}
func.func private @rank6(!tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [8, 8, 8, 8, 8, 64], swizzle = 128, element = f16>})

// -----

// expected-error @+1 {{box dimensions must be from 1 to 256 elements, got 512}}
func.func private @rows(!tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [512, 64], swizzle = 128, element = f16>})

// -----

// expected-error @+1 {{elements must be f16 or bf16, got 'f32'}}
func.func private @f32(!tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 32], swizzle = 128, element = f32>})

// -----

// expected-error @+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 96}}
func.func private @swizzle(!tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 32], swizzle = 96, element = f16>})

// -----

// expected-error @+1 {{the box's innermost dimension must span a multiple of 16 bytes, got 8}}
func.func private @narrow(!tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 4], swizzle = 0, element = f16>})

// -----

// expected-error @+1 {{the box's innermost dimension (256 bytes) must fit in the swizzle span (128 bytes)}}
func.func private @wide(!tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 128], swizzle = 128, element = f16>})

// -----

// expected-error @+1 {{'tilegpu.tma' belongs on a !tile.tensormap argument, got 'i32'}}
func.func private @not_a_map(i32 {tilegpu.tma = #tilegpu.tma<box = [64, 64], swizzle = 128, element = f16>})

// -----

// expected-error @+1 {{'tilegpu.tma' must be a #tilegpu.tma encoding, got 128 : i32}}
func.func private @loose(!tile.tensormap {tilegpu.tma = 128 : i32})

// -----

// expected-error @+1 {{unknown tilegpu argument attribute 'tilegpu.tma_box'}}
func.func private @old_form(!tile.tensormap {tilegpu.tma_box = array<i32: 64, 64>})

// -----

func.func @rank_mismatch(%map: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64], swizzle = 128, element = f16>},
                         %base: !tile.ptr<f16>, %m: i32, %n: i32, %stride: i64) {
  %one = arith.constant 1 : i64
  // expected-error @+1 {{reads a tensor map whose box has 1 dimensions, but the descriptor's tensor has 2}}
  %d = tile.make_tensor_descriptor %base, [%m, %n], [%stride, %one] map %map : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  return
}

// -----

func.func @element_mismatch(%map: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [64, 64], swizzle = 128, element = bf16>},
                            %base: !tile.ptr<f16>, %m: i32, %n: i32, %stride: i64) {
  %one = arith.constant 1 : i64
  // expected-error @+1 {{reads a tensor map encoded for 'bf16' elements, but its blocks hold 'f16'}}
  %d = tile.make_tensor_descriptor %base, [%m, %n], [%stride, %one] map %map : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x64xf16>>
  return
}

// -----

// A copy of a 64x64 tile in 128-byte swizzled blocks needs a 64x64 box.
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#bar = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  func.func @copy_mismatch(%map: !tile.tensormap {tilegpu.tma = #tilegpu.tma<box = [32, 64], swizzle = 128, element = f16>},
                           %i: i32, %p: i1) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #bar, mutable>
    // expected-error @+1 {{tensor map encoded as #tilegpu.tma<box = [32, 64], swizzle = 128, element = f16> cannot copy the destination '!tilegpu.memdesc<64x64xf16, #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>, mutable>'}}
    tilegpu.async_tma_copy_global_to_local %map[%i, %i] %buf, %bar, %p : !tilegpu.memdesc<64x64xf16, #shared, mutable>, !tilegpu.memdesc<1xi64, #bar, mutable>
    return
  }
}

// -----

func.func @offset(%x: i32) {
  // expected-error @+1 {{'tilegpu.offset' must be a non-negative integer on an op that uses shared memory, got -16 : i64}}
  %buf = tilegpu.local_alloc {tilegpu.offset = -16 : i64} : () -> !tilegpu.memdesc<64xf32, #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>, mutable>
  return
}
