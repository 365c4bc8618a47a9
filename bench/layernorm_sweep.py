"""Layernorm forward over a grid of launch configurations (BLOCK_SIZE and
num_warps), tilelang next to Triton on the same source and a device copy,
all of one shape timed together in alternation. A study tool, not part of
the main job: it says which configuration each compiler runs best with.

  bash scripts/gpu_host.sh exec python3 bench/layernorm_sweep.py \
      [--shapes 8192x12288,16384x8192] [--blocks 2048,4096,8192,16384] [--warps 4,8,16]

`--kernel row` times instead a layernorm that holds the whole row in
registers (BLOCK_SIZE >= N: one read of x from memory, no re-reads from L2),
the other way to write it.

Every tilelang variant is checked against a float64 reference before it is
timed; a configuration either compiler rejects is reported and skipped.
"""

import argparse
import pathlib
import statistics
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kernels as bench_kernels  # noqa: E402
from run import bench_interleaved  # noqa: E402

import tilelang  # noqa: E402
import tilelang.language as tl  # noqa: E402


def define_row_kernel(jit, tl):
    """Layernorm with the whole row in registers: statistics and the
    normalization from one load of x."""

    @jit
    def layer_norm_row(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
        mean = tl.sum(x, axis=0) / N
        xc = tl.where(mask, x - mean, 0.)
        var = tl.sum(xc * xc, axis=0) / N
        rstd = 1 / tl.sqrt(var + eps)
        tl.store(Mean + row, mean)
        tl.store(Rstd + row, rstd)
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        tl.store(Y + row * stride + cols, xc * rstd * w + b, mask=mask)

    return layer_norm_row


def variants(args, n):
    """(BLOCK_SIZE, num_warps) pairs worth running for rows of `n`: blocks
    up to next_power_of_2(n), at most 64 elements a thread."""
    for block in (int(v) for v in args.blocks.split(",")):
        if block > tilelang.next_power_of_2(n) or (args.kernel == "row" and block < n):
            continue
        for warps in (int(v) for v in args.warps.split(",")):
            if block // (32 * warps) <= 64 and block >= 32 * warps:
                yield block, warps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="8192x12288,16384x8192,4096x4096")
    parser.add_argument("--blocks", default="2048,4096,8192,16384")
    parser.add_argument("--warps", default="4,8,16")
    parser.add_argument("--rep-ms", type=float, default=100)
    parser.add_argument("--kernel", choices=["loops", "row"], default="loops",
                        help="loops: bench/kernels.py's (Triton's tutorial); row: the whole row in registers")
    args = parser.parse_args()

    def define(jit, language):
        if args.kernel == "row":
            return define_row_kernel(jit, language)
        return bench_kernels.define(jit, language)["layer_norm_fwd"]

    try:
        import triton
        import triton.language as ttl
        triton_kernel = define(triton.jit, ttl)
    except ImportError:
        triton_kernel = None
    tilelang_kernel = define(tilelang.jit, tl)
    for shape in args.shapes.split(","):
        m, n = map(int, shape.split("x"))
        x, w, b, y, mean, rstd = bench_kernels.layernorm_inputs(torch, m, n)
        ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)
        copy_out = torch.empty_like(x)
        impls = {"copy": lambda: copy_out.copy_(x)}
        for block, warps in variants(args, n):
            def run(kernel, block=block, warps=warps):
                return lambda: kernel[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5,
                                            BLOCK_SIZE=block, num_warps=warps)
            try:
                y.fill_(float("nan"))
                compiled = tilelang_kernel[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=block,
                                                 num_warps=warps)
                torch.cuda.synchronize()
                error = (y.double() - ref).abs().max().item()
                if not error < 3e-2:
                    raise AssertionError(f"max error {error}")
                info = compiled.link_info
                print(f"   tilelang {block}/{warps}: {compiled.n_regs} registers, {compiled.n_spills} local bytes,"
                      f" {info}", flush=True)
                impls[f"tl {block}/{warps}"] = run(tilelang_kernel)
            except Exception as exc:  # noqa: BLE001
                print(f"   tilelang {block}/{warps}: {type(exc).__name__}: {str(exc).splitlines()[0]}", flush=True)
            if triton_kernel is not None:
                try:
                    run(triton_kernel)()
                    torch.cuda.synchronize()
                    impls[f"triton {block}/{warps}"] = run(triton_kernel)
                except Exception as exc:  # noqa: BLE001
                    print(f"   triton {block}/{warps}: {type(exc).__name__}: {str(exc).splitlines()[0]}",
                          flush=True)
        samples = bench_interleaved(impls, rep_ms=args.rep_ms)
        gbytes = 2 * x.numel() * x.element_size()
        print(f"== layernorm ({args.kernel}) {shape} fp16 (BLOCK/warps; median of alternated runs)", flush=True)
        ranked = sorted(samples.items(), key=lambda item: statistics.median(item[1]))
        for name, times in ranked:
            ms = statistics.median(times)
            print(f"   {name:<20} {ms:8.4f} ms {gbytes / ms / 1e6:8.1f} GB/s", flush=True)
        del x, y, copy_out, ref, impls


if __name__ == "__main__":
    main()
