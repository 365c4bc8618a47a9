"""Signatures from arguments, divisibility and value-1 specialization, the cache."""

import kernels
import pytest

import tilelang
from tilelang_testing import fake_pointer


def test_signature_from_arguments():
    k = kernels.spec_kernel.warmup(fake_pointer("torch.int32", 4096), 1000, 7, BLOCK=64, grid=(1,))
    assert k.signature == {"x_ptr": "*i32", "n": "i32", "stride": "i32"}
    assert k.specialization == {"x_ptr": 16}
    assert "%x_ptr: !tile.ptr<i32> {tile.divisibility = 16 : i32}" in k.asm["tile-src"]
    assert "%n: i32 loc(" in k.asm["tile-src"]  # 1000 % 16 != 0


def test_divisibility_only_when_divisible():
    k = kernels.spec_kernel.warmup(fake_pointer("float32", 4100), 1024, 3, BLOCK=64)
    src = k.asm["tile-src"]
    assert "%x_ptr: !tile.ptr<f32> loc(" in src
    assert "%n: i32 {tile.divisibility = 16 : i32}" in src
    assert k.specialization == {"n": 16}


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
    b = kernels.spec_kernel.warmup(fake_pointer("torch.float32", 8192), 999, 5, BLOCK=64)
    assert a is b
    c = kernels.spec_kernel.warmup(fake_pointer("torch.float32", 8192), 999, 5, BLOCK=128)
    assert c is not a
    assert "tensor<128xi32>" in c.asm["tile"] and "tensor<64xi32>" in a.asm["tile"]
    d = kernels.spec_kernel.warmup(fake_pointer("torch.float32", 8200), 999, 5, BLOCK=64)
    assert d is not a  # different divisibility
    e = kernels.spec_kernel.compile({"x_ptr": "*fp32", "n": "i32", "stride": "i32"},
                                    constexprs={"BLOCK": 64}, specialization={"x_ptr": 16})
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
