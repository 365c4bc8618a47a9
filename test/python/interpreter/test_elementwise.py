"""The interpreter on elementwise kernels: vector add in every dtype with
ragged sizes, 2-D grids, scalar arguments, and the language's exact
semantics (integer wrap-around and signedness, C division, shifts,
fp16/bf16 rounding of stores and casts, saturating float -> int casts),
each against a float64 or exact-integer reference."""

import numpy as np
import pytest

import tilelang
import tilelang.language as tl
from interp_testing import bf16_bits, bf16_values, gpu_kernels, interpreted, run, typed

RNG = np.random.default_rng(2024)

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _random(dtype, n):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return RNG.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    return RNG.standard_normal(n).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 1000, 4096 + 7])
def test_vector_add_every_dtype(dtype, n):
    x, y = _random(dtype, n), _random(dtype, n)
    out = np.zeros(n, dtype)
    run(gpu_kernels.add_kernel, (tilelang.cdiv(n, 1024),), x, y, out, n, BLOCK=1024)
    if np.issubdtype(dtype, np.integer):
        bits = np.dtype(dtype).itemsize * 8
        want = (x.astype(object) + y.astype(object)) % (1 << bits)  # wraps at the width
        assert (out.astype(object) % (1 << bits) == want).all()
    else:
        # One rounding of the exact sum into the type: bit-exact.
        want = (x.astype(np.float64) + y.astype(np.float64)).astype(dtype)
        np.testing.assert_array_equal(out, want)


def test_vector_add_bf16_rounds_to_nearest_even():
    n = 3000 + 5
    x64, y64 = RNG.standard_normal(n), RNG.standard_normal(n)
    x, y = bf16_bits(x64), bf16_bits(y64)
    out = np.zeros(n, np.uint16)
    run(gpu_kernels.add_kernel, (tilelang.cdiv(n, 512),), typed(x, tl.bfloat16), typed(y, tl.bfloat16),
        typed(out, tl.bfloat16), n, BLOCK=512)
    np.testing.assert_array_equal(out, bf16_bits(bf16_values(x) + bf16_values(y)))


@interpreted
def convert_kernel(x_ptr, f16_ptr, bf16_ptr, i32_ptr, u8_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(f16_ptr + offs, x.to(tl.float16), mask=mask)
    tl.store(bf16_ptr + offs, x.to(tl.bfloat16), mask=mask)
    tl.store(i32_ptr + offs, x.to(tl.int32), mask=mask)
    tl.store(u8_ptr + offs, x.to(tl.uint8), mask=mask)


def test_casts_round_and_saturate():
    n = 777
    x = np.concatenate([RNG.standard_normal(n - 9) * 1e3,
                        [np.nan, np.inf, -np.inf, 3e9, -3e9, 255.9, 256.0, -0.7, 70000.0]])
    f16, bf16 = np.zeros(n, np.float16), np.zeros(n, np.uint16)
    i32, u8 = np.zeros(n, np.int32), np.zeros(n, np.uint8)
    convert_kernel[(tilelang.cdiv(n, 256),)](x, f16, typed(bf16, tl.bfloat16), i32, u8, n, BLOCK=256)
    np.testing.assert_array_equal(f16, x.astype(np.float16))  # NumPy rounds float64 -> fp16 once
    finite = np.isfinite(x)
    np.testing.assert_array_equal(bf16[finite], bf16_bits(x[finite]))
    assert np.isnan(bf16_values(bf16[~np.isfinite(x) & np.isnan(x)])).all()
    # Truncation toward zero, saturated to the type, NaN -> 0 (PTX cvt.rzi).
    want_i32 = np.where(np.isnan(x), 0, np.clip(np.trunc(np.nan_to_num(x, posinf=3e9, neginf=-3e9)),
                                                 -2**31, 2**31 - 1)).astype(np.int64)
    np.testing.assert_array_equal(i32.astype(np.int64), want_i32)
    want_u8 = np.where(np.isnan(x), 0, np.clip(np.trunc(np.nan_to_num(x, posinf=3e9, neginf=-3e9)), 0, 255))
    np.testing.assert_array_equal(u8.astype(np.int64), want_u8.astype(np.int64))


@interpreted
def int_ops_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    base = out_ptr + offs * 8
    tl.store(base + 0, a * b, mask=mask)
    tl.store(base + 1, a // b, mask=mask)
    tl.store(base + 2, a % b, mask=mask)
    tl.store(base + 3, a >> (b & 31), mask=mask)
    tl.store(base + 4, a << (b & 31), mask=mask)
    tl.store(base + 5, (a < b).to(a.dtype), mask=mask)
    tl.store(base + 6, -a, mask=mask)
    tl.store(base + 7, a >> 40, mask=mask)


def _c_semantics(a, b, signed):
    """The expected eight results of int_ops_kernel for one pair (32-bit)."""
    m = (1 << 32) - 1

    def s(v):
        v &= m
        return v - (1 << 32) if signed and v >> 31 else v

    a, b = s(a), s(b)
    q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
    sh = b & 31
    return [s(a * b), s(q), s(a - q * b), s(a >> sh), s(a << sh), int(a < b), s(-a),
            (-1 if a < 0 else 0) if signed else 0]


@pytest.mark.parametrize("dtype", [np.int32, np.uint32], ids=["i32", "u32"])
def test_integer_wraparound_division_and_shifts(dtype):
    n = 300
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    b = RNG.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    a[:4] = [info.min, info.max, 7, 0]
    b[:4] = [np.array(-1).astype(dtype), 2, -3 if dtype == np.int32 else 3, 5]
    b[b == 0] = 1
    out = np.zeros(n * 8, dtype)
    int_ops_kernel[(1,)](a, b, out, n, BLOCK=512)
    signed = dtype == np.int32
    for i in range(n):
        want = _c_semantics(int(a[i]), int(b[i]), signed)
        assert [int(v) for v in out[i * 8:(i + 1) * 8]] == want, (i, a[i], b[i])


@pytest.mark.parametrize("rows,cols,block_r,block_c", [(1, 1, 16, 16), (100, 70, 32, 64), (257, 33, 64, 16)])
def test_two_dimensional_grid_scale_and_transpose(rows, cols, block_r, block_c):
    x = RNG.standard_normal((rows, cols)).astype(np.float16)
    out = np.zeros((rows, cols), np.float32)
    grid = (tilelang.cdiv(rows, block_r), tilelang.cdiv(cols, block_c))
    run(gpu_kernels.scale_2d_kernel, grid, x, out, rows, cols, cols, cols, 1.5, -0.25,
        BLOCK_R=block_r, BLOCK_C=block_c)
    want = (x.astype(np.float32) * np.float32(1.5) + np.float32(-0.25))
    np.testing.assert_array_equal(out, want)
    t = np.zeros((cols, rows), np.float16)
    run(gpu_kernels.transpose_2d_kernel, grid, x, t, rows, cols, cols, rows, BLOCK_R=block_r, BLOCK_C=block_c)
    np.testing.assert_array_equal(t, x.T)


@pytest.mark.parametrize("grid", [(1, 1), (3, 5), (40, 1)])
def test_grid_ids(grid):
    out = np.full(grid[0] * grid[1] * 4, -1, np.int32)
    run(gpu_kernels.grid_ids_kernel, grid, out, BLOCK=4)
    got = out.reshape(grid[1], grid[0], 4)
    for p1 in range(grid[1]):
        for p0 in range(grid[0]):
            assert list(got[p1, p0]) == [p0, p1, grid[0], grid[1]]


def test_chunked_rows_loop():
    rows, cols = 3, 1000
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    out = np.zeros_like(x)
    run(gpu_kernels.chunked_scale_kernel, (rows,), x, out, cols, cols, cols, 0.5, BLOCK=256)
    np.testing.assert_array_equal(out, x * np.float32(0.5))


def test_scalar_arguments():
    out = np.zeros(4, np.int64)
    run(gpu_kernels.int_scalars_kernel, (1,), out, -5, 2**32 + 3)
    assert list(out) == [-5, 2**32 + 3, 2**32 - 2, 1]
    f, i = np.zeros(3, np.float32), np.zeros(2, np.int32)
    run(gpu_kernels.float_bool_scalars_kernel, (1,), f, i, 1.1, True, 7)
    np.testing.assert_array_equal(f, np.array([1.1, np.float32(1.1) * np.float32(3.0),
                                               np.float32(1.1) * np.float32(7)], np.float32))
    assert list(i) == [11, 1]
