"""Interpreter: ``tl.dot``.

Products of fp16, bf16 and fp8 operands are exact in float64, so the
interpreter sums them there and rounds once into the accumulator's type:
that is the exact result rounded, which the tensor cores (fp32
accumulation, their own order) approach within a few fp32 ulps per K step.
fp32 operands of 2-D products are first rounded to tf32 as the compiled
kernel rounds them (``cvt.rna.tf32.f32``: to nearest, ties away from zero)
unless ``input_precision`` is "ieee" or "tf32x3"; int8 products sum exactly and
wrap into int32; fp64 is computed in fp64.
"""

from __future__ import annotations

import numpy as np

from tilelang.interpreter.values import TValue, fit
from tilelang.language import core as tlc


def round_tf32(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to tf32 (10 mantissa bits), ties away from
    zero; infinities and NaN unchanged."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    special = (bits & 0x7F800000) == 0x7F800000
    rounded = ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).astype(np.uint32)
    return np.where(special, bits, rounded).astype(np.uint32).view(np.float32)


class DotOps:
    """The mixin of ``tl.dot``."""

    def dot(self, a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype):
        a = self.require_value(a, "tl.dot's first operand")
        b = self.require_value(b, "tl.dot's second operand")
        ret = self._dot_result_type(a, out_dtype)
        shape = a.shape[:-1] + (b.shape[-1],)
        acc = tlc._unwrap(acc)
        c = self.constant(0, ret, shape) if acc is None else self.require_value(acc, "tl.dot's acc")
        precision = tlc._unwrap(input_precision)
        if precision is None:
            allow = tlc._unwrap(allow_tf32)
            precision = "tf32" if allow is None or self.const_bool(allow, "tl.dot's allow_tf32") else "ieee"
        if a.dtype.is_int():
            product = np.matmul(a.data.astype(np.int64), b.data.astype(np.int64))
            return TValue(ret, (product + c.data.astype(np.int64)).astype(np.int32))
        x, y = a.data, b.data
        # Batched (3-D) products do not go to the tensor cores: the frontend
        # multiplies their fp32 operands in full precision (_dot_by_products).
        if a.dtype.is_fp32() and precision == "tf32" and len(a.shape) == 2:
            x, y = round_tf32(x), round_tf32(y)
        product = np.matmul(x.astype(np.float64), y.astype(np.float64))
        return TValue(ret, fit(ret, product + c.data.astype(np.float64)))
