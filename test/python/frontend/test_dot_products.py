"""tl.dot on batched (3-D) and on fp64 operands, which the tensor-core
lowering does not take: the frontend computes them as elementwise products
summed over K (semantic.py, `_dot_by_products`). Their IR runs on the
numpy tile-IR interpreter (tensor_machine.py) against numpy products,
with an accumulator and in fp16/fp32/int8/fp64; the GPU runs them in
test/python/compat (matmul_dot3d, matmul_fp64)."""

import numpy as np
import pytest

import tilelang
import tilelang.language as tl
from tensor_machine import TensorMachine

RNG = np.random.default_rng(3)
NP = {"fp16": np.float16, "fp32": np.float32, "fp64": np.float64, "i8": np.int8}


@tilelang.jit
def batched_dot(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                ACC: tl.constexpr):
    ob = tl.arange(0, B)[:, None, None]
    a = tl.load(a_ptr + ob * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + ob * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    offs_c = ob * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :]
    if ACC:
        c = tl.dot(a, b, tl.load(c_ptr + offs_c))
    else:
        c = tl.dot(a, b)
    tl.store(c_ptr + offs_c, c)


@tilelang.jit
def plain_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    offs_c = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(c_ptr + offs_c, tl.dot(a, b, tl.load(c_ptr + offs_c)))


def operand(shape, dt):
    if dt == "i8":
        return RNG.integers(-128, 128, shape).astype(np.int8)
    return RNG.standard_normal(shape).astype(NP[dt])


def run(kernel, signature, buffers, constexprs):
    compiled = kernel.compile(signature, constexprs=constexprs)
    machine = TensorMachine(compiled.asm["tile"])
    machine.buffers = {k: v.reshape(-1) for k, v in buffers.items()}
    machine.run(list(buffers))
    return compiled, machine.buffers


@pytest.mark.parametrize("dt, acc_dt", [("fp16", "fp32"), ("fp32", "fp32"), ("i8", "i32"), ("fp64", "fp64")])
@pytest.mark.parametrize("acc", [False, True])
def test_batched_dot(dt, acc_dt, acc):
    B, M, N, K = 2, 16, 32, 16
    a, b = operand((B, M, K), dt), operand((B, K, N), dt)
    c0 = operand((B, M, N), "fp32").astype(np.int32 if acc_dt == "i32" else NP[acc_dt])
    compiled, out = run(batched_dot, f"*{dt},*{dt},*{acc_dt}", {"a": a, "b": b, "c": c0.copy()},
                        dict(B=B, M=M, N=N, K=K, ACC=acc))
    assert "tile.dot" not in compiled.asm["tile"]
    expect = np.matmul(a.astype(np.float64), b.astype(np.float64)) + (c0 if acc else 0)
    got = out["c"].reshape(B, M, N).astype(np.float64)
    if dt == "i8":
        np.testing.assert_array_equal(got, expect)
    else:
        np.testing.assert_allclose(got, expect, rtol=1e-5 if acc_dt == "fp32" else 1e-12, atol=1e-5)


def test_fp64_dot():
    M, N, K = 16, 16, 32
    a, b, c0 = operand((M, K), "fp64"), operand((K, N), "fp64"), operand((M, N), "fp64")
    compiled, out = run(plain_dot, "*fp64,*fp64,*fp64", {"a": a, "b": b, "c": c0.copy()}, dict(M=M, N=N, K=K))
    assert "tile.dot" not in compiled.asm["tile"] and "f64" in compiled.asm["tile"]
    np.testing.assert_allclose(out["c"].reshape(M, N), a @ b + c0, rtol=1e-13, atol=1e-13)
    compiled.to_ptx("sm_90a")
    assert "fma.rn.f64" in compiled.asm["ptx"]


def test_two_dimensional_products_stay_on_tensor_cores():
    compiled = plain_dot.compile("*fp16,*fp16,*fp32", constexprs=dict(M=16, N=16, K=16))
    assert "tile.dot" in compiled.asm["tile"]


def test_products_over_the_tensor_cap_are_a_located_error():
    with pytest.raises(tilelang.CompilationError) as info:
        batched_dot.compile("*fp16,*fp16,*fp32", constexprs=dict(B=4, M=128, N=128, K=64, ACC=False))
    message = str(info.value)
    assert "computes batched (3-D) products elementwise" in message and "[4, 128, 64, 128]" in message
    assert info.value.file.endswith("test_dot_products.py")
