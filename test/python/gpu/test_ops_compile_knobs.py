"""tilelang.ops after a compile knob changes in the process (docs/ops.md,
"The compile knobs"): layer_norm's forward and backward run until their
C++ plans exist, then TILELANG_OCCUPANCY_SEARCH=0 is set and the same
steps run again. Checked: every step's output and gradients against a
float64 reference on the same fresh inputs, and that the kernels the
steps after the change launched are the ones linked without the search
(one link each, for the blocks per SM their PTX asks for). Untuned configs
(TILELANG_OPS_AUTOTUNE=0). Skipped without a GPU or torch."""

import re

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import tilelang.ops as ops  # noqa: E402
from tilelang import knobs  # noqa: E402
from tilelang.ops import _autograd, _runtime  # noqa: E402

F = torch.nn.functional


def relative_error(out, ref) -> float:
    ref = ref.double()
    return ((out.double() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def test_layer_norm_after_the_occupancy_search_is_turned_off(monkeypatch):
    monkeypatch.setenv("TILELANG_OPS_AUTOTUNE", "0")
    # The search on, spelled as no earlier test left it: what they kept of
    # this key's launches (tables, plans) is dropped at the first step.
    monkeypatch.setenv("TILELANG_OCCUPANCY_SEARCH", "1")
    m, n = 300, 1000
    x = (torch.randn(m, n, device="cuda", dtype=torch.float16) * 2 + 0.5).requires_grad_()
    w = (torch.rand(n, device="cuda", dtype=torch.float16) + 0.5).requires_grad_()
    b = torch.randn(n, device="cuda", dtype=torch.float16, requires_grad=True)
    dy = torch.randn(m, n, device="cuda", dtype=torch.float16)
    xr, wr, br = (t.detach().double().requires_grad_() for t in (x, w, b))
    yr = F.layer_norm(xr, (n,), wr, br, eps=1e-5)
    refs = [yr.detach(), *torch.autograd.grad(yr, (xr, wr, br), dy.double())]

    def step(what):
        x.grad = w.grad = b.grad = None
        y = ops.layer_norm(x, w, b, eps=1e-5)
        y.backward(dy)
        for index, (out, ref) in enumerate(zip([y.detach(), x.grad, w.grad, b.grad], refs)):
            assert out is not None and out.shape == ref.shape and torch.isfinite(out).all(), f"{what}[{index}]"
            error = relative_error(out, ref)
            assert error <= 4e-3, f"{what}[{index}]: error {error:.2e}"
        return type(y.grad_fn).__name__

    before = [step(f"before {i}") for i in range(3)]
    monkeypatch.setenv("TILELANG_OCCUPANCY_SEARCH", "0")
    after = [step(f"after {i}") for i in range(3)]
    # The same path each time: Python, then the plans (C++ nodes where
    # tilelang._C_torch is built).
    assert before == after and before[0] != "CppFunction"
    if _autograd.enabled:
        assert after[2] == "CppFunction"
    from tilelang.jit import _current_arch

    arch = _current_arch()
    for name in ("layer_norm_fwd", "norm_bwd_fused"):
        linked = [compiled for key, compiled in _runtime.kernels()[name].cache.items()
                  if dict(zip(knobs.LINK_KNOBS, key[-1]))["TILELANG_OCCUPANCY_SEARCH"] == "0"
                  and arch in compiled.link_info]
        assert linked, f"{name}: nothing linked for TILELANG_OCCUPANCY_SEARCH=0"
        for compiled in linked:
            # The blocks per SM the PTX asks for (none: 0), linked once.
            directive = re.search(r"\.minnctapersm (\d+)", compiled.asm["ptx"])
            asked = int(directive.group(1)) if directive else 0
            info = compiled.link_info[arch]
            assert (info["min_blocks_per_sm"], info["links"]) == (asked, 1), (name, info)
