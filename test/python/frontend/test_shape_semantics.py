"""What the IR of tl.join, split, interleave, cat, flip, sort, topk, gather,
histogram, ravel and reduce_or (issue 21, item 3) and of tl.cast's rounding
toward zero (item 2) computes, on the CPU:
the verified tile IR runs on a numpy interpreter (tensor_machine.py) and is
compared with numpy on random inputs, in several element types and shapes.
test/python/gpu/test_shape_ops_gpu.py runs the same builtins on a GPU."""

import numpy as np
import pytest

import tilelang
import tilelang.language as tl
from tensor_machine import TensorMachine

RNG = np.random.default_rng(21)
TYPES = {"fp32": np.float32, "fp16": np.float16, "i32": np.int32}


def random(n, dt):
    if dt == "i32":
        return RNG.integers(-2**31, 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    return RNG.standard_normal(n).astype(TYPES[dt])


def run(kernel, signature, buffers, constexprs=None, scalars=()):
    ir = kernel.compile(signature, constexprs=constexprs or {}).asm["tile"]
    machine = TensorMachine(ir)
    machine.buffers = buffers
    machine.run(list(buffers) + list(scalars))
    return buffers


@tilelang.jit
def join_split_cat(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    y = tl.load(y_ptr + rows * N + cols)
    j = tl.join(x, y)
    tl.store(out_ptr + (rows * N + cols)[:, :, None] * 2 + tl.arange(0, 2)[None, None, :], j)
    a, b = tl.split(j)
    tl.store(out_ptr + 2 * M * N + rows * N + cols, b)
    tl.store(out_ptr + 3 * M * N + rows * N + cols, a)
    tl.store(out_ptr + 4 * M * N + rows * (2 * N) + tl.arange(0, 2 * N)[None, :], tl.interleave(x, y))
    tl.store(out_ptr + 6 * M * N + tl.arange(0, 2 * M)[:, None] * N + cols, tl.cat(x, y))
    tl.store(out_ptr + 8 * M * N + rows * N + cols, tl.flip(x, 0))
    tl.store(out_ptr + 9 * M * N + rows * N + cols, x.flip())
    tl.store(out_ptr + 10 * M * N + tl.arange(0, M * N), tl.ravel(y))


@pytest.mark.parametrize("dt", sorted(TYPES))
@pytest.mark.parametrize("M, N", [(4, 8), (8, 2), (1, 16)])
def test_join_split_interleave_cat_flip_ravel(dt, M, N):
    x, y = random(M * N, dt), random(M * N, dt)
    out = np.zeros(11 * M * N, TYPES[dt])
    run(join_split_cat, f"*{dt},*{dt},*{dt}", {"x": x, "y": y, "out": out}, {"M": M, "N": N})
    X, Y = x.reshape(M, N), y.reshape(M, N)
    stacked = np.stack([X, Y], axis=-1)
    np.testing.assert_array_equal(out[:2 * M * N].reshape(M, N, 2), stacked)
    np.testing.assert_array_equal(out[2 * M * N:3 * M * N].reshape(M, N), Y)
    np.testing.assert_array_equal(out[3 * M * N:4 * M * N].reshape(M, N), X)
    np.testing.assert_array_equal(out[4 * M * N:6 * M * N].reshape(M, 2 * N), stacked.reshape(M, 2 * N))
    np.testing.assert_array_equal(out[6 * M * N:8 * M * N].reshape(2 * M, N), np.concatenate([X, Y]))
    np.testing.assert_array_equal(out[8 * M * N:9 * M * N].reshape(M, N), X[::-1])
    np.testing.assert_array_equal(out[9 * M * N:10 * M * N].reshape(M, N), X[:, ::-1])
    np.testing.assert_array_equal(out[10 * M * N:], y)


@tilelang.jit
def sort_topk(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    tl.store(out_ptr + rows * N + cols, tl.sort(x))
    tl.store(out_ptr + M * N + rows * N + cols, tl.sort(x, descending=True))
    tl.store(out_ptr + 2 * M * N + rows * K + tl.arange(0, K)[None, :], tl.topk(x, K))


@pytest.mark.parametrize("dt", sorted(TYPES))
@pytest.mark.parametrize("M, N, K", [(2, 16, 4), (2, 32, 32), (1, 2, 1), (4, 1, 1), (1, 64, 8)])
def test_sort_and_topk(dt, M, N, K):
    x = random(M * N, dt)
    if N > 4:
        x[1:4] = x[0]  # ties
    out = np.zeros(2 * M * N + M * K, TYPES[dt])
    run(sort_topk, f"*{dt},*{dt}", {"x": x, "out": out}, {"M": M, "N": N, "K": K})
    X = x.reshape(M, N)
    np.testing.assert_array_equal(out[:M * N].reshape(M, N), np.sort(X, axis=1))
    np.testing.assert_array_equal(out[M * N:2 * M * N].reshape(M, N), np.sort(X, axis=1)[:, ::-1])
    np.testing.assert_array_equal(out[2 * M * N:].reshape(M, K), np.sort(X, axis=1)[:, ::-1][:, :K])


@tilelang.jit
def gather_histogram(x_ptr, i_ptr, j_ptr, h_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr,
                     K: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    i = tl.load(i_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    j = tl.load(j_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], tl.gather(x, i, 1))
    tl.store(out_ptr + M * K + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :], tl.gather(x, j, 0))
    v = tl.load(i_ptr + tl.arange(0, M * K))
    tl.store(h_ptr + tl.arange(0, BINS), tl.histogram(v, BINS, mask=tl.arange(0, M * K) % 3 != 0))
    tl.store(h_ptr + BINS + tl.arange(0, M), tl.reduce_or(i, 1))


@pytest.mark.parametrize("dt", sorted(TYPES))
def test_gather_histogram_reduce_or(dt):
    M, N, K, BINS = 4, 8, 16, 8
    x = random(M * N, dt)
    i = RNG.integers(0, N, M * K).astype(np.int32)
    j = RNG.integers(0, M, K * N).astype(np.int32)
    h = np.zeros(BINS + M, np.int32)
    out = np.zeros(M * K + K * N, TYPES[dt])
    run(gather_histogram, f"*{dt},*i32,*i32,*i32,*{dt}", {"x": x, "i": i, "j": j, "h": h, "out": out},
        {"M": M, "N": N, "K": K, "BINS": BINS})
    X = x.reshape(M, N)
    np.testing.assert_array_equal(out[:M * K].reshape(M, K), np.take_along_axis(X, i.reshape(M, K), 1))
    np.testing.assert_array_equal(out[M * K:].reshape(K, N), np.take_along_axis(X, j.reshape(K, N), 0))
    kept = i[np.arange(M * K) % 3 != 0]
    np.testing.assert_array_equal(h[:BINS], np.bincount(kept, minlength=BINS)[:BINS])
    np.testing.assert_array_equal(h[BINS:], np.bitwise_or.reduce(i.reshape(M, K), axis=1))


@tilelang.jit
def toward_zero_kernel(x_ptr, h_ptr, d_ptr, f_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(h_ptr + tl.arange(0, N), tl.cast(x, tl.float16, fp_downcast_rounding="rtz"))
    d = tl.load(d_ptr + tl.arange(0, N))
    tl.store(f_ptr + tl.arange(0, N), d.to(tl.float32, fp_downcast_rounding="rtz"))


def test_cast_toward_zero():
    # tl.cast's rounding toward zero (issue 21, item 2): never further from
    # zero than the input, and the next value away from zero is further.
    N = 1024
    x = (RNG.standard_normal(N) * np.exp(RNG.uniform(-20, 12, N))).astype(np.float32)
    x[:4] = [np.inf, -np.inf, 1.0, 70000.0]
    d = RNG.standard_normal(N) * np.exp(RNG.uniform(-100, 100, N))
    h, f = np.zeros(N, np.float16), np.zeros(N, np.float32)
    with np.errstate(over="ignore"):
        run(toward_zero_kernel, "*fp32,*fp16,*fp64,*fp32", {"x": x, "h": h, "d": d, "f": f}, {"N": N})
    for got, src, dtype in ((h, x.astype(np.float64), np.float16), (f, d, np.float32)):
        finite = np.isfinite(src)
        assert np.all(np.abs(got[finite].astype(np.float64)) <= np.abs(src[finite]))
        with np.errstate(over="ignore"):  # the step past the largest finite value
            away = np.nextafter(got[finite], np.copysign(np.inf, src[finite]).astype(dtype))
        big = np.abs(src[finite]) >= np.finfo(dtype).max
        assert np.all((np.abs(away.astype(np.float64)) > np.abs(src[finite])) | big)
        assert np.all(got[finite][big] == np.copysign(np.finfo(dtype).max, src[finite][big]))
        assert np.all(got[~finite] == src[~finite])
