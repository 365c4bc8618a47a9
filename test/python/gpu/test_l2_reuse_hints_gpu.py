"""The looped layer norm with the L2 priorities tile-l2-reuse-hints gives it
(TILELANG_L2_REUSE_HINTS=1: x evict_last, then evict_first at its last read,
y stored evict_first), on the GPU: the results are those of a float64 reference, over rows that
are not a multiple of the block, with y a tensor of its own or x itself (the
pass treats distinct arguments as distinct data; a priority never changes
what is read or written). Skipped without a GPU."""

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


@tilelang.jit
def looped_layer_norm(X, Y, W, B, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(Y + cols, (x - mean) * rstd * w + b, mask=mask)


@pytest.mark.parametrize("in_place", [False, True], ids=["y", "in-place"])
@pytest.mark.parametrize("m,n,block", [(37, 3000, 1024), (300, 5000, 2048), (5, 1000, 4096)])
def test_hinted_layer_norm_matches_float64(m, n, block, in_place, monkeypatch):
    monkeypatch.setenv("TILELANG_L2_REUSE_HINTS", "1")
    x = torch.randn(m, n, device="cuda", dtype=torch.float16) * 3 + 1
    w = torch.randn(n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)
    y = x if in_place else torch.full_like(x, float("nan"))
    compiled = looped_layer_norm[(m,)](x, y, w, b, x.stride(0), n, 1e-5, BLOCK=block, num_warps=4)
    ptx = compiled.asm["ptx"]
    assert "ld.global.L1::evict_last.L2::cache_hint" in ptx
    assert "st.global.L1::evict_first.L2::cache_hint" in ptx
    torch.testing.assert_close(y.double(), ref, rtol=0, atol=2e-2)
