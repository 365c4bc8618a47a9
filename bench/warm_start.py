"""Warm start: the first launch of a kernel whose compilation is cached on
disk, in a fresh process, for tilelang and Triton side by side (the same
kernel source, bench/kernels.py's matmul_kernel at 4096^3 fp16 and
layer_norm_fwd at 4096x8192 fp16).

For each kernel and compiler, one child process fills a cache directory
of its own (the cold compile, not reported; these children run at the same
time, since compile times are not measured); then --runs fresh children
(default 7) each import everything, make the inputs, synchronize, and time
the first launch up to a synchronize, then a second launch the same way
(the steady cost, kernel time included). The timed children run one at a
time, so that nothing else competes with the launch they time. The table
gives the medians, and the first launch's excess over the second: what the
warm start itself costs. Children also report where tilelang's first
launch went (frontend, IR verification, cache lookup, loading). Where the
run's own time goes is printed as it goes (the cold compiles together, then
each kernel and compiler's children): a fresh process costs mostly its
imports (torch, Triton) and CUDA's initialization, about 2-4 s, so the
default run of both kernels under both compilers takes about two minutes.

  python bench/warm_start.py [--runs N] [--only matmul,layernorm] [--compilers tilelang,triton] [--out FILE.md]
  python bench/warm_start.py --fake-driver build/fakecuda/libcuda.so.1   # no GPU:
      tilelang only, launching through the recording stand-in driver
      (test/python/fakecuda), tensors faked; nothing runs
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent

CHILD = r'''
import json, os, sys, time
start = time.perf_counter()
which, compiler, fake = sys.argv[1], sys.argv[2], sys.argv[3] == "fake"
sys.path.insert(0, os.environ["WARM_BENCH_DIR"])
if fake:
    sys.path.insert(0, os.environ["WARM_TESTS_DIR"])
    from tilelang_testing import FakeTensor
else:
    import torch
imported_torch = time.perf_counter()
import kernels as bench_kernels
if compiler == "tilelang":
    import tilelang as jit_module, tilelang.language as language
else:
    import triton as jit_module, triton.language as language
imported = time.perf_counter()
parts = {}
if compiler == "tilelang":
    import functools
    import tilelang.cache, tilelang.ir
    J, G = sys.modules["tilelang.jit"], sys.modules["tilelang.frontend.codegen"]
    def timed(owner, name, label):
        original = getattr(owner, name)
        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            begin = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                parts[label] = parts.get(label, 0.0) + (time.perf_counter() - begin) * 1e3
        setattr(owner, name, wrapper)
    timed(G, "generate", "frontend")
    timed(tilelang.ir, "run_pipeline", "verify")
    timed(tilelang.cache, "lookup", "cache lookup")
    timed(J.CompiledKernel, "launchable", "lookup + load")
kernels = bench_kernels.define(jit_module.jit, language)

def tensor(shape, dtype):
    if fake:
        return FakeTensor(shape, dtype)
    return torch.randn(*shape, device="cuda", dtype=getattr(torch, dtype))

def sync():
    if not fake:
        torch.cuda.synchronize()

if which == "matmul":
    a, b, c = tensor((4096, 4096), "float16"), tensor((4096, 4096), "float16"), tensor((4096, 4096), "float16")
    options = bench_kernels.matmul_launch_options(None)
    grid = bench_kernels.matmul_grid(4096, 4096, options)
    def launch():
        kernels["matmul_kernel"][grid](*bench_kernels.matmul_args(a, b, c), **options)
else:
    x, w = tensor((4096, 8192), "float16"), tensor((8192,), "float16")
    y, stats = tensor((4096, 8192), "float16"), tensor((4096,), "float32")
    def launch():
        kernels["layer_norm_fwd"][(4096,)](x, y, w, w, stats, stats, 8192, 8192, 1e-5, BLOCK_SIZE=8192,
                                           num_warps=8)
sync()
t0 = time.perf_counter(); launch(); sync(); t1 = time.perf_counter()
launch(); sync(); t2 = time.perf_counter()
print(json.dumps({"first_ms": (t1 - t0) * 1e3, "second_ms": (t2 - t1) * 1e3,
                  "import_ms": (imported - imported_torch) * 1e3, "parts": parts}))
'''


def run_child(which, compiler, cache, fake_driver):
    env = dict(os.environ, WARM_BENCH_DIR=str(HERE), WARM_TESTS_DIR=str(ROOT / "test" / "python"),
               TILELANG_CACHE_DIR=str(cache / "tilelang"), TRITON_CACHE_DIR=str(cache / "triton"))
    env.pop("TILELANG_ALWAYS_COMPILE", None)
    if fake_driver:
        env["TILELANG_LIBCUDA"] = str(fake_driver)
    done = subprocess.run([sys.executable, "-c", CHILD, which, compiler, "fake" if fake_driver else "gpu"],
                          capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{which} under {compiler}: the child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fill_caches(pairs, folder: pathlib.Path, fake_driver):
    """One cold child per (kernel, compiler), all at once, each filling a
    cache directory of its own; returns the directories."""
    caches = {pair: folder / "-".join(pair) for pair in pairs}
    start = time.perf_counter()
    with ThreadPoolExecutor(len(pairs)) as pool:
        list(pool.map(lambda pair: run_child(*pair, caches[pair], fake_driver), pairs))
    print(f"cold compiles filling the caches ({len(pairs)} children at once): "
          f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
    return caches


def measure(which, compiler, runs, cache, fake_driver):
    """The medians of `runs` fresh children on the filled `cache`."""
    start = time.perf_counter()
    samples = [run_child(which, compiler, cache, fake_driver) for _ in range(runs)]
    median = {key: statistics.median(s[key] for s in samples) for key in ("first_ms", "second_ms", "import_ms")}
    labels = sorted({label for s in samples for label in s["parts"]})
    median["parts"] = {label: statistics.median(s["parts"].get(label, 0.0) for s in samples) for label in labels}
    median["wall_s"] = time.perf_counter() - start
    return median


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per kernel and compiler (default 7)")
    parser.add_argument("--only", default="matmul,layernorm", help="kernels: matmul, layernorm (default both)")
    parser.add_argument("--compilers", default="tilelang,triton",
                        help="tilelang and/or triton (default both; Triton where it is importable)")
    parser.add_argument("--fake-driver", type=pathlib.Path,
                        help="the stand-in driver library (test/python/fakecuda): tilelang only, no GPU")
    parser.add_argument("--out", type=pathlib.Path, help="also write the table (markdown) to this file")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    kernels = [k.strip() for k in args.only.split(",") if k.strip()]
    if not kernels or set(kernels) - {"matmul", "layernorm"}:
        parser.error("--only takes matmul and/or layernorm")
    wanted = [c.strip() for c in args.compilers.split(",") if c.strip()]
    if not wanted or set(wanted) - {"tilelang", "triton"}:
        parser.error("--compilers takes tilelang and/or triton")
    compilers = [c for c in wanted if c == "tilelang"]
    if "triton" in wanted and not args.fake_driver:
        try:
            import triton  # noqa: F401
            compilers.append("triton")
        except ImportError:
            print("note: Triton is not importable; tilelang only", file=sys.stderr)
    if not compilers:
        parser.error("nothing to time: Triton does not run on the stand-in driver")
    from tilelang.testing import markdown_table

    rows = []
    pairs = [(which, compiler) for which in kernels for compiler in compilers]
    with tempfile.TemporaryDirectory(prefix="warm-start-") as folder:
        caches = fill_caches(pairs, pathlib.Path(folder), args.fake_driver)
        for which, compiler in pairs:
            result = measure(which, compiler, args.runs, caches[which, compiler], args.fake_driver)
            parts = ", ".join(f"{label} {ms:.2f}" for label, ms in result["parts"].items()) or "-"
            rows.append([which, compiler, f"{result['first_ms']:.2f}", f"{result['second_ms']:.3f}",
                         f"{result['first_ms'] - result['second_ms']:.2f}", f"{result['import_ms']:.0f}", parts])
            # The parts too, so that a run cut short still says where the time went.
            print(f"{which} {compiler}: first launch {result['first_ms']:.2f} ms, second "
                  f"{result['second_ms']:.3f} ms (medians of {args.runs}; {args.runs} fresh processes in "
                  f"{result['wall_s']:.1f} s){'; ' + parts if parts != '-' else ''}", file=sys.stderr)
    where = "through the stand-in driver, no GPU: nothing runs" if args.fake_driver else "on the GPU"
    text = (f"# Warm start: first launch of a cached kernel in a fresh process ({where}; "
            f"median of {args.runs})\n\n"
            + markdown_table(["kernel", "compiler", "first launch (ms)", "second launch (ms)",
                              "warm-start cost (ms)", "import (ms)", "tilelang's first launch by part (ms)"], rows))
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
