"""tilelang.ops next to torch's own operators, forward and forward +
backward, through tilelang.testing's perf_report: one sweep per operator,
written as a markdown table, CSV and PNG plot per sweep into --out
(default build/bench-ops). tilelang.ops tunes each kernel at its first
call per shape bucket (the first call of each row here; the sweep's
timing starts after it). Each tilelang result is checked against torch
before it is timed. tilelang and torch are timed together, in
alternation (bench/run.py's bench_interleaved: each repetition runs both,
in turn order rotating, after an L2 flush): a forward+backward step at
these sizes is bound by host time, and the host's pace drifts between
one sweep and the next, which a one-after-the-other timing hands to
whichever side runs later. A GPU and torch are needed.

The default sweep (three row lengths per row-wise operator, four matmul
shapes) takes about two minutes on a fresh machine, most of it tuning:
each row length is a bucket of its own, with the forward and both
backward kernels of each operator to tune; --full adds two row lengths
and one matmul shape; --quick (the main job's short form, scripts/main.sh
--quick) keeps two row lengths and two matmul shapes. After each sweep a
line says how its time went (tuning and checking, which the first call
per shape does, versus timing).

  python bench/ops.py [--out DIR] [--only matmul,layer_norm,rms_norm,softmax] [--full | --quick]
"""

import argparse
import pathlib
import sys
import time

import torch
import torch.nn.functional as F

import tilelang.ops as ops
from tilelang import testing

from run import bench_interleaved  # bench/run.py, beside this file

DTYPE = torch.float16
ROW_LENGTHS = [1024, 4096, 12288]
ROW_LENGTHS_FULL = [1024, 2048, 4096, 8192, 12288]
MATMUL_SHAPES = [(s, s, s) for s in (1024, 4096, 8192)] + [(8192, 4096, 1000)]
MATMUL_SHAPES_FULL = [(s, s, s) for s in (1024, 2048, 4096, 8192)] + [(8192, 4096, 1000)]
ROW_LENGTHS_QUICK = [1024, 4096]
MATMUL_SHAPES_QUICK = [(4096, 4096, 4096), (8192, 4096, 1000)]
# Seconds spent in the current sweep: the first calls (tuning, checking) and the timing.
SPENT = {"tuning and checking": 0.0, "timing": 0.0}
# Milliseconds (median, 20% and 80% quantiles) of the side that perf_report
# has not asked for yet, from the alternating timing of both: (row, side) ->
# quantiles.
PENDING = {}


def _spend(part, start):
    SPENT[part] += time.perf_counter() - start


def _forward(op, provider, m, n):
    """(fn running the forward, its inputs) of one row-wise operator."""
    x = torch.randn(m, n, device="cuda", dtype=DTYPE, requires_grad=True)
    w = (torch.rand(n, device="cuda", dtype=DTYPE) + 0.5).requires_grad_()
    b = torch.randn(n, device="cuda", dtype=DTYPE, requires_grad=True)
    mine = {"layer_norm": lambda: ops.layer_norm(x, w, b), "rms_norm": lambda: ops.rms_norm(x, w),
            "softmax": lambda: ops.softmax(x)}[op]
    theirs = {"layer_norm": lambda: F.layer_norm(x, (n,), w, b), "rms_norm": lambda: F.rms_norm(x, (n,), w, 1e-6),
              "softmax": lambda: torch.softmax(x, -1)}[op]
    return (mine if provider.startswith("tilelang") else theirs), (x, w, b), mine, theirs


def _check(mine, theirs, what):
    start = time.perf_counter()
    ours, ref = mine().float(), theirs().float()
    _spend("tuning and checking", start)
    error = ((ours - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()
    if not error <= 1e-2:
        raise SystemExit(f"{what}: tilelang.ops differs from torch by {error:.2e}")


def _quantiles(samples):
    samples = sorted(samples)
    return tuple(samples[min(len(samples) - 1, int(q * len(samples)))] for q in (0.5, 0.2, 0.8))


def _alternating(row, side, fns):
    """(median, 20%, 80%) milliseconds of fns[side], timed in alternation
    with the other side (fns: side -> callable); the other side's figures
    wait in PENDING for perf_report's next call of the same row."""
    if (row, side) in PENDING:
        return PENDING.pop((row, side))
    start = time.perf_counter()
    times = bench_interleaved(fns)
    _spend("timing", start)
    for other, samples in times.items():
        if other != side:
            PENDING[(row, other)] = _quantiles(samples)
    return _quantiles(times[side])


def _step(fn, inputs, grad):
    """A training step's share of the operator: gradients reset, forward,
    backward."""
    def step():
        for tensor in inputs:
            tensor.grad = None
        fn().backward(grad)
    return step


def row_benchmark(op, lengths):
    providers = ["tilelang", "torch", "tilelang-fwd+bwd", "torch-fwd+bwd"]
    return testing.Benchmark(
        x_names=["N"], x_vals=lengths, line_arg="provider", line_vals=providers,
        line_names=["tilelang.ops", "torch", "tilelang.ops fwd+bwd", "torch fwd+bwd"],
        plot_name=f"{op}-fp16-4096-rows", args={"op": op, "m": 4096}, xlabel="N (row length)",
        ylabel="GB/s (x read, y written; + bwd: x, dy read, dx written)",
        styles=[("tab:blue", "-"), ("tab:orange", "-"), ("tab:blue", "--"), ("tab:orange", "--")])


def run_row(N, provider, op, m):
    _, inputs, mine, theirs = _forward(op, provider, m, N)
    backward = provider.endswith("fwd+bwd")
    side = "tilelang" if provider.startswith("tilelang") else "torch"
    row = (op, m, N, backward)
    fns = {"tilelang": mine, "torch": theirs}
    if (row, side) not in PENDING:
        _check(mine, theirs, f"{op} {m}x{N}")
        if backward:
            grad = torch.randn_like(theirs())
            fns = {name: _step(fn, inputs, grad) for name, fn in fns.items()}
            start = time.perf_counter()
            for fn in fns.values():  # the first backward call tunes the backward kernels
                fn()
            torch.cuda.synchronize()
            _spend("tuning and checking", start)
    median, low, high = _alternating(row, side, fns)
    moved = (2 * m * N + (3 * m * N if backward else 0)) * 2
    return tuple(moved / ms * 1e-6 for ms in (median, high, low))


def matmul_benchmark(shapes):
    return testing.Benchmark(
        x_names=["M", "N", "K"], x_vals=shapes, line_arg="provider", line_vals=["tilelang", "torch"],
        line_names=["tilelang.ops.matmul", "torch (cuBLAS)"], plot_name="matmul-bias-gelu-fp16", args={},
        xlabel="M (= N = K except the last point)", ylabel="TFLOP/s", styles=[("tab:blue", "-"), ("tab:orange", "-")])


def run_matmul(M, N, K, provider):
    a = torch.randn(M, K, device="cuda", dtype=DTYPE)
    b = torch.randn(K, N, device="cuda", dtype=DTYPE) / K ** 0.5
    bias = torch.randn(N, device="cuda", dtype=DTYPE)

    def mine():
        return ops.matmul(a, b, bias, activation="gelu")

    def theirs():
        return F.gelu(torch.addmm(bias, a, b))

    row = ("matmul", M, N, K)
    if (row, provider) not in PENDING:
        _check(mine, theirs, f"matmul {M}x{N}x{K}")
    median, low, high = _alternating(row, provider, {"tilelang": mine, "torch": theirs})
    flops = 2.0 * M * N * K
    return tuple(flops / ms * 1e-9 for ms in (median, high, low))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("build/bench-ops"),
                        help="folder for each sweep's .md, .csv and .png (default: build/bench-ops)")
    parser.add_argument("--only", default="matmul,layer_norm,rms_norm,softmax",
                        help="comma-separated operators to sweep (default: all four)")
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--full", action="store_true",
                       help=f"row lengths {ROW_LENGTHS_FULL} and matmul shapes {MATMUL_SHAPES_FULL} "
                            f"(default: {ROW_LENGTHS} and {MATMUL_SHAPES})")
    sizes.add_argument("--quick", action="store_true",
                       help=f"row lengths {ROW_LENGTHS_QUICK} and matmul shapes {MATMUL_SHAPES_QUICK}")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("bench/ops.py needs a CUDA GPU", file=sys.stderr)
        return 2
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = set(wanted) - {"matmul", "layer_norm", "rms_norm", "softmax"}
    if unknown:
        parser.error(f"--only: unknown operators {', '.join(sorted(unknown))}")
    lengths = ROW_LENGTHS_FULL if args.full else ROW_LENGTHS_QUICK if args.quick else ROW_LENGTHS
    shapes = MATMUL_SHAPES_FULL if args.full else MATMUL_SHAPES_QUICK if args.quick else MATMUL_SHAPES
    for name in wanted:
        SPENT.update(dict.fromkeys(SPENT, 0.0))
        start = time.perf_counter()
        if name == "matmul":
            testing.perf_report(matmul_benchmark(shapes))(run_matmul).run(save_path=str(args.out), print_data=True)
        else:
            testing.perf_report(row_benchmark(name, lengths))(run_row).run(save_path=str(args.out),
                                                                           print_data=True)
        print(f"{name}: {time.perf_counter() - start:.1f} s, of which "
              + ", ".join(f"{part} {seconds:.1f} s" for part, seconds in SPENT.items()), file=sys.stderr)
    print(f"tables and plots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
