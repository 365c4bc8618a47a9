"""The emitters' shared core: checks of compile-time constants, constants,
casts, broadcasting, Triton's type promotion, arithmetic and comparisons,
pointer arithmetic and the program's geometry (program_id, arange, full).

The op families (memory.py, dot.py, shapes.py, elementwise.py,
reductions.py) are mixins over this class; frontend/semantic.py puts them
together as ``Semantic``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Tuple

from tilelang.frontend.builder import Builder
from tilelang.frontend.values import (
    FrontendError, Value, _float_bits, _int_range, _unwrap, check_numel, describe, is_const, natural_dtype,
    type_str,
)
from tilelang.language import core as tlc
from tilelang.language.core import dtype


class SemanticCore:
    """Emits the IR of the language's operations with Triton's type rules:
    the shared part (checks of constants, constants, casts, broadcasting,
    type promotion, arithmetic, program geometry) that the op families
    build on."""

    def __init__(self, builder: Builder, debug: bool = False):
        self.b = builder
        self.debug = debug
        # Set by the code generator: inlines a @jit function on values.
        self.call_jit: Optional[Callable[[Any, list], Any]] = None

    # -- helpers -------------------------------------------------------------------

    def error(self, message: str):
        raise FrontendError(message)

    def dtype_of(self, x) -> dtype:
        return x.dtype if isinstance(x, Value) else natural_dtype(x)

    def shape_of(self, x) -> Tuple[int, ...]:
        return x.shape if isinstance(x, Value) else ()

    def require_value(self, x, what: str) -> Value:
        if isinstance(x, Value):
            return x
        if isinstance(x, (bool, int, float)):
            return self.constant(x, natural_dtype(x), ())
        self.error(f"{what} must be a tensor, got {x!r}")

    def _number(self, x):
        if isinstance(x, (bool, int, float)):
            return x
        self.error(f"expected a number or a tensor, got {x!r}")

    def const_int(self, x, what: str) -> int:
        x = _unwrap(x)
        if isinstance(x, Value):
            self.error(f"{what} must be a constexpr, but it is a value computed at run time ({describe(x.dtype, x.shape)})")
        if isinstance(x, bool) or not isinstance(x, int):
            self.error(f"{what} must be a constexpr integer, got {x!r}")
        return x

    def const_bool(self, x, what: str) -> bool:
        """A compile-time flag (``reverse=``, ``bitcast=``, ``keep_dims=``...):
        a run-time value there would otherwise be truthy, the flag silently on."""
        x = _unwrap(x)
        if isinstance(x, Value):
            self.error(f"{what} must be a constexpr, but it is a value computed at run time "
                       f"({describe(x.dtype, x.shape)})")
        if not is_const(x):
            self.error(f"{what} must be a constexpr, got {x!r}")
        return bool(x)

    def const_shape(self, shape, what: str = "shape") -> Tuple[int, ...]:
        shape = _unwrap(shape)
        if isinstance(shape, (list, tuple)):
            dims = [self.const_int(d, f"{what} element {i}") for i, d in enumerate(shape)]
        else:
            dims = [self.const_int(shape, what)]
        for i, d in enumerate(dims):
            if d <= 0 or d & (d - 1):
                self.error(f"{what} element {i} must be a power of 2, got {d}")
        check_numel(dims, what)
        return tuple(dims)

    def const_dtype(self, dt, what: str = "dtype") -> dtype:
        dt = _unwrap(dt)
        if not isinstance(dt, dtype):
            self.error(f"{what} must be a tl dtype (e.g. tl.float32), got {dt!r}")
        return dt

    # -- constants ------------------------------------------------------------------

    def constant(self, value, dt: dtype, shape: Tuple[int, ...]) -> Value:
        value = _unwrap(value)
        if isinstance(value, Value):
            return self.broadcast_value(self.cast(value, dt), shape)
        if dt.is_ptr():
            self.error(f"cannot make a pointer of the constant {value!r}")
        if not isinstance(value, (bool, int, float)):
            self.error(f"{value!r} ({type(value).__name__}) cannot be used as a tensor value")
        ty = type_str(dt, shape)
        if dt.is_bool():
            text = "true" if value else "false"
        elif dt.is_int():
            if isinstance(value, float):
                if value != value or value in (math.inf, -math.inf):
                    self.error(f"cannot convert {value} to {dt.name}")
                value = int(value)
            lo, hi = _int_range(dt)
            if not lo <= value <= hi:
                self.error(f"constant {value} is out of range for {dt.name}")
            bits = dt.int_bitwidth
            value &= (1 << bits) - 1
            if value >= 1 << (bits - 1):
                value -= 1 << bits
            text = str(value)
        else:
            text = _float_bits(float(value), dt)
        if dt.is_bool() and not shape:
            return self.b.op(f"arith.constant {text}", dt, shape)
        if shape:
            return self.b.op(f"arith.constant dense<{text}> : {ty}", dt, shape)
        return self.b.op(f"arith.constant {text} : {ty}", dt, shape)

    # -- casts ------------------------------------------------------------------------

    def cast(self, v, dt: dtype, bitcast: bool = False) -> Value:
        dt = self.const_dtype(dt)
        if is_const(v):
            return self.constant(v, dt, ())
        if v.dtype == dt:
            return v
        return self._convert(v, dt, bitcast)

    def _convert(self, v: Value, dt: dtype, bitcast: bool) -> Value:
        """``cast`` of a run-time value to another type (the interpreter
        converts NumPy values instead)."""
        src = v.dtype
        tin, tout = v.type, type_str(dt, v.shape)
        if bitcast:
            if src.primitive_bitwidth != dt.primitive_bitwidth:
                self.error(f"cannot bitcast {src.name} to {dt.name}: their widths differ "
                           f"({src.primitive_bitwidth} and {dt.primitive_bitwidth} bits)")
            if src.mlir() == dt.mlir():
                return Value(v.name, dt, v.shape)
            return self.b.op(f"tile.bitcast {v.name} : {tin} -> {tout}", dt, v.shape)
        if src.is_ptr() or dt.is_ptr():
            if src.is_ptr() and dt.is_ptr():
                return self.b.op(f"tile.bitcast {v.name} : {tin} -> {tout}", dt, v.shape)
            if src.is_ptr() and dt.is_int() and dt.int_bitwidth == 64:
                return self.b.op(f"tile.ptr_to_int {v.name} : {tin} -> {tout}", dt, v.shape)
            if dt.is_ptr() and src.is_int() and src.int_bitwidth == 64:
                return self.b.op(f"tile.int_to_ptr {v.name} : {tin} -> {tout}", dt, v.shape)
            self.error(f"cannot cast {src.name} to {dt.name}")
        if src.is_floating() and dt.is_floating():
            sb, db = src.primitive_bitwidth, dt.primitive_bitwidth
            if sb == db:  # fp16 <-> bf16, fp8 <-> fp8: through fp32
                return self.cast(self.cast(v, tlc.float32), dt)
            op = "extf" if db > sb else "truncf"
            return self.b.op(f"arith.{op} {v.name} : {tin} to {tout}", dt, v.shape)
        if src.is_int() and dt.is_int():
            if dt.is_bool():
                zero = self.constant(0, src, v.shape)
                return self.b.op(f"arith.cmpi ne, {v.name}, {zero.name} : {tin}", dt, v.shape)
            sb, db = src.int_bitwidth, dt.int_bitwidth
            if sb == db:
                return Value(v.name, dt, v.shape)
            if db > sb:
                op = "extsi" if src.is_int_signed() else "extui"
            else:
                op = "trunci"
            return self.b.op(f"arith.{op} {v.name} : {tin} to {tout}", dt, v.shape)
        if src.is_int() and dt.is_floating():
            op = "sitofp" if src.is_int_signed() else "uitofp"
            return self.b.op(f"arith.{op} {v.name} : {tin} to {tout}", dt, v.shape)
        if src.is_floating() and dt.is_int():
            if dt.is_bool():
                zero = self.constant(0.0, src, v.shape)
                return self.b.op(f"arith.cmpf une, {v.name}, {zero.name} : {tin}", dt, v.shape)
            op = "fptosi" if dt.is_int_signed() else "fptoui"
            return self.b.op(f"arith.{op} {v.name} : {tin} to {tout}", dt, v.shape)
        self.error(f"cannot cast {src.name} to {dt.name}")

    def to(self, v, dt, fp_downcast_rounding=None, bitcast=False, what=".to()"):
        """``x.to(dtype)`` and ``tl.cast(x, dtype)``. ``fp_downcast_rounding``
        ("rtne", the default, or "rtz") applies to floating-point
        conversions to a narrower type only, as in Triton."""
        v = self.require_value(v, f"the operand of {what}")
        dt = self.const_dtype(dt, f"the dtype of {what}")
        bitcast = self.const_bool(bitcast, f"the bitcast flag of {what}")
        rounding = _unwrap(fp_downcast_rounding)
        if rounding is None:
            return self.cast(v, dt, bitcast)
        if rounding not in ("rtne", "rtz"):
            self.error(f"fp_downcast_rounding of {what} must be 'rtne' or 'rtz', got {rounding!r}")
        src = v.dtype
        if bitcast or not (src.is_floating() and dt.is_floating()
                           and dt.primitive_bitwidth < src.primitive_bitwidth):
            self.error(f"fp_downcast_rounding of {what} applies only to floating-point conversions to a "
                       f"narrower type, not {src.name} to {dt.name}" + (" as a bitcast" if bitcast else ""))
        if rounding == "rtz" and dt.is_fp8():
            self.error(f"fp_downcast_rounding='rtz' of {what} is not supported for {dt.name} "
                       "(fp8 conversions round to nearest even, as in Triton)")
        nearest = self.cast(v, dt)
        if rounding == "rtne":
            return nearest
        return self._toward_zero(v, nearest)

    def _toward_zero(self, v: Value, nearest: Value) -> Value:
        """Rounding toward zero from the nearest rounding: that is the same
        value, or one unit in the last place further from zero. In the
        latter case the bit pattern less one is the answer (floats are
        sign-magnitude; an overflow to infinity steps back to the largest
        finite value, as rounding toward zero gives); NaN compares false and
        stays."""
        dt = nearest.dtype
        back = self.cast(nearest, v.dtype)
        mag_back = self.b.op(f"math.absf {back.name} : {back.type}", v.dtype, v.shape)
        mag_v = self.b.op(f"math.absf {v.name} : {v.type}", v.dtype, v.shape)
        too_far = self.b.op(f"arith.cmpf ogt, {mag_back.name}, {mag_v.name} : {v.type}", tlc.int1, v.shape)
        ity = {16: tlc.int16, 32: tlc.int32}[dt.primitive_bitwidth]
        bits = self.cast(nearest, ity, bitcast=True)
        one = self.constant(1, ity, v.shape)
        less = self.b.op(f"arith.subi {bits.name}, {one.name} : {bits.type}", ity, v.shape)
        stepped = self.cast(less, dt, bitcast=True)
        types = f"{too_far.type}, {nearest.type}" if v.shape else nearest.type
        return self.b.op(f"arith.select {too_far.name}, {stepped.name}, {nearest.name} : {types}", dt, v.shape)

    # -- broadcasting -----------------------------------------------------------------

    def broadcast_shapes(self, a: Tuple[int, ...], b: Tuple[int, ...]) -> Tuple[int, ...]:
        if a == b or not b:
            return a
        if not a:
            return b
        rank = max(len(a), len(b))
        pa = (1,) * (rank - len(a)) + a
        pb = (1,) * (rank - len(b)) + b
        out = []
        for i, (x, y) in enumerate(zip(pa, pb)):
            if x == y or y == 1:
                out.append(x)
            elif x == 1:
                out.append(y)
            else:
                self.error(f"incompatible shapes for broadcasting: {list(a)} and {list(b)} "
                           f"(dimension {i}: {x} vs {y})")
        return tuple(out)

    def broadcasts_to(self, shape: Tuple[int, ...], target: Tuple[int, ...]) -> bool:
        """Whether a value of ``shape`` broadcasts to ``target`` with
        ``target`` unchanged: how a mask, a value or ``other`` must fit the
        pointers (or block pointer) of an access, never the other way round."""
        try:
            return self.broadcast_shapes(target, shape) == target
        except FrontendError:
            return False

    def broadcast_value(self, v: Value, shape: Tuple[int, ...]) -> Value:
        if v.shape == shape:
            return v
        if not v.shape:
            return self.b.op(f"tile.splat {v.name} : {v.type} -> {type_str(v.dtype, shape)}",
                             v.dtype, shape)
        if len(v.shape) > len(shape):
            self.error(f"cannot broadcast {describe(v.dtype, v.shape)} to shape {list(shape)}")
        while len(v.shape) < len(shape):
            v = self.expand_dims(v, 0)
        for x, y in zip(v.shape, shape):
            if x != y and x != 1:
                self.error(f"cannot broadcast shape {list(v.shape)} to {list(shape)}")
        if v.shape == shape:
            return v
        return self.b.op(f"tile.broadcast {v.name} : {v.type} -> {type_str(v.dtype, shape)}",
                         v.dtype, shape)

    def as_value(self, x, dt: dtype, shape: Tuple[int, ...]) -> Value:
        if is_const(x):
            return self.constant(x, dt, shape)
        return self.broadcast_value(self.cast(x, dt), shape)

    def broadcast_to_shape(self, x, shape):
        x = self.require_value(x, "the operand of broadcast_to")
        if len(shape) == 1 and isinstance(_unwrap(shape[0]), (tuple, list)):
            shape = _unwrap(shape[0])
        return self.broadcast_value(x, self.const_shape(shape))

    def broadcast_pair(self, a, b):
        shape = self.broadcast_shapes(self.shape_of(a), self.shape_of(b))
        return (self.broadcast_value(self.require_value(a, "broadcast operand"), shape),
                self.broadcast_value(self.require_value(b, "broadcast operand"), shape))

    # -- type promotion -------------------------------------------------------------------

    def integer_promote(self, a: dtype, b: dtype) -> dtype:
        if a.is_int_signed() != b.is_int_signed():
            signed, unsigned = (a, b) if a.is_int_signed() else (b, a)
            return unsigned if signed.int_bitwidth <= unsigned.int_bitwidth else signed
        return a if a.int_bitwidth >= b.int_bitwidth else b

    def computation_type(self, a, b, div_or_mod: bool) -> dtype:
        at, bt = self.dtype_of(a), self.dtype_of(b)
        a_scalar, b_scalar = is_const(a), is_const(b)
        if at.is_ptr() or bt.is_ptr():
            self.error(f"unsupported operand types {at.name} and {bt.name}")
        if a_scalar != b_scalar:
            # A Python number of a lower or equal kind (bool < int < float) takes
            # the type of the other operand, as in Triton (and PyTorch).
            st, tt = (at, bt) if a_scalar else (bt, at)
            if st.kind() <= tt.kind():
                if div_or_mod and (tt.is_fp16() or tt.is_bf16()):
                    return tlc.float32
                if tt.is_int():
                    value = _unwrap(a if a_scalar else b)
                    lo, hi = _int_range(tt)
                    if not lo <= int(value) <= hi:
                        return self._computation_type_strict(st, tt, div_or_mod)
                return tt
        return self._computation_type_strict(at, bt, div_or_mod)

    def _computation_type_strict(self, at: dtype, bt: dtype, div_or_mod: bool) -> dtype:
        if at.is_fp64() or bt.is_fp64():
            return tlc.float64
        if at.is_fp32() or bt.is_fp32():
            return tlc.float32
        if at.is_fp16() or bt.is_fp16():
            return tlc.float32 if div_or_mod else tlc.float16
        if at.is_bf16() and bt.is_bf16():
            return tlc.float32 if div_or_mod else tlc.bfloat16
        if at.is_bf16() or bt.is_bf16():
            return tlc.float32
        if at.is_fp8() and bt.is_fp8():
            return at if at == bt else tlc.float16
        if at.is_fp8() or bt.is_fp8():
            return tlc.float16
        if div_or_mod and at.is_int_signed() != bt.is_int_signed() and not (at.is_bool() or bt.is_bool()):
            self.error(f"cannot use /, // or % with {at.name} and {bt.name}: "
                       "their signedness differs")
        return self.integer_promote(at, bt)

    def prepare(self, a, b, dt: dtype) -> Tuple[Value, Value]:
        shape = self.broadcast_shapes(self.shape_of(a), self.shape_of(b))
        return self.as_value(a, dt, shape), self.as_value(b, dt, shape)

    # -- arithmetic -------------------------------------------------------------------------

    def binary(self, op: str, a, b):
        a, b = _unwrap(a), _unwrap(b)
        at, bt = self.dtype_of(a), self.dtype_of(b)
        if op in ("+", "-") and (at.is_ptr() or bt.is_ptr()):
            if at.is_ptr() and bt.is_ptr():
                self.error(f"cannot {'add' if op == '+' else 'subtract'} two pointers")
            if bt.is_ptr():
                if op == "-":
                    self.error("cannot subtract a pointer from an integer")
                a, b = b, a
            return self.addptr(a, b, negate=(op == "-"))
        if at.is_ptr() or bt.is_ptr():
            self.error(f"unsupported operand types for {op}: {describe(at, self.shape_of(a))} "
                       f"and {describe(bt, self.shape_of(b))}")
        if op == "/":
            dt = self.computation_type(a, b, True)
            if dt.is_int():
                dt = tlc.float32
            x, y = self.prepare(a, b, dt)
            return self.divf(x, y, dt, ieee=False)
        if op in ("&", "|", "^", "<<", ">>"):
            if not (at.is_int() and bt.is_int()):
                self.error(f"bitwise operator {op} needs integer operands, got {at.name} and {bt.name}")
            dt = self.computation_type(a, b, False)
            x, y = self.prepare(a, b, dt)
            return self._arith(op, x, y, dt)
        dt = self.computation_type(a, b, op in ("//", "%"))
        x, y = self.prepare(a, b, dt)
        if dt.is_floating() and op == "//":
            self.error(f"floor division (//) is only supported on integers, got {dt.name}")
        return self._arith(op, x, y, dt)

    def _arith(self, op: str, x: Value, y: Value, dt: dtype) -> Value:
        """``x op y`` on two values of type ``dt`` and one shape, after
        ``binary``'s type rules (+ - * // % and the bitwise operators; the
        interpreter computes it instead)."""
        if dt.is_floating():
            name = {"+": "addf", "-": "subf", "*": "mulf", "%": "remf"}[op]
        else:
            signed = dt.is_int_signed()
            name = {"+": "addi", "-": "subi", "*": "muli",
                    "//": "divsi" if signed else "divui", "%": "remsi" if signed else "remui",
                    "&": "andi", "|": "ori", "^": "xori", "<<": "shli",
                    ">>": "shrsi" if signed else "shrui"}[op]
        return self.b.op(f"arith.{name} {x.name}, {y.name} : {x.type}", dt, x.shape)

    def compare(self, op: str, a, b):
        a, b = _unwrap(a), _unwrap(b)
        at, bt = self.dtype_of(a), self.dtype_of(b)
        if at.is_ptr() or bt.is_ptr():
            self.error("comparisons of pointers are not supported yet")
        dt = self.computation_type(a, b, False)
        x, y = self.prepare(a, b, dt)
        if dt.is_floating():
            pred = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}[op]
            return self.b.op(f"arith.cmpf {pred}, {x.name}, {y.name} : {x.type}", tlc.int1, x.shape)
        s = "s" if dt.is_int_signed() else "u"
        pred = {"<": s + "lt", "<=": s + "le", ">": s + "gt", ">=": s + "ge", "==": "eq", "!=": "ne"}[op]
        return self.b.op(f"arith.cmpi {pred}, {x.name}, {y.name} : {x.type}", tlc.int1, x.shape)

    def negate(self, v: Value):
        if v.dtype.is_floating():
            return self.b.op(f"arith.negf {v.name} : {v.type}", v.dtype, v.shape)
        if v.dtype.is_int():
            zero = self.constant(0, v.dtype, v.shape)
            return self.b.op(f"arith.subi {zero.name}, {v.name} : {v.type}", v.dtype, v.shape)
        self.error(f"cannot negate {v.dtype.name}")

    def invert(self, v: Value):
        if not v.dtype.is_int():
            self.error(f"~ needs an integer operand, got {v.dtype.name}")
        ones = self.constant(-1 if v.dtype.is_int_signed() else _int_range(v.dtype)[1], v.dtype, v.shape)
        return self.b.op(f"arith.xori {v.name}, {ones.name} : {v.type}", v.dtype, v.shape)

    def to_bool(self, v) -> Value:
        v = self.require_value(v, "a condition")
        if v.dtype.is_ptr():
            self.error("a pointer cannot be used as a condition")
        return self.cast(v, tlc.int1)

    def logical_not(self, v: Value):
        c = self.to_bool(v)
        true = self.constant(True, tlc.int1, c.shape)
        return self.b.op(f"arith.xori {c.name}, {true.name} : {c.type}", tlc.int1, c.shape)

    def logical(self, op: str, a, b):
        x, y = self.prepare(self.to_bool(a) if not is_const(a) else bool(a),
                            self.to_bool(b) if not is_const(b) else bool(b), tlc.int1)
        name = "andi" if op == "and" else "ori"
        return self.b.op(f"arith.{name} {x.name}, {y.name} : {x.type}", tlc.int1, x.shape)

    def addptr(self, ptr, off, negate: bool = False):
        ptr = self.require_value(ptr, "pointer")
        odt = self.dtype_of(off)
        if not odt.is_int():
            self.error(f"a pointer can only be offset by integers, got {describe(odt, self.shape_of(off))}")
        if odt.is_bool():
            odt = tlc.int32
        shape = self.broadcast_shapes(ptr.shape, self.shape_of(off))
        off = self.as_value(off, odt, shape)
        # addptr offsets are signed: an unsigned offset whose top bit may be
        # set (u32 above 2^31) becomes i64 first, by zero extension.
        if odt.is_int_unsigned() and odt.int_bitwidth < 64:
            off = self.cast(off, tlc.int64)
        if negate:
            off = self.negate(off)
        ptr = self.broadcast_value(ptr, shape)
        return self.b.op(f"tile.addptr {ptr.name}, {off.name} : {ptr.type}, {off.type}",
                         ptr.dtype, shape)

    # -- program geometry and creation ---------------------------------------------------------

    def _axis_name(self, axis) -> str:
        axis = self.const_int(axis, "the axis of program_id/num_programs")
        if axis not in (0, 1, 2):
            self.error(f"program axis must be 0, 1 or 2, got {axis}")
        return "xyz"[axis]

    def program_id(self, axis):
        return self.b.op(f"tile.program_id {self._axis_name(axis)} : i32", tlc.int32)

    def num_programs(self, axis):
        return self.b.op(f"tile.num_programs {self._axis_name(axis)} : i32", tlc.int32)

    def arange(self, start, end):
        start = self.const_int(start, "arange's start")
        end = self.const_int(end, "arange's end")
        n = end - start
        if n <= 0:
            self.error(f"arange's end ({end}) must be greater than its start ({start})")
        if n & (n - 1):
            self.error(f"arange's range must be a power of 2, got {n} ({start} to {end})")
        if not (-(2**31) <= start and end <= 2**31):
            self.error("arange's bounds must fit in int32")
        return self.b.op(f"tile.make_range {start} to {end} : tensor<{n}xi32>", tlc.int32, (n,))

    def full(self, shape, value, dt):
        shape = self.const_shape(shape)
        dt = self.const_dtype(dt)
        value = _unwrap(value)
        if isinstance(value, Value):
            if value.shape:
                self.error("tl.full's value must be a scalar")
            return self.broadcast_value(self.cast(value, dt), shape)
        return self.constant(value, dt, shape)
