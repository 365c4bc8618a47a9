"""Random numbers in the kernel language: Philox 4x32-10 (4x64-10 for 64-bit
offsets), counter-based, with Triton's keys, counters and mappings.

Each function here is a ``@tilelang.jit`` function written in the language
itself: a kernel's ``tl.rand(seed, offsets)`` inlines it like any helper the
user writes, and the CPU interpreter runs it as Python on its own values. So
the generator is defined once, for the compiler and the interpreter alike,
from the language's integer operations: ``^``, wrapping ``+``, and each
round's two products with both halves from one multiply
(``tl.core._umul_extended``, the op of ``tl.umulhi``; ``tl.umulhi`` and
``*`` would be two multiplies, which LLVM does not merge back: other PTX,
more registers in the dropout kernels).

The numbers equal Triton's for the same seed and offsets: key = the seed
(low, high 32 bits; for 64-bit counters the seed and 0), counters = (offset,
0, 0, 0), ``n_rounds`` rounds of two 32x32 -> 64-bit (64x64 -> 128-bit)
multiplies, the key bumped by the Weyl constants between rounds.
test/python/frontend/philox_reference.py is a pure-Python model of them,
checked against Random123's known answers.

This module sits above ``tilelang.jit`` (it is written in the language that
``jit`` compiles); ``tilelang.language`` imports it on first use of one of
its names (``__getattr__`` there), so that the language core stays below the
frontend.
"""

from __future__ import annotations

from tilelang.jit import jit
from tilelang.language import core as tl

N_ROUNDS_DEFAULT = tl.constexpr(10)

# (key bump A, key bump B, round multiplier A, round multiplier B) of Philox
# 4x32 and 4x64 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
PHILOX_32 = tl.constexpr((0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57))
PHILOX_64 = tl.constexpr((0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157))


@jit
def _philox_rounds(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr):
    """``n_rounds`` Philox rounds on four counters of one unsigned type
    under the key (k0, k1) of that type (scalars)."""
    if c0.dtype.int_bitwidth == 32:
        key_a, key_b, round_a, round_b = PHILOX_32
    else:
        key_a, key_b, round_a, round_b = PHILOX_64
    for _ in tl.static_range(n_rounds):
        lo_b, hi_b = tl._umul_extended(round_b, c2)
        lo_a, hi_a = tl._umul_extended(round_a, c0)
        c0 = hi_b ^ c1 ^ k0
        c2 = hi_a ^ c3 ^ k1
        c1 = lo_b
        c3 = lo_a
        k0 = k0 + key_a
        k1 = k1 + key_b
    return c0, c1, c2, c3


@jit
def _counter(c, shape, unsigned: tl.constexpr):
    """A Philox counter (a number or an integer tensor of the offset's width)
    as ``unsigned`` values of the offset's shape."""
    if isinstance(c, int):
        return tl.full(shape, c & ((1 << unsigned.int_bitwidth) - 1), unsigned)
    tl.static_assert(c.dtype.is_int() and c.dtype.int_bitwidth == unsigned.int_bitwidth,
                     "the Philox counters must all be integers of the offset's width")
    return tl.broadcast_to(c.to(unsigned, bitcast=True), shape)


@jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Philox on the counters (c0, c1, c2, c3) under ``seed``: four values of
    c0's shape, uint32 for 32-bit counters, uint64 for 64-bit ones."""
    tl.static_assert(n_rounds > 0, "n_rounds must be positive")
    c0 = tl._to_tensor(c0)
    tl.static_assert(c0.dtype.is_int() and not c0.dtype.is_bool(), "the random offset must be an integer tensor")
    tl.static_assert(c0.dtype.int_bitwidth == 32 or c0.dtype.int_bitwidth == 64,
                     "the random offset must be a 32- or 64-bit integer")
    seed = tl._to_tensor(seed)
    tl.static_assert(seed.dtype.is_int() and not seed.dtype.is_bool() and len(seed.shape) == 0,
                     "the random seed must be an integer scalar")
    seed = seed.to(tl.uint64)
    if c0.dtype.int_bitwidth == 32:
        unsigned = tl.uint32
        seed_hi = seed >> 32
        k0 = seed.to(tl.uint32)
        k1 = seed_hi.to(tl.uint32)
    else:
        unsigned = tl.uint64
        k0 = seed
        k1 = tl.full((), 0, tl.uint64)
    shape = c0.shape
    c0 = c0.to(unsigned, bitcast=True)
    c1 = _counter(c1, shape, unsigned)
    c2 = _counter(c2, shape, unsigned)
    c3 = _counter(c3, shape, unsigned)
    return _philox_rounds(c0, c1, c2, c3, k0, k1, n_rounds)


@jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four unsigned integers for each ``offset`` under ``seed``."""
    return philox(seed, offset, 0, 0, 0, n_rounds)


@jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """One unsigned integer for each ``offset`` under ``seed``."""
    r0, _, _, _ = randint4x(seed, offset, n_rounds)
    return r0


@jit
def uint_to_uniform_float(x):
    """Unsigned integers to float32 in [0, 1): as signed, a negative x folded
    to -x - 1, times 2**-31 (2**-63 for 64-bit x), rounded below 1."""
    if x.dtype.int_bitwidth == 32:
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10
    else:
        tl.static_assert(x.dtype.int_bitwidth == 64, "uint_to_uniform_float takes 32- or 64-bit integers")
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = tl.where(x < 0, -x - 1, x)
    return x * scale


@jit
def pair_uniform_to_normal(u1, u2):
    """Box-Muller: two uniform values in [0, 1) to two standard normal ones."""
    u1 = tl.maximum(1.0e-7, u1)
    th = 6.283185307179586 * u2
    r = tl.sqrt(-2.0 * tl.log(u1))
    return r * tl.cos(th), r * tl.sin(th)


@jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A uniform float32 in [0, 1) for each ``offset`` under ``seed``."""
    r0 = randint(seed, offset, n_rounds)
    return uint_to_uniform_float(r0)


@jit
def rand4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four uniform float32 values in [0, 1) for each ``offset``."""
    r0, r1, r2, r3 = randint4x(seed, offset, n_rounds)
    return uint_to_uniform_float(r0), uint_to_uniform_float(r1), uint_to_uniform_float(r2), uint_to_uniform_float(r3)


@jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """A standard normal float32 for each ``offset`` under ``seed``."""
    r0, r1, _, _ = randint4x(seed, offset, n_rounds)
    n0, _ = pair_uniform_to_normal(uint_to_uniform_float(r0), uint_to_uniform_float(r1))
    return n0


@jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    """Four standard normal float32 values for each ``offset``."""
    r0, r1, r2, r3 = randint4x(seed, offset, n_rounds)
    u0, u1, u2, u3 = uint_to_uniform_float(r0), uint_to_uniform_float(r1), uint_to_uniform_float(r2), uint_to_uniform_float(r3)
    n0, n1 = pair_uniform_to_normal(u0, u1)
    n2, n3 = pair_uniform_to_normal(u2, u3)
    return n0, n1, n2, n3

