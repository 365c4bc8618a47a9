// tilelang-compile --report runs the runtime's occupancy search with ptxas
// standing in for the driver's JIT (docs/runtime.md, "Occupancy search"):
// a kernel without tensor-core products asks for 2 blocks of 8 warps per SM
// (the lowering's floor); an sm_90a SM holds 8, which is tried first. A
// tensor-core kernel asks for nothing and is not searched.
// RUN: %if ptxas %{ tilelang-compile %S/../Target/PTX/layernorm.mlir --arch=sm_90a --num-warps=8 --report -o /dev/null 2>&1 | FileCheck %s %}
// RUN: %if ptxas %{ tilelang-compile %S/../Target/PTX/matmul.mlir --arch=sm_90a --report -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOT %}

// CHECK: resources (
// CHECK: occupancy search ({{.*}}the PTX asks for 2 blocks per SM, an sm_90a SM holds 8 of 256 threads):
// CHECK-NEXT: 8 blocks: {{[0-9]+}} registers, {{[0-9]+}} bytes of local memory
// CHECK: kept: {{[2-8]}} blocks per SM

// DOT: resources (
// DOT-NOT: occupancy search
