"""The kernels of tilelang.ops (tilelang.ops.kernels) compiled without a
GPU, for sm_90a and sm_80, at the shapes bench/ops.py times: each
operator's forward and backward kernels, each under the config launched
untuned (TILELANG_OPS_AUTOTUNE=0), with their
resources: shared memory, registers and spills (ptxas -v, when ptxas is
installed).

  python bench/ops_static.py [--arch sm_90a,sm_80]

Needs tilelang only (no GPU, no torch); the main job (scripts/main.sh) runs
it. Prints a markdown table."""

import argparse
import pathlib
import sys

import tilelang
import tilelang.language as tl
from tilelang.ops import kernels as package
from tilelang.ops import spaces
from tilelang.testing import markdown_table

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "parity"))
import ptxstats  # noqa: E402

SIZES = {"float16": 2, "bfloat16": 2, "float32": 4}


class Operand:
    """What a launch reads of a contiguous tensor (shape, dtype, strides,
    address)."""

    _next = 0x7F0000000000

    def __init__(self, shape, dtype="float16"):
        self.shape, self.dtype = tuple(shape), dtype
        self._address = Operand._next
        Operand._next += 0x1000000000
        strides, step = [], 1
        for extent in reversed(self.shape):
            strides.insert(0, step)
            step *= extent
        self._strides = tuple(strides)

    def data_ptr(self):
        return self._address

    def stride(self, dim):
        return self._strides[dim]

    def element_size(self):
        return SIZES[self.dtype]


def first_config(space, prune=None, untuned=None, **args):
    """The config tilelang.ops launches untuned: `untuned` (as
    tilelang.ops.spaces names it), else the first the pruning keeps."""
    configs = spaces.configs(space)
    if prune is not None:
        configs = prune(configs, args)
    config = next((c for c in configs if c.all_kwargs() == untuned), configs[0])
    return dict(config.kwargs), {"num_warps": config.num_warps, "num_stages": config.num_stages}


def cases():
    """(operator, kernel, arguments, constexprs and options) at the shapes of bench/ops.py."""
    m, n = 4096, 8192
    x, y, dy = Operand((m, n)), Operand((m, n)), Operand((m, n))
    w, b = Operand((n,)), Operand((n,))
    stats = Operand((m,), "float32")
    rows, row_options = first_config(spaces.ROWS, spaces.prune_rows("N"), N=n)
    groups = spaces.norm_bwd_programs(m, 132)  # an H100/H200's multiprocessors
    partial = Operand((groups, n), "float32")
    fused, fused_options = first_config(spaces.NORM_BWD, spaces.prune_norm_bwd, N=n)
    a, bb, c, bias = Operand((4096, 4096)), Operand((4096, 4096)), Operand((4096, 4096)), Operand((4096,))
    mm, mm_options = first_config(spaces.MATMUL, untuned=spaces.MATMUL_UNTUNED)
    fits = {"ROW_FITS": n <= rows["BLOCK_SIZE"]}
    yield ("matmul (bias, gelu)", "matmul_epilogue_kernel",
           package.matmul_args(a, bb, c, bias), dict(mm, HAS_BIAS=True, ACTIVATION="gelu", EVEN_K=True, **mm_options))
    grads = dict(INPUT_GRAD=True, WEIGHT_GRAD=True)
    yield ("layer_norm", "layer_norm_fwd", (x, y, w, b, stats, stats, n, n, 1e-5), dict(rows, **fits, **row_options))
    yield ("layer_norm backward: dx, dw, db", "norm_bwd_fused", (x, partial, partial, dy, x, w, stats, stats, n, m, n),
           dict(fused, RMS=False, HAS_BIAS=True, **grads, **fused_options))
    yield ("layer_norm backward: sums", "column_sum", (w, partial, b, partial, groups, n),
           dict(TWO=True, **spaces.COLUMN_SUM))
    yield ("rms_norm", "rms_norm_fwd", (x, y, w, stats, n, n, 1e-6), dict(rows, **fits, **row_options))
    yield ("rms_norm backward: dx, dw", "norm_bwd_fused", (x, partial, partial, dy, x, w, stats, stats, n, m, n),
           dict(fused, RMS=True, HAS_BIAS=False, **grads, **fused_options))
    yield ("softmax", "softmax_fwd", (y, x, n, n, n), dict(rows, **fits, **row_options))
    yield ("softmax backward", "softmax_bwd", (x, dy, y, n, n, n, n), dict(rows, **fits, **row_options))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="sm_90a,sm_80", help="comma-separated targets (default sm_90a,sm_80)")
    args = parser.parse_args(argv)
    arches = [a.strip() for a in args.arch.split(",") if a.strip()]
    kernels = package.define(tilelang.jit, tl)
    print(f"tilelang.ops kernels, fp16, the configs launched untuned; compiler "
          f"{tilelang.compiler_version()}\n")
    rows, failed = [], 0
    for operator, name, call_args, options in cases():
        config = ", ".join(f"{k}={v}" for k, v in options.items() if k not in ("HAS_BIAS", "ACTIVATION", "RMS"))
        for arch in arches:
            try:
                built = kernels[name].warmup(*call_args, **options).to_ptx(arch)
            except Exception as exc:  # noqa: BLE001 - reported, the others still compile
                failed += 1
                rows.append([operator, arch, config, f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}",
                             "-", "-"])
                continue
            found = ptxstats.resources(built.ptx, arch)
            rows.append([operator, arch, config, f"{built.shared_bytes / 1024:.1f}",
                         found.get("registers", found.get("error", "-")), found.get("spill_stores", "-")])
    print(markdown_table(["operator", "arch", "config", "shared KB", "registers", "spill B"], rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
