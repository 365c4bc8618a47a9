"""Formatting of bench/run.py's results: JSON, markdown tables (through
tilelang.testing.markdown_table, as perf_report's), a PNG plot of grouped
bars (one subplot per kernel).

Pure Python (matplotlib only for the plot, and only when importable), so it
can be tried without a GPU or torch. A result is a dict:

  {"device": str, "date": str, "versions": {name: version},
   "rows": [row, ...], "errors": [{"kernel", "shape", "impl", "error"}, ...]}

and a row is {"kernel", "shape", "impl", "ms", "GB/s"} for the bandwidth
kernels (layernorm, softmax), {"kernel", "shape", "impl", "ms", "TFLOP/s"}
for the compute-bound ones (matmul, attention; attention rows also name
the tuned "config"), or {"kernel", "shape", "impl", "us"} for the launch
overhead (microseconds per launch).
"""

import json
import pathlib

from tilelang.testing import markdown_table

# Column order of the implementations, and how the tables name them.
IMPLS = ("tilelang", "torch", "torch-flash", "torch-cudnn", "triton", "triton-tutorial")
IMPL_NAMES = {"tilelang": "tilelang", "torch": "torch", "torch-flash": "torch SDPA (flash)",
              "torch-cudnn": "torch SDPA (cuDNN)", "triton": "Triton",
              "triton-tutorial": "Triton, tutorial form"}
RATIO_NOTE = ("`tilelang / Triton` is tilelang's time over Triton's on the same source (ms per call, or us per "
              "launch): below 1, tilelang is faster. `tilelang / Triton, tutorial form` (attention): over Triton's "
              "on the kernel in the form of its fused-attention tutorial (bench/parity/corpus/attention.py), the "
              "best of that tutorial's configs.")


def _ordered(values):
    """Distinct values in order of first appearance."""
    seen = {}
    for value in values:
        seen.setdefault(value, None)
    return list(seen)


def group(rows):
    """{kernel: {shape: {impl: row}}}, kernels and shapes in order of first appearance."""
    grouped = {}
    for row in rows:
        grouped.setdefault(row["kernel"], {}).setdefault(row["shape"], {})[row["impl"]] = row
    return grouped


def _impls_of(shapes):
    present = {impl for by_impl in shapes.values() for impl in by_impl}
    return [impl for impl in IMPLS if impl in present] + sorted(present - set(IMPLS))


def _cell(row):
    if row is None:
        return "-"
    if "us" in row:
        return f"{row['us']} us"
    if "TFLOP/s" in row:
        config = f" ({row['config']})" if row.get("config") else ""
        return f"{row['ms']} ms, {row['TFLOP/s']} TFLOP/s{config}"
    return f"{row['ms']} ms, {row['GB/s']} GB/s"


def _time(row):
    if row is None:
        return None
    return row.get("us", row.get("ms"))


def ratio(by_impl, other="triton"):
    """tilelang's time over `other`'s (Triton's) for one shape, or None."""
    mine, theirs = _time(by_impl.get("tilelang")), _time(by_impl.get(other))
    if not mine or not theirs:
        return None
    return mine / theirs


def markdown(result):
    """The results as markdown: one table per kernel, one row per shape, one
    column per implementation and the tilelang / Triton ratio."""
    lines = [f"# tilelang benchmarks on {result.get('device', 'an unknown GPU')}", ""]
    versions = result.get("versions") or {}
    about = ", ".join(f"{name} {version}" for name, version in versions.items() if version)
    if result.get("date"):
        about = f"{about}; {result['date']}" if about else result["date"]
    if about:
        lines += [about, ""]
    errors = result.get("errors") or []
    kernels = _ordered([row["kernel"] for row in result.get("rows", [])] + [e["kernel"] for e in errors])
    grouped = group(result.get("rows", []))
    for kernel in kernels:
        shapes = grouped.get(kernel, {})
        lines += [f"## {kernel}", ""]
        if shapes:
            impls = _impls_of(shapes)
            others = ["triton"] + (["triton-tutorial"] if "triton-tutorial" in impls else [])
            header = ["shape"] + [IMPL_NAMES.get(impl, impl) for impl in impls] + \
                [f"tilelang / {IMPL_NAMES[other]}" for other in others]
            cells = []
            for shape, by_impl in shapes.items():
                ratios = [ratio(by_impl, other) for other in others]
                cells.append([shape] + [_cell(by_impl.get(impl)) for impl in impls] +
                             [f"{r:.2f}" if r else "n/a" for r in ratios])
            lines += markdown_table(header, cells).splitlines() + [""]
        failed = [e for e in errors if e["kernel"] == kernel]
        if failed:
            lines.append("Failed:")
            lines += [f"- {e['shape']}, {e['impl']}: {e['error']}" for e in failed]
            lines.append("")
    if grouped:
        lines.append(RATIO_NOTE)
    return "\n".join(lines).rstrip("\n") + "\n"


def plot(result, path):
    """Writes a PNG: one subplot per kernel, GB/s (or TFLOP/s) per shape and
    implementation as grouped bars (us per launch for the launch overhead). Returns False,
    writing nothing, when matplotlib is not importable."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    grouped = group(result.get("rows", []))
    if not grouped:
        return False
    widths = [max(len(shapes), 1.5) for shapes in grouped.values()]
    fig, axes = plt.subplots(1, len(grouped), figsize=(2.0 + 1.3 * sum(widths), 4.8),
                             gridspec_kw={"width_ratios": widths}, squeeze=False)
    colors = {"tilelang": "tab:blue", "torch": "tab:orange", "torch-flash": "tab:orange", "torch-cudnn": "tab:red",
              "triton": "tab:green", "triton-tutorial": "tab:olive"}
    for ax, (kernel, shapes) in zip(axes[0], grouped.items()):
        impls = _impls_of(shapes)
        rows = [row for by_impl in shapes.values() for row in by_impl.values()]
        launch = all("us" in row for row in rows)
        if launch:
            key, unit = "us", "us per launch (lower is better)"
        elif all("TFLOP/s" in row for row in rows):
            key, unit = "TFLOP/s", "TFLOP/s (higher is better)"
        else:
            key, unit = "GB/s", "GB/s (higher is better)"
        bar = 0.8 / len(impls)
        for i, impl in enumerate(impls):
            xs, ys = [], []
            for x, by_impl in enumerate(shapes.values()):
                row = by_impl.get(impl)
                if row is not None and row.get(key) is not None:
                    xs.append(x + (i - (len(impls) - 1) / 2) * bar)
                    ys.append(row[key])
            bars = ax.bar(xs, ys, bar, label=IMPL_NAMES.get(impl, impl), color=colors.get(impl))
            if launch:
                ax.bar_label(bars, fmt="%.1f", fontsize=8)
        ax.set_xticks(range(len(shapes)))
        tilted = len(shapes) > 1
        ax.set_xticklabels(list(shapes), rotation=30 if tilted else 0, ha="right" if tilted else "center", fontsize=8)
        ax.set_title(kernel)
        ax.set_ylabel(unit)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"tilelang benchmarks on {result.get('device', 'an unknown GPU')}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def write(result, out):
    """Writes results.json, results.md and (when matplotlib is importable)
    results.png to the folder `out`; returns the markdown text and whether
    the plot was written."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    text = markdown(result)
    (out / "results.md").write_text(text)
    return text, plot(result, out / "results.png")
