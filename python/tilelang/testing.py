"""Helpers for timing and testing kernels. ``do_bench`` is what the
autotuner times configs with; torch is imported only when it is called."""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Union

__all__ = ["do_bench", "bench_calls"]

#: How many times ``do_bench`` ran in this process (the tests read it).
bench_calls = 0

_FLUSH = []


def _l2_flush_buffer():
    """256 MB on the GPU, zeroed between repetitions to evict L2."""
    import torch

    if not _FLUSH:
        _FLUSH.append(torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda"))
    return _FLUSH[0]


def do_bench(fn: Callable[[], object], warmup: float = 25, rep: float = 100,
             quantiles: Optional[Sequence[float]] = None,
             return_mode: str = "median") -> Union[float, List[float]]:
    """Times ``fn`` (which launches GPU work) with CUDA events, as Triton's
    ``do_bench``: ``warmup`` and ``rep`` are in milliseconds (the number of
    runs is estimated from five runs); L2 is flushed before each repetition
    by zeroing a 256 MB buffer (outside the timed region). Returns the
    ``return_mode`` ("min", "max", "mean", "median" or "all") of the times in
    ms, or the given ``quantiles`` of them."""
    global bench_calls
    import torch

    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(f"return_mode must be min, max, mean, median or all, not {return_mode!r}")
    bench_calls += 1
    flush = _l2_flush_buffer()
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        flush.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-3)
    n_warmup = max(1, int(warmup / estimate))
    n_repeat = max(1, int(rep / estimate))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = torch.tensor([s.elapsed_time(e) for s, e in zip(starts, ends)], dtype=torch.float64)
    if quantiles is not None:
        result = torch.quantile(times, torch.tensor(list(quantiles), dtype=torch.float64)).tolist()
        return result[0] if len(result) == 1 else result
    if return_mode == "all":
        return times.tolist()
    return float(getattr(torch, return_mode)(times).item())
