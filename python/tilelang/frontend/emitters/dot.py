"""tl.dot: the tile dialect's dot where its rules allow, elementwise
products and sums elsewhere (batched and fp64 dots).
"""

from __future__ import annotations

import math

from tilelang.frontend.values import Value, _unwrap, describe
from tilelang.language import core as tlc
from tilelang.language.core import dtype


class DotEmitter:
    """tl.dot."""

    # -- dot -------------------------------------------------------------------------------------

    def _dot_result_type(self, a: Value, out_dtype) -> dtype:
        """The element type of ``tl.dot(a, b)``: int32 for integer operands,
        float64 for fp64 ones, ``out_dtype`` (a constexpr) otherwise."""
        out_dtype = self.const_dtype(out_dtype, "tl.dot's out_dtype")
        if a.dtype.is_int():
            return tlc.int32
        if a.dtype.is_fp64():
            return tlc.float64
        return out_dtype

    def dot(self, a, b, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype):
        a = self.require_value(a, "tl.dot's first operand")
        b = self.require_value(b, "tl.dot's second operand")
        if len(a.shape) not in (2, 3) or len(a.shape) != len(b.shape):
            self.error(f"tl.dot needs two 2-D (or two 3-D) tensors, got {describe(a.dtype, a.shape)} "
                       f"and {describe(b.dtype, b.shape)}")
        if a.shape[-1] != b.shape[-2]:
            self.error(f"tl.dot: incompatible shapes {list(a.shape)} and {list(b.shape)} "
                       f"(the first operand has K = {a.shape[-1]}, the second K = {b.shape[-2]})")
        if len(a.shape) == 3 and a.shape[0] != b.shape[0]:
            self.error(f"tl.dot: batch dimensions differ ({a.shape[0]} and {b.shape[0]})")
        m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
        if min(m, n, k) < 16:
            self.error(f"tl.dot: every dimension must be at least 16, got M={m}, N={n}, K={k}")
        ok = ("fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "int8")
        for x in (a, b):
            if x.dtype.name not in ok:
                self.error(f"tl.dot does not support {x.dtype.name} operands "
                           "(fp16, bf16, fp32, fp64, fp8 or int8)")
        if a.dtype != b.dtype and not (a.dtype.is_fp8() and b.dtype.is_fp8()):
            self.error(f"tl.dot: both operands must have the same dtype, got {a.dtype.name} and {b.dtype.name}")
        ret = self._dot_result_type(a, out_dtype)
        shape = a.shape[:-1] + (n,)
        acc = _unwrap(acc)
        if acc is None:
            c = self.constant(0, ret, shape)
        else:
            c = self.require_value(acc, "tl.dot's acc")
            if c.shape != shape:
                self.error(f"tl.dot: acc has shape {list(c.shape)}, expected {list(shape)}")
        precision = _unwrap(input_precision)
        if precision is None:
            allow = _unwrap(allow_tf32)
            precision = "tf32" if allow is None or self.const_bool(allow, "tl.dot's allow_tf32") \
                else "ieee"
        if precision not in ("tf32", "tf32x3", "ieee"):
            self.error(f"tl.dot: input_precision must be tf32, tf32x3 or ieee, got {precision!r}")
        attrs = ""
        if a.dtype.is_fp32() and precision != "tf32":
            attrs += f" inputPrecision = {precision}"
        imprecise = _unwrap(max_num_imprecise_acc)
        if imprecise:
            attrs += f" maxNumImpreciseAcc = {self.const_int(imprecise, 'max_num_imprecise_acc')}"
        if len(shape) == 3 or a.dtype.is_fp64():
            return self._dot_by_products(a, b, c)
        return self.b.op(f"tile.dot {a.name}, {b.name}, {c.name}{attrs} : {a.type} * {b.type} -> {c.type}",
                         c.dtype, shape)

    def _dot_by_products(self, a: Value, b: Value, c: Value) -> Value:
        """``c + a @ b`` as elementwise products summed over K (the FMA form),
        for the products the tensor-core lowering does not take: batched
        (3-D) operands and fp64 (no DMMA lowering yet). Products and sums are
        in the accumulator's type (fp32 for fp16/bf16/fp8, so each product
        is exact; fp64; int32 for int8); fp32 operands are multiplied in
        full precision whatever ``input_precision`` says, which is at least
        as precise as tf32. The ``[.., M, K, N]`` product tensor is held
        whole, so it is bound by the tensor element cap."""
        m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
        products = a.shape[:-1] + (k, n)
        if math.prod(products) > tlc.TRITON_MAX_TENSOR_NUMEL:
            self.error(f"tl.dot of {describe(a.dtype, a.shape)} and {describe(b.dtype, b.shape)}: tilelang "
                       f"computes {'batched (3-D)' if len(a.shape) == 3 else 'fp64'} products elementwise, "
                       f"and their tensor {list(products)} has {math.prod(products)} elements, more than "
                       f"the {tlc.TRITON_MAX_TENSOR_NUMEL} (2**20) a tensor may hold; use smaller blocks")
        dt = c.dtype
        lhs = self.expand_dims(self.cast(a, dt), len(a.shape))        # [.., M, K, 1]
        rhs = self.expand_dims(self.cast(b, dt), len(b.shape) - 2)    # [.., 1, K, N]
        product = self.binary("*", self.broadcast_value(lhs, products), self.broadcast_value(rhs, products))
        summed = self.reduce_values([product], len(products) - 2, self._binary_combine("sum"), False)[0]
        return self.binary("+", c, summed)
