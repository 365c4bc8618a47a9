"""``import tilelang.language as tl``: the Triton-compatible kernel language.

Everything here is used inside ``@tilelang.jit`` functions; see
docs/language.md for the supported subset and the type rules.
"""

import sys as _sys

from tilelang.language import extra, math
from tilelang.language.core import *  # noqa: F401,F403
from tilelang.language.core import (  # noqa: F401
    abs, arange, argmax, argmin, associative_scan, atomic_add, atomic_and, atomic_cas,
    atomic_max, atomic_min, atomic_or, atomic_xchg, atomic_xor, bfloat16, broadcast,
    broadcast_to, cast, cat, cdiv, ceil, clamp, constexpr, cos, cumprod, cumsum, device_assert,
    device_print, div_rn, dot, dtype, erf, exp, exp2, expand_dims, fdiv, float8e4nv,
    float8e5, flip, float16, float32, float64, floor, fma, full, gather, histogram, interleave, join, int1, int8, int16, int32, int64,
    load, load_tensor_descriptor, log, log2, make_tensor_descriptor, max, max_contiguous, maximum, min, minimum, multiple_of, num_programs,
    permute, pointer_type, program_id, range, reduce, reshape, rsqrt, sigmoid, sin, softmax,
    sort, split, sqrt, sqrt_rn, static_assert, static_print, static_range, store, store_tensor_descriptor, sum, trans, uint8,
    topk, uint16, uint32, uint64, view, where, xor_sum, zeros, zeros_like,
    debug_barrier, umulhi,
)

# The random numbers (tl.rand and friends) are @jit functions written in the
# language (random.py), which needs tilelang.jit, which needs this package's
# core: they are imported on first use, when everything below them is loaded.
_RANDOM_NAMES = ("pair_uniform_to_normal", "philox", "rand", "rand4x", "randint", "randint4x", "randn",
                 "randn4x", "uint_to_uniform_float")


def __getattr__(name):
    if name in _RANDOM_NAMES or name == "random":
        # Not `from tilelang.language import random`: that asks this
        # function for the name before it imports the module.
        import tilelang.language.random

        random = _sys.modules["tilelang.language.random"]
        # Bound here from now on: later lookups do not come back.
        globals().update({n: getattr(random, n) for n in _RANDOM_NAMES})
        return random if name == "random" else globals()[name]
    raise AttributeError(f"module 'tilelang.language' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_RANDOM_NAMES) | {"random"})


# Triton's aliases.
void = None

# Helpers of the implementation that `from core import *` brings along: not
# part of the language.
del Any, annotations, builtin, dtype_from_string, functools
