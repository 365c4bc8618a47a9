"""Times the bundled matmul over a few configs at given shapes (tilelang,
and Triton where importable), to choose bench/run.py's matmul configs and
to compare compiler changes. Prints TFLOP/s per config; checks each result
against torch.matmul first.

  python bench/matmul_sweep.py [--shapes 4096,8192] [--dtype bf16] [--descriptors]

With --descriptors, both compilers run matmul_descriptor_kernel (blocks
through tensor descriptors: tilelang's TensorDescriptor, Triton's, with
which Triton copies by TMA) instead of the pointer kernel.
"""

import argparse
import re
import pathlib
import sys

import torch

import tilelang
import tilelang.language as tl
from tilelang.testing import do_bench

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kernels as bench_kernels  # noqa: E402

CONFIGS = [
    # (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages). On sm_90a the wgmma
    # of one iteration stays in flight during the next, so copies run
    # num_stages - 2 iterations ahead.
    (128, 256, 64, 8, 3),
    (128, 256, 64, 8, 4),
    (128, 256, 32, 8, 6),
    (128, 256, 32, 8, 7),
    (256, 128, 64, 8, 4),
    (128, 128, 64, 8, 5),
    (128, 128, 64, 4, 6),
    (64, 256, 64, 4, 6),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="4096,8192")
    parser.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    parser.add_argument("--no-triton", action="store_true", help="time tilelang only")
    parser.add_argument("--descriptors", action="store_true",
                        help="time matmul_descriptor_kernel (tensor descriptors) instead")
    parser.add_argument("--configs", default=None,
                        help="BMxBNxBK/warps/stages,... (default: the built-in list)")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    configs = CONFIGS
    if args.configs:
        configs = []
        for item in args.configs.split(","):
            match = re.fullmatch(r"(\d+)x(\d+)x(\d+)/(\d+)/(\d+)", item.strip())
            if not match:
                parser.error(f"--configs: {item!r} is not BMxBNxBK/warps/stages, e.g. 128x256x64/8/4")
            configs.append(tuple(int(v) for v in match.groups()))
    kernel_name = "matmul_descriptor_kernel" if args.descriptors else "matmul_kernel"

    def runner(kernel, descriptor_class):
        """matmul(a, b, config, out) with `kernel` (None stays None)."""
        if kernel is None:
            return None
        if args.descriptors:
            return lambda a, b, config, out=None: bench_kernels.matmul_with_descriptors(
                a, b, kernel, descriptor_class, config, out=out)
        return lambda a, b, config, out=None: bench_kernels.matmul(a, b, kernel, config, out=out)

    ours = runner(bench_kernels.define(tilelang.jit, tl)[kernel_name], tilelang.TensorDescriptor)
    try:
        if args.no_triton:
            raise ImportError("--no-triton")
        import triton
        import triton.language as ttl
        from triton.tools.tensor_descriptor import TensorDescriptor as TritonDescriptor

        # Triton allocates global scratch for descriptors through this hook.
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
        theirs = runner(bench_kernels.define(triton.jit, ttl)[kernel_name], TritonDescriptor)
    except ImportError:
        theirs = None
    for size in (int(s) for s in args.shapes.split(",")):
        a = torch.randn(size, size, device="cuda", dtype=dtype)
        b = torch.randn(size, size, device="cuda", dtype=dtype)
        reference = torch.matmul(a, b)
        flops = 2 * size ** 3
        torch_ms = do_bench(lambda: torch.matmul(a, b), return_mode="median")
        print(f"{size}^3 {args.dtype}: torch {flops / torch_ms / 1e9:.1f} TFLOP/s", flush=True)
        for bm, bn, bk, warps, stages in configs:
            config = {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8,
                      "num_warps": warps, "num_stages": stages}
            name = f"{bm}x{bn}x{bk} w{warps} s{stages}"
            try:
                c = ours(a, b, config)
                error = (c.float() - reference.float()).abs().max().item()
                scale = reference.float().abs().max().item()
                if error > 0.02 * scale:
                    print(f"  {name}: WRONG (max error {error:.3g})", flush=True)
                    continue
                ms = do_bench(lambda: ours(a, b, config, out=c), return_mode="median")
                line = f"  {name}: {flops / ms / 1e9:.1f} TFLOP/s"
                if theirs is not None:
                    try:
                        ms = do_bench(lambda: theirs(a, b, config, out=c), return_mode="median")
                        line += f" (Triton {flops / ms / 1e9:.1f})"
                    except Exception as exc:  # noqa: BLE001 - Triton may reject a config
                        line += f" (Triton: {type(exc).__name__})"
                print(line, flush=True)
            except Exception as exc:  # a config that cannot run is reported, not fatal
                print(f"  {name}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}", flush=True)


if __name__ == "__main__":
    main()
