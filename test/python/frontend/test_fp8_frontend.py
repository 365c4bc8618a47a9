"""fp8 in the frontend and down to PTX (issue 21): constants rounded as the
compiled conversions round (to nearest even, saturating), fp8 casts and
products through the whole pipeline (cvt.rn.satfinite, wgmma e4m3/e5m2 on
sm_90a, the f16 fallback), and the located errors for what is not
supported."""

import math

import pytest

import tilelang
import tilelang.language as tl
from tilelang.errors import CompilationError
from tilelang.frontend.semantic import fp8_bits

import byte_matmul_kernels

FORMATS = {"fp8e4nv": (tl.float8e4nv, 3, 7), "fp8e5": (tl.float8e5, 2, 15)}


def decode(bits, man, bias):
    """The value of an fp8 bit pattern (None for NaN and infinities)."""
    sign = -1.0 if bits & 0x80 else 1.0
    exponent, mantissa = (bits & 0x7F) >> man, bits & ((1 << man) - 1)
    if man == 3 and bits & 0x7F == 0x7F or man == 2 and exponent == 31:
        return None
    if exponent == 0:
        return sign * math.ldexp(mantissa, 1 - bias - man)
    return sign * math.ldexp((1 << man) + mantissa, exponent - bias - man)


@pytest.mark.parametrize("name", list(FORMATS))
def test_constant_bits_round_trip_and_tie_to_even(name):
    dt, man, bias = FORMATS[name]
    values = {}
    for bits in range(256):
        value = decode(bits, man, bias)
        if value is not None:
            values[bits] = value
            # -0.0 keeps its sign bit.
            assert fp8_bits(value, dt) == bits, (hex(bits), value)
    # Midpoints between neighbours of one sign go to the even pattern.
    for bits, value in values.items():
        nxt = values.get(bits + 1)
        if nxt is None or (bits & 0x7F) == 0x7F or abs(nxt) < abs(value):
            continue
        expected = bits if bits % 2 == 0 else bits + 1
        assert fp8_bits((value + nxt) / 2, dt) == expected, (hex(bits), value, nxt)


def test_constant_bits_saturate_and_keep_nan():
    assert fp8_bits(1e9, tl.float8e4nv) == 0x7E  # 448
    assert fp8_bits(-500.0, tl.float8e4nv) == 0xFE
    assert fp8_bits(math.inf, tl.float8e5) == 0x7B  # 57344, not infinity
    assert fp8_bits(-math.inf, tl.float8e5) == 0xFB
    assert fp8_bits(math.nan, tl.float8e4nv) == 0x7F
    assert fp8_bits(2.0**-20, tl.float8e4nv) == 0x00  # below half the smallest subnormal


@tilelang.jit
def fill(y_ptr, VALUE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.full((BLOCK,), VALUE, y_ptr.dtype.element_ty))


def test_fp8_constants_are_emitted_as_bit_patterns():
    text = fill.compile({"y_ptr": "*fp8e4nv"}, constexprs={"VALUE": 1000.0, "BLOCK": 64}).asm["tile"]
    # Printed back as the value of 0x7E, the largest finite e4m3.
    assert "dense<4.480000e+02> : tensor<64xf8E4M3FN>" in text


@tilelang.jit
def cast_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=mask)


def to_ptx(fn, signature, constexprs, arch="sm_90a", **options):
    kernel = fn.compile(signature, constexprs=constexprs, **options)
    return tilelang.compile_ir(kernel.asm["tile"], arch=arch, source_name=f"<tile-ir of {kernel.name}>").ptx


@pytest.mark.parametrize("src,dst,instruction", [
    ("fp32", "fp8e4nv", "cvt.rn.satfinite.e4m3x2.f32"),
    ("fp16", "fp8e5", "cvt.rn.satfinite.e5m2x2.f16x2"),
    ("bf16", "fp8e4nv", "cvt.rn.satfinite.e4m3x2.f32"),
    ("fp8e4nv", "fp32", "cvt.rn.f16x2.e4m3x2"),
    ("fp8e5", "bf16", "cvt.rn.f16x2.e5m2x2"),
])
def test_casts_compile_to_fp8_conversions(src, dst, instruction):
    ptx = to_ptx(cast_kernel, {"x_ptr": f"*{src}", "y_ptr": f"*{dst}", "n": "i32"}, {"BLOCK": 256})
    assert instruction in ptx


def test_casts_to_fp8_before_sm89_are_a_located_error():
    with pytest.raises(CompilationError) as info:
        to_ptx(cast_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp8e4nv", "n": "i32"}, {"BLOCK": 256}, arch="sm_80")
    assert "conversions to fp8 need sm_89 or newer" in str(info.value)
    assert "internal compiler error" not in str(info.value)
    # Widening needs no fp8 instruction: done in software.
    assert "cvt.rn.f16x2" not in to_ptx(cast_kernel, {"x_ptr": "*fp8e4nv", "y_ptr": "*fp32", "n": "i32"},
                                        {"BLOCK": 256}, arch="sm_80")


@tilelang.jit
def fp8_add(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x + x)


def test_fp8_arithmetic_is_a_located_error():
    with pytest.raises(CompilationError) as info:
        to_ptx(fp8_add, {"x_ptr": "*fp8e4nv", "y_ptr": "*fp8e4nv"}, {"BLOCK": 64})
    assert "arithmetic on fp8 values cannot be lowered" in str(info.value)
    assert "internal compiler error" not in str(info.value)


@tilelang.jit
def rtz_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.float8e4nv, fp_downcast_rounding="rtz"))


def test_rtz_to_fp8_is_refused():
    with pytest.raises(CompilationError, match="rtz"):
        rtz_kernel.compile({"x_ptr": "*fp32", "y_ptr": "*fp8e4nv"}, constexprs={"BLOCK": 64})


# Triton's tutorial kernel on fp8 operands (shared with the GPU tests), fp32 accumulator.
byte_matmul = byte_matmul_kernels.define(tilelang.jit, tl)


def matmul_ptx(a, b, k_major, arch="sm_90a"):
    signature = {"a_ptr": f"*{a}", "b_ptr": f"*{b}", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                 "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
                 "stride_cm": "i32", "stride_cn": "i32"}
    constexprs = {"stride_ak": 1, "stride_cn": 1, ("stride_bk" if k_major else "stride_bn"): 1,
                  "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "ACC": tl.float32}
    aligned = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_cm",
               "stride_bn" if k_major else "stride_bk"]
    kernel = byte_matmul.compile(signature, constexprs=constexprs, specialization={n: 16 for n in aligned},
                                 num_warps=4, num_stages=3)
    return tilelang.compile_ir(kernel.asm["tile"], arch=arch, source_name="<fp8 matmul>").ptx


@pytest.mark.parametrize("a,b,types", [("fp8e4nv", "fp8e4nv", "e4m3.e4m3"), ("fp8e5", "fp8e5", "e5m2.e5m2"),
                                       ("fp8e4nv", "fp8e5", "e4m3.e5m2")])
def test_k_major_fp8_matmul_is_a_pipelined_fp8_wgmma(a, b, types):
    ptx = matmul_ptx(a, b, k_major=True)
    # 2 (M) x 4 (K) m64n128k32 products per iteration, on cp.async stages.
    assert ptx.count(f"wgmma.mma_async.sync.aligned.m64n128k32.f32.{types}") == 8
    assert "cp.async.cg.shared.global" in ptx
    assert "wgmma.wait_group.sync.aligned 1;" in ptx


def test_n_major_fp8_matmul_widens_to_f16():
    # wgmma reads 8-bit operands K-major only: a B with N contiguous widens.
    ptx = matmul_ptx("fp8e4nv", "fp8e4nv", k_major=False)
    assert "k32.f32.e4m3" not in ptx
    assert "cvt.rn.f16x2.e4m3x2" in ptx
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in ptx


def test_fp8_matmul_on_sm80_uses_f16_mma_sync():
    ptx = matmul_ptx("fp8e5", "fp8e5", k_major=True, arch="sm_80")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
