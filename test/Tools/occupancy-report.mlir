// tilelang-compile --report runs the runtime's occupancy search with ptxas
// standing in for the driver's JIT (docs/runtime.md, "Occupancy search").
// The layernorm asks for 2 blocks of 8 warps per SM (the lowering's floor
// for kernels without tensor-core products); an sm_90a SM holds 8. Over
// 1024-wide rows its registers already allow enough blocks: one trial. Over
// 8192-wide rows they do not: 8 blocks are tried next, and a bisection
// follows when they spill. At 16 warps the floor is one block, which the
// block's size implies, and the search runs all the same (an SM holds 4).
// A tensor-core kernel asks for nothing: the search starts from the PTX as
// written and adds a count only where more blocks fit without local memory.
// Over 16384-wide rows and 2 warps (256 elements a thread) every count
// spills; the least local memory wins (4 blocks of 255 registers, not the
// floor's 8 of 128).
// RUN: %if ptxas %{ tilelang-compile %S/../Target/PTX/layernorm.mlir --arch=sm_90a --num-warps=8 --report -o /dev/null 2>&1 | FileCheck %s --check-prefix=NARROW %}
// RUN: %if ptxas %{ sed 's/1024/8192/g' %S/../Target/PTX/layernorm.mlir | tilelang-compile - --arch=sm_90a --num-warps=8 --report -o /dev/null 2>&1 | FileCheck %s --check-prefix=WIDE %}
// RUN: %if ptxas %{ sed 's/1024/8192/g' %S/../Target/PTX/layernorm.mlir | tilelang-compile - --arch=sm_90a --num-warps=16 --report -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIXTEEN %}
// RUN: %if ptxas %{ sed 's/1024/16384/g' %S/../Target/PTX/layernorm.mlir | tilelang-compile - --arch=sm_90a --num-warps=2 --report -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPILLING %}
// RUN: %if ptxas %{ tilelang-compile %S/../Target/PTX/matmul.mlir --arch=sm_90a --report -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOT %}
// The whole-program step (on unless TILELANG_WHOLE_PROGRAM=0): the one-row
// layer norm of 12288 columns on 8 warps keeps its floor of 2 blocks;
// without the directive, compiled as a whole program, its registers
// (ptxas's own choice) keep those 2 too, so the runtime would use that cubin. The wide
// layernorm on 8 warps keeps more than 3 blocks and 16 warps are not 8:
// not tried.
// RUN: %if ptxas %{ tilelang-compile %S/../Target/PTX/layernorm-row.mlir --arch=sm_90a --num-warps=8 --report -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROW %}

// NARROW: occupancy search ({{.*}}the PTX asks for 2 blocks per SM, an sm_90a SM holds 8 of 256 threads):
// NARROW-NEXT: 2 blocks: {{[0-9]+}} registers, 0 bytes of local memory
// NARROW-NEXT: kept: 2 blocks per SM (as the PTX asks; its {{[0-9]+}} registers allow {{[6-8]}})

// WIDE: occupancy search ({{.*}}the PTX asks for 2 blocks per SM, an sm_90a SM holds 8 of 256 threads):
// WIDE-NEXT: 2 blocks: {{[0-9]+}} registers, 0 bytes of local memory
// WIDE-NEXT: 8 blocks: {{[0-9]+}} registers, {{[0-9]+}} bytes of local memory
// WIDE: kept: {{[2-8]}} blocks per SM
// WIDE-NEXT: whole program: not tried (only where a floor that fits keeps at most 3 blocks of 8 warps)

// SIXTEEN: occupancy search ({{.*}}the PTX asks for 1 block per SM, an sm_90a SM holds 4 of 512 threads):
// SIXTEEN-NEXT: 1 block: {{[0-9]+}} registers, 0 bytes of local memory
// SIXTEEN: kept: {{[1-4]}} block{{s?}} per SM
// SIXTEEN-NEXT: whole program: not tried

// SPILLING: occupancy search ({{.*}}the PTX asks for 8 blocks per SM, an sm_90a SM holds 32 of 64 threads):
// SPILLING-NEXT: 8 blocks: 128 registers, {{[1-9][0-9]*}} bytes of local memory
// SPILLING-NEXT: 4 blocks: 255 registers, {{[1-9][0-9]*}} bytes of local memory
// SPILLING: kept: 4 blocks per SM{{$}}

// DOT: resources (
// DOT: occupancy search ({{.*}}the PTX asks for nothing, an sm_90a SM holds {{[0-9]+}} of {{[0-9]+}} threads):
// DOT-NEXT: as written: {{[0-9]+}} registers, {{[0-9]+}} bytes of local memory
// DOT: kept: 

// ROW: occupancy search ({{.*}}the PTX asks for 2 blocks per SM, an sm_90a SM holds 8 of 256 threads):
// ROW-NEXT: 2 blocks: {{[0-9]+}} registers, 0 bytes of local memory
// ROW: kept: 2 blocks per SM (as the PTX asks; its {{[0-9]+}} registers allow 2)
// ROW-NEXT: whole program: without .minnctapersm, {{[0-9]+}} registers, 0 bytes of local memory, 2 blocks per SM where the linked cubin keeps 2: the runtime would use it
