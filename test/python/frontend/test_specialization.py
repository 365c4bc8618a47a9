"""Signatures from arguments, divisibility and value-1 specialization, the cache."""

import re

import kernels
import pytest

import tilelang
import tilelang.language as tl
from tilelang_testing import fake_pointer


def test_signature_from_arguments():
    k = kernels.spec_kernel.warmup(fake_pointer("torch.int32", 4096), 1000, 7, BLOCK=64, grid=(1,))
    assert k.signature == {"x_ptr": "*i32", "n": "i32", "stride": "i32"}
    assert k.specialization == {"x_ptr": 16, "n": 8}
    assert "%x_ptr: !tile.ptr<i32> {tile.divisibility = 16 : i32}" in k.asm["tile-src"]
    assert "%n: i32 {tile.divisibility = 8 : i32}" in k.asm["tile-src"]  # 1000 = 8 * 125
    assert "%stride: i32 loc(" in k.asm["tile-src"]  # 7 is odd


def test_divisibility_only_when_divisible():
    k = kernels.spec_kernel.warmup(fake_pointer("float32", 4100), 1024, 3, BLOCK=64)
    src = k.asm["tile-src"]
    assert "%x_ptr: !tile.ptr<f32> loc(" in src
    assert "%n: i32 {tile.divisibility = 16 : i32}" in src
    assert k.specialization == {"n": 16}


@pytest.mark.parametrize("n,divisibility", [(1024, 16), (0, 16), (48, 16), (1000, 8), (3000, 8), (1004, 4),
                                             (1002, 2), (1001, None), (-24, 8), (-7, None), (2**40 + 4, 4)])
def test_integers_are_specialized_for_the_largest_power_of_two_up_to_16(n, divisibility):
    # Triton specializes integers for 16 only; a ragged extent or stride
    # (3000 bf16: rows 6000 bytes apart) keeps its 16-byte alignment here.
    k = kernels.spec_kernel.warmup(fake_pointer("torch.float32", 4096), n, 7, BLOCK=64)
    assert k.specialization.get("n") == divisibility
    attr = f"{{tile.divisibility = {divisibility} : i32}}" if divisibility else "loc("
    assert f"%n: {k.signature['n']} {attr}" in k.asm["tile-src"]


def test_value_one_is_a_constant():
    k = kernels.spec_kernel.warmup(fake_pointer("torch.float16", 4096), 1000, 1, BLOCK=64)
    assert k.constexprs["stride"] == 1
    assert "stride" not in k.signature
    assert k.arg_names == ["x_ptr", "n"]
    assert "%stride" not in k.asm["tile-src"]


def test_do_not_specialize():
    k = kernels.nospec_kernel.warmup(fake_pointer("torch.float32", 4096), 1024, 1, BLOCK=64)
    assert k.signature == {"x_ptr": "*fp32", "n": "i32", "stride": "i32"}
    assert k.specialization == {"x_ptr": 16}


def test_int64_and_float_and_bool_arguments():
    k = kernels.binop_kernel.warmup(fake_pointer("torch.float32", 16), 2**40, 0.5, OP="+")
    assert k.signature == {"out_ptr": "*fp32", "a": "i64", "b": "fp32"}
    k = kernels.binop_kernel.warmup(fake_pointer("torch.bool", 16), True, False, OP="&")
    assert k.signature == {"out_ptr": "*i1", "a": "i1", "b": "i1"}


def test_cache():
    a = kernels.spec_kernel.warmup(fake_pointer("torch.float32", 4096), 1000, 7, BLOCK=64)
    b = kernels.spec_kernel.warmup(fake_pointer("torch.float32", 8192), 1016, 5, BLOCK=64)
    assert a is b  # 1000 and 1016: both divisible by 8, not by 16
    c = kernels.spec_kernel.warmup(fake_pointer("torch.float32", 8192), 1016, 5, BLOCK=128)
    assert c is not a
    assert "tensor<128xi32>" in c.asm["tile"] and "tensor<64xi32>" in a.asm["tile"]
    d = kernels.spec_kernel.warmup(fake_pointer("torch.float32", 8200), 1016, 5, BLOCK=64)
    assert d is not a  # different divisibility
    assert kernels.spec_kernel.warmup(fake_pointer("torch.float32", 4096), 1004, 7, BLOCK=64) is not a  # 4, not 8
    e = kernels.spec_kernel.compile({"x_ptr": "*fp32", "n": "i32", "stride": "i32"},
                                    constexprs={"BLOCK": 64}, specialization={"x_ptr": 16, "n": 8})
    assert e is a
    f = kernels.spec_kernel.warmup(fake_pointer("torch.float32", 4096), 1000, 7, BLOCK=64, num_warps=8)
    assert f is not a and f.num_warps == 8


def test_compile_signature_forms():
    by_list = kernels.spec_kernel.compile(["*fp32", "i32", "i32"], constexprs={"BLOCK": 32})
    by_text = kernels.spec_kernel.compile("*fp32, i32, i32", constexprs={"BLOCK": 32})
    assert by_list is by_text


def test_bad_signatures_raise_compilation_errors():
    with pytest.raises(tilelang.CompilationError, match="invalid type"):
        kernels.spec_kernel.compile({"x_ptr": "*float99", "n": "i32", "stride": "i32"},
                                    constexprs={"BLOCK": 32})
    with pytest.raises(tilelang.CompilationError, match="no value given for the constexpr"):
        kernels.spec_kernel.compile({"x_ptr": "*fp32", "n": "i32", "stride": "i32"})
    # Arguments Python cannot bind are the caller's mistake, as in any call.
    with pytest.raises(TypeError, match=r"spec_kernel\(\): missing a required argument: 'stride'"):
        kernels.spec_kernel.warmup(fake_pointer("torch.float32", 16), 1)


@tilelang.jit
def _copy_rows(x_ptr, y_ptr, n_cols, x_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    tl.store(y_ptr + row * n_cols + cols, tl.load(x_ptr + row * x_stride + cols, mask=mask), mask=mask)


@pytest.mark.parametrize("stride,width", [(1024, "v4.b32"), (1000, "v4.b32"), (1004, "v2.b32"), (1002, "b32"),
                                          (1001, "b16")])
def test_a_rows_stride_gives_loads_as_wide_as_its_divisibility(stride, width):
    # fp16 rows of 1000 columns (the mask is constant over runs of 8), at
    # strides divisible by 16, 8, 4, 2, or odd: 16-byte, 16, 8, 4 and
    # 2-byte loads (gpu/test_divisibility_gpu.py launches them all).
    k = _copy_rows.warmup(fake_pointer("torch.float16", 4096), fake_pointer("torch.float16", 4096), 1000, stride,
                          BLOCK=1024, grid=(4, ))
    loads = set(re.findall(r"ld\.global(?:\.[\w:]+)*?\.((?:v\d\.)?b\d+) ", k.to_ptx("sm_90a").ptx))
    assert loads == {width}, loads
