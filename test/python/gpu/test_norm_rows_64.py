"""tilelang.ops.rms_norm's backward past 2**30 rows on the GPU: x of
2**30 + 8 rows of 2 elements (2.1e9 elements). Without a weight the
backward is norm_bwd_fused with one tile of rows a program, whose row
loop's next start (a tile's first row plus the step) reaches about 2 m:
counted in 32 bits it wraps to a negative row from 2**30 rows on, which
passes `rows < M`, and the last programs ran extra tiles at negative rows
(reading and writing gigabytes before x and dx). The launch asks for rows
counted in 64 bits there (ROWS_64). Checked: dx against a float64
reference computed before the backward, and x and dy unchanged by it.
Untuned configs (TILELANG_OPS_AUTOTUNE=0). About 28 GB of GPU memory.
Skipped without a GPU or torch."""

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import tilelang.ops as ops  # noqa: E402

M, N = 2**30 + 8, 2
CHUNK = 2**24  # rows of a float64 slice of the reference


def _fingerprint(t):
    """A sum of t's bits, slice by slice (any change of an element shows)."""
    bits = t.view(torch.int16)
    return [bits[i:i + CHUNK].double().mul(torch.arange(1, 3, device="cuda")).sum().item()
            for i in range(0, M, CHUNK)]


def test_rms_norm_backward_past_2_30_rows(monkeypatch):
    monkeypatch.setenv("TILELANG_OPS_AUTOTUNE", "0")
    torch.manual_seed(0)
    x = torch.randn(M, N, device="cuda", dtype=torch.float16)
    dy = torch.randn(M, N, device="cuda", dtype=torch.float16)
    eps = 1e-6
    ref = torch.empty(M, N, device="cuda", dtype=torch.float32)
    with torch.no_grad():
        for i in range(0, M, CHUNK):  # dx = (dy - x_hat mean(x_hat dy)) rstd, in float64
            xs, gs = x[i:i + CHUNK].double(), dy[i:i + CHUNK].double()
            rstd = torch.rsqrt((xs * xs).mean(1, keepdim=True) + eps)
            x_hat = xs * rstd
            ref[i:i + CHUNK] = ((gs - x_hat * (x_hat * gs).mean(1, keepdim=True)) * rstd).float()
    before = _fingerprint(x), _fingerprint(dy)
    x.requires_grad_()
    (dx,) = torch.autograd.grad(ops.rms_norm(x, eps=eps), (x,), dy)
    torch.cuda.synchronize()
    assert (_fingerprint(x.detach()), _fingerprint(dy)) == before
    with torch.no_grad():
        worst = 0.0
        for i in range(0, M, CHUNK):
            r = ref[i:i + CHUNK].double()
            err = (dx[i:i + CHUNK].double() - r).abs() / (r.abs() + 1.0)
            assert not err.isnan().any()
            worst = max(worst, err.max().item())
        assert worst < 4e-3
