"""Elementwise math: where, minimum/maximum, the math functions, float
classes, bit counts, mulhi/umulhi, fma, divisions, hints and assumptions,
and inline assembly.
"""

from __future__ import annotations

import math
from typing import Tuple

from tilelang.frontend.values import (
    Value, _unwrap, describe, is_const, mlir_string, natural_dtype, type_str,
)
from tilelang.language import core as tlc
from tilelang.language.core import dtype


class ElementwiseEmitter:
    """Elementwise operations."""

    # -- elementwise ----------------------------------------------------------------------------

    def where_type(self, x, y) -> Tuple[dtype, Tuple[int, ...]]:
        """The type and shape two alternatives merge to (``tl.where``, and
        ``x if c else y`` on a run-time condition)."""
        x, y = _unwrap(x), _unwrap(y)
        if is_const(x) and is_const(y):
            dt = self._computation_type_strict(natural_dtype(x), natural_dtype(y), False)
        else:
            dt = self.computation_type(x, y, False)
        return dt, self.broadcast_shapes(self.shape_of(x), self.shape_of(y))

    def where(self, cond, x, y):
        cond, x, y = _unwrap(cond), _unwrap(x), _unwrap(y)
        c = self.to_bool(cond) if isinstance(cond, Value) else self.constant(bool(cond), tlc.int1, ())
        dt, shape = self.where_type(x, y)
        shape = self.broadcast_shapes(c.shape, shape)
        c = self.broadcast_value(c, shape)
        xv, yv = self.as_value(x, dt, shape), self.as_value(y, dt, shape)
        types = f"{c.type}, {xv.type}" if shape else xv.type
        return self.b.op(f"arith.select {c.name}, {xv.name}, {yv.name} : {types}", dt, shape)

    def minmax(self, kind: str, x, y, propagate_nan=None):
        x, y = _unwrap(x), _unwrap(y)
        if isinstance(_unwrap(propagate_nan), Value):
            self.const_bool(propagate_nan, "propagate_nan")  # reports the run-time value
        if is_const(x) and is_const(y):
            x, y = self._number(x), self._number(y)
            return max(x, y) if kind == "max" else min(x, y)
        dt = self.computation_type(x, y, False)
        a, b = self.prepare(x, y, dt)
        return self._minmax_values(kind, a, b, _unwrap(propagate_nan))

    def _minmax_values(self, kind, a: Value, b: Value, propagate_nan=None):
        dt = a.dtype
        if dt.is_floating():
            nan_all = propagate_nan not in (None, 0, False, "none", "NONE") and str(propagate_nan).lower().endswith("all")
            name = ("maximumf" if kind == "max" else "minimumf") if nan_all else \
                   ("maxnumf" if kind == "max" else "minnumf")
        elif dt.is_int():
            name = kind + ("si" if dt.is_int_signed() else "ui")
        else:
            self.error(f"tl.{kind}imum does not support {dt.name}")
        return self.b.op(f"arith.{name} {a.name}, {b.name} : {a.type}", dt, a.shape)

    _FLOAT_MATH = {"exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sqrt": "sqrt",
                   "sqrt_rn": "sqrt", "rsqrt": "rsqrt", "sin": "sin", "cos": "cos", "erf": "erf",
                   "floor": "floor", "ceil": "ceil", "tanh": "tanh", "log1p": "log1p",
                   "expm1": "expm1", "log10": "log10", "tan": "tan", "trunc": "trunc",
                   "round": "round", "rint": "roundeven"}

    def math_unary(self, name: str, x):
        x = _unwrap(x)
        if is_const(x) and isinstance(x, (int, float)) and name == "abs":
            return abs(x)
        v = self.require_value(x, f"tl.{name}'s operand")
        dt = v.dtype
        if name == "abs":
            if dt.is_int() and not dt.is_int_signed():
                return v
            if not (dt.is_floating() or dt.is_int()):
                self.error(f"tl.abs does not support {dt.name}")
        elif not dt.is_floating():
            self.error(f"tl.{name} expects a floating-point operand, got {describe(dt, v.shape)}")
        return self._unary(name, v)

    def _unary(self, name: str, v: Value) -> Value:
        """``math_unary``'s function on an operand it has checked (a float,
        or a signed integer for abs); the interpreter computes it instead."""
        dt = v.dtype
        if name == "abs":
            op = "math.absf" if dt.is_floating() else "math.absi"
            return self.b.op(f"{op} {v.name} : {v.type}", dt, v.shape)
        if name == "sigmoid":
            neg = self.negate(v)
            e = self.b.op(f"math.exp {neg.name} : {v.type}", dt, v.shape)
            one = self.constant(1.0, dt, v.shape)
            den = self.b.op(f"arith.addf {one.name}, {e.name} : {v.type}", dt, v.shape)
            return self.divf(one, den, dt, ieee=False)
        if name in ("sinh", "cosh"):
            # (e^x -+ e^-x) / 2; sinh from expm1 so that it is exact near 0.
            fn = "expm1" if name == "sinh" else "exp"
            up = self.b.op(f"math.{fn} {v.name} : {v.type}", dt, v.shape)
            neg = self.negate(v)
            down = self.b.op(f"math.{fn} {neg.name} : {v.type}", dt, v.shape)
            op = "subf" if name == "sinh" else "addf"
            both = self.b.op(f"arith.{op} {up.name}, {down.name} : {v.type}", dt, v.shape)
            half = self.constant(0.5, dt, v.shape)
            return self.b.op(f"arith.mulf {both.name}, {half.name} : {v.type}", dt, v.shape)
        if name == "exp10":
            scale = self.constant(math.log2(10.0), dt, v.shape)
            scaled = self.b.op(f"arith.mulf {v.name}, {scale.name} : {v.type}", dt, v.shape)
            return self.b.op(f"math.exp2 {scaled.name} : {v.type}", dt, v.shape)
        if name == "sqrt" and dt == tlc.float32:
            # As in Triton, tl.sqrt is the fast square root on fp32
            # (sqrt.approx.ftz.f32, ``fastmath<afn>``); tl.sqrt_rn rounds
            # to nearest (IEEE sqrt, a subroutine with a slow path).
            return self.b.op(f"math.sqrt {v.name} fastmath<afn> : {v.type}", dt, v.shape)
        return self.b.op(f"math.{self._FLOAT_MATH[name]} {v.name} : {v.type}", dt, v.shape)

    # Two-operand float functions: name -> the op on prepared operands.
    _FLOAT_MATH2 = {"pow": "math.powf", "copysign": "math.copysign", "fmod": "arith.remf"}

    def math_binary(self, name: str, x, y):
        """``pow``, ``copysign``, ``fmod`` and ``hypot``
        on floating-point operands (integers are an error, as in Triton's
        libdevice), with Triton's promotion and broadcasting."""
        x, y = _unwrap(x), _unwrap(y)
        if is_const(x) and is_const(y):
            x = self.require_value(x, f"{name}'s first operand")
        dt = self.computation_type(x, y, False)
        if not dt.is_floating():
            self.error(f"{name} expects floating-point operands, got {describe(dt, ())}")
        a, b = self.prepare(x, y, dt)
        if name == "hypot":
            aa = self.b.op(f"arith.mulf {a.name}, {a.name} : {a.type}", dt, a.shape)
            sq = self.b.op(f"math.fma {b.name}, {b.name}, {aa.name} : {a.type}", dt, a.shape)
            return self.b.op(f"math.sqrt {sq.name} : {a.type}", dt, a.shape)
        return self.b.op(f"{self._FLOAT_MATH2[name]} {a.name}, {b.name} : {a.type}", dt, a.shape)

    def float_class(self, kind: str, x):
        """``isnan``, ``isinf``, ``isfinite`` and ``signbit`` of a float:
        int1 (Triton's libdevice gives int32 0/1; int1 converts to it)."""
        v = self.require_value(_unwrap(x), f"{kind}'s operand")
        if not v.dtype.is_floating():
            self.error(f"{kind} expects a floating-point operand, got {describe(v.dtype, v.shape)}")
        if kind == "isnan":
            return self.b.op(f"arith.cmpf uno, {v.name}, {v.name} : {v.type}", tlc.int1, v.shape)
        if kind == "signbit":
            ity = {8: tlc.int8, 16: tlc.int16, 32: tlc.int32, 64: tlc.int64}[v.dtype.primitive_bitwidth]
            return self.compare("<", self.cast(v, ity, bitcast=True), 0)
        a = self.b.op(f"math.absf {v.name} : {v.type}", v.dtype, v.shape)
        inf = self.constant(math.inf, v.dtype, v.shape)
        pred = "oeq" if kind == "isinf" else "olt"
        return self.b.op(f"arith.cmpf {pred}, {a.name}, {inf.name} : {v.type}", tlc.int1, v.shape)

    def bit_count(self, kind: str, x):
        """``clz`` (leading zeros) and ``popc`` (set bits) of an integer, as int32."""
        v = self.require_value(_unwrap(x), f"{kind}'s operand")
        if not v.dtype.is_int() or v.dtype.is_bool():
            self.error(f"{kind} expects an integer operand, got {describe(v.dtype, v.shape)}")
        op = {"clz": "math.ctlz", "popc": "math.ctpop"}[kind]
        # A count fits any width as a non-negative number, so either extension is right.
        return self.cast(self.b.op(f"{op} {v.name} : {v.type}", v.dtype, v.shape), tlc.int32)

    def mulhi(self, x, y):
        """The high half of the signed product (libdevice's mulhi)."""
        x, y = _unwrap(x), _unwrap(y)
        dt = self.computation_type(x, y, False)
        if not dt.is_int():
            self.error(f"mulhi needs integer operands, got {dt.name}")
        a, b = self.prepare(x, y, dt)
        return self._high_product(a, b, dt.is_int_signed())[1]

    def _high_product(self, a: Value, b: Value, signed: bool) -> Tuple[Value, Value]:
        """The low and high halves of the product of two values of one
        integer type and shape (the interpreter computes them instead)."""
        op = "mulsi_extended" if signed else "mului_extended"
        res = self.b.fresh()
        self.b.emit(f"{res}:2 = arith.{op} {a.name}, {b.name} : {a.type}")
        return Value(f"{res}#0", a.dtype, a.shape), Value(f"{res}#1", a.dtype, a.shape)

    def fma(self, x, y, z):
        dt = self.computation_type(x, y, False)
        dt = self.computation_type(Value("", dt), z, False) if not is_const(z) else dt
        if not dt.is_floating():
            self.error(f"tl.fma expects floating-point operands, got {dt.name}")
        shape = self.broadcast_shapes(self.broadcast_shapes(self.shape_of(x), self.shape_of(y)),
                                      self.shape_of(z))
        a, b, c = (self.as_value(_unwrap(v), dt, shape) for v in (x, y, z))
        return self._fma(a, b, c)

    def _fma(self, a: Value, b: Value, c: Value) -> Value:
        """``a * b + c`` rounded once, on three values of one float type and
        shape (the interpreter computes it instead)."""
        return self.b.op(f"math.fma {a.name}, {b.name}, {c.name} : {a.type}", a.dtype, a.shape)

    def divf(self, x, y, dt, ieee):
        """x / y on prepared operands. As in Triton, fp32 division is
        approximate (div.full.f32, 2 ulp: ``fastmath<afn>``) unless ``ieee``
        (tl.div_rn, tl.fdiv(..., ieee_rounding=True)) asks for rounding to
        nearest; other types always divide exactly."""
        flags = " fastmath<afn>" if dt == tlc.float32 and not ieee else ""
        return self.b.op(f"arith.divf {x.name}, {y.name}{flags} : {x.type}", dt, x.shape)

    def fdiv(self, x, y, ieee=False):
        if not self.const_bool(ieee, "ieee_rounding"):
            return self.binary("/", x, y)
        x, y = _unwrap(x), _unwrap(y)
        dt = self.computation_type(x, y, True)
        if not dt.is_floating():
            self.error(f"tl.div_rn expects floating-point operands, got {dt.name}")
        a, b = self.prepare(x, y, dt)
        return self.divf(a, b, dt, ieee=True)

    def cdiv(self, x, d):
        x, d = _unwrap(x), _unwrap(d)
        if is_const(x) and is_const(d):
            x, d = self._number(x), self._number(d)
            if d == 0:
                self.error("cdiv by zero")
            return (x + d - 1) // d
        return self.binary("//", self.binary("-", self.binary("+", x, d), 1), d)

    def hint(self, x, values, kind: str):
        """``tl.multiple_of`` / ``tl.max_contiguous`` / ``tl.max_constancy``:
        a ``tile.hint`` promising ``kind`` about ``x``'s runs, one value per
        dimension (one for a scalar); returns ``x``. As in Triton, the promise
        holds for every use of ``x``, also when the result is not used."""
        x, values = _unwrap(x), _unwrap(values)
        if isinstance(values, int) and not isinstance(values, bool):
            values = [values]
        if not isinstance(values, (list, tuple)) or not all(
                isinstance(_unwrap(v), int) and not isinstance(_unwrap(v), bool) for v in values):
            self.error(f"tl.{kind}'s values must be constant integers, got {values!r}")
        values = [int(_unwrap(v)) for v in values]
        if not isinstance(x, Value):
            return x  # a constant: its facts are known exactly
        if not (x.dtype.is_int() or x.dtype.is_ptr()) or x.dtype.is_bool():
            self.error(f"tl.{kind} applies to integers and pointers, got {x.dtype.name}")
        rank = max(1, len(x.shape))
        if len(values) != rank:
            self.error(f"tl.{kind} needs {rank} value{'s' if rank > 1 else ''} for a "
                       f"{describe(x.dtype, x.shape)}, got {len(values)}")
        if any(v < 1 for v in values):
            self.error(f"tl.{kind}'s values must be positive, got {values}")
        facts = ", ".join(str(v) for v in values)
        self.b.emit(f"tile.hint {x.name} {{{kind} = array<i64: {facts}>}} : {x.type}")
        return x

    def assume(self, cond):
        """``tl.assume(cond)``: ``tile.assume``, a promise that ``cond`` holds
        (axis info reads ``x >= 0``, ``x > 0`` and ``x % k == 0`` about values
        of the same block; LLVM gets the rest)."""
        cond = _unwrap(cond)
        if not isinstance(cond, Value):
            if not cond:
                self.error("tl.assume of a condition that is false at compile time")
            return None
        if cond.shape:
            self.error(f"tl.assume takes a scalar condition, got a {describe(cond.dtype, cond.shape)}")
        c = self.to_bool(cond)
        self.b.emit(f"tile.assume {c.name}")
        return None

    def umul_extended(self, x, y) -> Tuple[Value, Value]:
        """The low and high halves of the unsigned product (``tl.umulhi``
        takes the high one; Philox both)."""
        x, y = _unwrap(x), _unwrap(y)
        if not (self.dtype_of(x).is_int() and self.dtype_of(y).is_int()):
            self.error(f"tl.umulhi needs integer operands, got {self.dtype_of(x).name} and "
                       f"{self.dtype_of(y).name}")
        dt = self.computation_type(x, y, False)
        a, b = self.prepare(x, y, dt)
        return self._high_product(a, b, False)

    def inline_asm_elementwise(self, asm, constraints, args, dtype, is_pure, pack):
        """``tile.elementwise_inline_asm``; its verifier checks the pack and
        the number of constraints against the operands (a located error)."""
        what = "tl.inline_asm_elementwise"
        asm, constraints = _unwrap(asm), _unwrap(constraints)
        for name, text in (("asm", asm), ("constraints", constraints)):
            if not isinstance(text, str):
                self.error(f"{what}: {name} must be a constexpr string, got {text!r}")
        pure = self.const_bool(is_pure, f"{what}'s is_pure")
        pack = self.const_int(pack, f"{what}'s pack")
        args = _unwrap(args)
        if not isinstance(args, (list, tuple)):
            args = [args]
        values = [self.require_value(_unwrap(a), f"{what}'s argument {i}") for i, a in enumerate(args)]
        dtypes = _unwrap(dtype)
        single = not isinstance(dtypes, (list, tuple))
        dtypes = [self.const_dtype(d, f"{what}'s dtype") for d in ([dtypes] if single else dtypes)]
        if not dtypes:
            self.error(f"{what} needs at least one result dtype")
        for dt in [v.dtype for v in values] + dtypes:
            if dt.is_ptr() or dt.is_bool():
                self.error(f"{what} takes integer and floating-point values, not {dt.name}")
        shape: Tuple[int, ...] = ()
        for v in values:
            shape = self.broadcast_shapes(shape, v.shape)
        values = [self.broadcast_value(v, shape) for v in values]
        types = [type_str(dt, shape) for dt in dtypes]
        attrs = f"{{constraints = {mlir_string(constraints)}, pack = {pack} : i32{', pure' if pure else ''}}}"
        operands = f" {', '.join(v.name for v in values)} : {', '.join(v.type for v in values)}" if values else ""
        res = self.b.fresh()
        head = f"{res}:{len(dtypes)}" if len(dtypes) > 1 else res
        self.b.emit(f"{head} = tile.elementwise_inline_asm {mlir_string(asm)} {attrs}{operands} -> "
                    f"{', '.join(types)}")
        results = [Value(f"{res}#{i}" if len(dtypes) > 1 else res, dt, shape) for i, dt in enumerate(dtypes)]
        return results[0] if single else tuple(results)
