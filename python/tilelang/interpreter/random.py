"""Interpreter: ``tl.rand``, ``randint``, ``randn`` and ``philox``.

The frontend's ``Semantic.philox`` (Triton's Philox 4x32-10 and 4x64 with
the constants of ``Semantic._PHILOX``) runs unchanged on interpreter
values; only its three integer primitives are replaced here, so the
counters, keys and rounds are the compiled kernel's by construction and
``randint``/``rand`` are bit-identical to it. ``randn`` goes through
``log``, ``sqrt``, ``cos`` and ``sin``, which the GPU approximates: equal
within a few ulps.
"""

from __future__ import annotations

import numpy as np

from tilelang.interpreter.values import TValue


class RandomOps:
    """The mixin of Philox's primitives: wrapping add, xor, and the
    unsigned product's two halves."""

    def _iadd(self, a, b):
        return TValue(a.dtype, np.add(a.data, b.data))

    def _ixor(self, a, b):
        return TValue(a.dtype, np.bitwise_xor(a.data, b.data))

    def _mul_extended(self, a, b):
        return self._high_product(a, b, False)
