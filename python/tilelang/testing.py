"""Helpers for timing and testing kernels, with Triton's names, arguments
and defaults: ``do_bench`` (what the autotuner times configs with),
``do_bench_cudagraph``, and ``Benchmark`` / ``perf_report``, which run a
sweep and write its table (markdown and CSV) and, when matplotlib is
installed, a PNG plot. torch is imported only when something is timed;
the table and plot code takes plain numbers, so it runs anywhere."""

from __future__ import annotations

import csv
import io
import math
import os
import statistics
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

__all__ = ["do_bench", "do_bench_cudagraph", "Benchmark", "perf_report", "summarize", "markdown_table",
           "bench_calls"]

#: How many times ``do_bench`` ran in this process (the tests read it).
bench_calls = 0

RETURN_MODES = ("min", "max", "mean", "median", "all")

#: Per device ordinal, its L2 flush buffer.
_FLUSH = {}


def _torch(what: str):
    """torch, which ``what`` times with (CUDA events and streams); an
    ImportError saying so where it is not installed."""
    try:
        import torch
    except ImportError:
        raise ImportError(f"tilelang.testing.{what} needs torch (it times with CUDA events); install it, e.g. "
                          f"`pip install 'tilelang-mlir[torch]'`") from None
    return torch


def _l2_flush_buffer():
    """256 MB on the current GPU, zeroed between repetitions to evict its
    L2: one per device, since a sweep spread over several GPUs times on
    each from a thread of its own (docs/autotune.md, "Several devices")."""
    import torch

    device = torch.cuda.current_device()
    buffer = _FLUSH.get(device)
    if buffer is None:
        buffer = _FLUSH[device] = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32,
                                              device=torch.device("cuda", device))
    return buffer


def _check_mode(return_mode: str) -> None:
    if return_mode not in RETURN_MODES:
        raise ValueError(f"return_mode must be min, max, mean, median or all, not {return_mode!r}")


def _quantile(times: Sequence[float], q: float) -> float:
    """The q-quantile of `times` by linear interpolation between the closest
    ranks (as torch.quantile and numpy's default)."""
    ordered = sorted(times)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(times: Sequence[float], quantiles: Optional[Sequence[float]] = None,
              return_mode: str = "mean") -> Union[float, List[float]]:
    """What ``do_bench`` returns for the measured `times` (ms): the given
    `quantiles` of them (one number for one quantile), else all of them
    (``return_mode="all"``) or their min, max, mean or median."""
    _check_mode(return_mode)
    times = [float(t) for t in times]
    if not times:
        raise ValueError("no times to summarize")
    if quantiles is not None:
        for q in quantiles:
            if not 0 <= q <= 1:
                raise ValueError(f"quantiles must be in [0, 1], not {q}")
        result = [_quantile(times, q) for q in quantiles]
        return result[0] if len(result) == 1 else result
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "mean": statistics.fmean, "median": statistics.median}[return_mode](times)


def _clear_grads(grad_to_none) -> None:
    for tensor in grad_to_none or ():
        tensor.grad = None


def do_bench(fn: Callable[[], object], warmup: float = 25, rep: float = 100, grad_to_none=None,
             quantiles: Optional[Sequence[float]] = None,
             return_mode: str = "mean") -> Union[float, List[float]]:
    """Times ``fn`` (which launches GPU work) with CUDA events, as Triton's
    ``do_bench``: ``warmup`` and ``rep`` are in milliseconds (the number of
    runs is estimated from five runs); L2 is flushed before each repetition
    by zeroing a 256 MB buffer, outside the timed region; the gradients of
    the tensors in ``grad_to_none`` are reset to None before each
    repetition (so a ``fn`` that runs a backward does not accumulate).
    Returns the ``return_mode`` ("min", "max", "mean" (the default),
    "median" or "all") of the times in ms, or the given ``quantiles`` of
    them."""
    global bench_calls
    _check_mode(return_mode)
    torch = _torch("do_bench")

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
        _clear_grads(grad_to_none)
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return summarize([s.elapsed_time(e) for s, e in zip(starts, ends)], quantiles, return_mode)


def do_bench_cudagraph(fn: Callable[[], object], rep: float = 20, grad_to_none=None,
                       quantiles: Optional[Sequence[float]] = None,
                       return_mode: str = "mean") -> Union[float, List[float]]:
    """Times ``fn`` as Triton's ``do_bench_cudagraph``: ``fn`` is captured
    ``rep / estimate`` times into one CUDA graph (on a side stream), so the
    host's launch overhead drops out; the graph is replayed ten times and
    each replay gives one time per call. No L2 flush. Returns as
    ``do_bench``."""
    global bench_calls
    _check_mode(return_mode)
    torch = _torch("do_bench_cudagraph")

    bench_calls += 1
    with torch.cuda.stream(torch.cuda.Stream()):
        fn()
        if grad_to_none is not None:
            for tensor in grad_to_none:
                tensor.detach_()
                tensor.requires_grad_(True)
                tensor.grad = None
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            fn()
        end.record()
        torch.cuda.synchronize()
        estimate = start.elapsed_time(end) / 5
        n_repeat = 1000 if estimate <= 0 else max(1, int(rep / estimate))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(n_repeat):
                _clear_grads(grad_to_none)
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / n_repeat)
    return summarize(times, quantiles, return_mode)


# -- sweeps: tables and plots -----------------------------------------------------------


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table: `header`, then `rows` (cells formatted by _cell)."""
    lines = ["| " + " | ".join(str(h) for h in header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _cell(value) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.6g}"
    return str(value)


class Benchmark:
    """One sweep for ``perf_report``, with Triton's fields: the function is
    called with each ``x_vals`` entry (bound to ``x_names``; a scalar binds
    every name) crossed with each ``line_vals`` value (bound to
    ``line_arg``), plus ``args``; ``line_names`` label the lines;
    ``plot_name`` names the files; ``xlabel``/``ylabel``, ``x_log``/``y_log``
    and ``styles`` ([(color, linestyle)] per line) shape the plot."""

    def __init__(self, x_names: List[str], x_vals: List[Any], line_arg: str, line_vals: List[Any],
                 line_names: List[str], plot_name: str, args: Dict[str, Any], xlabel: str = "",
                 ylabel: str = "", x_log: bool = False, y_log: bool = False, styles=None):
        if len(line_names) != len(line_vals):
            raise ValueError(f"Benchmark {plot_name!r}: {len(line_names)} line_names for {len(line_vals)} "
                             f"line_vals")
        self.x_names, self.x_vals = list(x_names), list(x_vals)
        self.line_arg, self.line_vals, self.line_names = line_arg, list(line_vals), list(line_names)
        self.plot_name, self.args = plot_name, dict(args)
        self.xlabel, self.ylabel, self.x_log, self.y_log, self.styles = xlabel, ylabel, x_log, y_log, styles


class Table:
    """A sweep's results: ``columns`` (the x names, then per line its name
    and, where the function returned (y, min, max), ``name-min`` and
    ``name-max``) and ``rows`` (lists of numbers). ``to_pandas()`` gives a
    DataFrame when pandas is installed."""

    def __init__(self, columns: List[str], rows: List[List[Any]]):
        self.columns, self.rows = columns, rows

    def column(self, name: str) -> List[Any]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def markdown(self) -> str:
        return markdown_table(self.columns, self.rows)

    def csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return out.getvalue()

    def to_pandas(self):
        import pandas

        return pandas.DataFrame(self.rows, columns=self.columns)

    def __str__(self) -> str:
        return self.markdown()


def _x_binding(bench: Benchmark, x) -> Dict[str, Any]:
    if isinstance(x, (list, tuple)):
        if len(x) != len(bench.x_names):
            raise ValueError(f"Benchmark {bench.plot_name!r}: x value {x!r} has {len(x)} entries for "
                             f"{len(bench.x_names)} x_names")
        return dict(zip(bench.x_names, x))
    return {name: x for name in bench.x_names}


def run_benchmark(fn: Callable, bench: Benchmark, **kwargs) -> Table:
    """Calls `fn` over `bench`'s grid; returns the Table."""
    has_range = False
    rows = []
    for x in bench.x_vals:
        binding = _x_binding(bench, x)
        values = []
        for line in bench.line_vals:
            result = fn(**binding, **{bench.line_arg: line}, **bench.args, **kwargs)
            if isinstance(result, (list, tuple)):
                y, low, high = (list(result) + [None, None])[:3]
                has_range = has_range or low is not None
            else:
                y, low, high = result, None, None
            values.append((y, low, high))
        rows.append((list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names), values))
    columns = list(bench.x_names)
    for name in bench.line_names:
        columns += [name, f"{name}-min", f"{name}-max"] if has_range else [name]
    table_rows = []
    for xs, values in rows:
        row = list(xs)
        for y, low, high in values:
            row += [y, _or_nan(low), _or_nan(high)] if has_range else [y]
        table_rows.append(row)
    return Table(columns, table_rows)


def _or_nan(value):
    return float("nan") if value is None else value


def _figure(table: Table, bench: Benchmark):
    """`table` as a matplotlib line plot (one line per line_name over the
    first x name, with the min-max band where measured), or None without
    matplotlib."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = table.column(bench.x_names[0])
    for index, name in enumerate(bench.line_names):
        style = {}
        if bench.styles and index < len(bench.styles):
            style = {"color": bench.styles[index][0], "linestyle": bench.styles[index][1]}
        ax.plot(xs, table.column(name), label=name, marker="o", markersize=3, **style)
        if f"{name}-min" in table.columns:
            low, high = table.column(f"{name}-min"), table.column(f"{name}-max")
            if not any(isinstance(v, float) and math.isnan(v) for v in low + high):
                ax.fill_between(xs, low, high, alpha=0.15, color=style.get("color"))
    ax.set_xlabel(bench.xlabel or bench.x_names[0])
    ax.set_ylabel(bench.ylabel)
    ax.set_title(bench.plot_name)
    if bench.x_log:
        ax.set_xscale("log")
    if bench.y_log:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig


def plot_table(table: Table, bench: Benchmark, path) -> bool:
    """Writes `table`'s plot to `path` (PNG); False, writing nothing,
    without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig = _figure(table, bench)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


class Mark:
    """What ``perf_report`` returns: ``run(...)`` runs the sweeps."""

    def __init__(self, fn: Callable, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def run(self, show_plots: bool = False, print_data: bool = False, save_path: str = "",
            return_df: bool = False, **kwargs):
        """Runs each Benchmark. ``save_path``: a folder for
        ``<plot_name>.csv``, ``.md`` and (with matplotlib) ``.png``;
        ``print_data`` prints each table; ``show_plots`` shows each plot
        (matplotlib's window); ``return_df``: returns the tables (pandas
        DataFrames when pandas is installed, else Tables), one for a
        single Benchmark. Extra keyword arguments go to the function."""
        benchmarks = self.benchmarks if isinstance(self.benchmarks, (list, tuple)) else [self.benchmarks]
        results = []
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        for bench in benchmarks:
            table = run_benchmark(self.fn, bench, **kwargs)
            if print_data:
                print(f"{bench.plot_name}:")
                print(table.markdown())
            if save_path:
                base = os.path.join(save_path, bench.plot_name)
                with open(base + ".csv", "w") as f:
                    f.write(table.csv())
                with open(base + ".md", "w") as f:
                    f.write(f"# {bench.plot_name}\n\n" + table.markdown())
                plot_table(table, bench, base + ".png")
            if show_plots:
                _show(table, bench)
            results.append(_frame(table) if return_df else table)
        if return_df:
            return results[0] if len(results) == 1 else results
        return None


def _frame(table: Table):
    try:
        return table.to_pandas()
    except ImportError:
        return table


def _show(table: Table, bench: Benchmark) -> None:
    """Shows `table`'s plot in matplotlib's window (nothing without it)."""
    fig = _figure(table, bench)
    if fig is not None:
        import matplotlib.pyplot as plt

        plt.show()


def perf_report(benchmarks):
    """Triton's decorator: ``@perf_report(Benchmark(...))`` (or a list of
    them) on a function returning a number, or (number, min, max), for one
    point; ``f.run(save_path=..., print_data=True)`` sweeps."""

    def decorator(fn):
        return Mark(fn, benchmarks)

    return decorator
