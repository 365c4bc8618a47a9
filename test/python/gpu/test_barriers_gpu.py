"""Barriers removed where they order nothing (tilelang-remove-redundant-barriers)
on the GPU: one-row kernels whose output overwrites their input, so that a
thread stores elements other threads loaded. The first barrier of their
first cross-warp reduction follows only the row's loads and goes (the PTX
keeps one barrier per reduction); the one kept between the reduction's
shared store and its reads also orders every load of the row before any
store. Consecutive reductions get their scratch space apart in shared
memory, so the barrier before each later one's store orders nothing either
(one barrier per reduction in all, in a loop too). Checked against float64
references of the input as it was, over rows that are not a multiple of the
block, on 4 to 16 warps. Skipped without a GPU."""

import re

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


@tilelang.jit
def softmax_in_place(x_ptr, stride, n, BLOCK: tl.constexpr):
    row = x_ptr + tl.program_id(0) * stride
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(row + offs, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(row + offs, (e / tl.sum(e, axis=0)).to(tl.float16), mask=mask)


@tilelang.jit
def reverse_minus_max_in_place(x_ptr, stride, n, BLOCK: tl.constexpr):
    # Element j of the row gets x[n - 1 - j] - max(x): loaded by another
    # thread (another warp for most j).
    row = x_ptr + tl.program_id(0) * stride
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(row + offs, mask=mask, other=-float("inf"))
    tl.store(row + (n - 1 - offs), x - tl.max(x, axis=0), mask=mask)


@tilelang.jit
def three_reductions(x_ptr, out_ptr, stride, n, BLOCK: tl.constexpr):
    # Three cross-warp reductions in a row: the third's scratch space takes
    # the first's bytes again, the second lies apart from both.
    row = x_ptr + tl.program_id(0) * stride
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(row + offs, mask=mask, other=0.0)
    big = tl.max(tl.where(mask, x, -float("inf")), axis=0)
    total = tl.sum(x, axis=0)
    small = tl.min(tl.where(mask, x, float("inf")), axis=0)
    tl.store(out_ptr + tl.program_id(0), big + 2.0 * total + 3.0 * small)


@tilelang.jit
def chunked_max_plus_sum(x_ptr, out_ptr, stride, n, BLOCK: tl.constexpr):
    # Two reductions per iteration: the next iteration's first store meets
    # the previous iteration's reads of the second's bytes around the back
    # edge, apart from its own.
    row = x_ptr + tl.program_id(0) * stride
    acc = 0.0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(row + offs, mask=mask, other=0.0)
        acc += tl.max(tl.where(mask, x, -float("inf")), axis=0) + tl.sum(x, axis=0)
    tl.store(out_ptr + tl.program_id(0), acc)


SHAPES = [(1000, 3000, 4096, 16), (1000, 3000, 4096, 4), (777, 1000, 1024, 8)]


def _barriers(compiled):
    return len(re.findall(r"\bbar\.sync\b", compiled.asm["ptx"]))


@pytest.mark.parametrize("m,n,block,warps", SHAPES, ids=lambda v: str(v))
def test_softmax_in_place(m, n, block, warps):
    torch.manual_seed(0)
    padded = torch.randn(m, n + 5, device="cuda", dtype=torch.float16)
    x = padded[:, :n]  # rows 16-byte aligned only where n + 5 allows
    ref = torch.softmax(x.double(), dim=1)
    tail = padded[:, n:].clone()
    compiled = softmax_in_place[(m,)](x, x.stride(0), n, BLOCK=block, num_warps=warps)
    torch.testing.assert_close(x.double(), ref, rtol=2e-3, atol=1e-4)
    assert torch.equal(padded[:, n:], tail), "the masked-off columns were written"
    # Two reductions of two barriers each: the first of the first orders
    # nothing after the loads, the first of the second nothing since the
    # scratch spaces lie apart.
    assert _barriers(compiled) == 2


@pytest.mark.parametrize("m,n,block,warps", SHAPES, ids=lambda v: str(v))
def test_reverse_in_place(m, n, block, warps):
    torch.manual_seed(1)
    x = torch.randn(m, n, device="cuda", dtype=torch.float32)
    original = x.double()
    ref = original.flip(1) - original.max(dim=1, keepdim=True).values
    compiled = reverse_minus_max_in_place[(m,)](x, x.stride(0), n, BLOCK=block, num_warps=warps)
    torch.testing.assert_close(x.double(), ref, rtol=1e-6, atol=1e-6)
    # One reduction: its first barrier gone, the second kept.
    assert _barriers(compiled) == 1


@pytest.mark.parametrize("m,n,block,warps", SHAPES, ids=lambda v: str(v))
def test_three_reductions(m, n, block, warps):
    torch.manual_seed(2)
    x = torch.randn(m, n, device="cuda", dtype=torch.float32)
    out = torch.empty(m, device="cuda", dtype=torch.float32)
    xd = x.double()
    ref = xd.max(dim=1).values + 2.0 * xd.sum(dim=1) + 3.0 * xd.min(dim=1).values
    compiled = three_reductions[(m,)](x, out, x.stride(0), n, BLOCK=block, num_warps=warps)
    torch.testing.assert_close(out.double(), ref, rtol=1e-5, atol=1e-3)
    assert _barriers(compiled) == 3


@pytest.mark.parametrize("m,n,block,warps", [(501, 3000, 1024, 8), (300, 5000, 2048, 16), (777, 1000, 256, 4)],
                         ids=lambda v: str(v))
def test_chunked_max_plus_sum(m, n, block, warps):
    torch.manual_seed(3)
    x = torch.randn(m, n, device="cuda", dtype=torch.float32)
    out = torch.empty(m, device="cuda", dtype=torch.float32)
    chunks = x.double().split(block, dim=1)
    ref = sum(c.max(dim=1).values + c.sum(dim=1) for c in chunks)
    compiled = chunked_max_plus_sum[(m,)](x, out, x.stride(0), n, BLOCK=block, num_warps=warps)
    torch.testing.assert_close(out.double(), ref, rtol=1e-5, atol=1e-3)
    # One barrier per reduction in the loop, none before either's store.
    assert _barriers(compiled) == 2
