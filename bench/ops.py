"""tilelang.ops next to torch's own operators, forward and forward +
backward, through tilelang.testing's perf_report: one sweep per operator,
written as a markdown table, CSV and PNG plot per sweep into --out
(default build/bench-ops). tilelang.ops tunes each kernel at its first
call per shape bucket (the first call of each row here; the sweep's
timing starts after it). Each tilelang result is checked against torch
before it is timed. A GPU and torch are needed.

  python bench/ops.py [--out DIR] [--only matmul,layer_norm,rms_norm,softmax]
"""

import argparse
import pathlib
import sys

import torch
import torch.nn.functional as F

import tilelang.ops as ops
from tilelang import testing

DTYPE = torch.float16


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
    ours, ref = mine().float(), theirs().float()
    error = ((ours - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()
    if not error <= 1e-2:
        raise SystemExit(f"{what}: tilelang.ops differs from torch by {error:.2e}")


def _timed(fn, inputs, backward):
    if not backward:
        return testing.do_bench(fn, return_mode="median", quantiles=[0.5, 0.2, 0.8])
    out = fn()
    grad = torch.randn_like(out)

    def step():
        fn().backward(grad)

    return testing.do_bench(step, grad_to_none=list(inputs), quantiles=[0.5, 0.2, 0.8])


def row_benchmark(op):
    providers = ["tilelang", "torch", "tilelang-fwd+bwd", "torch-fwd+bwd"]
    return testing.Benchmark(
        x_names=["N"], x_vals=[1024, 2048, 4096, 8192, 12288], line_arg="provider", line_vals=providers,
        line_names=["tilelang.ops", "torch", "tilelang.ops fwd+bwd", "torch fwd+bwd"],
        plot_name=f"{op}-fp16-4096-rows", args={"op": op, "m": 4096}, xlabel="N (row length)",
        ylabel="GB/s (x read, y written; + bwd: x, dy read, dx written)",
        styles=[("tab:blue", "-"), ("tab:orange", "-"), ("tab:blue", "--"), ("tab:orange", "--")])


def run_row(N, provider, op, m):
    fn, inputs, mine, theirs = _forward(op, provider, m, N)
    _check(mine, theirs, f"{op} {m}x{N}")
    backward = provider.endswith("fwd+bwd")
    median, low, high = _timed(fn, inputs, backward)
    moved = (2 * m * N + (3 * m * N if backward else 0)) * 2
    return tuple(moved / ms * 1e-6 for ms in (median, high, low))


MATMUL = testing.Benchmark(
    x_names=["M", "N", "K"], x_vals=[(s, s, s) for s in (1024, 2048, 4096, 8192)] + [(8192, 4096, 1000)],
    line_arg="provider", line_vals=["tilelang", "torch"], line_names=["tilelang.ops.matmul", "torch (cuBLAS)"],
    plot_name="matmul-bias-gelu-fp16", args={}, xlabel="M (= N = K except the last point)", ylabel="TFLOP/s",
    styles=[("tab:blue", "-"), ("tab:orange", "-")])


def run_matmul(M, N, K, provider):
    a = torch.randn(M, K, device="cuda", dtype=DTYPE)
    b = torch.randn(K, N, device="cuda", dtype=DTYPE) / K ** 0.5
    bias = torch.randn(N, device="cuda", dtype=DTYPE)

    def mine():
        return ops.matmul(a, b, bias, activation="gelu")

    def theirs():
        return F.gelu(torch.addmm(bias, a, b))

    _check(mine, theirs, f"matmul {M}x{N}x{K}")
    median, low, high = testing.do_bench(mine if provider == "tilelang" else theirs, return_mode="median",
                                         quantiles=[0.5, 0.2, 0.8])
    flops = 2.0 * M * N * K
    return tuple(flops / ms * 1e-9 for ms in (median, high, low))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("build/bench-ops"),
                        help="folder for each sweep's .md, .csv and .png (default: build/bench-ops)")
    parser.add_argument("--only", default="matmul,layer_norm,rms_norm,softmax",
                        help="comma-separated operators to sweep (default: all four)")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("bench/ops.py needs a CUDA GPU", file=sys.stderr)
        return 2
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = set(wanted) - {"matmul", "layer_norm", "rms_norm", "softmax"}
    if unknown:
        parser.error(f"--only: unknown operators {', '.join(sorted(unknown))}")
    for name in wanted:
        if name == "matmul":
            testing.perf_report(MATMUL)(run_matmul).run(save_path=str(args.out), print_data=True)
        else:
            testing.perf_report(row_benchmark(name))(run_row).run(save_path=str(args.out), print_data=True)
    print(f"tables and plots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
