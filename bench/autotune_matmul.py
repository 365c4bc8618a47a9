"""Tunes the bundled matmul over autotune/spaces.py's MATMUL space at one
shape and reports how long the first call took (compiling every config,
pruning what cannot run, timing the rest) and what a second call costs.
Run it twice with the same TILELANG_CACHE_DIR: the second process finds
every config's record in the store and times nothing.

  python bench/autotune_matmul.py [--size 4096] [--dtype bf16] [--descriptors] [--devices all]

With --descriptors, matmul_descriptor_kernel is tuned instead: each config's
pre_hook (spaces.matmul_descriptor_pre_hook) gives the tensor descriptors
its block shapes. With --devices all (or 0,1), the configs are timed in
parallel on those GPUs, one thread each (docs/autotune.md, "Several
devices").

Prints one JSON line: seconds for the tuning call, configs timed and
pruned in this process, the best config, and the max error against
torch.matmul.
"""

import argparse
import json
import pathlib
import sys
import time

import torch

import tilelang
import tilelang.language as tl
from tilelang.autotune import core

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
import kernels as bench_kernels  # noqa: E402
from autotune import spaces  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    parser.add_argument("--descriptors", action="store_true",
                        help="tune matmul_descriptor_kernel (tensor descriptors) instead")
    parser.add_argument("--devices", default=None,
                        help="time the configs in parallel on these GPUs: 'all' or ordinals such as 0,1")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    defined = bench_kernels.define(tilelang.jit, tl)
    m = n = k = args.size
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    c = torch.empty(m, n, device="cuda", dtype=dtype)
    if args.descriptors:
        tuned = tilelang.autotune(configs=spaces.configs(spaces.MATMUL_DESCRIPTORS,
                                                         pre_hook=spaces.matmul_descriptor_pre_hook),
                                  key=["M", "N", "K"], work=spaces.matmul_descriptor_work, devices=args.devices)(
            defined["matmul_descriptor_kernel"])
        # Block shapes here are placeholders: each config's pre_hook sets them.
        call_args = [tilelang.TensorDescriptor.from_tensor(t, [64, 64]) for t in (a, b, c)] + [m, n, k]
    else:
        tuned = tilelang.autotune(configs=spaces.configs(spaces.MATMUL), key=["M", "N", "K"],
                                  work=spaces.matmul_work, devices=args.devices)(defined["matmul_kernel"])
        call_args = bench_kernels.matmul_args(a, b, c)

    def grid(meta):
        return (-(-m // meta["BLOCK_SIZE_M"]) * -(-n // meta["BLOCK_SIZE_N"]),)

    start = time.perf_counter()
    tuned[grid](*call_args)
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    reference = torch.matmul(a.float(), b.float())
    error = (c.float() - reference).abs().max().item() / reference.abs().max().item()
    print(json.dumps({"size": args.size, "dtype": args.dtype, "descriptors": args.descriptors,
                      "configs": len(spaces.MATMUL),
                      "tuning_seconds": round(seconds, 2), "timed": core.stats.benchmarks - core.stats.runoff_timings,
                      "runoff_timings": core.stats.runoff_timings,
                      "compiled": core.stats.compiled, "reused": core.stats.reused,
                      "best": str(tuned.best_config), "relative_error": error,
                      "devices": tuned.last_sweep_devices,
                      "times_ms": {r["config"]: r["time_ms"] for r in (tuned.last_sweep or {}).get("records", [])
                                   if r["status"] == "ok"}}))


if __name__ == "__main__":
    main()
