"""tl.math's tanh/pow/log1p/expm1, the libdevice module, and tl.cast
(issue 21, item 2): the ops each emits, PTX for sm_90a and sm_80 without a
call to any library, and located errors for what is not supported.
test/python/gpu/test_math_gpu.py checks the values against float64."""

import inspect
import pathlib
import re

import pytest

import tilelang
import tilelang.language as tl
from tilelang.language.extra import libdevice
from tilelang.language.extra.cuda import libdevice as cuda_libdevice

FILE = str(pathlib.Path(__file__).resolve())


def ir(kernel, signature, constexprs=None):
    return kernel.compile(signature, constexprs=constexprs or {}).asm["tile"]


def located_error(kernel, signature, snippet):
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile(signature)
    err = info.value
    lines, first = inspect.getsourcelines(kernel.fn)
    index = next(i for i, line in enumerate(lines) if snippet in line)
    assert (err.file, err.line, err.column) == (FILE, first + index, lines[index].index(snippet) + 1), str(err)
    return str(err)


@tilelang.jit
def math_kernel(x_ptr, y_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 128))
    y = tl.load(y_ptr + tl.arange(0, 128))
    tl.store(out_ptr + tl.arange(0, 128), tl.math.tanh(x))
    tl.store(out_ptr + 128 + tl.arange(0, 128), tl.math.pow(x, y))
    tl.store(out_ptr + 256 + tl.arange(0, 128), tl.math.log1p(x))
    tl.store(out_ptr + 384 + tl.arange(0, 128), tl.math.expm1(x))


def test_tl_math_functions_emit_math_ops():
    text = ir(math_kernel, "*fp32,*fp32,*fp32")
    for op in ("math.tanh", "math.powf", "math.log1p", "math.expm1"):
        assert re.search(rf"{op} %\w+(, %\w+)? : tensor<128xf32>", text), op
    ptx = math_kernel.compile("*fp32,*fp32,*fp32").to_ptx("sm_90a").ptx
    assert "call" not in ptx and "ex2.approx" in ptx


@tilelang.jit
def libdevice_kernel(x_ptr, y_ptr, i_ptr, out_ptr, iout_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    i = tl.load(i_ptr + offs)
    r = libdevice.tanh(x) + libdevice.pow(x, y) + libdevice.sinh(x) + libdevice.cosh(x)
    r += libdevice.exp10(x) + libdevice.hypot(x, y) + libdevice.copysign(x, y) + libdevice.fmod(x, y)
    r += libdevice.trunc(x) + libdevice.rint(x) + libdevice.round(x) + libdevice.log10(x)
    r += tl.extra.cuda.libdevice.erf(x) + libdevice.div_rn(x, y) + libdevice.fast_dividef(x, y)
    tl.store(out_ptr + offs, r)
    flags = libdevice.isnan(x) + 2 * libdevice.isinf(x) + 4 * libdevice.signbit(x) + 8 * libdevice.finitef(x)
    bits = libdevice.float_as_int(x) + libdevice.float2int_rd(x) + libdevice.float2int_rn(x)
    tl.store(iout_ptr + offs, flags + bits + libdevice.clz(i) + libdevice.popc(i) + libdevice.mulhi(i, i))


def test_libdevice_functions_map_to_lowered_ops():
    text = ir(libdevice_kernel, "*fp32,*fp32,*i32,*fp32,*i32")
    for op in ("math.tanh", "math.powf", "math.expm1", "math.exp ", "math.exp2", "math.sqrt",
               "math.copysign", "arith.remf", "math.trunc", "math.roundeven", "math.round ",
               "math.log10", "math.erf", "arith.cmpf uno", "math.ctlz", "math.ctpop",
               "arith.mulsi_extended", "math.floor", "tile.bitcast"):
        assert op in text, op
    # div_rn is IEEE division, fast_dividef the approximate one.
    assert re.search(r"arith\.divf %\w+, %\w+ : tensor", text)
    assert "fastmath<afn>" in text
    for arch in ("sm_90a", "sm_80"):
        ptx = libdevice_kernel.compile("*fp32,*fp32,*i32,*fp32,*i32").to_ptx(arch).ptx
        assert "call" not in ptx


def test_the_libdevice_modules_name_the_same_functions():
    assert libdevice.tanh is cuda_libdevice.tanh is tl.extra.cuda.libdevice.tanh
    import tilelang.language.extra.libdevice as flat

    assert flat.pow is cuda_libdevice.pow


@tilelang.jit
def unsupported_libdevice(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, libdevice.atan2(x, x))


@tilelang.jit
def pow_of_ints(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, tl.math.pow(x, 2))


def test_unsupported_libdevice_functions_are_located_errors():
    assert "libdevice.atan2 is not supported yet" in located_error(unsupported_libdevice, "*fp32",
                                                                   "libdevice.atan2(x, x)")
    assert "pow expects floating-point operands" in located_error(pow_of_ints, "*i32",
                                                                  "tl.math.pow(x, 2)")


@tilelang.jit
def cast_kernel(x_ptr, h_ptr, b_ptr, i_ptr, MODE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    tl.store(h_ptr + tl.arange(0, 64), tl.cast(x, tl.float16, fp_downcast_rounding=MODE))
    tl.store(b_ptr + tl.arange(0, 64), x.to(tl.bfloat16, fp_downcast_rounding=MODE))
    tl.store(i_ptr + tl.arange(0, 64), tl.cast(x, tl.int32, bitcast=True))


def test_cast_rounding_modes():
    sig = "*fp32,*fp16,*bf16,*i32"
    rtne = ir(cast_kernel, sig, {"MODE": "rtne"})
    rtz = ir(cast_kernel, sig, {"MODE": "rtz"})
    assert "arith.select" not in rtne and rtne.count("arith.truncf") == 2
    # Toward zero: the nearest value, stepped back one unit in the last
    # place where it is further from zero than x.
    assert rtz.count("arith.cmpf ogt") == 2 and rtz.count("arith.subi") == 2
    assert re.search(r"tile\.bitcast %\w+ : tensor<64xf32> -> tensor<64xi32>", rtz)
    ptx = cast_kernel.compile(sig, constexprs={"MODE": "rtz"}).to_ptx("sm_90a").ptx
    assert "call" not in ptx


@tilelang.jit
def bad_rounding(x_ptr, y_ptr):
    x = tl.load(x_ptr)
    tl.store(y_ptr, tl.cast(x, tl.float64, fp_downcast_rounding="rtz"))


@tilelang.jit
def unknown_rounding(x_ptr, y_ptr):
    x = tl.load(x_ptr)
    tl.store(y_ptr, x.to(tl.float16, fp_downcast_rounding="rtn"))


def test_cast_rounding_errors():
    assert "applies only to floating-point conversions to a narrower type" in \
        located_error(bad_rounding, "*fp32,*fp64", "tl.cast(")
    assert "must be 'rtne' or 'rtz'" in located_error(unknown_rounding, "*fp32,*fp16", "x.to(")


@tilelang.jit
def sqrt_kernel(x_ptr, d_ptr, out_ptr, dout_ptr):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.sqrt(x))
    tl.store(out_ptr + 128 + offs, tl.sqrt_rn(x))
    tl.store(out_ptr + 256 + offs, libdevice.sqrt(x))
    tl.store(dout_ptr + offs, tl.sqrt(tl.load(d_ptr + offs)))


def test_sqrt_is_fast_and_sqrt_rn_rounds_to_nearest():
    # As in Triton: tl.sqrt on fp32 is the fast square root (one
    # sqrt.approx.ftz.f32), tl.sqrt_rn and libdevice's sqrt round to nearest
    # (IEEE sqrt), and fp64 has only the rounded one.
    text = ir(sqrt_kernel, "*fp32,*fp64,*fp32,*fp64")
    assert len(re.findall(r"math.sqrt %\w+ fastmath<afn> : tensor<128xf32>", text)) == 1
    assert len(re.findall(r"math.sqrt %\w+ : tensor<128xf32>", text)) == 2
    assert re.search(r"math.sqrt %\w+ : tensor<128xf64>", text)
    ptx = sqrt_kernel.compile("*fp32,*fp64,*fp32,*fp64").to_ptx("sm_90a").ptx
    assert ptx.count("sqrt.approx.ftz.f32") == 1
    assert "sqrt.rn.f32" in ptx and "sqrt.rn.f64" in ptx
