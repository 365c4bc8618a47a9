"""The looped layer norm with the L2 priorities tile-l2-reuse-hints gives it
(TILELANG_L2_REUSE_HINTS=1: x evict_last, then evict_first at its last read,
y stored evict_first), on the GPU: the results are those of a float64 reference, over rows that
are not a multiple of the block, with y a tensor of its own or x itself (the
pass treats distinct arguments as distinct data; a priority never changes
what is read or written). Skipped without a GPU."""

import pathlib

import pytest

from tilelang_testing import load_module

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


# The CPU test's kernel (its X_POLICY left empty: the pass decides).
looped_layer_norm = load_module("l2_reuse_hints_cpu", pathlib.Path(__file__).parents[1] /
                                "test_l2_reuse_hints.py").looped_layer_norm


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
