// What convert-tilegpu-to-llvm cannot lower is reported at the op, with the
// reason.
// RUN: tilelang-opt %s --convert-tilegpu-to-llvm -split-input-file -verify-diagnostics

// A dot reaches the lowering with tensor-core layouts only.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @dot(%x: f16, %y: f32, %p: tensor<16x16x!tile.ptr<f32>, #blocked>) {
    %a = tile.splat %x : f16 -> tensor<16x16xf16, #blocked>
    %c = tile.splat %y : f32 -> tensor<16x16xf32, #blocked>
    // expected-error @+2 {{tile.dot reached the LLVM lowering without tensor-core layouts (tilegpu-accelerate-matmul assigns them)}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot' that was explicitly marked illegal}}
    %d = tile.dot %a, %a, %c : tensor<16x16xf16, #blocked> * tensor<16x16xf16, #blocked> -> tensor<16x16xf32, #blocked>
    tile.store %p, %d : tensor<16x16x!tile.ptr<f32>, #blocked>
    return
  }
}

// -----

// Buffers initialized from a tensor are 2-D swizzled tiles (wgmma
// operands); others have no lowering.
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @local_alloc(%x: tensor<128xf32, #blocked>) {
    // expected-error @+2 {{only buffers placed by the shared memory allocation, and initialized ones with 2-D #tilegpu.shared layouts, can be lowered}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.local_alloc' that was explicitly marked illegal}}
    %m = tilegpu.local_alloc %x : (tensor<128xf32, #blocked>) -> !tilegpu.memdesc<128xf32, #shared>
    return
  }
}

// -----

// Kernels (public functions) return nothing.
module attributes {tilegpu.num_warps = 4 : i32} {
  // expected-error @+2 {{a kernel cannot return values; store results through pointer arguments}}
  // expected-error @+1 {{failed to legalize operation 'func.func' that was explicitly marked illegal}}
  func.func @returns(%x: f32) -> f32 {
    return %x : f32
  }
}

// -----

// The warp count comes from convert-tile-to-tilegpu.
// expected-error @+1 {{convert-tilegpu-to-llvm needs the module attribute 'tilegpu.num_warps' (run convert-tile-to-tilegpu first)}}
module {
  func.func @no_warps() {
    return
  }
}

// -----

// bf16 atomic adds exist from sm_90 on.
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_80"} {
  func.func @bf16_fadd(%p: !tile.ptr<bf16>, %v: bf16) {
    // expected-error @+2 {{atomic fadd on bf16 needs sm_90 or newer}}
    // expected-error @+1 {{failed to legalize operation 'tile.atomic_rmw'}}
    %old = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v : !tile.ptr<bf16>
    return
  }
}

// -----

// Tensors of more than 2^20 elements (Triton's cap) are refused before any
// is distributed to threads.
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @too_large(%x: f32) {
    // expected-error @+1 {{has more than 1048576 (2^20) elements, the most a tensor may hold}}
    %s = tile.splat %x : f32 -> tensor<2097152xf32, #blocked>
    return
  }
}
