"""A pure-Python reference of Triton's random numbers (``tl.randint``,
``tl.randint4x``, ``tl.rand``, ``tl.randn``), for checking the frontend's
Philox against it (the IR here; results on a GPU once kernels can run).

Philox 4x32 with 10 rounds (Salmon et al., "Parallel random numbers: as easy
as 1, 2, 3"), as Triton computes it: the key is the seed (k0 = low 32 bits,
k1 = high 32 bits of the seed as a 64-bit integer), the counter is
(offset, 0, 0, 0). For 64-bit offsets, Philox 4x64 with key (seed, 0).
"""

import math
import struct

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF

# (key bump A, key bump B, round multiplier A, round multiplier B)
PHILOX_CONSTANTS = {
    32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
    64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157),
}


def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=10, bits=32):
    """One block of Philox: the counter (c0..c3) under the key (k0, k1)."""
    mask = (1 << bits) - 1
    key_a, key_b, round_a, round_b = PHILOX_CONSTANTS[bits]
    for _ in range(n_rounds):
        _c0, _c2 = c0, c2
        prod_b = round_b * _c2
        prod_a = round_a * _c0
        c0 = ((prod_b >> bits) ^ c1 ^ k0) & mask
        c2 = ((prod_a >> bits) ^ c3 ^ k1) & mask
        c1 = prod_b & mask
        c3 = prod_a & mask
        k0 = (k0 + key_a) & mask
        k1 = (k1 + key_b) & mask
    return c0, c1, c2, c3


def philox_reference(seed, offsets, n_rounds=10, bits=32):
    """``tl.randint4x(seed, offsets, n_rounds)``: four lists of unsigned ints.

    ``offsets`` is an int or a sequence of ints (taken modulo 2**bits, as the
    kernel bitcasts them to unsigned); ``seed`` is an int, sign-extended to 64
    bits as Triton does (``seed.to(tl.uint64)``).
    """
    scalar = isinstance(offsets, int)
    offs = [offsets] if scalar else list(offsets)
    s = seed & MASK64
    if bits == 32:
        k0, k1 = s & MASK32, s >> 32
    else:
        k0, k1 = s, 0
    mask = (1 << bits) - 1
    outs = [philox_impl(o & mask, 0, 0, 0, k0, k1, n_rounds, bits) for o in offs]
    cols = tuple(list(col) for col in zip(*outs)) if outs else ([], [], [], [])
    return tuple(c[0] for c in cols) if scalar else cols


def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def uint_to_uniform_float(x, bits=32):
    """Triton's mapping of a random unsigned int to [0, 1): reinterpret it as
    signed, map a negative x to -x - 1, multiply by 4.6566127342e-10 (fp32;
    for 64-bit, 1.0842020432385337e-19)."""
    if x >= 1 << (bits - 1):
        x -= 1 << bits
    if x < 0:
        x = -x - 1
    scale = 4.6566127342e-10 if bits == 32 else 1.0842020432385337e-19
    return _f32(_f32(float(x)) * _f32(scale))


def pair_uniform_to_normal(u1, u2):
    """Box-Muller, as in Triton (computed here in double precision)."""
    u1 = max(1.0e-7, u1)
    th = 6.283185307179586 * u2
    r = math.sqrt(-2.0 * math.log(u1))
    return r * math.cos(th), r * math.sin(th)


def randint_reference(seed, offsets, n_rounds=10):
    return philox_reference(seed, offsets, n_rounds)[0]


def rand_reference(seed, offsets, n_rounds=10):
    return [uint_to_uniform_float(x) for x in randint_reference(seed, offsets, n_rounds)]


def randn_reference(seed, offsets, n_rounds=10):
    i1, i2, _, _ = philox_reference(seed, offsets, n_rounds)
    return [pair_uniform_to_normal(uint_to_uniform_float(a), uint_to_uniform_float(b))[0]
            for a, b in zip(i1, i2)]
