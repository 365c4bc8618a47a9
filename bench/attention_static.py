"""The bundled flash-attention forward (kernels.py's attention_fwd_kernel)
compiled without a GPU: every variant the benchmark runs (fp16 and bf16,
head dimensions 64 and 128, causal and full) at the shapes of bench/run.py,
for sm_90a, with its resources: shared memory (and whether it fits the 227
KB a block may take on sm_90), registers and spills (ptxas -v, when ptxas
is installed), and what the main loop (the kernel's longest loop) holds:
barriers, shared-memory stores and loads, shuffles, wgmma waits.

  python bench/attention_static.py [--config 128x64/8/3] [--arch sm_90a]

Needs tilelang only (no GPU, no torch); the main job (scripts/main.sh) runs
it. Prints a markdown table."""

import argparse
import pathlib
import sys

import tilelang
import tilelang.language as tl

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "parity"))
import kernels as bench_kernels  # noqa: E402
import ptxstats  # noqa: E402
from ops_static import Operand  # noqa: E402

SM90_SHARED = 232448  # bytes of shared memory a block may opt into on sm_90 (227 KB)


def parse_config(text):
    """'128x64/8/3' -> the launch options (BLOCK_M x BLOCK_N / warps / stages)."""
    blocks, warps, stages = text.split("/")
    block_m, block_n = blocks.split("x")
    return {"BLOCK_M": int(block_m), "BLOCK_N": int(block_n), "num_warps": int(warps), "num_stages": int(stages)}


def compile_variant(kernel, batch, heads, n_ctx, head_dim, causal, dtype, options, arch):
    operands = [Operand((batch, heads, n_ctx, head_dim), dtype) for _ in range(4)]
    q, k, v, out = operands
    compiled = kernel.warmup(*bench_kernels.attention_args(q, k, v, out, head_dim ** -0.5),
                             **bench_kernels.attention_constexprs(q, causal, options), **options)
    built = compiled.to_ptx(arch)
    row = {"shared": built.shared_bytes}
    row.update(ptxstats.analyze(built.ptx))
    row.update(ptxstats.resources(built.ptx, arch))
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=None,
                        help="BLOCK_MxBLOCK_N/warps/stages (default: kernels.ATTENTION_DEFAULT_CONFIG)")
    parser.add_argument("--arch", default="sm_90a")
    args = parser.parse_args(argv)
    options = bench_kernels.attention_launch_options(parse_config(args.config) if args.config else None)
    kernel = bench_kernels.define(tilelang.jit, tl)["attention_fwd_kernel"]
    label = f"{options['BLOCK_M']}x{options['BLOCK_N']}, {options['num_warps']} warps, {options['num_stages']} stages"
    print(f"Flash-attention forward (bench/kernels.py), {label}, for {args.arch}; compiler "
          f"{tilelang.compiler_version()}\n")
    print("| problem | dtype | shared KB | fits sm_90 | registers | spill B | "
          "loop: bar / st.shared / ld.shared / shfl / wgmma waits |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    failed = 0
    for dtype in ("float16", "bfloat16"):
        for batch, heads, n_ctx, head_dim, causal in [(4, 32, 4096, 64, False), (4, 32, 4096, 64, True),
                                                      (4, 32, 4096, 128, False), (4, 32, 4096, 128, True),
                                                      (2, 16, 16384, 128, False), (1, 8, 1000, 128, True)]:
            problem = f"B{batch} H{heads} N{n_ctx} D{head_dim} {'causal' if causal else 'full'}"
            try:
                row = compile_variant(kernel, batch, heads, n_ctx, head_dim, causal, dtype, options, args.arch)
            except Exception as exc:  # noqa: BLE001 - reported, the others still compile
                failed += 1
                print(f"| {problem} | {dtype} | {type(exc).__name__}: {str(exc).splitlines()[0][:120]} |")
                continue
            loop = row.get("loop") or {}
            loop_text = " / ".join(str(loop.get(key, "-")) for key in
                                   ("barriers", "shared_stores", "shared_loads", "shuffles", "wgmma_waits"))
            registers = row.get("registers", row.get("error", "-"))
            fits = "yes" if row["shared"] <= SM90_SHARED else "no"
            print(f"| {problem} | {dtype} | {row['shared'] / 1024:.1f} | {fits} | {registers} | "
                  f"{row.get('spill_stores', '-')} | {loop_text} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
