"""Benchmarks on the GPU: tilelang next to torch and Triton in one run.

  python bench/run.py [--out DIR]

Layernorm forward (fp16) at the anchor shapes of the H100 notes, and the
host overhead of launching a 1-block, 3-argument kernel from a Python loop.
Writes results.json and results.md to DIR (default build/bench) and prints
the table. Benchmarks are measurements, not tests: nothing here asserts a
speed.
"""

import argparse
import json
import pathlib
import statistics
import time

import torch

import tilelang
import tilelang.language as tl

import kernels as bench_kernels

try:
    import triton
    import triton.language as ttl
except ImportError:  # Triton is optional
    triton = None

LAYERNORM_SHAPES = [(4096, 1024), (4096, 4096), (16384, 8192), (8192, 12288)]


def bench(fn, warmup_ms=25, rep_ms=200):
    """Median milliseconds, with events and an L2 flush (triton's do_bench
    when available)."""
    if triton is not None:
        return triton.testing.do_bench(fn, warmup=warmup_ms, rep=rep_ms, return_mode="median")
    cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(50):
        cache.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def layernorm_rows(tl_kernels, tt_kernels):
    rows = []
    for m, n in LAYERNORM_SHAPES:
        x = torch.randn(m, n, device="cuda", dtype=torch.float16)
        w = torch.rand(n, device="cuda", dtype=torch.float16) + 0.5
        b = torch.randn(n, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        mean = torch.empty(m, device="cuda")
        rstd = torch.empty(m, device="cuda")
        block = min(65536 // x.element_size(), tilelang.next_power_of_2(n))
        warps = min(max(block // 256, 1), 8)
        bytes_moved = 2 * m * n * x.element_size()
        ref = torch.nn.functional.layer_norm(x.float(), (n,), w.float(), b.float(), 1e-5)

        def run_tilelang():
            tl_kernels["layer_norm_fwd"][(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5,
                                               BLOCK_SIZE=block, num_warps=warps)

        impls = {"tilelang": run_tilelang,
                 "torch": lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)}
        if tt_kernels is not None:
            impls["triton"] = lambda: tt_kernels["layer_norm_fwd"][(m,)](
                x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=block, num_warps=warps)
        for name, fn in impls.items():
            fn()
            torch.cuda.synchronize()
            if name == "tilelang":  # checked before timed
                error = (y.float() - ref).abs().max().item()
                assert error < 3e-2, f"tilelang layernorm {m}x{n} is wrong: max error {error}"
            ms = bench(fn)
            rows.append({"kernel": "layernorm", "shape": f"{m}x{n} fp16", "impl": name, "ms": round(ms, 4),
                         "GB/s": round(bytes_moved / ms / 1e6, 1)})
    return rows


def launch_rows(tl_kernels, tt_kernels, launches=2000):
    x = torch.randn(64, device="cuda")
    y = torch.empty_like(x)
    rows = []
    impls = {"tilelang": tl_kernels["tiny"]}
    if tt_kernels is not None:
        impls["triton"] = tt_kernels["tiny"]
    for name, kernel in impls.items():
        for _ in range(3):
            kernel[(1,)](x, y, 64, BLOCK=64)
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(launches):
            kernel[(1,)](x, y, 64, BLOCK=64)
        torch.cuda.synchronize()
        us = (time.perf_counter() - start) / launches * 1e6
        rows.append({"kernel": "launch", "shape": "1 block, 3 args", "impl": name, "us": round(us, 2)})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("build/bench"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tl_kernels = bench_kernels.define(tilelang.jit, tl)
    tt_kernels = bench_kernels.define(triton.jit, ttl) if triton is not None else None
    rows = layernorm_rows(tl_kernels, tt_kernels) + launch_rows(tl_kernels, tt_kernels)
    device = torch.cuda.get_device_name()
    (args.out / "results.json").write_text(json.dumps({"device": device, "rows": rows}, indent=1))
    lines = [f"# tilelang benchmarks on {device}", "", "| kernel | shape | impl | ms | GB/s | us/launch |",
             "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append(f"| {row['kernel']} | {row['shape']} | {row['impl']} | {row.get('ms', '')} | "
                     f"{row.get('GB/s', '')} | {row.get('us', '')} |")
    text = "\n".join(lines) + "\n"
    (args.out / "results.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
