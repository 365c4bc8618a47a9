"""Layernorm and softmax under different register budgets, next to Triton and a
device copy, timed two ways: bench/run.py's alternation and Triton's
do_bench. A study tool, not part of the main job.

  bash scripts/gpu_host.sh exec python3 bench/occupancy_study.py [--shapes 8192x12288,...]

Variants of the tilelang kernel differ only in the blocks per SM they are
linked for (`.minnctapersm`: how many blocks' registers ptxas must fit in
the register file at once): as the PTX asks, as the occupancy search picks
(docs/runtime.md), or a given count; so the numbers say whether more
resident rows beat the spills that a tighter budget costs. The copy row (y.copy_(x)) is the ceiling the bandwidth is
measured against.
"""

import argparse
import os
import pathlib
import re
import statistics
import sys

os.environ.setdefault("TILELANG_CACHE", "0")  # the variants must be linked here

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kernels as bench_kernels  # noqa: E402
from run import bench_interleaved  # noqa: E402

import tilelang  # noqa: E402
import tilelang.language as tl  # noqa: E402
from tilelang import _C  # noqa: E402


def with_min_blocks(blocks):
    """A link_kernel that links for `blocks` per SM: "search" links as
    tilelang does (the occupancy search), "ptx" for the PTX's own
    .minnctapersm, a number for that many. Prints what it got."""
    link = _C.link_kernel

    def patched(ptx, name, search_occupancy=True, shared_bytes=0):
        if blocks not in ("search", "ptx"):
            ptx, count = re.subn(r"\.minnctapersm \d+", f".minnctapersm {blocks}", ptx)
            if count == 0:
                ptx = ptx.replace(".maxntid", f".minnctapersm {blocks}\n.maxntid", 1)
        cubin, info = link(ptx, name, blocks == "search", shared_bytes)
        loaded = _C.Kernel.load_image(cubin, name, 0, 4, "")
        print(f"   {blocks}: {info['min_blocks_per_sm']} blocks per SM ({info['links']} links), "
              f"{loaded.registers} registers, {loaded.local_bytes} local bytes", flush=True)
        return cubin, info
    return patched


def cases(args):
    """(label, inputs, tilelang launcher factory, Triton launcher or None,
    reference, output, bytes moved) per benchmark case."""
    for spec in args.cases.split(","):
        kernel, shape, *rest = spec.split(":")
        m, n = map(int, shape.split("x"))
        dtype = getattr(torch, rest[0]) if rest else torch.float16
        block = tilelang.next_power_of_2(n)
        if kernel == "layernorm":
            x, w, b, y, mean, rstd = bench_kernels.layernorm_inputs(torch, m, n, dtype)
            block = min(65536 // x.element_size(), block)
            warps = args.warps or min(max(block // 256, 1), 8)
            ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)

            def factory(defined, x=x, y=y, w=w, b=b, mean=mean, rstd=rstd, n=n, m=m, block=block, warps=warps,
                        **options):
                return lambda: defined["layer_norm_fwd"][(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5,
                                                                BLOCK_SIZE=block, num_warps=warps, **options)
        else:
            x = torch.randn(m, n, device="cuda", dtype=dtype)
            y = torch.empty_like(x)
            warps = args.warps or (16 if block >= 4096 else 8 if block >= 2048 else 4)
            ref = torch.softmax(x.double(), dim=1)

            def factory(defined, x=x, y=y, n=n, m=m, block=block, warps=warps, **options):
                return lambda: defined["softmax"][(m,)](y, x, x.stride(0), y.stride(0), n, BLOCK_SIZE=block,
                                                         num_warps=warps, **options)
        yield f"{kernel} {shape} {dtype}, BLOCK {block}, {warps} warps", x, y, factory, ref, 2 * x.numel() * x.element_size()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="layernorm:4096x4096,layernorm:16384x8192,layernorm:8192x12288",
                        help="kernel:MxN[:dtype],... (kernel: layernorm or softmax)")
    parser.add_argument("--blocks", default="ptx,search", help="variants: ptx (the PTX's .minnctapersm), search "
                        "(tilelang's occupancy search), or a count of blocks per SM")
    parser.add_argument("--warps", type=int, help="num_warps instead of bench/run.py's choice")
    parser.add_argument("--triton-maxnreg", default="", help="maxnreg variants of Triton, e.g. 64,80")
    parser.add_argument("--do-bench", action="store_true", help="also time with triton.testing.do_bench")
    parser.add_argument("--rep-ms", type=float, default=300)
    args = parser.parse_args()
    try:
        import triton
        import triton.language as ttl
    except ImportError:
        triton = None
    original_link = _C.link_kernel
    for label, x, y, factory, ref, gbytes in cases(args):
        copy_out = torch.empty_like(x)
        impls = {"copy": lambda: copy_out.copy_(x)}
        for blocks in [v for v in args.blocks.split(",") if v]:
            run = factory(bench_kernels.define(tilelang.jit, tl))
            _C.link_kernel = with_min_blocks(blocks)
            try:
                y.fill_(float("nan"))
                run()
                torch.cuda.synchronize()
            finally:
                _C.link_kernel = original_link
            error = (y.double() - ref).abs().max().item()
            assert error < 3e-2, f"minnctapersm {blocks}: max error {error}"
            name = f"tl-{blocks}"
            impls[name] = run
        if triton is not None:
            for maxnreg in [None] + [int(v) for v in args.triton_maxnreg.split(",") if v]:
                run_triton = factory(bench_kernels.define(triton.jit, ttl),
                                     **({} if maxnreg is None else {"maxnreg": maxnreg}))
                try:
                    run_triton()
                    torch.cuda.synchronize()
                    impls[f"triton{'' if maxnreg is None else f'-r{maxnreg}'}"] = run_triton
                except Exception as exc:  # noqa: BLE001
                    print(f"triton maxnreg={maxnreg}: {type(exc).__name__}: {exc}".splitlines()[0])
        samples = bench_interleaved(impls, rep_ms=args.rep_ms)
        print(f"== {label} (bench/run.py alternation, median GB/s)", flush=True)
        for name, times in samples.items():
            ms = statistics.median(times)
            print(f"   {name:<16} {ms:8.4f} ms {gbytes / ms / 1e6:8.1f} GB/s", flush=True)
        if triton is not None and args.do_bench:
            print("   -- triton.testing.do_bench (median):", flush=True)
            for name, fn in impls.items():
                ms = triton.testing.do_bench(fn, return_mode="median")
                print(f"   {name:<16} {ms:8.4f} ms {gbytes / ms / 1e6:8.1f} GB/s", flush=True)
        del x, y, copy_out, ref, impls


if __name__ == "__main__":
    main()
