// Every layout encoding round-trips, printed under its alias.
// RUN: tilelang-opt %s | tilelang-opt | FileCheck %s

// CHECK-DAG: #[[BLOCKED:.*]] = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[SLICE:.*]] = #tilegpu.slice<dim = 1, parent = #[[BLOCKED]]>
// CHECK-DAG: #[[MMA:.*]] = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
// CHECK-DAG: #[[WGMMA:.*]] = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
// CHECK-DAG: #[[DOT_A:.*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[MMA]], kWidth = 2>
// CHECK-DAG: #[[DOT_B:.*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[MMA]], kWidth = 2>
// CHECK-DAG: #[[FMA_A:.*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[BLOCKED]]>
// CHECK-DAG: #[[SHARED:.*]] = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
// CHECK-DAG: #[[NVMMA:.*]] = #tilegpu.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false>

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#slice = #tilegpu.slice<dim = 1, parent = #blocked>
#mma = #tilegpu.mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#wgmma = #tilegpu.mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#dot_a = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#dot_b = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
#fma_a = #tilegpu.dot_op<opIdx = 0, parent = #blocked>
#shared = #tilegpu.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false>

module attributes {tilegpu.num_warps = 4 : i32, tilegpu.target = "sm_90a"} {
  // CHECK-LABEL: func @encoded
  // CHECK-SAME: tensor<64x64xf16, #[[BLOCKED]]>
  // CHECK-SAME: tensor<64xf32, #[[SLICE]]>
  // CHECK-SAME: tensor<64x64xf32, #[[MMA]]>
  // CHECK-SAME: tensor<128x128xf32, #[[WGMMA]]>
  // CHECK-SAME: tensor<64x32xf16, #[[DOT_A]]>
  // CHECK-SAME: tensor<32x64xf16, #[[DOT_B]]>
  // CHECK-SAME: tensor<64x32xf32, #[[FMA_A]]>
  // CHECK-SAME: !tilegpu.memdesc<64x64xf16, #[[SHARED]]>
  // CHECK-SAME: !tilegpu.memdesc<3x64x64xf16, #[[NVMMA]], mutable>
  func.func @encoded(%a: tensor<64x64xf16, #blocked>, %b: tensor<64xf32, #slice>,
                     %c: tensor<64x64xf32, #mma>, %d: tensor<128x128xf32, #wgmma>,
                     %e: tensor<64x32xf16, #dot_a>, %f: tensor<32x64xf16, #dot_b>,
                     %g: tensor<64x32xf32, #fma_a>,
                     %h: !tilegpu.memdesc<64x64xf16, #shared>,
                     %i: !tilegpu.memdesc<3x64x64xf16, #nvmma, mutable>) {
    return
  }
}
