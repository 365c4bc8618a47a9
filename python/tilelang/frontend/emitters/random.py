"""Random numbers: Triton's Philox 4x32-10 / 4x64 counter-based generator
(tl.philox, tl.randint4x, tl.rand, tl.randn), built from the
elementwise primitives ``_iadd``, ``_ixor`` and ``_mul_extended`` that the
interpreter replaces.
"""

from __future__ import annotations

from typing import Tuple

from tilelang.frontend.values import Value, _unwrap, describe, is_const, natural_dtype
from tilelang.language import core as tlc


class RandomEmitter:
    """Philox and the rand family."""

    # -- random numbers (Triton's Philox 4x32-10 / 4x64) ------------------------------------------

    # (key bump A, key bump B, round multiplier A, round multiplier B), as in triton.language.random
    _PHILOX = {32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
               64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157)}

    def _mul_extended(self, a: Value, b: Value) -> Tuple[Value, Value]:
        """The low and high halves of the unsigned product (``arith.mului_extended``)."""
        res = self.b.fresh()
        self.b.emit(f"{res}:2 = arith.mului_extended {a.name}, {b.name} : {a.type}")
        return Value(f"{res}#0", a.dtype, a.shape), Value(f"{res}#1", a.dtype, a.shape)

    def _ixor(self, a: Value, b: Value) -> Value:
        return self.b.op(f"arith.xori {a.name}, {b.name} : {a.type}", a.dtype, a.shape)

    def _iadd(self, a: Value, b: Value) -> Value:
        """Wrapping addition of two values of one type (the interpreter
        replaces the three primitives of ``philox``)."""
        return self.b.op(f"arith.addi {a.name}, {b.name} : {a.type}", a.dtype, a.shape)

    def philox(self, seed, c0, c1, c2, c3, n_rounds=10):
        """Triton's ``tl.philox``: key = the seed (low, high 32 bits), counter = (c0, c1, c2, c3)."""
        n_rounds = self.const_int(n_rounds, "n_rounds")
        if n_rounds <= 0:
            self.error(f"n_rounds must be positive, got {n_rounds}")
        c0 = self.require_value(_unwrap(c0), "the random offset")
        if not c0.dtype.is_int() or c0.dtype.is_bool():
            self.error(f"the random offset must be an integer tensor, got {describe(c0.dtype, c0.shape)}")
        width = c0.dtype.int_bitwidth
        if width not in (32, 64):
            self.error(f"the random offset must be a 32- or 64-bit integer, got {c0.dtype.name}")
        ut = tlc.uint32 if width == 32 else tlc.uint64
        shape = c0.shape
        counters = []
        for c in (c0, c1, c2, c3):
            c = _unwrap(c)
            if is_const(c):
                counters.append(self.constant(self._number(c) & ((1 << width) - 1), ut, shape))
                continue
            if not c.dtype.is_int() or c.dtype.int_bitwidth != width:
                self.error(f"the Philox counters must all be {width}-bit integers, got {c.dtype.name}")
            counters.append(self.broadcast_value(self.cast(c, ut, bitcast=True), shape))
        seed = _unwrap(seed)
        if isinstance(seed, Value):
            if seed.shape or not seed.dtype.is_int():
                self.error(f"the random seed must be an integer scalar, got {describe(seed.dtype, seed.shape)}")
            seed64 = self.cast(seed, tlc.uint64)
            if width == 32:
                hi = self.binary(">>", seed64, 32)
                k0 = self.cast(seed64, tlc.uint32)
                k1 = self.cast(hi, tlc.uint32)
            else:
                k0 = seed64
                k1 = self.constant(0, tlc.uint64, ())
        else:
            if isinstance(seed, bool) or not isinstance(seed, int):
                self.error(f"the random seed must be an integer, got {seed!r}")
            natural_dtype(seed)  # range check
            s = seed & ((1 << 64) - 1)
            if width == 32:
                k0 = self.constant(s & 0xFFFFFFFF, ut, ())
                k1 = self.constant(s >> 32, ut, ())
            else:
                k0, k1 = self.constant(s, ut, ()), self.constant(0, ut, ())
        key_a, key_b, round_a, round_b = self._PHILOX[width]
        ra = self.constant(round_a, ut, shape)
        rb = self.constant(round_b, ut, shape)
        ka = self.constant(key_a, ut, ())
        kb = self.constant(key_b, ut, ())
        c0, c1, c2, c3 = counters
        for i in range(n_rounds):
            lo_b, hi_b = self._mul_extended(rb, c2)
            lo_a, hi_a = self._mul_extended(ra, c0)
            k0s, k1s = self.broadcast_value(k0, shape), self.broadcast_value(k1, shape)
            c0 = self._ixor(self._ixor(hi_b, c1), k0s)
            c2 = self._ixor(self._ixor(hi_a, c3), k1s)
            c1, c3 = lo_b, lo_a
            if i + 1 < n_rounds:
                k0, k1 = self._iadd(k0, ka), self._iadd(k1, kb)
        return c0, c1, c2, c3

    def randint4x(self, seed, offset, n_rounds=10):
        return self.philox(seed, offset, 0, 0, 0, n_rounds)

    def uint_to_uniform_float(self, x: Value) -> Value:
        """Triton's mapping to [0, 1): bitcast to signed, fold negatives (x -> -x - 1), scale."""
        if x.dtype.int_bitwidth == 32:
            x = self.cast(x, tlc.int32, bitcast=True)
            scale = 4.6566127342e-10
        else:
            x = self.cast(x, tlc.int64, bitcast=True)
            scale = 1.0842020432385337e-19
        x = self.where(self.compare("<", x, 0), self.binary("-", self.negate(x), 1), x)
        return self.binary("*", x, scale)

    def pair_uniform_to_normal(self, u1: Value, u2: Value) -> Tuple[Value, Value]:
        """Box-Muller, as in Triton."""
        u1 = self.minmax("max", 1.0e-7, u1)
        th = self.binary("*", 6.283185307179586, u2)
        r = self.math_unary("sqrt", self.binary("*", -2.0, self.math_unary("log", u1)))
        return (self.binary("*", r, self.math_unary("cos", th)),
                self.binary("*", r, self.math_unary("sin", th)))

    def rand_values(self, kind: str, seed, offset, n_rounds=10):
        c = self.randint4x(seed, offset, n_rounds)
        if kind == "randint":
            return c[0]
        if kind == "randint4x":
            return c
        if kind == "rand":
            return self.uint_to_uniform_float(c[0])
        if kind == "rand4x":
            return tuple(self.uint_to_uniform_float(v) for v in c)
        if kind == "randn":
            return self.pair_uniform_to_normal(self.uint_to_uniform_float(c[0]),
                                               self.uint_to_uniform_float(c[1]))[0]
        if kind == "randn4x":
            u = [self.uint_to_uniform_float(v) for v in c]
            return self.pair_uniform_to_normal(u[0], u[1]) + self.pair_uniform_to_normal(u[2], u[3])
        self.error(f"unknown random function {kind}")
