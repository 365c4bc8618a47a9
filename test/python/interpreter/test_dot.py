"""The interpreter on the bundled matmul (every operand dtype, ragged
sizes, transposed operands) and flash-attention kernels, against float64
references. tl.dot accumulates in fp32 from exactly computed products of
fp16/bf16/fp8 operands, fp32 operands are rounded to tf32 as the compiled
kernel rounds them, int8 products are exact in int32."""

import numpy as np
import pytest

import tilelang.language as tl
from interp_testing import bf16_bits, bf16_values, interpreted, run, typed
from tilelang.interpreter.dot import round_tf32
from tilelang.ops import kernels as bundled

RNG = np.random.default_rng(5)
KERNELS = bundled.define(interpreted, tl)
BLOCKS = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=4)


def _elements(a):
    return [s // a.itemsize for s in a.strides]


def _matmul(a, b, c, m, n, k, operand=None):
    operand = operand or (lambda x: x)
    grid = (-(-m // BLOCKS["BLOCK_SIZE_M"]) * -(-n // BLOCKS["BLOCK_SIZE_N"]),)
    run(KERNELS["matmul_kernel"], grid, operand(a), operand(b), c if c.dtype != np.uint16 else operand(c),
        m, n, k, *_elements(a), *_elements(b), *_elements(c), **BLOCKS)


@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (100, 37, 70), (129, 65, 200)])
@pytest.mark.parametrize("dtype", ["fp16", "bf16", "fp32", "int8"])
def test_matmul_every_dtype(dtype, m, n, k):
    if dtype == "int8":
        a = RNG.integers(-128, 128, size=(m, k)).astype(np.int8)
        b = RNG.integers(-128, 128, size=(k, n)).astype(np.int8)
        c = np.zeros((m, n), np.int32)
        _matmul(a, b, c, m, n, k)
        np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))
        return
    a64, b64 = RNG.standard_normal((m, k)), RNG.standard_normal((k, n))
    if dtype == "bf16":
        a, b, c = bf16_bits(a64), bf16_bits(b64), np.zeros((m, n), np.uint16)
        _matmul(a, b, c, m, n, k, lambda x: typed(x, tl.bfloat16))
        exact = bf16_values(a) @ bf16_values(b)
        got = bf16_values(c)
        rtol = 2 ** -8
    else:
        np_dtype = np.float16 if dtype == "fp16" else np.float32
        a, b = a64.astype(np_dtype), b64.astype(np_dtype)
        c = np.zeros((m, n), a.dtype)
        _matmul(a, b, c, m, n, k)
        if dtype == "fp32":  # tf32 operands (the default input_precision)
            exact = round_tf32(a).astype(np.float64) @ round_tf32(b).astype(np.float64)
        else:
            exact = a.astype(np.float64) @ b.astype(np.float64)
        got = c.astype(np.float64)
        rtol = 2 ** -11 if dtype == "fp16" else 2 ** -20
    # One rounding into the output type, plus fp32 accumulation.
    scale = np.abs(a64) @ np.abs(b64)
    assert (np.abs(got - exact) <= rtol * np.abs(exact) + 1e-6 * scale).all()
    if dtype == "fp32":  # tf32 rounding is applied: full-precision products would differ
        assert not np.array_equal(got, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32))


def test_matmul_transposed_operand_strides():
    m, n, k = 70, 50, 90
    a = RNG.standard_normal((k, m)).astype(np.float16).T  # column-major A
    b = RNG.standard_normal((n, k)).astype(np.float16).T
    c = np.zeros((m, n), np.float32)
    _matmul(a, b, c, m, n, k)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, exact, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("k,flags", [(72, dict(K_GROUP=8)), (40, dict(K_GROUP=8)), (70, dict()),
                                     (64, dict(EVEN_K=True)), (64, dict(EVEN_K=True, K_GROUP=8)),
                                     (72, dict(K_GROUP=8, OFFSETS_64=True)), (70, dict(OFFSETS_64=True))])
@pytest.mark.parametrize("layout", ["row", "column"])
def test_matmul_epilogue_k_forms(k, flags, layout):
    """matmul_epilogue_kernel's three K loops against float64, bias and
    gelu: a K that the block (32) does not divide but 8 does, with the last
    block in the loop under a mask of whole groups of 8 (K_GROUP); a K that 8
    does not divide, with a masked step after the loop; an even K; the
    64-bit row offsets of operands past 2**31 elements (OFFSETS_64). Operands
    row- and column-major (the group mask runs along K in A's rows, or in
    B's columns)."""
    import math

    m, n = 70, 50
    a64, b64, bias64 = RNG.standard_normal((m, k)), RNG.standard_normal((k, n)) / k ** 0.5, RNG.standard_normal(n)
    a, b, bias = a64.astype(np.float16), b64.astype(np.float16), bias64.astype(np.float16)
    if layout == "column":
        a, b = np.asfortranarray(a), np.asfortranarray(b)
    c = np.full((m, n), np.nan, np.float16)
    blocks = dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2)
    strides = _elements(a) + _elements(b)
    strides_of_8 = sum(1 << i for i, s in enumerate(strides) if s % 8 == 0)  # the launch's promise
    run(KERNELS["matmul_epilogue_kernel"], (-(-m // 32) * -(-n // 32),), a, b, bias, c, m, n, k, *strides,
        *_elements(c), HAS_BIAS=True, ACTIVATION="gelu", STRIDES_OF_8=strides_of_8, **blocks, **flags)
    z = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)
    want = 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("programs,persistent", [(1, 1), (4, 1), (5, 2), (6, 1)])
@pytest.mark.parametrize("k,flags", [(72, dict(K_GROUP=8)), (40, dict(K_GROUP=8)), (70, dict()),
                                     (64, dict(EVEN_K=True))])
def test_matmul_epilogue_persistent(programs, persistent, k, flags):
    """matmul_epilogue_kernel with PERSISTENT: fewer programs than the 6
    tiles of a 70 x 50 product in 32 x 32 blocks (one program for all, 4
    and 5 programs with 2 and 1 tiles each, one per tile), each looping
    over its tiles; every element is written once with bias and gelu,
    in each K form (K_GROUP's group mask, a masked step after the loop
    with K < 2 blocks, an even K), against float64."""
    import math

    m, n = 70, 50
    a64, b64, bias64 = RNG.standard_normal((m, k)), RNG.standard_normal((k, n)) / k ** 0.5, RNG.standard_normal(n)
    a, b, bias = a64.astype(np.float16), b64.astype(np.float16), bias64.astype(np.float16)
    c = np.full((m, n), np.nan, np.float16)
    blocks = dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2)
    run(KERNELS["matmul_epilogue_kernel"], (programs,), a, b, bias, c, m, n, k, *_elements(a), *_elements(b),
        *_elements(c), HAS_BIAS=True, ACTIVATION="gelu", PERSISTENT=persistent, **blocks, **flags)
    z = a.astype(np.float64) @ b.astype(np.float64) + bias.astype(np.float64)
    want = 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=2e-3, atol=2e-3)


def _attention_reference(q, k, v, causal, scale):
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        n = q.shape[2]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


@pytest.mark.parametrize("offsets_64", [False, True])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n_ctx,heads,kv_heads", [(100, 2, 1), (64, 1, 1)])
def test_attention(causal, n_ctx, heads, kv_heads, offsets_64):
    # OFFSETS_64: the row offsets of a head in 64 bits (long contexts).
    batch, dim = 1, 64
    q = RNG.standard_normal((batch, heads, n_ctx, dim)).astype(np.float16)
    k = RNG.standard_normal((batch, kv_heads, n_ctx, dim)).astype(np.float16)
    v = RNG.standard_normal((batch, kv_heads, n_ctx, dim)).astype(np.float16)
    out = np.zeros_like(q)
    scale = dim ** -0.5
    block_m, block_n = 32, 16
    strides = [s for t in (q, k, v, out) for s in _elements(t)]
    run(KERNELS["attention_fwd_kernel"], (-(-n_ctx // block_m), batch * heads), q, k, v, out, scale, *strides,
        heads, kv_heads, n_ctx, HEAD_DIM=dim, CAUSAL=causal, BLOCK_M=block_m, BLOCK_N=block_n,
        WHOLE_BLOCKS=n_ctx % block_n == 0, OFFSETS_64=offsets_64)
    want = _attention_reference(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), causal, scale)
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=1e-2, atol=2e-3)


@interpreted
def block_ptr_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                     stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Block pointers (tl.make_block_ptr / tl.advance) with boundary checks:
    # the ragged edges read as zero and are not written.
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BM, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1), padding_option="zero"),
                     acc)
        a = tl.advance(a, (0, BK))
        b = tl.advance(b, (BK, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c, acc, boundary_check=(0, 1))


def test_block_pointer_matmul_with_ragged_edges():
    m, n, k = 70, 45, 100
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    c = np.full((m, n), np.nan, np.float32)
    block_ptr_matmul[(-(-m // 32), -(-n // 16))](a, b, c, m, n, k, *_elements(a), *_elements(b), *_elements(c),
                                                 BM=32, BN=16, BK=32)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-4)
