"""tilelang.ops.attention where a head's rows reach 2**31 elements on the
GPU: q, k and v in the (B, N_CTX, H, D) layout (torch's transpose of it to
(B, H, N_CTX, D)), 4224 rows of 4096 heads of 128, so rows from 4096 on
start past 2**31 within their head (OFFSETS_64). 32-bit row offsets would
wrap: the last query block and, causal, the diagonal's key blocks would be
read from elsewhere. The first and last heads are compared with the
float64 reference under the package's error bound, full and causal, on
fresh random inputs. The config is the untuned one
(TILELANG_OPS_AUTOTUNE=0). About 18 GB of GPU memory. Skipped without a
GPU or torch."""

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import tilelang.ops as ops  # noqa: E402
from tilelang.ops import kernels  # noqa: E402

N_CTX, HEADS, HEAD_DIM = 4224, 4096, 128


def bnhd():
    """Fresh randn (1, HEADS, N_CTX, HEAD_DIM) in the (B, N_CTX, H, D) layout."""
    return torch.randn(1, N_CTX, HEADS, HEAD_DIM, device="cuda", dtype=torch.float16).transpose(1, 2)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_past_2_31_elements_a_head(monkeypatch, causal):
    monkeypatch.setenv("TILELANG_OPS_AUTOTUNE", "0")
    torch.manual_seed(1)
    q, k, v = bnhd(), bnhd(), bnhd()
    assert (N_CTX - 1) * q.stride(2) >= 2**31
    out = ops.attention(q, k, v, causal=causal)
    for head in (0, HEADS - 1):
        one = slice(head, head + 1)
        expected, magnitude, spread = kernels.attention_reference(q[:, one], k[:, one], v[:, one], causal)
        error = (out[:, one].double() - expected).abs()
        bound = kernels.attention_error_bound(q[:, one], magnitude, spread)
        bad = ~(error <= bound)
        assert not bool(bad.any()), f"head {head}: {int(bad.sum())} elements beyond the bound, first at " \
                                    f"{bad.nonzero()[0].tolist()}"
