// Malformed layouts, types, module attributes and tilegpu ops are rejected.
// RUN: tilelang-opt %s -split-input-file -verify-diagnostics

// threadsPerWarp must cover exactly one warp.
// expected-error @+1 {{threadsPerWarp must multiply to 32, got 16}}
#bad = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 4], warpsPerCTA = [1, 1], order = [1, 0]>
func.func private @f(tensor<16x16xf32, #bad>)

// -----

// A thread cannot hold more elements than a tensor may (lowering such a layout
// ran out of time and memory; found by the IR fuzzer).
// expected-error @+1 {{sizePerThread multiplies to more than 1048576 (2^20) elements, the most a tensor may hold}}
#bad = #tilegpu.blocked<sizePerThread = [2048, 1024], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
func.func private @f(tensor<16x16xf32, #bad>)

// -----

// Nor more copies of a tensor's elements than the tensor has (a 16x16 tensor
// whose threads held 65536 took tilelang-opt minutes; found by the IR fuzzer).
#copies = #tilegpu.blocked<sizePerThread = [1, 4096], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
// expected-error @+1 {{a thread of this blocked layout holds 8192 elements of a tensor of 256: more than the tensor has}}
func.func private @f(tensor<16x16xf32, #copies>)

// -----

// A few copies are fine: a size-1 dimension under a layout made for a wider one.
#few = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]>
func.func private @ok(tensor<1x1xf32, #few>)

// -----

// No more warps than a block may have (warpsPerCTA = [2^31] crashed a verifier).
// expected-error @+1 {{warpsPerCTA multiplies to more than 32 warps, the most a block may have}}
#bad = #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [2147483648], order = [0]>
func.func private @f(tensor<1024xf32, #bad>)

// -----

// A swizzle period past the tensor cap (vec 2^30 crashed the lowering).
// expected-error @+1 {{vec * perPhase * maxPhase must be at most 1048576 (2^20), got 1073741824 * 1 * 8}}
#huge = #tilegpu.shared<vec = 1073741824, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func private @f(!tilegpu.memdesc<64x64xf16, #huge>)

// -----

// Every per-dimension list has one entry per dimension.
// expected-error @+1 {{sizePerThread, threadsPerWarp and warpsPerCTA must have one entry per dimension, got 2, 1 and 2}}
#bad = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [1, 1], order = [1, 0]>
func.func private @f(tensor<16x16xf32, #bad>)

// -----

// Sizes are powers of two.
// expected-error @+1 {{sizePerThread entries must be positive powers of two, got 3}}
#bad = #tilegpu.blocked<sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func private @f(tensor<128xf32, #bad>)

// -----

// order is a permutation of the dimensions.
// expected-error @+1 {{order is not a permutation: 1 appears twice}}
#bad = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 1]>
func.func private @f(tensor<16x16xf32, #bad>)

// -----

// order entries name dimensions.
// expected-error @+1 {{order entry 2 is out of range [0, 2)}}
#bad = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [2, 0]>
func.func private @f(tensor<16x16xf32, #bad>)

// -----

// A blocked layout has at least one dimension (empty lists do not parse).
// expected-error @+2 {{expected integer value}}
// expected-error @+1 {{failed to parse TileGPU_BlockedEncodingAttr parameter 'sizePerThread'}}
#bad = #tilegpu.blocked<sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []>
func.func private @f(tensor<16xf32, #bad>)

// -----

// The layout's rank matches the tensor's.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
// expected-error @+1 {{#tilegpu.blocked layout of rank 2 cannot encode a tensor of rank 1}}
func.func private @f(tensor<16xf32, #blocked>)

// -----

// A slice's parent is a distributed layout.
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>
// expected-error @+1 {{slice parent must be a distributed layout}}
#bad = #tilegpu.slice<dim = 0, parent = #shared>
func.func private @f(tensor<16xf32, #bad>)

// -----

// Slicing a 1-D layout would leave nothing.
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
// expected-error @+1 {{slice parent must have rank 2 or more, got 1}}
#bad = #tilegpu.slice<dim = 0, parent = #blocked>
func.func private @f(tensor<16xf32, #bad>)

// -----

// The sliced dimension exists in the parent.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
// expected-error @+1 {{slice dim 2 is out of range [0, 2)}}
#bad = #tilegpu.slice<dim = 2, parent = #blocked>
func.func private @f(tensor<16xf32, #bad>)

// -----

// A slice encodes tensors of its parent's rank minus one.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#slice = #tilegpu.slice<dim = 0, parent = #blocked>
// expected-error @+1 {{#tilegpu.slice layout of rank 1 cannot encode a tensor of rank 2}}
func.func private @f(tensor<16x16xf32, #slice>)

// -----

// Only mma.sync (2) and wgmma (3) exist.
// expected-error @+1 {{mma version must be 2 (mma.sync) or 3 (wgmma), got 1}}
#bad = #tilegpu.mma<version = 1, warpsPerCTA = [2, 2], instrShape = [16, 8]>
func.func private @f(tensor<32x32xf32, #bad>)

// -----

// mma.sync tiles are 16x8.
// expected-error @+1 {{mma version 2 needs instrShape = [16, 8]}}
#bad = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 16]>
func.func private @f(tensor<32x32xf32, #bad>)

// -----

// mma warps cover 2 (or 3, batched) dimensions.
// expected-error @+1 {{mma warpsPerCTA must have 2 entries (or 3 with a batch dimension), got 1}}
#bad = #tilegpu.mma<version = 2, warpsPerCTA = [4], instrShape = [16, 8]>
func.func private @f(tensor<32xf32, #bad>)

// -----

// wgmma instructions are 64 rows tall.
// expected-error @+1 {{mma version 3 needs instrShape = [64, N, K]}}
#bad = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 8]>
func.func private @f(tensor<64x64xf32, #bad>)

// -----

// wgmma N is a multiple of 8 up to 256.
// expected-error @+1 {{wgmma N must be a multiple of 8 in [8, 256], got 260}}
#bad = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 260, 16]>
func.func private @f(tensor<64x64xf32, #bad>)

// -----

// wgmma K depends on the element type: 8, 16 or 32.
// expected-error @+1 {{wgmma K must be 8, 16 or 32, got 64}}
#bad = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 64]>
func.func private @f(tensor<64x64xf32, #bad>)

// -----

// wgmma runs on whole warpgroups along M.
// expected-error @+1 {{wgmma is issued by warpgroups of 4 warps along M: warpsPerCTA[0] must be a multiple of 4, got 2}}
#bad = #tilegpu.mma<version = 3, warpsPerCTA = [2, 2], instrShape = [64, 64, 16]>
func.func private @f(tensor<64x64xf32, #bad>)

// -----

// Dot operands are A (0) or B (1).
#mma = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
// expected-error @+1 {{dot operand index must be 0 (A) or 1 (B), got 2}}
#bad = #tilegpu.dot_op<opIdx = 2, parent = #mma, kWidth = 2>
func.func private @f(tensor<32x32xf16, #bad>)

// -----

// mma operands say how many K elements each thread holds.
#mma = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
// expected-error @+1 {{dot operands of an mma layout need kWidth > 0}}
#bad = #tilegpu.dot_op<opIdx = 0, parent = #mma>
func.func private @f(tensor<32x32xf16, #bad>)

// -----

// wgmma's B operand lives in shared memory.
#wgmma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
// expected-error @+1 {{wgmma reads operand B from shared memory; it has no register layout}}
#bad = #tilegpu.dot_op<opIdx = 1, parent = #wgmma, kWidth = 2>
func.func private @f(tensor<64x64xf16, #bad>)

// -----

// FMA dots (blocked parent) have no kWidth.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
// expected-error @+1 {{kWidth applies to mma parents only}}
#bad = #tilegpu.dot_op<opIdx = 0, parent = #blocked, kWidth = 2>
func.func private @f(tensor<32x32xf32, #bad>)

// -----

// Dot operands feed mma or blocked layouts only.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#slice = #tilegpu.slice<dim = 0, parent = #blocked>
// expected-error @+1 {{dot operand parent must be an mma or blocked layout}}
#bad = #tilegpu.dot_op<opIdx = 0, parent = #slice>
func.func private @f(tensor<32xf32, #bad>)

// -----

// Swizzle parameters are powers of two.
// expected-error @+1 {{vec/perPhase/maxPhase entries must be positive powers of two, got 6}}
#bad = #tilegpu.shared<vec = 6, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func private @f(!tilegpu.memdesc<16x16xf16, #bad>)

// -----

// Hardware swizzles are 0, 32, 64 or 128 bytes.
// expected-error @+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 96}}
#bad = #tilegpu.nvmma_shared<swizzle = 96, elementBitWidth = 16, transposed = false>
func.func private @f(!tilegpu.memdesc<16x16xf16, #bad>)

// -----

// Elements are 8 to 64 bits wide.
// expected-error @+1 {{elementBitWidth must be 8, 16, 32 or 64, got 4}}
#bad = #tilegpu.nvmma_shared<swizzle = 128, elementBitWidth = 4, transposed = false>
func.func private @f(!tilegpu.memdesc<16x16xf16, #bad>)

// -----

// A memdesc's encoding is a shared layout.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
// expected-error @+1 {{memdesc encoding must be a shared layout}}
func.func private @f(!tilegpu.memdesc<16x16xf16, #blocked>)

// -----

// A shared layout covers the buffer, plus at most a leading stage dimension.
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
// expected-error @+1 {{shared layout of rank 1 cannot lay out a 3-D buffer (only a leading stage dimension may be added)}}
func.func private @f(!tilegpu.memdesc<2x16x16xf16, #shared>)

// -----

// Buffers hold integers or floats.
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
// expected-error @+1 {{memdesc elements must be integers or floats}}
func.func private @f(!tilegpu.memdesc<16x!tile.ptr<f16>, #shared>)

// -----

// num_warps is a power of two up to 32.
// expected-error @+1 {{'tilegpu.num_warps' must be a power of two in [1, 32], got 6 : i32}}
module attributes {tilegpu.num_warps = 6 : i32} {
}

// -----

// Every layout uses the module's warp count.
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
module attributes {tilegpu.num_warps = 4 : i32} {
  // expected-error @+1 {{'func.func' op block argument layout uses 8 warps but the module has tilegpu.num_warps = 4}}
  func.func @f(%x: tensor<256xf32, #blocked>) {
    return
  }
}

// -----

// The same check covers op results.
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @f() {
    // expected-error @+1 {{result layout uses 2 warps but the module has tilegpu.num_warps = 4}}
    %r = tile.make_range 0 to 64 : tensor<64xi32, #blocked>
    return
  }
}

// -----

// Targets are named like sm_80 or sm_90a.
// expected-error @+1 {{'tilegpu.target' must be a string such as "sm_90a", got "hopper"}}
module attributes {tilegpu.target = "hopper"} {
}

// -----

// Unknown tilegpu attributes are errors, not silently ignored.
// expected-error @+1 {{unknown tilegpu attribute 'tilegpu.warps'}}
module attributes {tilegpu.warps = 4 : i32} {
}

// -----

// The user's barrier mark belongs on a barrier.
func.func @user_barrier_elsewhere(%x: i32) {
  // expected-error @+1 {{'tilegpu.user_barrier' must be a unit attribute on tilegpu.barrier or nvvm.barrier0}}
  %y = arith.addi %x, %x {tilegpu.user_barrier} : i32
  return
}

// -----

// A shared access's bytes are [begin, end): two i64, 0 <= begin <= end.
func.func @shared_range_backwards(%x: i32) {
  // expected-error @+1 {{'tilegpu.shared_range' must be an array of two i64, begin <= end, both >= 0, got array<i64: 64, 0>}}
  %y = arith.addi %x, %x {tilegpu.shared_range = array<i64: 64, 0>} : i32
  return
}

// -----

func.func @shared_range_one_bound(%x: i32) {
  // expected-error @+1 {{'tilegpu.shared_range' must be an array of two i64}}
  %y = arith.addi %x, %x {tilegpu.shared_range = array<i64: 64>} : i32
  return
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @f(%x: tensor<128xf32, #a>) {
  // convert_layout changes nothing but the layout.
  // expected-error @+1 {{can only change the layout}}
  %y = tilegpu.convert_layout %x : tensor<128xf32, #a> -> tensor<256xf32, #b>
  return
}

// -----

#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @f() {
  // An uninitialized buffer is written later, so it is mutable.
  // expected-error @+1 {{an uninitialized buffer must be mutable}}
  %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64xf16, #shared>
  return
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @f(%x: tensor<128xf32, #a>) {
  // The initial value has the buffer's shape.
  // expected-error @+1 {{tensor shape (128) differs from the buffer's (64)}}
  %m = tilegpu.local_alloc %x : (tensor<128xf32, #a>) -> !tilegpu.memdesc<64xf32, #shared>
  return
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @f(%m: !tilegpu.memdesc<128xf16, #shared>) {
  // A load keeps the element type.
  // expected-error @+1 {{tensor element type 'f32' differs from the buffer's 'f16'}}
  %x = tilegpu.local_load %m : !tilegpu.memdesc<128xf16, #shared> -> tensor<128xf32, #a>
  return
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @f(%x: tensor<128xf16, #a>, %m: !tilegpu.memdesc<128xf16, #shared>) {
  // Immutable buffers are written once, at allocation.
  // expected-error @+1 {{cannot store to an immutable buffer}}
  tilegpu.local_store %x, %m : tensor<128xf16, #a> -> !tilegpu.memdesc<128xf16, #shared>
  return
}

// -----

#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @f(%m: !tilegpu.memdesc<128xf16, #shared, mutable>, %i: i32) {
  // Indexing drops a leading stage dimension, so there must be one.
  // expected-error @+1 {{source must have a leading stage dimension}}
  %s = tilegpu.memdesc_index %m[%i] : !tilegpu.memdesc<128xf16, #shared, mutable> -> !tilegpu.memdesc<128xf16, #shared, mutable>
  return
}

// -----

#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @f(%m: !tilegpu.memdesc<128x64xf16, #shared>) {
  // A transposed view swaps the shape and the layout's order, nothing else.
  // expected-error @+1 {{result must be '!tilegpu.memdesc<64x128xf16, #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]>>'}}
  %t = tilegpu.memdesc_trans %m : !tilegpu.memdesc<128x64xf16, #shared> -> !tilegpu.memdesc<64x128xf16, #shared>
  return
}

// -----

#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @f(%m: !tilegpu.memdesc<2x128xf16, #shared, mutable>, %i: i32) {
  // The selected stage keeps everything but the leading dimension.
  // expected-error @+1 {{result must be '!tilegpu.memdesc<128xf16, #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>, mutable>'}}
  %s = tilegpu.memdesc_index %m[%i] : !tilegpu.memdesc<2x128xf16, #shared, mutable> -> !tilegpu.memdesc<128xf16, #shared>
  return
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @f(%p: tensor<128x!tile.ptr<f16>, #a>, %m: !tilegpu.memdesc<128xf16, #shared>) {
  // Async copies fill mutable buffers.
  // expected-error @+1 {{cannot copy into an immutable buffer}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<128x!tile.ptr<f16>, #a> -> !tilegpu.memdesc<128xf16, #shared>
  return
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @f(%p: tensor<128x!tile.ptr<f32>, #a>, %m: !tilegpu.memdesc<128xf16, #shared, mutable>) {
  // The buffer holds the pointees' type.
  // expected-error @+1 {{tensor element type 'f32' differs from the buffer's 'f16'}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<128x!tile.ptr<f32>, #a> -> !tilegpu.memdesc<128xf16, #shared, mutable>
  return
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#shared = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @f(%p: tensor<128x!tile.ptr<i1>, #a>, %m: !tilegpu.memdesc<128xi1, #shared, mutable>) {
  // cp.async moves bytes.
  // expected-error @+1 {{cp.async copies whole bytes; i1 elements cannot be copied}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<128x!tile.ptr<i1>, #a> -> !tilegpu.memdesc<128xi1, #shared, mutable>
  return
}

// -----

func.func @f() {
  // A wait leaves a non-negative number of groups in flight.
  // expected-error @+1 {{pending must be non-negative, got -1}}
  %w = tilegpu.async_wait {pending = -1 : i32}
  return
}

// -----

#mma3 = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
func.func @f(%d: tensor<64x64xf32, #mma3>) -> tensor<64x64xf32, #mma3> {
  // A wgmma wait leaves a non-negative number of groups in flight.
  // expected-error @+1 {{pendings must be non-negative, got -1}}
  %w = tilegpu.warp_group_dot_wait %d {pendings = -1 : i32} : tensor<64x64xf32, #mma3>
  return %w : tensor<64x64xf32, #mma3>
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @f(%d: tensor<64x64xf32, #a>) -> tensor<64x64xf32, #a> {
  // Only wgmma accumulators are waited for.
  // expected-error @+1 {{waits for wgmma accumulators, which have an mma version-3 layout; got 'tensor<64x64xf32, #tilegpu.blocked}}
  %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #a>
  return %w : tensor<64x64xf32, #a>
}

// -----

// An mbarrier is one i64 of shared memory.
#plain = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @barrier_shape(%b: !tilegpu.memdesc<2xi64, #plain, mutable>) {
  // expected-error @+1 {{barrier must be a buffer of one i64, got '!tilegpu.memdesc<2xi64, #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>, mutable>'}}
  tilegpu.init_barrier %b, 1 : !tilegpu.memdesc<2xi64, #plain, mutable>
  return
}

// -----

// It expects at least one arrival per phase.
#plain = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
func.func @barrier_count(%b: !tilegpu.memdesc<1xi64, #plain, mutable>) {
  // expected-error @+1 {{count must be positive, got 0}}
  tilegpu.init_barrier %b, 0 : !tilegpu.memdesc<1xi64, #plain, mutable>
  return
}

// -----

// Bulk copies fill 2-D tiles of 16-bit elements whose rows run along
// dimension 1.
#plain = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
#swizzled = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @bulk_copy_element(%map: !tile.tensormap, %i: i32, %p: i1, %b: !tilegpu.memdesc<1xi64, #plain, mutable>,
                             %t: !tilegpu.memdesc<64x64xf32, #swizzled, mutable>) {
  // expected-error @+1 {{copies 16-bit elements, got 'f32'}}
  tilegpu.async_tma_copy_global_to_local %map[%i, %i] %t, %b, %p : !tilegpu.memdesc<64x64xf32, #swizzled, mutable>, !tilegpu.memdesc<1xi64, #plain, mutable>
  return
}

// -----

#plain = #tilegpu.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>
#columns = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]>
func.func @bulk_copy_order(%map: !tile.tensormap, %i: i32, %p: i1, %b: !tilegpu.memdesc<1xi64, #plain, mutable>,
                           %t: !tilegpu.memdesc<64x64xf16, #columns, mutable>) {
  // expected-error @+1 {{destination must have a #tilegpu.shared layout with rows along dimension 1}}
  tilegpu.async_tma_copy_global_to_local %map[%i, %i] %t, %b, %p : !tilegpu.memdesc<64x64xf16, #columns, mutable>, !tilegpu.memdesc<1xi64, #plain, mutable>
  return
}

// -----

// thread_reduce keeps one partial per lane-and-warp position along the axis.
#t8 = #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#t1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @thread_reduce_shape(%x: tensor<1024xf32, #t8>) {
  // expected-error @+1 {{result must be 'tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>', got 'tensor<256xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>'}}
  %p = tilegpu.thread_reduce %x axis = 0 : tensor<1024xf32, #t8> -> tensor<256xf32, #t1> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tilegpu.thread_reduce.return %s : f32
  }
  return
}

// -----

// The layout's repetition (8 x 32 x 4 = 1024 elements) must divide the axis.
#t8 = #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#t1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @thread_reduce_wraps(%x: tensor<512xf32, #t8>) {
  // expected-error @+1 {{needs a blocked source whose repetition divides axis 0}}
  %p = tilegpu.thread_reduce %x axis = 0 : tensor<512xf32, #t8> -> tensor<128xf32, #t1> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tilegpu.thread_reduce.return %s : f32
  }
  return
}

// -----

// The combine region works on the element type.
#t8 = #tilegpu.blocked<sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#t1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @thread_reduce_region(%x: tensor<1024xf32, #t8>) {
  // expected-error @+1 {{combine region must take two 'f32' arguments: the running value, then the new one}}
  %p = tilegpu.thread_reduce %x axis = 0 : tensor<1024xf32, #t8> -> tensor<128xf32, #t1> {
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %b : f16
    tilegpu.thread_reduce.return %s : f16
  }
  return
}

// -----

#mma3 = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#a = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @f(%a: tensor<64x16xf16, #a>, %b: !tilegpu.memdesc<16x64xf16, #shared>, %c: tensor<64x64xf32, #mma3>) -> tensor<64x64xf32, #mma3> {
  // An A operand in registers needs wgmma's register layout.
  // expected-error @+1 {{an operand in registers needs the layout #tilegpu.dot_op<opIdx = 0, parent = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>, kWidth = 2>, got #tilegpu.blocked}}
  %d = tilegpu.warp_group_dot %a, %b, %c : tensor<64x16xf16, #a> * !tilegpu.memdesc<16x64xf16, #shared> -> tensor<64x64xf32, #mma3>
  return %d : tensor<64x64xf32, #mma3>
}

// -----

#mma3 = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
#rows = #tilegpu.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]>
#cols = #tilegpu.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]>
func.func @f(%a: !tilegpu.memdesc<64x64xi8, #rows>, %b: !tilegpu.memdesc<64x64xi8, #cols>, %c: tensor<64x64xf32, #mma3>) -> tensor<64x64xf32, #mma3> {
  // wgmma's integer products accumulate in s32.
  // expected-error @+1 {{the accumulator of 'i8' operands must be i32, got 'f32'}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xi8, #rows> * !tilegpu.memdesc<64x64xi8, #cols> -> tensor<64x64xf32, #mma3>
  return %d : tensor<64x64xf32, #mma3>
}

// -----

#mma3 = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#rows = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
func.func @f(%a: !tilegpu.memdesc<64x64xf16, #rows>, %b: !tilegpu.memdesc<64x64xf16, #rows>, %c: tensor<64x64xi32, #mma3>) -> tensor<64x64xi32, #mma3> {
  // Floating-point products accumulate in f32.
  // expected-error @+1 {{the accumulator of 'f16' operands must be f32, got 'i32'}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #rows> * !tilegpu.memdesc<64x64xf16, #rows> -> tensor<64x64xi32, #mma3>
  return %d : tensor<64x64xi32, #mma3>
}

// -----

#mma3 = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
#dot = #tilegpu.dot_op<opIdx = 0, parent = #mma3, kWidth = 2>
#cols = #tilegpu.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]>
func.func @f(%a: tensor<64x64xi8, #dot>, %b: !tilegpu.memdesc<64x64xi8, #cols>, %c: tensor<64x64xi32, #mma3>) -> tensor<64x64xi32, #mma3> {
  // 8-bit A operands are read from shared memory only.
  // expected-error @+1 {{an 8-bit A operand must be in shared memory}}
  %d = tilegpu.warp_group_dot %a, %b, %c : tensor<64x64xi8, #dot> * !tilegpu.memdesc<64x64xi8, #cols> -> tensor<64x64xi32, #mma3>
  return %d : tensor<64x64xi32, #mma3>
}
