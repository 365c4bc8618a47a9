"""bench/kernels.py's matmul kernels through the frontend, on the CPU: the
tile IR that a launch of kernels.matmul would compile (the same arguments,
specialized as a launch specializes them, through JITFunction.warmup with
stand-in tensors), for every element type and operand layout that
test/python/gpu/test_matmul.py runs on the GPU. The IR is verified by
libtilelang as part of compiling it."""

import os
import re
import shutil
import subprocess

import pytest

import tilelang
import tilelang.language as tl
from tilelang_testing import REPO_ROOT, load_module

BENCH_KERNELS = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py")
KERNELS = BENCH_KERNELS.define(tilelang.jit, tl)

MLIR = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "int8": "i8", "int32": "i32"}


class FakeTensor:
    """What the launcher reads of a tensor: data_ptr, dtype (a torch dtype's
    name), shape and strides. `layout` "col" is a transposed view."""

    def __init__(self, rows, cols, dtype, layout="row", ptr=0x7F0000000000):
        self.shape = (rows, cols)
        self.dtype = dtype
        self._strides = (cols, 1) if layout == "row" else (1, rows)
        self._ptr = ptr

    def data_ptr(self):
        return self._ptr

    def stride(self, dim):
        return self._strides[dim]


def tile_ir(kernel, a, b, c, config=None, bias=None):
    options = BENCH_KERNELS.matmul_launch_options(config)
    compiled = kernel.warmup(*BENCH_KERNELS.matmul_args(a, b, c, bias), **options)
    return compiled, compiled.asm["tile"]


@pytest.mark.parametrize("dtype,out_dtype", [("float16", "float16"), ("bfloat16", "bfloat16"),
                                             ("float32", "float32"), ("int8", "int32"), ("float16", "float32")])
@pytest.mark.parametrize("a_layout,b_layout", [("row", "row"), ("col", "col")])
def test_matmul_tile_ir(dtype, out_dtype, a_layout, b_layout):
    m, n, k = 1000, 1000, 1000
    a = FakeTensor(m, k, dtype, a_layout)
    b = FakeTensor(k, n, dtype, b_layout)
    c = FakeTensor(m, n, out_dtype)
    compiled, ir = tile_ir(KERNELS["matmul_kernel"], a, b, c)
    el, acc = MLIR[dtype], "i32" if dtype == "int8" else "f32"
    # tl.dot(a, b, acc) on 128x32 and 32x128 tiles, the accumulator carried by the K loop.
    assert f"tensor<128x32x{el}> * tensor<32x128x{el}> -> tensor<128x128x{acc}>" in ir
    assert re.search(rf"scf.for .* iter_args\(.*\) -> \(tensor<128x128x{acc}>, "
                     rf"tensor<128x32x!tile.ptr<{el}>>, tensor<32x128x!tile.ptr<{el}>>\)", ir)
    # Grouped program order.
    assert "arith.minsi" in ir and "arith.remsi" in ir and "arith.divsi" in ir
    # Masked loads (M/N and K edges) and a masked store.
    assert len(re.findall(r"tile.load %\w+, %\w+, %\w+ :", ir)) == 2
    assert re.search(r"tile.store %[\w#]+, %[\w#]+, %[\w#]+ :", ir)
    # The store converts the accumulator to C's type.
    if out_dtype in ("float16", "bfloat16"):
        assert "arith.truncf" in ir and f"tensor<128x128x{MLIR[out_dtype]}>" in ir
    # Unit strides are specialized to constants, as a launch does.
    unit = {"stride_ak": a_layout == "row", "stride_am": a_layout == "col",
            "stride_bn": b_layout == "row", "stride_bk": b_layout == "col", "stride_cn": True}
    for name, is_one in unit.items():
        assert (compiled.constexprs.get(name) == 1) == is_one, (name, compiled.constexprs)


@pytest.mark.parametrize("config", [
    {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16, "num_warps": 1},
    {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "num_warps": 1},
    {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "num_warps": 8},
], ids=lambda c: f"{c['BLOCK_SIZE_M']}x{c['BLOCK_SIZE_N']}x{c['BLOCK_SIZE_K']}")
def test_matmul_tile_ir_block_shapes(config):
    a, b, c = FakeTensor(77, 129, "float16"), FakeTensor(129, 300, "float16"), FakeTensor(77, 300, "float16")
    compiled, ir = tile_ir(KERNELS["matmul_kernel"], a, b, c, config)
    bm, bn, bk = config["BLOCK_SIZE_M"], config["BLOCK_SIZE_N"], config["BLOCK_SIZE_K"]
    assert f"tensor<{bm}x{bk}xf16> * tensor<{bk}x{bn}xf16> -> tensor<{bm}x{bn}xf32>" in ir
    assert compiled.num_warps == config["num_warps"]


def test_matmul_bias_relu_tile_ir():
    a, b, c = FakeTensor(300, 200, "float16"), FakeTensor(200, 270, "float16"), FakeTensor(300, 270, "float16")
    bias = FakeTensor(1, 270, "float32")
    _, ir = tile_ir(KERNELS["matmul_bias_relu_kernel"], a, b, c, {"BLOCK_SIZE_M": 64}, bias=bias)
    assert "tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>" in ir
    # The epilogue: bias broadcast over the rows, added, relu, truncated to fp16.
    assert "tensor<1x128xf32> -> tensor<64x128xf32>" in ir
    assert re.search(r"arith.max\w+ %\w+, %\w+ : tensor<64x128xf32>", ir)
    assert "arith.truncf" in ir


SPACES = load_module("autotune_spaces", REPO_ROOT / "autotune" / "spaces.py")
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"


def _space_id(cfg):
    return "{BLOCK_SIZE_M}x{BLOCK_SIZE_N}x{BLOCK_SIZE_K}-w{num_warps}-s{num_stages}".format(**cfg)


@pytest.mark.skipif(not os.path.exists(PTXAS), reason="needs ptxas")
@pytest.mark.parametrize("cfg", SPACES.MATMUL, ids=_space_id)
def test_matmul_space_keeps_wgmma_asynchronous(cfg, tmp_path):
    """Every config of the matmul tuning space, at 4096^3 bf16 for sm_90a:
    the pipelined loop keeps its wgmma in flight (wait_group 1), and ptxas
    does not serialize the wgmmas, except for lack of registers when the
    accumulator alone needs more than 128 registers per thread (256x256
    over 8 warps: 256)."""
    n = 4096
    a, b, c = (FakeTensor(n, n, "bfloat16") for _ in range(3))
    compiled = KERNELS["matmul_kernel"].warmup(*BENCH_KERNELS.matmul_args(a, b, c),
                                               **BENCH_KERNELS.matmul_launch_options(cfg))
    ptx = compiled.to_ptx("sm_90a").ptx
    assert "wgmma.mma_async" in ptx
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    path = tmp_path / "matmul.ptx"
    path.write_text(ptx)
    result = subprocess.run([PTXAS, "-arch=sm_90a", str(path), "-o", "/dev/null"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    accumulator_registers = cfg["BLOCK_SIZE_M"] * cfg["BLOCK_SIZE_N"] // (32 * cfg["num_warps"])
    if accumulator_registers <= 128:
        assert "Performance Loss" not in result.stdout + result.stderr, result.stdout + result.stderr
    else:
        assert "C7511" in result.stdout + result.stderr  # insufficient register resources


@pytest.mark.parametrize("block, warps, stages, early", [
    ((256, 128, 64), 8, 4, True), ((128, 256, 64), 8, 4, True), ((256, 128, 64), 8, 3, False),
    ((128, 128, 64), 4, 4, False), ((64, 256, 64), 4, 4, False)])
def test_matmul_refills_early_where_the_work_ahead_hides_the_copies(block, warps, stages, early):
    """The pipelined loop refills the stage read two iterations before right
    after issuing its product (one barrier an iteration) where num_stages - 2
    iterations hold 2^23 byte-MACs of tensor work or more (two 256x128x64
    bf16 products); otherwise it refills the stage the previous product read,
    after the wait that retires it and a second barrier. Either way the
    product stays in flight (wait_group 1)."""
    n = 4096
    a, b, c = (FakeTensor(n, n, "bfloat16") for _ in range(3))
    cfg = dict(BLOCK_SIZE_M=block[0], BLOCK_SIZE_N=block[1], BLOCK_SIZE_K=block[2], GROUP_SIZE_M=8,
               num_warps=warps, num_stages=stages)
    compiled = KERNELS["matmul_kernel"].warmup(*BENCH_KERNELS.matmul_args(a, b, c),
                                               **BENCH_KERNELS.matmul_launch_options(cfg))
    ir = compiled.to_ptx("sm_90a").asm["tilegpu"]
    loop = ir[ir.index("scf.for"):]
    loop = loop[:loop.index("scf.yield")]
    assert loop.count("tilegpu.barrier") == (1 if early else 2), loop
    first_copy = loop.index("tilegpu.async_copy_global_to_local")
    wait = loop.index("tilegpu.warp_group_dot_wait")
    assert "{pendings = 1 : i32}" in loop[wait:], loop
    assert (first_copy < wait) == early, loop


@pytest.mark.parametrize("k", [0, 64, 128, 192, 1040])
@pytest.mark.parametrize("block", [(256, 128, 64), (128, 256, 64)])
def test_matmul_refills_early_at_the_gpu_tests_shapes(block, k):
    """gpu/test_matmul.py::test_matmul_early_refill's launches (300 x 272 x K,
    8 warps, 4 stages) take the early refill: a stage wait that leaves
    num_stages - 3 = 1 group pending, the copies before the wait that
    retires the previous product (pendings = 1), one barrier an iteration.
    (A row of 270 elements is not 16-byte aligned: B would not be staged and
    the product not carried, and the GPU test would miss the path.)"""
    a, b, c = FakeTensor(300, k, "float16"), FakeTensor(k, 272, "float16"), FakeTensor(300, 272, "float16")
    cfg = dict(BLOCK_SIZE_M=block[0], BLOCK_SIZE_N=block[1], BLOCK_SIZE_K=block[2], GROUP_SIZE_M=8,
               num_warps=8, num_stages=4)
    compiled = KERNELS["matmul_kernel"].warmup(*BENCH_KERNELS.matmul_args(a, b, c),
                                               **BENCH_KERNELS.matmul_launch_options(cfg))
    ir = compiled.to_ptx("sm_90a").asm["tilegpu"]
    loop = ir[ir.index("scf.for"):]
    loop = loop[:loop.index("scf.yield")]
    assert loop.count("tilegpu.barrier") == 1, loop
    assert re.findall(r"async_wait +\{pending = (\d+)", loop) == ["1"], loop
    assert re.findall(r"warp_group_dot_wait [^{]*\{pendings = (\d+)", loop) == ["1"], loop
    assert loop.count("tilegpu.async_copy_global_to_local") == 2, loop
    assert loop.index("tilegpu.async_copy_global_to_local") < loop.index("tilegpu.warp_group_dot_wait"), loop


class FakeDescriptor:
    """A host tensor descriptor over a FakeTensor (what specialize() reads)."""

    def __init__(self, tensor, block_shape, itemsize=2):
        self.base = tensor
        tensor.element_size = lambda: itemsize
        self.shape = list(tensor.shape)
        self.strides = [tensor.stride(0), tensor.stride(1)]
        self.block_shape = list(block_shape)
        self.padding = "zero"


@pytest.mark.skipif(not os.path.exists(PTXAS), reason="needs ptxas")
@pytest.mark.parametrize("cfg", SPACES.MATMUL, ids=_space_id)
def test_matmul_space_copies_descriptors_in_bulk(cfg, tmp_path):
    """Every config of the tuning space, with the descriptor kernel at
    4096^3 bf16 for sm_90a: A and B arrive by bulk tensor copies (one per
    column block of 64, 32 ... elements, whatever the swizzle of the block's
    rows), C leaves by bulk stores, the wgmma stays in flight, and ptxas
    accepts the PTX without serializing (except for registers, as above)."""
    n = 4096
    bm, bn, bk = cfg["BLOCK_SIZE_M"], cfg["BLOCK_SIZE_N"], cfg["BLOCK_SIZE_K"]
    a, b, c = (FakeTensor(n, n, "bfloat16") for _ in range(3))
    descriptors = (FakeDescriptor(a, [bm, bk]), FakeDescriptor(b, [bk, bn]), FakeDescriptor(c, [bm, bn]))
    compiled = KERNELS["matmul_descriptor_kernel"].warmup(*descriptors, n, n, n,
                                                          **BENCH_KERNELS.matmul_launch_options(cfg))
    ir = compiled.to_ptx("sm_90a")
    swizzle = min(bk, 64) * 2
    assert ir.tensor_maps[0] == {"descriptor": 0, "element": "bf16", "box": [bm, min(bk, 64)], "swizzle": swizzle}
    assert ir.tensor_maps[1]["box"] == [bk, min(bn, 64)] and ir.tensor_maps[2]["box"] == [bm, min(bn, 64)]
    ptx = ir.ptx
    loop_copies = bk // min(bk, 64) + bn // min(bn, 64)
    copies = ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global")
    assert copies == cfg["num_stages"] * loop_copies, copies  # S - 1 prologue stages and the loop
    assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == bn // min(bn, 64)
    assert "wgmma.wait_group.sync.aligned 1;" in ptx and "cp.async.cg" not in ptx
    path = tmp_path / "matmul.ptx"
    path.write_text(ptx)
    result = subprocess.run([PTXAS, "-arch=sm_90a", str(path), "-o", "/dev/null"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    if bm * bn // (32 * cfg["num_warps"]) <= 128:
        assert "Performance Loss" not in result.stdout + result.stderr, result.stdout + result.stderr


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "int8"])
def test_ragged_extents_keep_wide_copies(dtype):
    """4000 x 3000 x 1000: no extent or stride is a multiple of 16, but 3000
    and 1000 are multiples of 8, so each row starts on a 16-byte boundary
    (fp16, bf16) or an 8-byte one (int8). Specialization records that
    (divisibility 8), so A and B reach shared memory in 16-byte cp.async
    copies (fp16, bf16), or in 8-byte loads through registers (int8, whose B
    is transposed on the way), where divisibility by 16 alone (Triton's rule)
    loaded B one element at a time."""
    m, n, k = 4000, 3000, 1000
    out = "int32" if dtype == "int8" else dtype
    a, b, c = FakeTensor(m, k, dtype), FakeTensor(k, n, dtype), FakeTensor(m, n, out)
    compiled = KERNELS["matmul_kernel"].warmup(*BENCH_KERNELS.matmul_args(a, b, c),
                                               **BENCH_KERNELS.matmul_launch_options(None))
    assert compiled.specialization["K"] == 8 and compiled.specialization["N"] == 8
    ptx = compiled.to_ptx("sm_90a").ptx
    copies = re.findall(r"cp\.async\.c[ag]\.shared\.global(?:\.L2::\w+)? \[[^\]]+\], \[[^\]]+\], (\d+)", ptx)
    loads = set(re.findall(r"ld\.global(?:\.[\w:]+)*?\.((?:v\d\.)?[bus]\d+) ", ptx))
    if dtype == "int8":
        assert not copies and loads == {"v2.b32"}, (copies, loads)
    else:
        assert copies and set(copies) == {"16"} and not loads, (sorted(set(copies)), loads)
