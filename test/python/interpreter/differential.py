"""Generated kernels (the frontend fuzzer's kernel_gen.py) with inputs, run
in the interpreter; test/python/gpu/test_interpreter_differential.py runs
the same kernels compiled and compares (docs/interpreter.md, "Testing").

``inputs(case, seed, index)`` gives a valid case's arrays and scalars,
deterministically; ``interpret(case, kernel, inputs)`` runs it and returns
the memory it leaves ({name: NumPy array}). Scalar kernels run programs
0..2, or program 0 alone when they use atomics (whose results depend on the
order the programs take on the GPU); tensor kernels cover ``n`` elements
with ``cdiv(n, BLOCK)`` programs."""

import random

import numpy as np

import tilelang
import tilelang.language as tl
from interp_testing import HERE, run, typed
from tilelang_testing import load_module

kernel_gen = load_module("kernel_gen", HERE.parent / "frontend" / "kernel_gen.py")

_NP = {"fp32": np.float32, "fp16": np.float16, "bf16": np.uint16, "i32": np.int32,
       "u32": np.uint32, "i64": np.int64, "u64": np.uint64}


def usable(case) -> bool:
    """Cases both sides run: valid kernels (not the 'valid or too deep' ones)."""
    return case.expect == "valid"


def inputs(case, seed, index):
    rng = random.Random(f"interpreter-differential:{seed}:{index}")
    if case.family == "scalar":
        st = np.int32 if case.signature.startswith("*i32") else np.uint32
        src = np.array(case.src, np.uint64).astype(np.uint32).view(st)
        scalars = [np.array(v, np.uint64).astype(np.uint32).view(st)[()] for v in case.args]
        grid = (1,) if "atomic" in case.source else (kernel_gen.PROGRAMS,)
        return {"grid": grid, "arrays": {"out": np.zeros(kernel_gen.PROGRAMS * kernel_gen.OUT_STRIDE, st),
                                         "src": src, "cnt": np.zeros(kernel_gen.COUNTERS, st)},
                "scalars": scalars, "constexprs": {}}
    dtype, _, _, bound = case.signature.split(",")
    dtype = dtype[1:]
    block = case.constexprs["BLOCK"]
    n = rng.randint(1, 3 * block)
    m = rng.randint(0, 5)
    # The product reads x[row * BLOCK + col] for rows < n and every column of the grid.
    size = (n + 3) * block if "tl.dot" in case.source else n
    nprng = np.random.default_rng(rng.randrange(2**32))
    if dtype == "i32":
        x = nprng.integers(-1000, 1000, size=size).astype(np.int32)
    elif dtype == "bf16":
        x = (nprng.standard_normal(size).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    else:
        x = nprng.standard_normal(size).astype(_NP[dtype])
    y = np.zeros(n, x.dtype)
    return {"grid": (tilelang.cdiv(n, block),), "arrays": {"x": x, "y": y},
            "scalars": [_NP[bound](n), _NP[bound](m)], "constexprs": {"BLOCK": block}, "dtype": dtype}


def interpret(case, kernel, data):
    arrays = {k: v.copy() for k, v in data["arrays"].items()}
    passed = [typed(a, tl.bfloat16) if data.get("dtype") == "bf16" else a for a in arrays.values()]
    run(kernel, data["grid"], *passed, *data["scalars"], num_warps=case.num_warps, **data["constexprs"])
    return arrays


def load(tmp_path, case, seed, index):
    import importlib.util

    path = tmp_path / f"gen_{seed}_{index}.py"
    path.write_text(case.source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel


def tolerance(dtype):
    """(rtol, atol relative to the output's largest magnitude) of a tensor
    kernel's output: reductions, scans and products sum in another order
    on the GPU, and LLVM may contract a * b + c into an fma."""
    return {"fp32": (1e-5, 1e-5), "fp16": (2**-10, 1e-3), "bf16": (2**-7, 1e-2), "i32": (0, 1e-5)}[dtype]


def compare(case, data, interpreted, compiled):
    """None when the two memories agree (bit for bit for scalar kernels,
    within ``tolerance`` for tensor kernels); else what differs."""
    for name, want in compiled.items():
        got = interpreted[name]
        if case.family == "scalar":
            if not np.array_equal(got, want):
                bad = np.nonzero(got != want)[0][:5]
                return f"{name}[{list(bad)}]: interpreted {got[bad]}, compiled {want[bad]}"
            continue
        dtype = data["dtype"]
        a, b = (x.astype(np.float64) if dtype != "bf16" else (x.astype(np.uint32) << 16).view(np.float32)
                .astype(np.float64) for x in (got, want))
        rtol, atol = tolerance(dtype)
        scale = np.nanmax(np.abs(b)) if b.size and np.isfinite(b).any() else 0.0
        both_nan = np.isnan(a) & np.isnan(b)
        same_inf = np.isinf(a) & (a == b)
        close = both_nan | same_inf | (np.abs(a - b) <= rtol * np.abs(b) + atol * scale + (1 if dtype == "i32" else 0))
        if not close.all():
            bad = np.nonzero(~close)[0][:5]
            return f"{name}[{list(bad)}]: interpreted {a[bad]}, compiled {b[bad]}"
    return None
