"""Loading, binding and checking the compatibility corpus.

Every kernel module of this package defines:

| name | what |
| --- | --- |
| `define(jit, tl)` | the kernels, written once: `jit` and `tl` are `tilelang.jit` and `tilelang.language`, or `triton.jit` and `triton.language`; returns a dict name -> kernel |
| `COMPILE` | kernel name -> (signature, constexprs, options), or a list of such triples: what test_compile.py compiles to PTX with both compilers |
| `CASES` | list of dicts with a `name` and the sizes; at least one size no block divides |
| `inputs(case, device)` | fresh random torch tensors (dict) |
| `launch(kernels, inputs, case)` | runs the host code, returns the output tensor or a tuple of them |
| `reference(inputs, case)` | the float64 result, same structure |
| `TOLERANCE` or `check(out, ref, inputs, case)` | `dict(rtol=, atol=)` for `|out - ref| <= atol + rtol * |ref|` element by element, or a function returning None or what is wrong |

torch is imported inside the functions only: the modules import without it.
"""

import functools
import importlib

NAMES = (
    "vector_add", "softmax_persistent", "softmax_early_exit", "matmul_grouped", "dropout_seeded",
    "layernorm_fwd", "layernorm_bwd", "attention_fwd", "libdevice_tanh", "grouped_gemm", "matmul_persistent",
    "matmul_block_ptr", "matmul_batched", "matmul_split_k", "matmul_int8", "matmul_w8a16", "rmsnorm_fwd",
    "rmsnorm_bwd", "rope_half", "rope_interleaved", "swiglu_fwd", "swiglu_bwd", "geglu_tanh",
    "cross_entropy_fwd", "cross_entropy_bwd", "argmax_rows", "cumsum_rows", "segment_sum", "histogram_atomic",
    "topk_rows", "embedding_gather", "transpose_tiles", "quantize_int8", "quantize_fp8", "matmul_dot3d", "matmul_fp64",
    "inline_asm",
)

COMPILERS = ("tilelang", "triton")


def module(name: str):
    return importlib.import_module(f"{__package__}.{name}")


@functools.lru_cache(maxsize=None)
def kernels(name: str, compiler: str) -> dict:
    """The module's kernels bound to `compiler` (once per process, so that
    each compiler's in-memory caches serve every case)."""
    if compiler == "triton":
        import triton
        import triton.language as tl

        return module(name).define(triton.jit, tl)
    if compiler == "tilelang":
        import tilelang
        import tilelang.language as tl

        return module(name).define(tilelang.jit, tl)
    raise ValueError(f"compiler must be one of {COMPILERS}, not {compiler!r}")


def compile_specs(name: str) -> list:
    """(kernel, signature, constexprs, options) of everything the module
    asks test_compile.py to compile."""
    specs = []
    for kernel, spec in module(name).COMPILE.items():
        specs += [(kernel, *s) for s in (spec if isinstance(spec, list) else [spec])]
    return specs


def compare(mod, out, ref, inputs, case):
    """None when `out` matches `ref` under the module's rule, else a short
    text naming the first output that does not."""
    if hasattr(mod, "check"):
        return mod.check(out, ref, inputs, case)
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    if len(outs) != len(refs):
        return f"{len(outs)} outputs, {len(refs)} references"
    rtol, atol = mod.TOLERANCE["rtol"], mod.TOLERANCE["atol"]
    for i, (o, r) in enumerate(zip(outs, refs)):
        if tuple(o.shape) != tuple(r.shape):
            return f"output {i}: shape {tuple(o.shape)}, expected {tuple(r.shape)}"
        o = o.double()
        err = (o - r).abs()
        bad = ~(err <= atol + rtol * r.abs())
        if bad.any():
            where = tuple(int(x) for x in bad.nonzero()[0])
            return (f"output {i}: {int(bad.sum())} of {o.numel()} elements off, first at {where}: "
                    f"{o[where].item()!r} vs {r[where].item()!r} (max error {err.max().item():.3g})")
    return None
