"""tl.assume, tl.multiple_of, tl.max_contiguous and tl.max_constancy: the
frontend emits them as tile.assume and tile.hint, and axis info uses what
they promise, so that kernels written as Triton's tutorials write them get
wide, pipelined loads (checked in the PTX, a deterministic resource check)."""

import re

import kernels
import pytest

import tilelang
import tilelang.language as tl

MATMUL_SIGNATURE = dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32",
                        stride_am="i32", stride_bk="i32", stride_cm="i32")
# What a launch on contiguous 4096^2 matrices specializes: unit strides are
# constants, everything else divisible by 16.
MATMUL_CONSTANTS = dict(stride_ak=1, stride_bn=1, stride_cn=1, BLOCK_SIZE_M=128, BLOCK_SIZE_N=256,
                        BLOCK_SIZE_K=64, GROUP_SIZE_M=8, ACTIVATION="")


@tilelang.jit
def promised(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.assume(pid >= 0)
    tl.assume(n % 32 == 0)
    offs = tl.max_contiguous(tl.multiple_of((pid * BLOCK + tl.arange(0, BLOCK)) % n, BLOCK), BLOCK)
    tl.max_constancy(n, 1)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


def test_promises_become_tile_ops():
    ir = promised.compile("*fp32,*fp32,i32", constexprs={"BLOCK": 128}).asm["tile"]
    assert len(re.findall(r"tile\.assume %\d+$", ir, re.M)) == 2
    assert re.search(r"tile\.hint %\d+ \{multiple_of = array<i64: 128>\} : tensor<128xi32>", ir)
    assert re.search(r"tile\.hint %\d+ \{max_contiguous = array<i64: 128>\} : tensor<128xi32>", ir)
    assert re.search(r"tile\.hint %arg2 \{max_constancy = array<i64: 1>\} : i32", ir)


def test_hinted_offsets_load_four_floats_at_a_time():
    # Without the hints, (pid * 128 + r) % n (n of unknown divisibility)
    # has runs of 1 and every float is loaded on its own.
    compiled = promised.compile("*fp32,*fp32,i32", constexprs={"BLOCK": 128},
                                specialization=["x_ptr", "y_ptr"], num_warps=1)
    ptx = compiled.to_ptx("sm_90a").ptx
    assert "ld.global.v4.b32" in ptx and "st.global.v4.b32" in ptx
    assert not re.search(r"ld\.global\.b32", ptx)


def matmul_ptx(kernel, arch="sm_90a"):
    compiled = kernel.compile(MATMUL_SIGNATURE, constexprs=MATMUL_CONSTANTS,
                              specialization={name: 16 for name in MATMUL_SIGNATURE},
                              num_warps=8, num_stages=3)
    return compiled.to_ptx(arch).ptx


def test_tutorial_matmul_copies_both_operands_sixteen_bytes_at_a_time():
    # Triton's tutorial form: offs_bn = (pid_n * BN + r) % N after
    # tl.assume(pid_n >= 0). N is divisible by 16, so runs of 16 columns
    # survive the remainder: the B tile is copied with 16-byte cp.async,
    # like A, instead of being loaded element by element outside the
    # software pipeline.
    ptx = matmul_ptx(kernels.matmul_kernel)
    assert not re.search(r"ld\.global[.\w:]*\.b16 ", ptx)
    assert len(re.findall(r"cp\.async\.cg\.shared\.global \[[^]]+\], \[[^]]+\], 16", ptx)) > 0
    assert "wgmma.mma_async" in ptx


@tilelang.jit
def assume_on_tensor(x_ptr):
    offs = tl.arange(0, 16)
    tl.assume(offs >= 0)  # LINE:assume_on_tensor
    tl.store(x_ptr + offs, offs)


@tilelang.jit
def hint_rank(x_ptr):
    offs = tl.arange(0, 16)
    offs = tl.multiple_of(offs, [16, 16])  # LINE:hint_rank
    tl.store(x_ptr + offs, offs)


@tilelang.jit
def hint_float(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    x = tl.max_contiguous(x, 16)  # LINE:hint_float
    tl.store(x_ptr + tl.arange(0, 16), x)


@tilelang.jit
def hint_not_constant(x_ptr, n):
    offs = tl.multiple_of(tl.arange(0, 16), n)  # LINE:hint_not_constant
    tl.store(x_ptr + offs, offs)


def line_of(marker):
    with open(__file__) as source:
        for number, text in enumerate(source, 1):
            if f"# LINE:{marker}" in text and "with open" not in text:
                return number
    raise AssertionError(marker)


@pytest.mark.parametrize("kernel,signature,message", [
    (assume_on_tensor, "*i32", "tl.assume takes a scalar condition, got a"),
    (hint_rank, "*i32", "tl.multiple_of needs 1 value for a"),
    (hint_float, "*fp32", "tl.max_contiguous applies to integers and pointers, got fp32"),
    (hint_not_constant, "*i32,i32", "tl.multiple_of's values must be constant integers"),
])
def test_bad_promises_are_located_errors(kernel, signature, message):
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile(signature)
    text = str(info.value)
    assert message in text
    assert f"test_promises.py:{line_of(kernel.__name__)}:" in text
