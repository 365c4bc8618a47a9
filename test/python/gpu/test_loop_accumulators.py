"""Loop accumulators that are only reduced after the loop, which
tilegpu-accumulate-per-thread carries as one partial per thread: row sums,
maxima and integer sums walked in blocks, 1-D and 2-D, over lengths that are
not multiples of the block (and zero, where only the initial value is
reduced), each checked against float64 or exact int64 references on fresh
random inputs, and each checked to have taken the per-thread form.

Float inputs lie on a coarse grid (multiples of 1/64 within +-4), so every
partial sum is exact in fp32 whatever the order and the results must match
exactly. Skipped without a GPU or without torch."""

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


# n and stride stay run-time values even when they are 1 (Triton's
# specialization would make n == 1 a constant and fold the loop away).
@tilelang.jit(do_not_specialize=["n", "stride"])
def row_sum_kernel(x_ptr, out_ptr, n, stride, INIT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full([BLOCK], INIT, tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@tilelang.jit
def row_max_kernel(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.full([BLOCK], -float("inf"), tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n, other=-float("inf"))
        acc = tl.maximum(x, acc)
    tl.store(out_ptr + row, tl.max(acc, axis=0))


@tilelang.jit
def int_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.int32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc = acc + tl.load(x_ptr + row * n + cols, mask=cols < n, other=0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@tilelang.jit
def tile_row_sums_kernel(x_ptr, out_ptr, m, n, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # BLOCK_M rows per program, walked in BLOCK_N columns: a 2-D accumulator
    # reduced along the rows.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for off in range(0, n, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < m) & (cols[None, :] < n)
        acc += tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=rows < m)


def grid_values(*shape, dtype=torch.float32):
    """Fresh random multiples of 1/64 within +-4."""
    return (torch.randint(-256, 257, shape, device="cuda").to(torch.float64) / 64).to(dtype)


def assert_per_thread(compiled):
    tilegpu = compiled.asm["tilegpu"]
    assert "tilegpu.thread_reduce" in tilegpu, "the accumulator was not carried per thread"


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32], ids=str)
@pytest.mark.parametrize("n", [0, 1, 2047, 3 * 2048 + 5, 12288])
def test_row_sum_in_blocks(dtype, n):
    rows, block = 7, 2048
    x = grid_values(rows, max(n, 1), dtype=dtype)
    out = torch.full((rows,), float("nan"), device="cuda")
    compiled = row_sum_kernel[(rows,)](x, out, n, x.stride(0), INIT=0.5, BLOCK=block)
    assert_per_thread(compiled)
    # The initial value is reduced too: 0.5 in each of the block's elements.
    ref = x[:, :n].double().sum(dim=1) + 0.5 * block
    torch.testing.assert_close(out.double(), ref, rtol=0, atol=0)


@pytest.mark.parametrize("n", [0, 5, 1024 + 1, 4 * 1024 - 3])
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_row_max_in_blocks(n, num_warps):
    rows, block = 5, 1024
    x = torch.randn(rows, max(n, 1), device="cuda")
    out = torch.full((rows,), float("nan"), device="cuda")
    compiled = row_max_kernel[(rows,)](x, out, n, x.stride(0), BLOCK=block, num_warps=num_warps)
    assert_per_thread(compiled)
    ref = x[:, :n].double().amax(dim=1) if n else torch.full((rows,), -float("inf"), device="cuda").double()
    torch.testing.assert_close(out.double(), ref, rtol=0, atol=0)


@pytest.mark.parametrize("n", [3, 4096 + 17])
def test_int_sum_in_blocks_wraps(n):
    rows, block = 3, 512
    x = torch.randint(-(2**31), 2**31, (rows, n), device="cuda", dtype=torch.int32)
    out = torch.zeros(rows, device="cuda", dtype=torch.int32)
    compiled = int_sum_kernel[(rows,)](x, out, n, BLOCK=block)
    assert_per_thread(compiled)
    ref = x.long().sum(dim=1)
    ref = ((ref + 2**31) % 2**32 - 2**31).to(torch.int32)  # int32 addition wraps
    torch.testing.assert_close(out, ref, rtol=0, atol=0)


@pytest.mark.parametrize("m,n", [(16, 64), (37, 1000), (5, 3 * 256 + 1)])
def test_two_dimensional_accumulator(m, n):
    block_m, block_n = 16, 256
    x = grid_values(m, n)
    out = torch.full((m + 8,), float("nan"), device="cuda")
    compiled = tile_row_sums_kernel[(tilelang.cdiv(m, block_m),)](x, out, m, n, x.stride(0),
                                                                  BLOCK_M=block_m, BLOCK_N=block_n)
    assert_per_thread(compiled)
    torch.testing.assert_close(out[:m].double(), x.double().sum(dim=1), rtol=0, atol=0)
    assert torch.isnan(out[m:]).all(), "wrote past the last row"
