"""Kernels launched on the GPU and checked against torch references on fresh
random inputs, at sizes that are multiples of the block and sizes that are
not: vector add in every element type the launcher passes (fp16, bf16,
fp32, fp64, int8, int16, int32, int64, uint8), tl.sum/max/min/argmax/argmin
along either axis of a 2-D block and over a whole block (masked tails),
tl.cumsum/tl.cumprod along either axis (and reversed), 2-D grids
(program_id/num_programs on two axes, masks on both), and the seeded
dropout tutorial kernel's reproducibility.

Floating-point references are computed in float64. Where the kernel's
summation order is free, the tolerance is the worst-case rounding bound of
any order, (k - 1) * u * sum|x| for k terms and unit roundoff u, or inputs
on a coarse grid (multiples of 1/64 within +-4) make every partial sum exact
so the result must match exactly. Integer references are exact int64
arithmetic, wrapped to the element type's width where the kernel's
arithmetic wraps. Output buffers start poisoned (NaN or a sentinel) and are
larger than the result where masks matter, so unwritten elements and
out-of-bounds writes both show. Skipped without a GPU or without torch."""

import math
import pathlib

import pytest

import tilelang
import tilelang.language as tl
from tilelang_testing import load_module

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

K = load_module("gpu_kernels", pathlib.Path(__file__).with_name("gpu_kernels.py"))
# Triton's tutorial kernels, as the frontend tests have them (seeded dropout).
TUTORIAL = load_module("frontend_kernels", pathlib.Path(__file__).parents[1] / "frontend" / "kernels.py")

FP32_U = 2.0**-24  # unit roundoff of fp32

FLOAT_TYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INT_TYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]


def random_values(shape, dtype):
    """Fresh random values covering the type: randn for floats, the whole
    range for integers (int64: +-2**62, so that a sum cannot overflow)."""
    if dtype.is_floating_point:
        return torch.randn(*shape, device="cuda", dtype=torch.float32).to(dtype)
    if dtype == torch.int64:
        return torch.randint(-(2**62), 2**62, shape, device="cuda", dtype=dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, device="cuda", dtype=dtype)


def grid_values(shape, dtype=torch.float32):
    """randn rounded to multiples of 1/64 in [-4, 4]: exact in fp16, and
    every sum of up to 2**16 of them is exact in fp32, in any order."""
    x = torch.randn(*shape, device="cuda", dtype=torch.float64).clamp(-4, 4)
    return (torch.round(x * 64) / 64).to(dtype)


def wrap(values, dtype):
    """Exact int64 results reduced to dtype's width (two's complement)."""
    info = torch.iinfo(dtype)
    if info.bits == 64:  # int64 arithmetic already wraps at 64 bits
        return values.to(dtype)
    span = 2**info.bits
    return (torch.remainder(values - info.min, span) + info.min).to(dtype)


def poison(shape, dtype):
    if dtype.is_floating_point:
        return torch.full(shape, float("nan"), device="cuda", dtype=dtype)
    return torch.full(shape, 99 if dtype == torch.uint8 else -77, device="cuda", dtype=dtype)


def assert_sum_close(got, ref, abs_sum, terms, what=""):
    """|got - ref| <= (terms - 1) * u * sum|x| + u * |ref|: the rounding bound
    of fp32 summation of `terms` terms in any order, plus the final rounding."""
    got, ref, abs_sum = got.double(), ref.double(), abs_sum.double()
    bound = max(terms - 1, 0) * FP32_U * abs_sum + FP32_U * ref.abs() + 1e-300
    err = (got - ref).abs()
    assert not torch.isnan(got).any(), f"{what}: NaN (unwritten) in the result"
    assert bool((err <= bound).all()), (f"{what}: max error {err.max().item():.3g}, "
                                        f"bound there {bound[err.argmax()].item() if bound.dim() else bound:.3g}")


def first_index_of(x, target, axis):
    """Index along `axis` of the first element of x equal to target (which
    has x's shape with `axis` reduced): the lower index wins ties."""
    n = x.shape[axis]
    idx = torch.arange(n, device=x.device).view([-1 if d == axis else 1 for d in range(x.dim())])
    hit = x == target.unsqueeze(axis)
    return torch.where(hit, idx, n).amin(dim=axis)


# ---------------------------------------------------------------------------
# 1. Vector add in every element type
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_TYPES + INT_TYPES, ids=str)
@pytest.mark.parametrize("n", [1, 1000, 4096, 98432 + 7])
@pytest.mark.parametrize("block", [128, 1024])
def test_vector_add_every_dtype(dtype, n, block):
    x = random_values((n,), dtype)
    y = random_values((n,), dtype)
    pad = 100
    out = poison((n + pad,), dtype)
    K.add_kernel[(tilelang.cdiv(n, block),)](x, y, out, n, BLOCK=block)
    if dtype.is_floating_point:
        # The exact sum of two such values fits in float64: one rounding,
        # as in the kernel, so the results agree exactly.
        ref = (x.double() + y.double()).to(dtype)
    else:
        ref = wrap(x.long() + y.long(), dtype)
    torch.testing.assert_close(out[:n], ref, rtol=0, atol=0)
    # Nothing written past n.
    torch.testing.assert_close(out[n:], poison((pad,), dtype), rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32], ids=str)
@pytest.mark.parametrize("rows,cols", [(3, 1000), (5, 4096), (2, 12288 + 8)])
def test_rows_walked_in_chunks(dtype, rows, cols):
    # A loop without loop-carried values, over columns that are not a
    # multiple of the block: every chunk, the ragged last one included.
    block = 1024
    x = random_values((rows, cols), dtype)
    pad = 64
    out = poison((rows, cols + pad), dtype)
    K.chunked_scale_kernel[(rows,)](x, out, cols, x.stride(0), out.stride(0), 0.5, BLOCK=block)
    # Halving is exact: the results agree exactly.
    torch.testing.assert_close(out[:, :cols], (x.double() * 0.5).to(dtype), rtol=0, atol=0)
    # Nothing written past each row's end.
    torch.testing.assert_close(out[:, cols:], poison((rows, pad), dtype), rtol=0, atol=0, equal_nan=True)


# ---------------------------------------------------------------------------
# 2. Reductions
# ---------------------------------------------------------------------------

REDUCE_CASES = {
    # name: (input dtype, accumulator for tl.sum, identity of max, identity of min)
    "fp32": (torch.float32, tl.float32, -float("inf"), float("inf")),
    "fp16": (torch.float16, tl.float32, -float("inf"), float("inf")),
    "int32": (torch.int32, tl.int32, -(2**31), 2**31 - 1),
}
TORCH_OF = {tl.float32: torch.float32, tl.int32: torch.int32}


@pytest.mark.parametrize("case", list(REDUCE_CASES))
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("m,n", [(1, 1), (5, 300), (37, 64), (64, 32), (100, 129), (256, 200)])
@pytest.mark.parametrize("values", ["fine", "coarse"])
def test_reduce_along_axis(case, axis, m, n, values):
    """fine: randn (floats) or integers in [-1000, 1000); coarse: grid values
    (floats) or integers in [-20, 20), with many ties for argmax/argmin,
    which the lower index wins."""
    dtype, acc, low, high = REDUCE_CASES[case]
    if dtype.is_floating_point:
        x = (torch.randn(m, n, device="cuda").to(dtype) if values == "fine" else grid_values((m, n), dtype))
    else:
        lim = 1000 if values == "fine" else 20
        x = torch.randint(-lim, lim, (m, n), device="cuda", dtype=dtype)
    # x as a slice of a wider buffer: the row stride is not the row length.
    wide = poison((m, n + 3), dtype)
    wide[:, :n] = x
    x = wide[:, :n]
    other = 16 if axis == 1 else 32  # the tile's extent along the kept axis
    if axis == 1:
        block_m, block_n, grid, out_len = other, tilelang.next_power_of_2(n), tilelang.cdiv(m, other), m
    else:
        block_m, block_n, grid, out_len = tilelang.next_power_of_2(m), other, tilelang.cdiv(n, other), n
    pad = 5
    sums = poison((out_len + pad,), TORCH_OF[acc])
    maxs = poison((out_len + pad,), dtype)
    mins = poison((out_len + pad,), dtype)
    amax = torch.full((out_len + pad,), -5, device="cuda", dtype=torch.int32)
    amin = torch.full((out_len + pad,), -5, device="cuda", dtype=torch.int32)
    K.reduce_2d_kernel[(grid,)](x, sums, maxs, mins, amax, amin, m, n, x.stride(0), AXIS=axis, ACC=acc,
                                LOW=low, HIGH=high, BLOCK_M=block_m, BLOCK_N=block_n)
    xd = x.double() if dtype.is_floating_point else x.long()
    ref_max, ref_min = xd.amax(dim=axis), xd.amin(dim=axis)
    if dtype.is_floating_point:
        assert_sum_close(sums[:out_len], xd.sum(dim=axis), xd.abs().sum(dim=axis), x.shape[axis], "sum")
        if values == "coarse":  # exact partial sums: any order gives the exact result
            assert torch.equal(sums[:out_len].double(), xd.sum(dim=axis))
    else:
        assert torch.equal(sums[:out_len].long(), xd.sum(dim=axis))
    assert torch.equal(maxs[:out_len].to(xd.dtype), ref_max)
    assert torch.equal(mins[:out_len].to(xd.dtype), ref_min)
    assert torch.equal(amax[:out_len].long(), first_index_of(xd, ref_max, axis))
    assert torch.equal(amin[:out_len].long(), first_index_of(xd, ref_min, axis))
    # The padding past the results is untouched.
    assert torch.isnan(sums[out_len:]).all() if sums.dtype.is_floating_point else bool(
        (sums[out_len:] == -77).all())
    assert bool((amax[out_len:] == -5).all()) and bool((amin[out_len:] == -5).all())


@pytest.mark.parametrize("m,n", [(1, 1), (33, 1000), (64, 64), (130, 77)])
def test_max_with_indices(m, n):
    x = torch.randn(m, n, device="cuda")
    vals = poison((m,), torch.float32)
    idx = torch.full((m,), -5, device="cuda", dtype=torch.int32)
    K.max_with_indices_kernel[(tilelang.cdiv(m, 8),)](x, vals, idx, m, n, x.stride(0), BLOCK_M=8,
                                                      BLOCK_N=tilelang.next_power_of_2(n))
    ref = x.double().amax(dim=1)
    assert torch.equal(vals.double(), ref)
    assert torch.equal(idx.long(), first_index_of(x.double(), ref, 1))


@pytest.mark.parametrize("m,n", [(1, 1), (15, 64), (16, 64), (33, 1000), (130, 77)])
@pytest.mark.parametrize("values", ["randn", "grid"])
def test_full_reduction_to_scalar(m, n, values):
    """tl.sum/max/min with axis=None over a masked 2-D tile (tails on both
    axes; the column loop's last chunk is partial unless n % 64 == 0)."""
    x = torch.randn(m, n, device="cuda") if values == "randn" else grid_values((m, n))
    block_m, block_n = 16, 64
    programs = tilelang.cdiv(m, block_m)
    sums, maxs, mins = (poison((programs,), torch.float32) for _ in range(3))
    K.full_reduce_kernel[(programs,)](x, sums, maxs, mins, m, n, x.stride(0), BLOCK_M=block_m, BLOCK_N=block_n)
    xd = x.double()
    for p in range(programs):
        part = xd[p * block_m:(p + 1) * block_m]
        # Each lane sums its column chunks in turn, then the tile is reduced:
        # at most part.numel() terms in some order.
        assert_sum_close(sums[p], part.sum(), part.abs().sum(), part.numel(), f"program {p}")
        if values == "grid":
            assert sums[p].item() == part.sum().item()
        assert maxs[p].item() == part.max().item()
        assert mins[p].item() == part.min().item()


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.int8])
@pytest.mark.parametrize("n", [1, 100, 1024, 5000 + 3])
def test_masked_sum_of_1d_blocks(dtype, n):
    """One scalar per program from a masked 1-D block. tl.sum widens int8 to
    int32 (256 int8 values overflow int8); floats are grid values, whose
    partial sums are all exact."""
    if dtype == torch.float32:
        x, out_dtype, wide = grid_values((n,)), torch.float32, torch.float64
    elif dtype == torch.int8:
        x, out_dtype, wide = random_values((n,), dtype), torch.int32, torch.int64
    else:
        x, out_dtype, wide = torch.randint(-10**6, 10**6, (n,), device="cuda", dtype=dtype), torch.int32, torch.int64
    block = 256
    programs = tilelang.cdiv(n, block)
    out = poison((programs,), out_dtype)
    K.masked_sum_1d_kernel[(programs,)](x, out, n, BLOCK=block)
    padded = torch.zeros(programs * block, device="cuda", dtype=wide)
    padded[:n] = x.to(wide)
    assert torch.equal(out.to(wide), padded.view(programs, block).sum(dim=1))


# ---------------------------------------------------------------------------
# 3. Scans: tl.cumsum and tl.cumprod
# ---------------------------------------------------------------------------

SCAN_CASES = {
    # name: (input dtype, ACC (the scan's and the output's type), op)
    "cumsum-fp32": (torch.float32, tl.float32, "sum"),
    "cumsum-fp16-in-fp32": (torch.float16, tl.float32, "sum"),
    "cumsum-int32": (torch.int32, tl.int32, "sum"),
    "cumprod-fp32": (torch.float32, tl.float32, "prod"),
    "cumprod-int32": (torch.int32, tl.int32, "prod"),
}


def scan_input(case, m, n):
    dtype, _, op = SCAN_CASES[case]
    if op == "sum":
        if dtype.is_floating_point:
            return grid_values((m, n), dtype)
        return torch.randint(-1000, 1000, (m, n), device="cuda", dtype=dtype)
    if dtype.is_floating_point:
        # Factors near 1 keep products of up to 256 of them in range.
        return (1 + 0.05 * torch.randn(m, n, device="cuda")).to(dtype)
    # -1, 1 and 2: products wrap at 32 bits in both the kernel and the reference.
    choices = torch.tensor([-1, 1, 2], device="cuda", dtype=dtype)
    return choices[torch.randint(0, 3, (m, n), device="cuda")]


@pytest.mark.parametrize("case", list(SCAN_CASES))
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("m,n", [(1, 1), (3, 50), (16, 64), (37, 33), (64, 128), (9, 200)])
def test_scan_2d(case, axis, reverse, m, n):
    dtype, acc, op = SCAN_CASES[case]
    out_dtype = TORCH_OF[acc]
    # Input and output are slices of wider poisoned buffers (one row stride
    # serves both); the output's extra columns must stay poisoned.
    x_wide = poison((m, n + 7), dtype)
    x_wide[:, :n] = scan_input(case, m, n)
    x = x_wide[:, :n]
    out_wide = poison((m, n + 7), out_dtype)
    out = out_wide[:, :n]
    if axis == 1:
        block_m, block_n, grid = 8, tilelang.next_power_of_2(n), tilelang.cdiv(m, 8)
    else:
        block_m, block_n, grid = tilelang.next_power_of_2(m), 8, tilelang.cdiv(n, 8)
    K.scan_2d_kernel[(grid,)](x, out, m, n, x.stride(0), OP=op, AXIS=axis, REVERSE=reverse, ACC=acc,
                              BLOCK_M=block_m, BLOCK_N=block_n)
    xd = x.double() if dtype.is_floating_point else x.long()
    src = xd.flip(axis) if reverse else xd
    if op == "sum":
        ref = src.cumsum(dim=axis)
    else:
        ref = src.cumprod(dim=axis)
    if reverse:
        ref = ref.flip(axis)
    if not dtype.is_floating_point:
        assert torch.equal(out, wrap(ref, out_dtype))
    elif op == "sum":
        assert torch.equal(out.double(), ref)  # grid values: exact in any order
    else:
        # A product of j factors rounds j - 1 times (in any order); relative
        # error below (1 + u)^(j-1) - 1 plus the final rounding.
        pos = torch.arange(1, x.shape[axis] + 1, device="cuda", dtype=torch.float64)
        j = (pos.flip(0) if reverse else pos).view([-1 if d == axis else 1 for d in range(2)])
        bound = ((1 + FP32_U)**j - 1 + FP32_U) * ref.abs() * 1.0001
        err = (out.double() - ref).abs()
        assert not torch.isnan(out).any()
        assert bool((err <= bound).all()), f"max relative error {(err / ref.abs()).max().item():.3g}"
    extra = out_wide[:, n:]
    assert torch.isnan(extra).all() if out_dtype.is_floating_point else bool((extra == -77).all())


# ---------------------------------------------------------------------------
# 6. Two-dimensional grids
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("rows,cols,block_r,block_c", [
    (1, 1, 32, 32), (100, 70, 32, 32), (64, 128, 32, 64), (513, 257, 16, 64), (8, 40000, 8, 16),
])
def test_two_dimensional_grid_scale(dtype, rows, cols, block_r, block_c):
    src = torch.randn(rows, cols + 5, device="cuda").to(dtype)
    x = src[:, :cols]
    out_wide = poison((rows + 2, cols + 9), torch.float32)
    out = out_wide[:rows, :cols]
    alpha, beta = -1.75, 0.3125  # exact in fp32
    grid = (tilelang.cdiv(rows, block_r), tilelang.cdiv(cols, block_c))
    K.scale_2d_kernel[grid](x, out, rows, cols, x.stride(0), out.stride(0), alpha, beta,
                            BLOCK_R=block_r, BLOCK_C=block_c)
    ref = x.double() * alpha + beta
    # Two fp32 roundings (the product, exact here for fp16 inputs, and the sum).
    torch.testing.assert_close(out.double(), ref, rtol=2 * FP32_U, atol=2 * FP32_U)
    # Masks on both axes: the extra rows and columns stay NaN.
    assert torch.isnan(out_wide[rows:]).all()
    assert torch.isnan(out_wide[:, cols:]).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
@pytest.mark.parametrize("rows,cols", [(1, 1), (32, 64), (100, 70), (257, 513)])
def test_two_dimensional_grid_transpose(dtype, rows, cols):
    x = random_values((rows, cols), dtype)
    out_wide = poison((cols, rows + 3), dtype)
    out = out_wide[:, :rows]
    block_r, block_c = 32, 64
    K.transpose_2d_kernel[(tilelang.cdiv(rows, block_r), tilelang.cdiv(cols, block_c))](
        x, out, rows, cols, x.stride(0), out.stride(0), BLOCK_R=block_r, BLOCK_C=block_c)
    assert torch.equal(out, x.t())
    extra = out_wide[:, rows:]
    assert torch.isnan(extra).all() if dtype.is_floating_point else bool((extra == -77).all())


@pytest.mark.parametrize("grid", [(1, 1), (3, 5), (1, 1000), (700, 1), (37, 65535)])
def test_two_dimensional_grid_ids(grid):
    g0, g1 = grid
    out = torch.full((g0 * g1 * 4,), -1, device="cuda", dtype=torch.int32)
    K.grid_ids_kernel[grid](out, BLOCK=4)
    got = out.view(g1, g0, 4).long()
    p1, p0 = torch.meshgrid(torch.arange(g1, device="cuda"), torch.arange(g0, device="cuda"), indexing="ij")
    assert torch.equal(got[..., 0], p0)
    assert torch.equal(got[..., 1], p1)
    assert bool((got[..., 2] == g0).all()) and bool((got[..., 3] == g1).all())


# ---------------------------------------------------------------------------
# 5. Seeded dropout: what test_random.py does not check yet
# ---------------------------------------------------------------------------


def _fp32(value):
    return torch.tensor(value, dtype=torch.float32).item()


@pytest.mark.parametrize("n", [4096, 100003])
@pytest.mark.parametrize("p", [0.25, 0.5])
def test_dropout_same_seed_reproduces(n, p):
    x = torch.randn(n, device="cuda")
    seed = int(torch.randint(2, 2**30, ()).item())  # an i32, never the constant 1
    runs = []
    for seed_value, block in ((seed, 1024), (seed, 1024), (seed, 256), (seed + 4, 1024)):
        out = torch.full_like(x, float("nan"))
        TUTORIAL._seeded_dropout[(tilelang.cdiv(n, block),)](x, out, n, p, seed_value, BLOCK_SIZE=block)
        runs.append(out)
    first, again, other_block, other_seed = runs
    assert not torch.isnan(first).any()
    # The same seed gives the same result, bit for bit, whatever the block size.
    assert torch.equal(first, again)
    assert torch.equal(first, other_block)
    # Another seed keeps another set: about half of the decisions differ for p = 0.5.
    differ = ((first != 0) != (other_seed != 0)).double().mean().item()
    expected_differ = 2 * p * (1 - p)
    assert abs(differ - expected_differ) < 6 * math.sqrt(expected_differ / n) + 1 / n
    # Kept fraction near 1 - p (six standard deviations).
    kept = first != 0
    frac = kept.double().mean().item()
    assert abs(frac - (1 - p)) < 6 * math.sqrt(p * (1 - p) / n) + 1 / n
    # Kept values are x / (1 - p), in fp32 (p is passed as fp32).
    scale = 1.0 / _fp32(1.0 - _fp32(p))
    ref = x.double() * scale
    torch.testing.assert_close(first[kept].double(), ref[kept], rtol=4 * FP32_U, atol=0)
