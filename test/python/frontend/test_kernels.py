"""The acceptance kernels, written as in Triton's tutorials, compile to tile IR
that libtilelang verifies."""

import re
import time

import kernels
import pytest

import tilelang


def _ops(text):
    return re.findall(r"\b(?:tile|arith|math|scf)\.[a-z_.]+", text)


def test_vector_add():
    k = kernels.add_kernel.compile(
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"},
        constexprs={"BLOCK_SIZE": 1024})
    ir = k.asm["tile"]
    assert "tile.make_range 0 to 1024 : tensor<1024xi32>" in ir
    assert re.search(r"tile.load %\w+, %\w+ : tensor<1024x!tile.ptr<f32>>", ir)
    assert re.search(r"tile.store %\w+, %\w+, %\w+ : tensor<1024x!tile.ptr<f32>>", ir)
    assert "arith.addf" in ir
    assert k.name == "add_kernel"
    assert k.arg_names == ["x_ptr", "y_ptr", "output_ptr", "n_elements"]
    assert k.constexprs == {"BLOCK_SIZE": 1024}
    assert "module" in k.asm["tile-opt"]


def test_fused_softmax():
    k = kernels.softmax_kernel.compile("*fp32,*fp32,i32,i32,i32,i32",
                                       constexprs={"BLOCK_SIZE": 1024, "num_stages": 3})
    ir = k.asm["tile"]
    assert "scf.for" in ir and "tile.num_programs x" in ir
    assert ir.count("tile.reduce ") == 2
    assert "arith.maxnumf" in ir and "math.exp" in ir and "arith.divf" in ir
    # Masked load with -inf as `other`.
    assert re.search(r"tile.load %\w+, %\w+, %\w+ : tensor<1024x!tile.ptr<f32>>", ir)
    assert "0xFF800000" in k.asm["tile-src"]


def test_layernorm_forward():
    k = kernels._layer_norm_fwd_fused.compile(
        "*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,i32,i32,fp32", constexprs={"BLOCK_SIZE": 1024})
    ir = k.asm["tile"]
    assert ir.count("scf.for") == 3
    assert "iter_args" in ir
    assert "math.sqrt" in ir and "arith.select" in ir
    assert "arith.extf" in ir and "arith.truncf" in ir  # fp16 loads, fp32 math, fp16 store
    assert "arith.sitofp" in ir  # sum / N


def test_matmul_grouped():
    sig = dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32",
               stride_am="i32", stride_ak="i32", stride_bk="i32", stride_bn="i32",
               stride_cm="i32", stride_cn="i32")
    meta = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=32, GROUP_SIZE_M=8,
                ACTIVATION="leaky_relu")
    start = time.perf_counter()
    k = kernels.matmul_kernel.compile(sig, constexprs=meta,
                                      specialization=["a_ptr", "b_ptr", "c_ptr"])
    assert time.perf_counter() - start < 5
    ir = k.asm["tile"]
    assert "tile.dot" in ir
    assert "tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>" in ir
    assert re.search(r"scf.for .* iter_args\(.*\) -> \(tensor<128x128xf32>, "
                     r"tensor<128x32x!tile.ptr<f16>>, tensor<32x128x!tile.ptr<f16>>\)", ir)
    assert "arith.divsi" in ir and "arith.remsi" in ir and "arith.minsi" in ir
    assert "tile.expand_dims" in ir and "tile.broadcast" in ir
    assert "arith.truncf" in ir
    assert ir.count("tile.divisibility = 16") == 3
    # The activation, a @jit function, was inlined.
    assert "arith.select" in ir
    # Without the activation, no select.
    k2 = kernels.matmul_kernel.compile(sig, constexprs=dict(meta, ACTIVATION=""))
    assert "arith.select" not in k2.asm["tile"]
    assert k.frontend_seconds < 1.0


def test_cumsum():
    ir = kernels.cumsum_kernel.compile("*i32,*i32,i32", constexprs={"BLOCK": 128}).asm["tile"]
    assert "tile.scan" in ir and "tile.scan.return" in ir and "arith.addi" in ir


def test_argmax():
    ir = kernels.argmax_kernel.compile("*fp32,*i32,i32,i32", constexprs={"BLOCK": 256}).asm["tile"]
    assert re.search(r"tile.reduce %\w+, %\w+ axis = 0 : tensor<256xf32>, tensor<256xi32> -> f32, i32", ir)
    assert "tile.reduce.return" in ir


def test_histogram():
    ir = kernels.histogram_kernel.compile("*i32,*i32,i32",
                                          constexprs={"NUM_BINS": 64, "BLOCK": 256}).asm["tile"]
    assert re.search(r"tile.atomic_rmw add, acq_rel, gpu, %\w+, %\w+, %\w+ : tensor<256x!tile.ptr<i32>>", ir)


def test_unary_math_and_casts():
    ir = kernels.unary_kernel.compile("*fp32,*fp32", constexprs={"BLOCK": 64}).asm["tile"]
    for op in ("math.exp2", "math.log ", "math.log2", "math.rsqrt", "math.absf", "math.sin",
               "math.cos", "math.erf", "math.floor", "math.ceil", "math.sqrt", "math.exp ",
               "arith.negf", "tile.bitcast", "arith.sitofp", "arith.truncf", "arith.extf",
               "arith.minnumf", "arith.xori", "arith.ori", "arith.select"):
        assert op in ir, op


def test_control_flow():
    k = kernels.control_kernel.compile("*fp32,i32,i32", constexprs={"BLOCK": 16, "UNROLL": 3},
                                       debug=True)
    ir = k.asm["tile"]
    assert "scf.while" in ir and "scf.condition" in ir
    assert re.search(r"scf.if %\w+ -> \(f32\)", ir)
    assert "tile.reduce" in ir and "tile.scan" in ir
    assert 'tile.assert' in ir and '"out of range"' in ir
    assert "tile.reshape" in ir
    # static_range is unrolled: no scf.for.
    assert "scf.for" not in ir
    # device_assert is dropped without debug.
    k2 = kernels.control_kernel.compile("*fp32,i32,i32", constexprs={"BLOCK": 16, "UNROLL": 3})
    assert "tile.assert" not in k2.asm["tile"]


def test_launch_compiles_first():
    # Integers where pointers belong fail at compile time, before any
    # driver is needed.
    with pytest.raises(tilelang.CompilationError, match="tl.load expects a pointer"):
        kernels.add_kernel[(1,)](1, 2, 3, 4, BLOCK_SIZE=16)
    with pytest.raises(RuntimeError):
        kernels.add_kernel(1, 2, 3, 4)


def test_helpers():
    assert tilelang.cdiv(10, 4) == 3
    assert tilelang.next_power_of_2(1000) == 1024
    assert tilelang.next_power_of_2(1) == 1
    assert tilelang.next_power_of_2(64) == 64
