"""The interpreter on the GPU suite's reductions, argmax/argmin, scans,
and the bundled softmax and layer-norm kernels, against float64 (or exact
integer) references, with sizes that are not multiples of the blocks."""

import numpy as np
import pytest

import tilelang
import tilelang.language as tl
from interp_testing import gpu_kernels, interpreted, run
from tilelang.ops import kernels as bundled

RNG = np.random.default_rng(7)
KERNELS = bundled.define(interpreted, tl)


def _pow2(n):
    return tilelang.next_power_of_2(n)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("m,n", [(1, 1), (5, 300), (37, 64), (100, 129)])
def test_reduce_along_axis(dtype, axis, m, n):
    if np.issubdtype(dtype, np.integer):
        x = RNG.integers(-100, 100, size=(m, n)).astype(dtype)
        acc, low, high = (tl.int32, -128, 127) if dtype == np.int8 else (tl.int32, -2**31, 2**31 - 1)
    else:
        x = RNG.standard_normal((m, n)).astype(dtype)
        acc, low, high = tl.float32, -float("inf"), float("inf")
    block_m, block_n = (_pow2(m), 64) if axis == 0 else (16, _pow2(n))
    outs = m if axis == 1 else n
    s = np.zeros(outs, np.float32 if dtype == np.float32 else np.int32)
    hi, lo = np.zeros(outs, dtype), np.zeros(outs, dtype)
    amax, amin = np.zeros(outs, np.int32), np.zeros(outs, np.int32)
    grid = (tilelang.cdiv(m, block_m),) if axis == 1 else (tilelang.cdiv(n, block_n),)
    run(gpu_kernels.reduce_2d_kernel, grid, x, s, hi, lo, amax, amin, m, n, n,
        AXIS=axis, ACC=acc, LOW=low, HIGH=high, BLOCK_M=block_m, BLOCK_N=block_n)
    x64 = x.astype(np.float64)
    if dtype == np.float32:
        np.testing.assert_allclose(s, x64.sum(axis=axis), rtol=1e-5, atol=1e-4 * np.sqrt(x.shape[axis]))
    else:
        np.testing.assert_array_equal(s, x.astype(np.int64).sum(axis=axis))
    np.testing.assert_array_equal(hi, x.max(axis=axis))
    np.testing.assert_array_equal(lo, x.min(axis=axis))
    np.testing.assert_array_equal(amax, x.argmax(axis=axis))  # the first of equal values
    np.testing.assert_array_equal(amin, x.argmin(axis=axis))


@pytest.mark.parametrize("m,n", [(1, 1), (33, 1000), (130, 77)])
def test_max_with_indices(m, n):
    x = RNG.integers(-5, 5, size=(m, n)).astype(np.float32)  # many ties
    val, idx = np.zeros(m, np.float32), np.zeros(m, np.int32)
    run(gpu_kernels.max_with_indices_kernel, (tilelang.cdiv(m, 4),), x, val, idx, m, n, n,
        BLOCK_M=4, BLOCK_N=_pow2(n))
    np.testing.assert_array_equal(val, x.max(axis=1))
    np.testing.assert_array_equal(idx, x.argmax(axis=1))


@pytest.mark.parametrize("m,n", [(1, 1), (15, 64), (33, 1000)])
def test_full_reduction_to_scalar(m, n):
    x = RNG.standard_normal((m, n)).astype(np.float32)
    block_m = 8
    programs = tilelang.cdiv(m, block_m)
    s, hi, lo = (np.zeros(programs, np.float32) for _ in range(3))
    run(gpu_kernels.full_reduce_kernel, (programs,), x, s, hi, lo, m, n, n, BLOCK_M=block_m, BLOCK_N=128)
    for p in range(programs):
        rows = x[p * block_m:(p + 1) * block_m].astype(np.float64)
        np.testing.assert_allclose(s[p], rows.sum(), rtol=1e-5, atol=1e-3)
        assert hi[p] == rows.max() and lo[p] == rows.min()


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 1024, 5000 + 3])
def test_masked_sum_of_1d_blocks(dtype, n):
    x = (RNG.integers(-128, 127, size=n) if dtype != np.float32 else RNG.standard_normal(n)).astype(dtype)
    block = 1024
    out = np.zeros(tilelang.cdiv(n, block), np.float32 if dtype == np.float32 else np.int32)
    run(gpu_kernels.masked_sum_1d_kernel, (len(out),), x, out, n, BLOCK=block)
    want = [x[i:i + block].astype(np.float64).sum() for i in range(0, n, block)]
    if dtype == np.float32:
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-3)
    else:
        np.testing.assert_array_equal(out, np.array(want).astype(np.int64))  # int8 sums widen to int32


@pytest.mark.parametrize("op", ["sum", "prod"])
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("m,n", [(1, 1), (3, 50), (37, 33)])
def test_scan_2d(op, axis, reverse, m, n):
    if op == "sum":
        x = RNG.integers(-1000, 1000, size=(m, n)).astype(np.int32)
        acc = tl.int32
    else:
        x = RNG.choice([-1.0, 1.0, 0.5, 2.0], size=(m, n)).astype(np.float32)  # exact products
        acc = tl.float32
    out = np.zeros_like(x)
    block_m, block_n = (_pow2(m), 16) if axis == 0 else (4, _pow2(n))
    grid = (tilelang.cdiv(m, block_m),) if axis == 1 else (tilelang.cdiv(n, block_n),)
    run(gpu_kernels.scan_2d_kernel, grid, x, out, m, n, n, OP=op, AXIS=axis, REVERSE=reverse, ACC=acc,
        BLOCK_M=block_m, BLOCK_N=block_n)
    src = np.flip(x, axis) if reverse else x
    want = (np.cumsum if op == "sum" else np.cumprod)(src.astype(np.float64), axis=axis)
    want = np.flip(want, axis) if reverse else want
    np.testing.assert_array_equal(out, want.astype(x.dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["fp32", "fp16"])
@pytest.mark.parametrize("rows,cols", [(1, 1), (37, 300), (5, 1000)])
def test_softmax(dtype, rows, cols):
    x = (RNG.standard_normal((rows, cols)) * 3).astype(dtype)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True).astype(np.float64))
    want = e / e.sum(axis=1, keepdims=True)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-2, atol=1e-3)
    y = np.zeros_like(x)
    run(KERNELS["softmax"], (rows,), y, x, cols, cols, cols, BLOCK_SIZE=_pow2(cols))
    np.testing.assert_allclose(y.astype(np.float64), want, **tol)
    # The chunked two-pass forward (ROW_FITS=False) and the one-block one.
    for fits, block in ((False, 128), (True, _pow2(cols))):
        y = np.zeros_like(x)
        run(KERNELS["softmax_fwd"], (rows,), y, x, cols, cols, cols, ROW_FITS=fits, BLOCK_SIZE=block)
        np.testing.assert_allclose(y.astype(np.float64), want, **tol)


@pytest.mark.parametrize("rows,cols,block", [(1, 1, 16), (7, 1000, 256), (30, 333, 1024)])
def test_layernorm_and_rmsnorm(rows, cols, block):
    x = RNG.standard_normal((rows, cols)).astype(np.float16)
    w = (RNG.random(cols) + 0.5).astype(np.float16)
    b = RNG.standard_normal(cols).astype(np.float16)
    y = np.full_like(x, np.nan)
    mean, rstd = np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    eps = 1e-5
    run(KERNELS["layer_norm_fwd"], (rows,), x, y, w, b, mean, rstd, cols, cols, eps, BLOCK_SIZE=block)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1, keepdims=True)
    r = 1 / np.sqrt(((x64 - mu) ** 2).mean(axis=1, keepdims=True) + eps)
    want = (x64 - mu) * r * w.astype(np.float64) + b.astype(np.float64)
    np.testing.assert_allclose(mean, mu[:, 0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, r[:, 0], rtol=1e-4)
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=2e-3, atol=2e-3)  # fp16 output
    y2 = np.full_like(x, np.nan)
    run(KERNELS["rms_norm_fwd"], (rows,), x, y2, w, rstd, cols, cols, eps, BLOCK_SIZE=block)
    r2 = 1 / np.sqrt((x64 ** 2).mean(axis=1, keepdims=True) + eps)
    np.testing.assert_allclose(y2.astype(np.float64), x64 * r2 * w.astype(np.float64), rtol=2e-3, atol=2e-3)
    # The row kept in registers (ROW_FITS, one read of the row), where it fits the block.
    if cols <= block:
        y, mean, rstd = np.full_like(x, np.nan), np.zeros(rows, np.float32), np.zeros(rows, np.float32)
        run(KERNELS["layer_norm_fwd"], (rows,), x, y, w, b, mean, rstd, cols, cols, eps, BLOCK_SIZE=block,
            ROW_FITS=True)
        np.testing.assert_allclose(mean, mu[:, 0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(rstd, r[:, 0], rtol=1e-4)
        np.testing.assert_allclose(y.astype(np.float64), want, rtol=2e-3, atol=2e-3)
        run(KERNELS["rms_norm_fwd"], (rows,), x, y2, w, rstd, cols, cols, eps, BLOCK_SIZE=block, ROW_FITS=True)
        np.testing.assert_allclose(rstd, r2[:, 0], rtol=1e-4)
        np.testing.assert_allclose(y2.astype(np.float64), x64 * r2 * w.astype(np.float64), rtol=2e-3, atol=2e-3)


def _norm_backward_reference(x, dy, w, rms, eps):
    """float64 (dx, dw, db, mean, rstd) of layer norm (rms false) or RMS norm."""
    x, dy, w = (a.astype(np.float64) for a in (x, dy, w))
    mean = np.zeros((x.shape[0], 1)) if rms else x.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mean) ** 2).mean(axis=1, keepdims=True) + eps)
    x_hat = (x - mean) * rstd
    g = w * dy
    dx = g - x_hat * (x_hat * g).mean(axis=1, keepdims=True)
    if not rms:
        dx -= g.mean(axis=1, keepdims=True)
    return dx * rstd, (dy * x_hat).sum(axis=0), dy.sum(axis=0), mean[:, 0], rstd[:, 0]


@pytest.mark.parametrize("rms", [False, True], ids=["layer", "rms"])
@pytest.mark.parametrize("rows,cols,tile,block,programs", [(1, 33, 2, 256, 1), (37, 300, 4, 512, 9),
                                                           (50, 1000, 1, 1024, 7), (64, 129, 2, 256, 5)])
def test_norm_backward_fused(rms, rows, cols, tile, block, programs):
    """norm_bwd_fused (tiles of `tile` rows, `programs` programs each over
    several tiles) and column_sum against float64: dx, and dw and db from
    the partial sums; what is not asked for is not written."""
    x = (RNG.standard_normal((rows, cols)) * 2 + 0.5).astype(np.float16)
    dy = RNG.standard_normal((rows, cols)).astype(np.float16)
    w = (RNG.random(cols) + 0.5).astype(np.float16)
    dx_ref, dw_ref, db_ref, mean, rstd = _norm_backward_reference(x, dy, w, rms, 1e-5)
    mean, rstd = mean.astype(np.float32), rstd.astype(np.float32)
    has_bias = not rms
    for input_grad, weight_grad in ((True, True), (True, False), (False, True)):
        dx = np.full_like(x, np.nan)
        pw, pb = np.full((programs, cols), np.nan, np.float32), np.full((programs, cols), np.nan, np.float32)
        run(KERNELS["norm_bwd_fused"], (programs,), dx, pw, pb, dy, x, w, mean, rstd, cols, rows, cols, RMS=rms,
            INPUT_GRAD=input_grad, WEIGHT_GRAD=weight_grad, HAS_BIAS=has_bias, ROWS=tile, BLOCK_SIZE=block)
        if input_grad:
            np.testing.assert_allclose(dx.astype(np.float64), dx_ref, rtol=0, atol=4e-3 * np.abs(dx_ref).max())
        else:
            assert np.isnan(dx).all()
        if not weight_grad:
            assert np.isnan(pw).all() and np.isnan(pb).all()
            continue
        assert np.isnan(pb).all() != has_bias
        dw, db = np.full(cols, np.nan, np.float16), np.full(cols, np.nan, np.float16)
        run(KERNELS["column_sum"], (tilelang.cdiv(cols, 64),), dw, pw, db, pb, programs, cols, TWO=has_bias,
            BLOCK_G=4, BLOCK_N=64)
        np.testing.assert_allclose(dw.astype(np.float64), dw_ref, rtol=0, atol=4e-3 * np.abs(dw_ref).max())
        if has_bias:
            np.testing.assert_allclose(db.astype(np.float64), db_ref, rtol=0, atol=4e-3 * np.abs(db_ref).max())
        else:
            assert np.isnan(db).all()


@pytest.mark.parametrize("weight_grad", [False, True])
def test_norm_backward_fused_counting_rows_in_64_bits(weight_grad):
    """norm_bwd_fused with ROWS_64 (the rows counted in 64 bits, which
    tilelang.ops asks for from 2**30 rows on) computes what the 32-bit form
    does: dx, and dw and db from the partial sums, against float64."""
    rows, cols, tile, block, programs = 37, 300, 4, 512, 9
    x = (RNG.standard_normal((rows, cols)) * 2 + 0.5).astype(np.float16)
    dy = RNG.standard_normal((rows, cols)).astype(np.float16)
    w = (RNG.random(cols) + 0.5).astype(np.float16)
    dx_ref, dw_ref, db_ref, mean, rstd = _norm_backward_reference(x, dy, w, False, 1e-5)
    mean, rstd = mean.astype(np.float32), rstd.astype(np.float32)
    dx = np.full_like(x, np.nan)
    pw, pb = np.full((programs, cols), np.nan, np.float32), np.full((programs, cols), np.nan, np.float32)
    run(KERNELS["norm_bwd_fused"], (programs,), dx, pw, pb, dy, x, w, mean, rstd, cols, rows, cols, RMS=False,
        INPUT_GRAD=True, WEIGHT_GRAD=weight_grad, HAS_BIAS=True, ROWS=tile, BLOCK_SIZE=block, ROWS_64=True)
    np.testing.assert_allclose(dx.astype(np.float64), dx_ref, rtol=0, atol=4e-3 * np.abs(dx_ref).max())
    if weight_grad:
        np.testing.assert_allclose(pw.astype(np.float64).sum(axis=0), dw_ref, rtol=0,
                                   atol=1e-4 * np.abs(dw_ref).max())
        np.testing.assert_allclose(pb.astype(np.float64).sum(axis=0), db_ref, rtol=0,
                                   atol=1e-4 * np.abs(db_ref).max())
    else:
        assert np.isnan(pw).all() and np.isnan(pb).all()


@pytest.mark.parametrize("rms", [False, True], ids=["layer", "rms"])
def test_norm_backward_of_long_rows(rms):
    """The path of rows longer than norm_bwd_fused's widest block, at small
    blocks: norm_bwd_dx in chunks, norm_bwd_dwdb's partial sums over groups
    of rows, column_sum of both in one launch."""
    rows, cols, groups = 37, 300, 3
    x = (RNG.standard_normal((rows, cols)) * 2 + 0.5).astype(np.float16)
    dy = RNG.standard_normal((rows, cols)).astype(np.float16)
    w = (RNG.random(cols) + 0.5).astype(np.float16)
    dx_ref, dw_ref, db_ref, mean, rstd = _norm_backward_reference(x, dy, w, rms, 1e-5)
    mean, rstd = mean.astype(np.float32), rstd.astype(np.float32)
    dx = np.full_like(x, np.nan)
    run(KERNELS["norm_bwd_dx"], (rows,), dx, dy, x, w, mean, rstd, cols, cols, RMS=rms, BLOCK_SIZE=128)
    np.testing.assert_allclose(dx.astype(np.float64), dx_ref, rtol=0, atol=4e-3 * np.abs(dx_ref).max())
    pw, pb = np.full((groups, cols), np.nan, np.float32), np.full((groups, cols), np.nan, np.float32)
    run(KERNELS["norm_bwd_dwdb"], (tilelang.cdiv(cols, 64), groups), pw, pb, dy, x, mean, rstd, cols, rows, cols,
        13, RMS=rms, HAS_BIAS=True, BLOCK_M=8, BLOCK_N=64)
    dw, db = np.zeros(cols, np.float16), np.zeros(cols, np.float16)
    run(KERNELS["column_sum"], (tilelang.cdiv(cols, 32),), dw, pw, db, pb, groups, cols, TWO=True, BLOCK_G=2,
        BLOCK_N=32)
    np.testing.assert_allclose(dw.astype(np.float64), dw_ref, rtol=0, atol=4e-3 * np.abs(dw_ref).max())
    np.testing.assert_allclose(db.astype(np.float64), db_ref, rtol=0, atol=4e-3 * np.abs(db_ref).max())
