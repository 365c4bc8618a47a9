"""Runs one benchmark case a few times, for a profiler to look at.

  python bench/profile_case.py layernorm 8192 12288 tilelang|triton [--launches 3]
  ncu --section SpeedOfLight -k regex:layer_norm -c 1 python bench/profile_case.py layernorm 8192 12288 tilelang

The inputs and launch settings are the ones bench/run.py uses; the kernel is
compiled (and launched once) before the launches a profiler should see.
"""

import argparse
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kernels as bench_kernels  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernel", choices=["layernorm", "softmax"])
    parser.add_argument("rows", type=int)
    parser.add_argument("cols", type=int)
    parser.add_argument("impl", choices=["tilelang", "triton"])
    parser.add_argument("--dtype", default="float16", choices=["float16", "float32"])
    parser.add_argument("--launches", type=int, default=3)
    parser.add_argument("--num-warps", type=int, help="instead of bench/run.py's choice")
    parser.add_argument("--time", action="store_true", help="also print the median time (as bench/run.py times)")
    args = parser.parse_args()
    if args.impl == "tilelang":
        import tilelang as jit_module
        import tilelang.language as language
    else:
        import triton as jit_module
        import triton.language as language
    defined = bench_kernels.define(jit_module.jit, language)
    dtype = getattr(torch, args.dtype)
    m, n = args.rows, args.cols
    x = torch.randn(m, n, device="cuda", dtype=dtype)
    y = torch.empty_like(x)
    block = 1 << (n - 1).bit_length()
    if args.kernel == "layernorm":
        block = min(65536 // x.element_size(), block)
        warps = args.num_warps or min(max(block // 256, 1), 8)
        x, w, b, y, mean, rstd = bench_kernels.layernorm_inputs(torch, m, n, dtype)

        def run():
            defined["layer_norm_fwd"][(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=block,
                                            num_warps=warps)
    else:
        warps = args.num_warps or (4 if block < 2048 else 8 if block < 4096 else 16)

        def run():
            defined["softmax"][(m,)](y, x, x.stride(0), y.stride(0), n, BLOCK_SIZE=block, num_warps=warps)
    for _ in range(args.launches + 1):
        run()
    torch.cuda.synchronize()
    summary = f"{args.impl} {args.kernel} {m}x{n} {args.dtype}: BLOCK={block}, num_warps={warps}"
    if args.time:
        import statistics

        from run import bench_interleaved  # bench/run.py's timing: L2 flushed, events

        ms = statistics.median(bench_interleaved({"case": run})["case"])
        summary += f", {ms:.4f} ms, {2 * x.numel() * x.element_size() / ms / 1e6:.0f} GB/s"
    print(summary)


if __name__ == "__main__":
    main()
