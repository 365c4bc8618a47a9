"""tilelang.testing's timers on the GPU: do_bench and do_bench_cudagraph
return what their return_mode and quantiles ask for, and grad_to_none
keeps a timed backward from accumulating gradients. No speed is asserted.
Skipped without a GPU or without torch."""

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

from tilelang import testing  # noqa: E402


@pytest.mark.parametrize("timer", [testing.do_bench, testing.do_bench_cudagraph])
def test_modes_and_quantiles(timer):
    x = torch.randn(2048, 2048, device="cuda")

    def fn():
        return x @ x

    assert timer(fn) > 0
    low, mid, high = timer(fn, quantiles=[0.2, 0.5, 0.8])
    assert 0 < low <= mid <= high
    times = timer(fn, return_mode="all")
    assert isinstance(times, list) and len(times) >= 1 and all(t > 0 for t in times)
    assert timer(fn, return_mode="min") <= timer(fn, return_mode="max") * 2


def test_grad_to_none_resets_gradients_before_each_repetition():
    x = torch.randn(1000, device="cuda", requires_grad=True)

    def step():
        (x * 3).sum().backward()

    testing.do_bench(step, warmup=1, rep=5, grad_to_none=[x])
    # Each repetition starts from no gradient: the last leaves one backward's worth.
    assert torch.equal(x.grad, torch.full_like(x, 3.0))
