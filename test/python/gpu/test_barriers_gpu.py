"""Barriers removed where they order nothing (tilelang-remove-redundant-barriers)
on the GPU: one-row kernels whose output overwrites their input, so that a
thread stores elements other threads loaded. The first barrier of their
first cross-warp reduction follows only the row's loads and goes (the PTX
keeps one barrier per reduction); the one kept between the reduction's
shared store and its reads also orders every load of the row before any
store. Checked against float64 references of the input as it was, over rows
that are not a multiple of the block, on 4 to 16 warps. Skipped without a
GPU."""

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
    # Two reductions of two barriers each, the first of the first gone.
    assert _barriers(compiled) == 3


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
