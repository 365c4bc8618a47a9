"""Triton's type rules: integer promotion, int/float mixing, `/`, `//`, `%`,
comparisons, Python literals, broadcasting and indexing."""

import re

import kernels
import tilelang
import tilelang.language as tl
import pytest


@tilelang.jit
def divide(out_ptr, a, b, MODE: tl.constexpr):
    if MODE == 0:
        r = tl.div_rn(a, b)
    elif MODE == 1:
        r = tl.fdiv(a, b, ieee_rounding=True)
    elif MODE == 2:
        r = tl.fdiv(a, b)
    else:
        r = a / b
    tl.store(out_ptr, r)


def _binop(a, b, op, out):
    k = kernels.binop_kernel.compile({"out_ptr": out, "a": a, "b": b}, constexprs={"OP": op})
    return k.asm["tile-src"]


def test_int32_plus_int64():
    ir = _binop("i32", "i64", "+", "*i64")
    assert "arith.extsi %a : i32 to i64" in ir
    assert re.search(r"arith.addi %\w+, %b : i64", ir)


def test_int_plus_float():
    ir = _binop("i32", "fp32", "+", "*fp32")
    assert "arith.sitofp %a : i32 to f32" in ir
    assert re.search(r"arith.addf %\w+, %b : f32", ir)


def test_unsigned_plus_float():
    ir = _binop("u32", "fp32", "*", "*fp32")
    assert "arith.uitofp %a : i32 to f32" in ir


def test_fp16_plus_fp32():
    ir = _binop("fp16", "fp32", "+", "*fp32")
    assert "arith.extf %a : f16 to f32" in ir
    assert re.search(r"arith.addf %\w+, %b : f32", ir)


def test_fp16_plus_bf16_is_fp16():
    ir = _binop("fp16", "bf16", "+", "*fp16")
    # bf16 -> fp16 goes through fp32.
    assert "arith.extf %b : bf16 to f32" in ir
    assert re.search(r"arith.truncf %\w+ : f32 to f16", ir)
    assert re.search(r"arith.addf %a, %\w+ : f16", ir)


def test_true_division_of_ints_is_fp32():
    ir = _binop("i32", "i32", "/", "*fp32")
    assert "arith.sitofp %a : i32 to f32" in ir and "arith.sitofp %b : i32 to f32" in ir
    assert "arith.divf" in ir


def test_fp16_division_is_fp32():
    ir = _binop("fp16", "fp16", "/", "*fp32")
    assert "arith.extf %a : f16 to f32" in ir
    # fp32 division is approximate, as in Triton (div.full.f32 on the GPU).
    assert re.search(r"arith.divf %\w+, %\w+ fastmath<afn> : f32", ir)


def test_div_rn_and_ieee_fdiv_round_to_nearest():
    # tl.div_rn and tl.fdiv(..., ieee_rounding=True) divide exactly; the
    # operator and tl.fdiv's default allow div.full's 2 ulp.
    for mode, flags in ((0, ""), (1, ""), (2, " fastmath<afn>"), (3, " fastmath<afn>")):
        ir = divide.compile({"out_ptr": "*fp32", "a": "fp32", "b": "fp32"}, constexprs={"MODE": mode}).asm["tile-src"]
        assert len(re.findall(r"arith.divf", ir)) == 1
        assert re.search(rf"arith.divf %\w+, %\w+{flags} : f32", ir), (mode, ir)
    # f64 is always exact.
    assert re.search(r"arith.divf %\w+, %\w+ : f64", _binop("fp64", "fp64", "/", "*fp64"))


def test_floordiv_and_mod_use_c_semantics():
    assert "arith.divsi %a, %b : i32" in _binop("i32", "i32", "//", "*i32")
    assert "arith.remsi %a, %b : i32" in _binop("i32", "i32", "%", "*i32")
    assert "arith.divui %a, %b : i32" in _binop("u32", "u32", "//", "*u32")
    assert "arith.remf %a, %b : f32" in _binop("fp32", "fp32", "%", "*fp32")


def test_mixed_sign_division_is_an_error():
    import tilelang
    with pytest.raises(tilelang.CompilationError, match="signedness"):
        _binop("i32", "u32", "//", "*i32")


def test_comparison_gives_i1():
    ir = _binop("i32", "i64", "<", "*i1")
    assert re.search(r"arith.cmpi slt, %\w+, %b : i64", ir)
    ir = _binop("fp32", "fp32", "<", "*i1")
    assert "arith.cmpf olt, %a, %b : f32" in ir
    ir = _binop("u32", "u32", "<", "*i1")
    assert "arith.cmpi ult, %a, %b : i32" in ir


def test_bitwise_and_shifts():
    assert "arith.andi %a, %b : i32" in _binop("i32", "i32", "&", "*i32")
    assert "arith.shrsi %a, %b : i32" in _binop("i32", "i32", ">>", "*i32")
    assert "arith.shrui %a, %b : i32" in _binop("u32", "u32", ">>", "*u32")


def test_maximum():
    assert "arith.maxsi" in _binop("i32", "i32", "max", "*i32")
    assert "arith.maxnumf" in _binop("fp32", "fp16", "max", "*fp32")


def test_int8_plus_int8_stays_int8():
    assert "arith.addi %a, %b : i8" in _binop("i8", "i8", "+", "*i8")


def test_literals_are_weakly_typed():
    # fp16 tensor * 2.0 stays fp16; int32 tensor * 2 stays int32.
    ir = kernels.literal_kernel.compile("*fp16,*fp16", constexprs={"LIT": 2.0, "BLOCK": 16}).asm["tile-src"]
    assert re.search(r"arith.mulf %\w+, %\w+ : tensor<16xf16>", ir)
    ir = kernels.literal_kernel.compile("*i32,*i32", constexprs={"LIT": 2, "BLOCK": 16}).asm["tile-src"]
    assert re.search(r"arith.muli %\w+, %\w+ : tensor<16xi32>", ir)
    assert "arith.constant dense<2> : tensor<16xi32>" in ir
    # int tensor * 1.5 becomes fp32.
    ir = kernels.literal_kernel.compile("*fp32,*i32", constexprs={"LIT": 1.5, "BLOCK": 16}).asm["tile-src"]
    assert "arith.sitofp" in ir and re.search(r"arith.mulf %\w+, %\w+ : tensor<16xf32>", ir)
    # int8 tensor * 1000 does not fit: promoted to int32.
    ir = kernels.literal_kernel.compile("*i32,*i8", constexprs={"LIT": 1000, "BLOCK": 16}).asm["tile-src"]
    assert re.search(r"arith.muli %\w+, %\w+ : tensor<16xi32>", ir)


def test_broadcasting_and_indexing():
    ir = kernels.broadcast_kernel.compile("*fp32", constexprs={"BLOCK_M": 16, "BLOCK_N": 32}).asm["tile-src"]
    assert "tile.expand_dims %0 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>" in ir
    assert "tile.expand_dims %1 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>" in ir
    assert re.search(r"tile.broadcast %\w+ : tensor<16x1xi32> -> tensor<16x32xi32>", ir)
    assert re.search(r"tile.broadcast %\w+ : tensor<1x32xi32> -> tensor<16x32xi32>", ir)
    assert re.search(r"tile.splat %out_ptr : !tile.ptr<f32> -> tensor<16x32x!tile.ptr<f32>>", ir)
    assert re.search(r"arith.sitofp %\w+ : tensor<16x32xi32> to tensor<16x32xf32>", ir)


@tilelang.jit
def type_attributes(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    # Triton's fused-attention tutorial writes acc.to(Out.type.element_ty).
    tl.static_assert(out_ptr.type.element_ty == tl.float16)
    tl.static_assert(x.type.element_ty == tl.float32)
    tl.static_assert(x.type.scalar == tl.float32)
    tl.static_assert(x.type.shape == (BLOCK, ))
    tl.static_assert((x_ptr + offs).type.element_ty == tl.pointer_type(tl.float32))
    tl.store(out_ptr + offs, x.to(out_ptr.type.element_ty))


def test_type_attribute_is_tritons():
    ir = type_attributes.compile("*fp32,*fp16", constexprs={"BLOCK": 64}).asm["tile"]
    assert "arith.truncf" in ir and "tensor<64xf16>" in ir
