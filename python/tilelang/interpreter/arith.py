"""Interpreter: constants, casts, broadcasting, and elementwise arithmetic
and math (one NumPy operation per tile operation).

The type of every result comes from the frontend's rules (``Semantic``'s
``computation_type``, ``prepare``, ``where_type``...); only the ops that
emit IR are replaced, by their NumPy meaning:

- integers wrap at their width; ``//`` and ``%`` are C's (truncating, the
  remainder has the dividend's sign), unsigned types divide unsigned;
  shifts by the width or more give 0 (the sign for ``>>`` of a signed
  type), as PTX's ``shl``/``shr`` do;
- floats round to nearest even into their type after every operation
  (bf16 and fp8 through ``values.fit``); math functions are evaluated in
  float64 and rounded once, so they are at least as accurate as the GPU's
  approximations (``tl.exp``, ``tl.sqrt`` and fp32 ``/`` are approximate
  there: compare those within tolerances);
- float -> integer conversions truncate and saturate, NaN giving 0 (PTX's
  ``cvt.rzi``).
"""

from __future__ import annotations

import math

import numpy as np

from tilelang.frontend.semantic import _int_range, is_const
from tilelang.interpreter.values import UINT, TValue, contiguous, fit, storage
from tilelang.language import core as tlc


def _float64(v: TValue) -> np.ndarray:
    return v.data.astype(np.float64)


def _saturating_int(x: np.ndarray, dt) -> np.ndarray:
    """Float -> integer: truncation toward zero, saturated, NaN -> 0."""
    x = np.trunc(np.asarray(x, dtype=np.float64))
    lo, hi = _int_range(dt)
    st = storage(dt)
    nan = np.isnan(x)
    low, high = x <= lo, x >= hi
    safe = np.where(nan | low | high, 0, x)
    out = safe.astype(st)
    out = np.where(low, st(lo), out)
    out = np.where(high, st(hi), out)
    return np.where(nan, st(0), out).astype(st)


class ArithOps:
    """The mixin of elementwise operations (see the module docstring)."""

    # -- constants, casts, broadcasting ----------------------------------------

    def constant(self, value, dt, shape):
        value = tlc._unwrap(value)
        if isinstance(value, TValue):
            return self.broadcast_value(self.cast(value, dt), tuple(shape))
        if dt.is_bool():
            data = np.bool_(bool(value))
        elif dt.is_int():
            bits = dt.int_bitwidth
            v = int(value) & ((1 << bits) - 1)
            if dt.is_int_signed() and v >= 1 << (bits - 1):
                v -= 1 << bits
            data = storage(dt)(v)
        elif dt.is_ptr():
            self.error(f"cannot make a pointer of the constant {value!r}")
        else:
            data = fit(dt, np.float64(float(value)))
        data = np.asarray(data)
        if shape:
            data = np.broadcast_to(data, tuple(shape))
        return TValue(dt, data)

    def _convert(self, v, dt, bitcast):
        src = v.dtype
        x = v.data
        if bitcast:
            if src.primitive_bitwidth != dt.primitive_bitwidth:
                self.error(f"cannot bitcast {src.name} to {dt.name}: their widths differ")
            return TValue(dt, _from_bits(_to_bits(x, src), dt))
        if src.is_ptr() or dt.is_ptr():
            # Pointers are int64 addresses; pointer <-> int64 keeps the bits.
            return TValue(dt, x.astype(np.int64).view(storage(dt)) if dt.is_int() else x.view(np.int64))
        if dt.is_bool():
            return TValue(dt, x != 0)
        if src.is_floating() and dt.is_floating():
            return TValue(dt, fit(dt, x))
        if src.is_int() and dt.is_int():
            return TValue(dt, x.astype(storage(dt)))
        if src.is_int() and dt.is_floating():
            if dt.is_fp64() or dt.is_fp32() or dt.is_fp16():
                return TValue(dt, x.astype(storage(dt)))
            return TValue(dt, fit(dt, x.astype(np.float64)))
        if src.is_floating() and dt.is_int():
            return TValue(dt, _saturating_int(x, dt))
        self.error(f"cannot cast {src.name} to {dt.name}")

    def _toward_zero(self, v, nearest):
        back = self.cast(nearest, v.dtype).data
        too_far = np.abs(back.astype(np.float64)) > np.abs(v.data.astype(np.float64))
        dt = nearest.dtype
        bits = _to_bits(nearest.data, dt)
        stepped = _from_bits((bits - np.asarray(1, bits.dtype)).astype(bits.dtype), dt)
        return TValue(dt, np.where(too_far, stepped, nearest.data))

    def broadcast_value(self, v, shape):
        shape = tuple(shape)
        if v.shape == shape:
            return v
        if len(v.shape) > len(shape):
            self.error(f"cannot broadcast {list(v.shape)} to shape {list(shape)}")
        return TValue(v.dtype, np.broadcast_to(v.data, shape))

    # -- program geometry and creation ---------------------------------------

    def program_id(self, axis):
        self._axis_name(axis)
        return TValue(tlc.int32, np.int32(self.pid[tlc._unwrap(axis)]))

    def num_programs(self, axis):
        self._axis_name(axis)
        return TValue(tlc.int32, np.int32(self.grid[tlc._unwrap(axis)]))

    def arange(self, start, end):
        start = self.const_int(start, "arange's start")
        end = self.const_int(end, "arange's end")
        return TValue(tlc.int32, np.arange(start, end, dtype=np.int32))

    # -- arithmetic ------------------------------------------------------------

    def _arith(self, op, x, y, dt):
        if op in ("<<", ">>"):
            return TValue(dt, _shift(op, x.data, y.data, dt))
        if op in ("&", "|", "^"):
            fn = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op]
            return TValue(dt, fn(x.data, y.data))
        if dt.is_floating():
            fn = {"+": np.add, "-": np.subtract, "*": np.multiply, "%": np.fmod}[op]
            return TValue(dt, fit(dt, fn(x.data, y.data)))
        if op in ("//", "%"):
            return TValue(dt, _divide(op, x.data, y.data, dt))
        fn = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
        return TValue(dt, fn(x.data, y.data))

    def compare(self, op, a, b):
        a, b = tlc._unwrap(a), tlc._unwrap(b)
        if self.dtype_of(a).is_ptr() or self.dtype_of(b).is_ptr():
            self.error("comparisons of pointers are not supported yet")
        dt = self.computation_type(a, b, False)
        x, y = self.prepare(a, b, dt)
        fn = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
              "==": np.equal, "!=": np.not_equal}[op]
        return TValue(tlc.int1, fn(x.data, y.data))

    def negate(self, v):
        if v.dtype.is_floating():
            return TValue(v.dtype, np.negative(v.data))
        if v.dtype.is_int():
            return TValue(v.dtype, np.subtract(np.zeros((), v.data.dtype), v.data) if not v.dtype.is_bool()
                          else v.data)
        self.error(f"cannot negate {v.dtype.name}")

    def invert(self, v):
        if not v.dtype.is_int():
            self.error(f"~ needs an integer operand, got {v.dtype.name}")
        return TValue(v.dtype, np.invert(v.data))

    def logical_not(self, v):
        return TValue(tlc.int1, np.logical_not(self.to_bool(v).data))

    def logical(self, op, a, b):
        x, y = self.prepare(self.to_bool(a) if not is_const(a) else bool(a),
                            self.to_bool(b) if not is_const(b) else bool(b), tlc.int1)
        fn = np.logical_and if op == "and" else np.logical_or
        return TValue(tlc.int1, fn(x.data, y.data))

    def addptr(self, ptr, off, negate=False):
        ptr = self.require_value(ptr, "pointer")
        odt = self.dtype_of(off)
        if not odt.is_int():
            self.error("a pointer can only be offset by integers")
        if odt.is_bool():
            odt = tlc.int32
        shape = self.broadcast_shapes(ptr.shape, self.shape_of(off))
        off = self.as_value(off, odt, shape).data
        if odt.is_int_unsigned() and odt.int_bitwidth < 64:
            off = off.astype(np.uint64)
        off = off.astype(np.int64) if off.dtype != np.uint64 else off.view(np.int64)
        if negate:
            off = np.negative(off)
        size = np.int64(_element_bytes(ptr.dtype.element_ty))
        return TValue(ptr.dtype, np.broadcast_to(ptr.data, shape) + off * size)

    # -- selection ----------------------------------------------------------------

    def where(self, cond, x, y):
        cond, x, y = tlc._unwrap(cond), tlc._unwrap(x), tlc._unwrap(y)
        c = self.to_bool(cond) if isinstance(cond, TValue) else self.constant(bool(cond), tlc.int1, ())
        dt, shape = self.where_type(x, y)
        shape = self.broadcast_shapes(c.shape, shape)
        xv, yv = self.as_value(x, dt, shape), self.as_value(y, dt, shape)
        return TValue(dt, np.where(c.data, xv.data, yv.data))

    def _minmax_values(self, kind, a, b, propagate_nan=None):
        dt = a.dtype
        if dt.is_floating():
            nan_all = propagate_nan not in (None, 0, False, "none", "NONE") and \
                str(propagate_nan).lower().endswith("all")
            if nan_all:
                fn = np.maximum if kind == "max" else np.minimum
            else:
                fn = np.fmax if kind == "max" else np.fmin
            return TValue(dt, fn(a.data, b.data))
        if not dt.is_int():
            self.error(f"tl.{kind}imum does not support {dt.name}")
        fn = np.maximum if kind == "max" else np.minimum
        return TValue(dt, fn(a.data, b.data))

    # -- math --------------------------------------------------------------------

    def _unary(self, name, v):
        if name == "abs":
            return TValue(v.dtype, np.abs(v.data))
        with np.errstate(all="ignore"):
            return TValue(v.dtype, fit(v.dtype, _UNARY[name](_float64(v))))

    def math_binary(self, name, x, y):
        x, y = tlc._unwrap(x), tlc._unwrap(y)
        if is_const(x) and is_const(y):
            x = self.require_value(x, f"{name}'s first operand")
        dt = self.computation_type(x, y, False)
        if not dt.is_floating():
            self.error(f"{name} expects floating-point operands, got {dt.name}")
        a, b = self.prepare(x, y, dt)
        fn = {"pow": np.power, "copysign": np.copysign, "fmod": np.fmod, "hypot": np.hypot}[name]
        return TValue(dt, fit(dt, fn(_float64(a), _float64(b))))

    def float_class(self, kind, x):
        v = self.require_value(tlc._unwrap(x), f"{kind}'s operand")
        if not v.dtype.is_floating():
            self.error(f"{kind} expects a floating-point operand")
        fn = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "signbit": np.signbit}[kind]
        return TValue(tlc.int1, fn(v.data))

    def bit_count(self, kind, x):
        v = self.require_value(tlc._unwrap(x), f"{kind}'s operand")
        if not v.dtype.is_int() or v.dtype.is_bool():
            self.error(f"{kind} expects an integer operand")
        bits = v.dtype.int_bitwidth
        u = contiguous(v.data).view(UINT[bits])
        if kind == "popc":
            return TValue(tlc.int32, np.bitwise_count(u).astype(np.int32))
        count = np.zeros(u.shape, np.int32)
        rest = u.copy()
        for step in (32, 16, 8, 4, 2, 1):
            if step >= bits:
                continue
            empty = (rest >> UINT[bits](bits - step)) == 0
            count = count + np.where(empty, step, 0).astype(np.int32)
            rest = np.where(empty, rest << UINT[bits](step), rest).astype(UINT[bits])
        count = count + ((rest >> UINT[bits](bits - 1)) == 0).astype(np.int32)
        return TValue(tlc.int32, count)

    def _high_product(self, a, b, signed):
        dt = a.dtype
        bits = dt.int_bitwidth
        if bits <= 32:
            wide = np.int64 if signed else np.uint64
            hi = (a.data.astype(wide) * b.data.astype(wide)) >> wide(bits)
            lo = a.data.astype(wide) * b.data.astype(wide)
            return TValue(dt, lo.astype(storage(dt))), TValue(dt, hi.astype(storage(dt)))
        lo, hi = _mul_u64(a.data.view(np.uint64), b.data.view(np.uint64))
        if signed:
            hi = hi - np.where(a.data < 0, b.data.view(np.uint64), 0).astype(np.uint64) \
                - np.where(b.data < 0, a.data.view(np.uint64), 0).astype(np.uint64)
        return TValue(dt, lo.view(storage(dt))), TValue(dt, hi.view(storage(dt)))

    def _fma(self, a, b, c):
        return TValue(a.dtype, fit(a.dtype, _float64(a) * _float64(b) + _float64(c)))

    def divf(self, x, y, dt, ieee):
        if dt.is_fp64() or dt.is_fp32() or dt.is_fp16():
            return TValue(dt, np.divide(x.data, y.data))
        return TValue(dt, fit(dt, np.divide(x.data, y.data)))

    def hint(self, x, values, kind):
        return tlc._unwrap(x)

    def assume(self, cond):
        return None


# -- helpers ------------------------------------------------------------------------


def _element_bytes(elem) -> int:
    if elem.is_ptr():
        return 8
    return max(1, elem.primitive_bitwidth // 8)


def _to_bits(x: np.ndarray, dt) -> np.ndarray:
    """The bit patterns (unsigned, of dt's width) of elements of ``dt``."""
    if dt.is_ptr():
        return x.view(np.uint64)
    if dt.is_bf16():
        from tilelang.interpreter.values import bf16_bits

        return bf16_bits(x)
    if dt.is_fp8():
        from tilelang.interpreter.values import fp8_bits

        return fp8_bits(x, dt.name)
    if dt.is_bool():
        return x.astype(np.uint8)
    return contiguous(x).view(UINT[dt.primitive_bitwidth])


def _from_bits(bits: np.ndarray, dt) -> np.ndarray:
    bits = contiguous(bits)
    if dt.is_ptr():
        return bits.view(np.int64)
    if dt.is_bf16():
        from tilelang.interpreter.values import bf16_from_bits

        return bf16_from_bits(bits)
    if dt.is_fp8():
        from tilelang.interpreter.values import fp8_from_bits

        return fp8_from_bits(bits, dt.name)
    if dt.is_bool():
        return bits != 0
    return bits.view(storage(dt))


def _shift(op, x, y, dt):
    bits = dt.int_bitwidth
    if dt.is_bool():
        a, b = x.astype(np.uint8), y.astype(np.uint8)
        return ((a << b) if op == "<<" else (a >> b)) & 1 != 0
    amount = contiguous(y).view(UINT[bits])
    big = amount >= bits
    safe = np.where(big, 0, amount).astype(x.dtype)
    if op == "<<":
        return np.where(big, x.dtype.type(0), np.left_shift(x, safe)).astype(x.dtype)
    shifted = np.right_shift(x, safe)
    if dt.is_int_signed():
        return np.where(big, np.right_shift(x, x.dtype.type(bits - 1)), shifted).astype(x.dtype)
    return np.where(big, x.dtype.type(0), shifted).astype(x.dtype)


def _divide(op, x, y, dt):
    """C's / and % on integers; a zero divisor gives 0 (undefined on the GPU)."""
    zero = y == 0
    safe = np.where(zero, 1, y).astype(x.dtype)
    if dt.is_int_signed():
        # INT_MIN / -1 overflows: it wraps to INT_MIN (remainder 0).
        if op == "%":
            r = np.fmod(x, safe)
            return np.where(zero, 0, r).astype(x.dtype)
        q = np.floor_divide(x, safe)
        r = x - q * safe
        q = np.where((r != 0) & ((x < 0) != (safe < 0)), q + 1, q).astype(x.dtype)
        return np.where(zero, 0, q).astype(x.dtype)
    fn = np.floor_divide if op == "//" else np.remainder
    return np.where(zero, 0, fn(x, safe)).astype(x.dtype)


def _mul_u64(a: np.ndarray, b: np.ndarray):
    """The low and high 64 bits of the 128-bit products of uint64 arrays."""
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a_lo, a_hi, b_lo, b_hi = a & m32, a >> s32, b & m32, b >> s32
    lo_lo, hi_lo, lo_hi, hi_hi = a_lo * b_lo, a_hi * b_lo, a_lo * b_hi, a_hi * b_hi
    cross = (lo_lo >> s32) + (hi_lo & m32) + lo_hi
    hi = hi_hi + (hi_lo >> s32) + (cross >> s32)
    lo = (cross << s32) | (lo_lo & m32)
    return lo, hi


def _round_half_away(x):
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0.0)


_erf = np.frompyfunc(math.erf, 1, 1)

_UNARY = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt, "sqrt_rn": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "sin": np.sin, "cos": np.cos,
    "erf": lambda x: _erf(x).astype(np.float64), "floor": np.floor, "ceil": np.ceil, "tanh": np.tanh,
    "log1p": np.log1p, "expm1": np.expm1, "log10": np.log10, "tan": np.tan, "trunc": np.trunc,
    "round": _round_half_away, "rint": np.rint, "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "sinh": np.sinh, "cosh": np.cosh, "exp10": lambda x: np.power(10.0, x),
}
