"""tilelang.ops.matmul past 2**31 elements on the GPU: a 35800 x 60000
output (2.15e9 elements; its rows from 35792 on start past 2**31), the
forward with a bias and the backward, whose dZ is the 35800 x 60000 A
operand of dA = dZ B^T. 32-bit row offsets (rows * stride) would wrap and
write or read other rows; the rows past 2**31 (and a few before) of
the output and of dA, and the whole dB, are compared with float64
references on fresh random inputs. The config is
the untuned one (TILELANG_OPS_AUTOTUNE=0): one compile per kernel. About
13 GB of GPU memory. Skipped without a GPU or torch."""

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import tilelang.ops as ops  # noqa: E402

M, N, K = 35800, 60000, 40
# The rows checked: the last 16 (past 2**31) and 8 well before it.
CHECKED = list(range(100, 108)) + list(range(M - 16, M))


def _error(out, ref):
    return ((out.double() - ref).abs().max() / ref.abs().max()).item()


def test_matmul_past_2_31_elements(monkeypatch):
    monkeypatch.setenv("TILELANG_OPS_AUTOTUNE", "0")
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16, requires_grad=True)
    b = (torch.randn(K, N, device="cuda", dtype=torch.float16) / K ** 0.5).requires_grad_()
    bias = torch.randn(N, device="cuda", dtype=torch.float16, requires_grad=True)
    out = ops.matmul(a, b, bias)
    rows = torch.tensor(CHECKED, device="cuda")
    with torch.no_grad():  # the references record nothing (dZ's float64 slices are 2 GB each)
        ref = a[rows].double() @ b.double() + bias.double()
        assert _error(out[rows], ref) < 4e-3
    # dA = dZ B^T reads dZ (M x N) as its A operand, rows N apart; dB = A^T dZ reads it as B.
    dy = torch.randn(M, N, device="cuda", dtype=torch.float16)
    del out
    da, db = torch.autograd.grad(ops.matmul(a, b, bias), (a, b), dy)
    with torch.no_grad():
        ref_da = dy[rows].double() @ b.double().t()
        assert _error(da[rows], ref_da) < 4e-3
        ref_db = torch.zeros(K, N, device="cuda", dtype=torch.float64)
        for start in range(0, M, 4096):  # float64 in slices of dZ
            ref_db += a[start:start + 4096].double().t() @ dy[start:start + 4096].double()
        assert _error(db, ref_db) < 4e-3
