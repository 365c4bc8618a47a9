"""Helpers of the interpreter tests: the GPU suite's kernels loaded without
torch, a launch that always interprets (whatever TILELANG_INTERPRET says),
and float64 references."""

import functools
import pathlib

import numpy as np

import tilelang
from tilelang.interpreter import launch, typed  # noqa: F401 - typed: re-exported for the tests
from tilelang_testing import load_module

HERE = pathlib.Path(__file__).parent
gpu_kernels = load_module("gpu_kernels", HERE.parent / "gpu" / "gpu_kernels.py")

# @tilelang.jit(interpret=True): for kernels written with `define(jit, tl)`.
interpreted = functools.partial(tilelang.jit, interpret=True)


def run(kernel, grid, *args, **kwargs):
    """``kernel[grid](*args, **kwargs)`` in the interpreter."""
    return launch(kernel, grid, args, kwargs)


def bf16_bits(x) -> np.ndarray:
    """float64 values rounded to bf16 (nearest even), as uint16 bit patterns:
    an independent reference (through Python's float32 packing)."""
    import struct

    out = []
    for v in np.asarray(x, dtype=np.float64).reshape(-1):
        f32 = struct.unpack("<I", struct.pack("<f", np.float32(v)))[0]
        # float64 -> float32 may round; redo it exactly with fractions where it matters.
        out.append(_bf16_exact(float(v)) if np.isfinite(v) else (f32 >> 16) | (0x40 if v != v else 0))
    return np.array(out, dtype=np.uint16).reshape(np.shape(x))


def _bf16_exact(v: float) -> int:
    """The bf16 bits of v rounded to nearest even, from Python's exact arithmetic."""
    import math
    from fractions import Fraction

    if v == 0:
        return 0x8000 if math.copysign(1.0, v) < 0 else 0
    sign = 0x8000 if v < 0 else 0
    a = Fraction(abs(v))
    e = max(math.frexp(abs(v))[1] - 1, -126)
    quantum = Fraction(2) ** (e - 7)
    q = a / quantum
    n = math.floor(q)
    rest = q - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2):
        n += 1
    value = n * quantum
    if value >= Fraction(2) ** 128:
        return sign | 0x7F80
    f32 = np.float32(float(value))
    return sign | (int(f32.view(np.uint32)) >> 16)


def bf16_values(bits) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
