"""The frontend's semantic layer: typed values, Triton's type rules, and the
tile-IR text of every language operation.

The code generator (``codegen.py``) walks the Python AST and calls into
``Semantic``; ``Semantic`` checks types and shapes, applies Triton's promotion
and broadcasting rules, and emits MLIR text through ``Builder``. Python
values that are not ``Value`` objects are compile-time constants (constexprs).
"""

from __future__ import annotations

import contextlib
import math
import struct
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

from tilelang.language import core as tlc
from tilelang.language.core import dtype, pointer_type


class FrontendError(Exception):
    """A user error found while emitting an op; the code generator adds the location."""


# ===----------------------------------------------------------------------===#
# Values and types
# ===----------------------------------------------------------------------===#


def type_str(dt: dtype, shape: Tuple[int, ...]) -> str:
    if not shape:
        return dt.mlir()
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + dt.mlir() + ">"


def describe(dt: dtype, shape: Tuple[int, ...]) -> str:
    """Triton's way of writing a type: ``fp32[128, 64]`` or ``int32``."""
    name = f"pointer<{dt.element_ty.name}>" if dt.is_ptr() else dt.name
    return f"{name}[{', '.join(str(d) for d in shape)}]" if shape else name


class Value:
    """An SSA value of the emitted IR: a scalar (shape ``()``) or a tensor."""

    __slots__ = ("name", "dtype", "shape")

    def __init__(self, name: str, dt: dtype, shape: Tuple[int, ...] = ()):
        self.name = name
        self.dtype = dt
        self.shape = tuple(shape)

    @property
    def type(self) -> str:
        return type_str(self.dtype, self.shape)

    def numel(self) -> int:
        return math.prod(self.shape)

    def __repr__(self) -> str:
        return f"<value {self.name}: {describe(self.dtype, self.shape)}>"


class TensorDescValue:
    """A tensor descriptor (``!tile.tensordesc``): blocks of ``block_shape``
    elements of ``dtype``, loaded with ``.load(offsets)`` and stored with
    ``.store(offsets, value)``."""

    __slots__ = ("name", "dtype", "block_shape")

    def __init__(self, name: str, dt: dtype, block_shape: Tuple[int, ...]):
        self.name = name
        self.dtype = dt
        self.block_shape = tuple(block_shape)

    @property
    def type(self) -> str:
        return f"!tile.tensordesc<{type_str(self.dtype, self.block_shape)}>"

    def __repr__(self) -> str:
        return f"<tensor descriptor {self.name}: {describe(self.dtype, self.block_shape)}>"


Scalar = Union[Value, int]


class BlockPtrValue:
    """A block pointer (made and accessed in block_ptr.py): ``base`` (a
    scalar pointer value), ``shape`` and ``strides`` (i64 values or Python
    ints), ``offsets`` (i32 values or Python ints), ``block_shape`` and
    ``order`` (constexpr tuples)."""

    __slots__ = ("base", "shape", "strides", "offsets", "block_shape", "order")

    def __init__(self, base: Value, shape: Sequence[Scalar], strides: Sequence[Scalar],
                 offsets: Sequence[Scalar], block_shape: Tuple[int, ...], order: Tuple[int, ...]):
        self.base = base
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.offsets = tuple(offsets)
        self.block_shape = tuple(block_shape)
        self.order = tuple(order)

    @property
    def element_ty(self):
        return self.base.dtype.element_ty

    def with_offsets(self, offsets: Sequence[Scalar]) -> "BlockPtrValue":
        return BlockPtrValue(self.base, self.shape, self.strides, offsets, self.block_shape, self.order)

    def same_tensor(self, other) -> bool:
        """Whether ``other`` is a window of the same tensor (the same base,
        extents and strides, as objects: the same SSA values or constants)."""
        def same(a, b):
            return a is b or (isinstance(a, int) and isinstance(b, int) and a == b)

        return isinstance(other, BlockPtrValue) and other.block_shape == self.block_shape and \
            same(other.base, self.base) and \
            all(same(a, b) for a, b in zip(self.shape + self.strides, other.shape + other.strides))

    def __repr__(self) -> str:
        return f"<block pointer to {describe(self.element_ty, self.block_shape)}>"


def check_numel(shape: Tuple[int, ...], what: str = "a tensor of shape") -> None:
    """Refuses a tensor over Triton's element cap (tl.TRITON_MAX_TENSOR_NUMEL)
    before any IR of it exists."""
    numel = math.prod(shape)
    if numel > tlc.TRITON_MAX_TENSOR_NUMEL:
        raise FrontendError(f"{what} {list(shape)} has {numel} elements, more than the "
                            f"{tlc.TRITON_MAX_TENSOR_NUMEL} (2**20) a tensor may hold")


def is_const(x) -> bool:
    return not isinstance(x, (Value, TensorDescValue, BlockPtrValue))


def natural_dtype(value) -> dtype:
    """The type a Python constant gets when it becomes a value (as Triton's to_tensor)."""
    if isinstance(value, bool):
        return tlc.int1
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return tlc.int32
        if 2**31 <= value < 2**32:
            return tlc.uint32
        if -(2**63) <= value < 2**63:
            return tlc.int64
        if 2**63 <= value < 2**64:
            return tlc.uint64
        raise FrontendError(f"integer constant {value} does not fit in 64 bits")
    if isinstance(value, float):
        return tlc.float32
    raise FrontendError(f"{value!r} ({type(value).__name__}) cannot be used as a tensor value")


def _int_range(dt: dtype) -> Tuple[int, int]:
    bits = dt.int_bitwidth
    if dt.is_bool():
        return 0, 1
    if dt.is_int_signed():
        return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return 0, 2**bits - 1


def _float_bits(value: float, dt: dtype) -> Optional[str]:
    """The hexadecimal bit pattern MLIR accepts for a float constant."""
    if dt.is_fp32():
        try:
            bits = struct.unpack("<I", struct.pack("<f", value))[0]
        except OverflowError:
            bits = 0x7F800000 if value > 0 else 0xFF800000
        return f"0x{bits:08X}"
    if dt.is_fp64():
        return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"
    if dt.is_fp16():
        try:
            bits = struct.unpack("<H", struct.pack("<e", value))[0]
        except OverflowError:
            bits = 0x7C00 if value > 0 else 0xFC00
        return f"0x{bits:04X}"
    if dt.is_bf16():
        try:
            bits = struct.unpack("<I", struct.pack("<f", value))[0]
        except OverflowError:
            bits = 0x7F800000 if value > 0 else 0xFF800000
        if value != value:
            return "0x7FC0"
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return f"0x{bits & 0xFFFF:04X}"
    if dt.is_fp8():
        return f"0x{fp8_bits(value, dt):02X}"
    return None


def fp8_bits(value: float, dt: dtype) -> int:
    """The fp8 bit pattern of ``value`` with Triton's rounding (to nearest
    even, saturating to the largest finite value; NaN stays NaN), as the
    compiled conversions give it (cvt.rn.satfinite)."""
    man, bias, largest = (3, 7, 448.0) if dt.name == "fp8e4nv" else (2, 15, 57344.0)
    sign = 0x80 if math.copysign(1.0, value) < 0 else 0
    if value != value:
        return 0x7F
    a = min(abs(value), largest)
    # The spacing of representable values around a (subnormals share the
    # smallest normal binade's), then a to a multiple of it, ties to even.
    exponent = max(math.frexp(a)[1] - 1, 1 - bias) if a else 1 - bias
    quantum = math.ldexp(1.0, exponent - man)
    a = min(round(a / quantum) * quantum, largest)
    if a < math.ldexp(1.0, 1 - bias):
        return sign | int(a / math.ldexp(1.0, 1 - bias - man))
    mantissa, e = math.frexp(a)  # a = mantissa * 2^e, mantissa in [0.5, 1)
    return sign | ((e - 1 + bias) << man) | int((mantissa * 2 - 1) * (1 << man))


def mlir_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.extend(f"\\{b:02X}" for b in ch.encode("utf-8"))
    return '"' + "".join(out) + '"'


# ===----------------------------------------------------------------------===#
# Builder: MLIR text with locations
# ===----------------------------------------------------------------------===#


class Builder:
    """Accumulates op lines; every op gets the current location."""

    def __init__(self):
        self.lines: List[str] = []
        self.counter = 0
        self.loc = "loc(unknown)"
        # Run-time branches and loops emitted (CodeGen._count_control_flow).
        self.control_flow_ops = 0

    def fresh(self) -> str:
        name = f"%{self.counter}"
        self.counter += 1
        return name

    def emit(self, text: str) -> None:
        self.lines.append(f"{text} {self.loc}")

    def op(self, text: str, dt: dtype, shape: Tuple[int, ...] = ()) -> Value:
        # Every op with a new shape comes through here (broadcasting, joins,
        # dots, ... as well as the shapes written in the kernel).
        check_numel(shape)
        name = self.fresh()
        self.emit(f"{name} = {text}")
        return Value(name, dt, shape)

    @contextlib.contextmanager
    def capture(self, into: Optional[List[str]] = None):
        saved = self.lines
        self.lines = [] if into is None else into
        try:
            yield self.lines
        finally:
            self.lines = saved

    def append_region(self, body: List[str]) -> None:
        self.lines.extend("  " + line for line in body)


_CACHE_MODIFIERS = {"": None, ".ca": "ca", ".cg": "cg", ".cs": "cs", ".cv": "cv", ".wb": "wb",
                    ".wt": "wt"}
_EVICTION = {"": None, "evict_normal": None, "evict_first": "evict_first",
             "evict_last": "evict_last"}
_SEMS = {None: "acq_rel", "acq_rel": "acq_rel", "acquire": "acquire", "release": "release",
         "relaxed": "relaxed"}
_SCOPES = {None: "gpu", "gpu": "gpu", "cta": "cta", "sys": "sys"}


def _unwrap(x):
    return x.value if isinstance(x, tlc.constexpr) else x


# ===----------------------------------------------------------------------===#
# Semantic
# ===----------------------------------------------------------------------===#


class Semantic:
    """Emits the IR of the language's operations with Triton's type rules."""

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
        src = v.dtype
        if src == dt:
            return v
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
            name = {"&": "andi", "|": "ori", "^": "xori", "<<": "shli",
                    ">>": "shrsi" if dt.is_int_signed() else "shrui"}[op]
            return self.b.op(f"arith.{name} {x.name}, {y.name} : {x.type}", dt, x.shape)
        dt = self.computation_type(a, b, op in ("//", "%"))
        x, y = self.prepare(a, b, dt)
        if dt.is_floating():
            if op == "//":
                self.error(f"floor division (//) is only supported on integers, got {dt.name}")
            name = {"+": "addf", "-": "subf", "*": "mulf", "%": "remf"}[op]
        else:
            signed = dt.is_int_signed()
            name = {"+": "addi", "-": "subi", "*": "muli",
                    "//": "divsi" if signed else "divui", "%": "remsi" if signed else "remui"}[op]
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

    # -- memory --------------------------------------------------------------------------------

    def _check_ptr(self, ptr, what: str) -> Value:
        if not isinstance(ptr, Value) or not ptr.dtype.is_ptr():
            self.error(f"{what} expects a pointer or a tensor of pointers, got "
                       f"{describe(self.dtype_of(ptr), self.shape_of(ptr)) if isinstance(ptr, (Value, int, float)) else repr(ptr)}")
        return ptr

    def _mask(self, mask, shape) -> Optional[Value]:
        mask = _unwrap(mask)
        if mask is None:
            return None
        if is_const(mask):
            if not isinstance(mask, (bool, int)):
                self.error(f"mask must be a boolean tensor, got {mask!r}")
            return self.constant(bool(mask), tlc.int1, shape)
        if not mask.dtype.is_bool():
            self.error(f"mask must have boolean type (int1), got {describe(mask.dtype, mask.shape)}")
        return self.broadcast_value(mask, shape)

    def _fits_pointer(self, what: str, name: str, x, ptr: Value) -> None:
        """A mask, value or `other` broadcasts to the pointer's shape; the
        pointer is never broadcast to theirs (as in Triton): that would
        store several values to one address, or load one element many times."""
        if not isinstance(x, Value) or not x.shape:
            return
        try:
            fits = self.broadcast_shapes(ptr.shape, x.shape) == ptr.shape
        except FrontendError:
            fits = False
        if not fits:
            self.error(f"{what}: the {name} ({describe(x.dtype, x.shape)}) does not fit the pointer "
                       f"({describe(ptr.dtype, ptr.shape)}): the {name} may be broadcast to the "
                       f"pointer's shape, but the pointer is never broadcast to the {name}'s")

    def _cache(self, modifier, allowed) -> str:
        modifier = _unwrap(modifier) or ""
        key = modifier if modifier.startswith(".") or not modifier else "." + modifier
        if key not in _CACHE_MODIFIERS or (key and key not in allowed):
            self.error(f"cache modifier {modifier!r} is not supported here (expected one of "
                       f"{', '.join(allowed)})")
        return f" cache = {_CACHE_MODIFIERS[key]}" if _CACHE_MODIFIERS[key] else ""

    def _evict(self, policy) -> str:
        policy = _unwrap(policy) or ""
        if policy not in _EVICTION:
            self.error(f"eviction policy {policy!r} is not supported (expected evict_normal, "
                       "evict_first or evict_last)")
        return f" evict = {_EVICTION[policy]}" if _EVICTION[policy] else ""

    def load(self, ptr, mask, other, boundary_check, padding_option, cache_modifier,
             eviction_policy, volatile):
        from tilelang.frontend import block_ptr

        if isinstance(_unwrap(ptr), block_ptr.BlockPtrValue):
            return block_ptr.load(self, _unwrap(ptr), mask, other, boundary_check, padding_option,
                                  cache_modifier, eviction_policy, volatile)
        if _unwrap(boundary_check) or _unwrap(padding_option):
            self.error("tl.load: boundary_check and padding_option apply to block pointers "
                       "(tl.make_block_ptr); a tensor of pointers takes a mask")
        ptr = self._check_ptr(ptr, "tl.load")
        mask, other = _unwrap(mask), _unwrap(other)
        if other is not None and mask is None:
            self.error("tl.load: `other` cannot be given without `mask`")
        shape = ptr.shape
        self._fits_pointer("tl.load", "mask", mask, ptr)
        self._fits_pointer("tl.load", "other", other, ptr)
        elem = ptr.dtype.element_ty
        load_elem = tlc.int8 if elem.is_bool() else elem
        if elem.is_bool():
            ptr = self.cast(ptr, pointer_type(tlc.int8, ptr.dtype.address_space))
        m = self._mask(mask, shape)
        o = None if other is None else self.as_value(other, load_elem, shape)
        attrs = self._cache(cache_modifier, (".ca", ".cg", ".cs", ".cv"))
        attrs += self._evict(eviction_policy)
        if self.const_bool(volatile, "tl.load's volatile"):
            attrs += " volatile"
        operands = ptr.name + (f", {m.name}" if m is not None else "") + (f", {o.name}" if o is not None else "")
        result = self.b.op(f"tile.load {operands}{attrs} : {ptr.type}", load_elem, shape)
        if elem.is_bool():
            result = self.cast(result, tlc.int1)
        return result

    def store(self, ptr, value, mask, boundary_check, cache_modifier, eviction_policy):
        from tilelang.frontend import block_ptr

        if isinstance(_unwrap(ptr), block_ptr.BlockPtrValue):
            return block_ptr.store(self, _unwrap(ptr), value, mask, boundary_check, cache_modifier,
                                   eviction_policy)
        if _unwrap(boundary_check):
            self.error("tl.store: boundary_check applies to block pointers (tl.make_block_ptr); a "
                       "tensor of pointers takes a mask")
        ptr = self._check_ptr(ptr, "tl.store")
        value, mask = _unwrap(value), _unwrap(mask)
        shape = ptr.shape
        self._fits_pointer("tl.store", "value", value, ptr)
        self._fits_pointer("tl.store", "mask", mask, ptr)
        elem = ptr.dtype.element_ty
        if elem.is_bool():
            ptr = self.cast(ptr, pointer_type(tlc.int8, ptr.dtype.address_space))
            value = self.as_value(value, tlc.int1, shape)
            value = self.cast(value, tlc.int8)
        else:
            if isinstance(value, Value) and value.dtype.is_ptr() != elem.is_ptr():
                self.error(f"cannot store {describe(value.dtype, value.shape)} through a pointer to {elem.name}")
            value = self.as_value(value, elem, shape)
        m = self._mask(mask, shape)
        attrs = self._cache(cache_modifier, (".wb", ".cg", ".cs", ".wt"))
        attrs += self._evict(eviction_policy)
        mask_text = f", {m.name}" if m is not None else ""
        self.b.emit(f"tile.store {ptr.name}, {value.name}{mask_text}{attrs} : {ptr.type}")
        return None

    # -- block pointers (block_ptr.py) ----------------------------------------------------------

    def make_block_ptr(self, base, shape, strides, offsets, block_shape, order):
        from tilelang.frontend import block_ptr

        return block_ptr.make_block_ptr(self, base, shape, strides, offsets, block_shape, order)

    def advance(self, base, offsets):
        from tilelang.frontend import block_ptr

        return block_ptr.advance(self, base, offsets)

    # -- tensor descriptors ---------------------------------------------------------------------

    def _scalar_int(self, x, dt: dtype, what: str) -> Value:
        """An integer scalar (constant or run-time value) as a value of ``dt``."""
        x = _unwrap(x)
        if isinstance(x, Value):
            if x.shape or not x.dtype.is_int():
                self.error(f"{what} must be an integer scalar, got {describe(x.dtype, x.shape)}")
            return self.cast(x, dt)
        if isinstance(x, bool) or not isinstance(x, int):
            self.error(f"{what} must be an integer, got {x!r}")
        return self.constant(x, dt, ())

    def make_tensor_descriptor(self, base, shape, strides, block_shape, padding_option="zero",
                               tensormap: Optional[str] = None) -> TensorDescValue:
        base = _unwrap(base)
        if not isinstance(base, Value) or base.shape or not base.dtype.is_ptr():
            self.error("tl.make_tensor_descriptor: base must be a pointer to global memory")
        elem = base.dtype.element_ty
        if elem.is_ptr() or elem.is_bool():
            self.error(f"tensor descriptors hold numbers, not {elem.name}")
        block = self.const_shape(block_shape, "block_shape")
        if not 1 <= len(block) <= 5:
            self.error(f"tensor descriptors have 1 to 5 dimensions, got {len(block)}")
        if _unwrap(padding_option) not in ("zero", "", None):
            self.error(f"padding_option {_unwrap(padding_option)!r} is not supported (only 'zero')")
        shape, strides = list(_unwrap(shape)), list(_unwrap(strides))
        if len(shape) != len(block) or len(strides) != len(block):
            self.error(f"a descriptor of {len(block)}-dimensional blocks needs {len(block)} extents "
                       f"and strides, got {len(shape)} and {len(strides)}")
        if _unwrap(strides[-1]) != 1:
            self.error("the last stride of a tensor descriptor must be the constant 1 "
                       "(its rows are contiguous)")
        dims = [self._scalar_int(d, tlc.int32, f"shape[{i}]").name for i, d in enumerate(shape)]
        steps = [self._scalar_int(d, tlc.int64, f"strides[{i}]").name for i, d in enumerate(strides)]
        desc_type = TensorDescValue("", elem, block).type
        map_text = f" map {tensormap}" if tensormap else ""
        name = self.b.fresh()
        self.b.emit(f"{name} = tile.make_tensor_descriptor {base.name}, [{', '.join(dims)}], "
                    f"[{', '.join(steps)}]{map_text} : {base.type} -> {desc_type}")
        return TensorDescValue(name, elem, block)

    def _descriptor(self, desc, what: str) -> TensorDescValue:
        desc = _unwrap(desc)
        if not isinstance(desc, TensorDescValue):
            self.error(f"{what} needs a tensor descriptor, got {desc!r}")
        return desc

    def _offsets(self, desc: TensorDescValue, offsets, what: str) -> List[str]:
        offsets = _unwrap(offsets)
        if not isinstance(offsets, (list, tuple)):
            offsets = [offsets]
        if len(offsets) != len(desc.block_shape):
            self.error(f"{what} takes {len(desc.block_shape)} offsets for blocks of "
                       f"{describe(desc.dtype, desc.block_shape)}, got {len(offsets)}")
        return [self._scalar_int(o, tlc.int32, f"{what} offset {i}").name for i, o in enumerate(offsets)]

    def descriptor_load(self, desc, offsets) -> Value:
        desc = self._descriptor(desc, "load")
        names = self._offsets(desc, offsets, "load")
        result_type = type_str(desc.dtype, desc.block_shape)
        return self.b.op(f"tile.descriptor_load {desc.name}[{', '.join(names)}] : {desc.type} -> {result_type}",
                         desc.dtype, desc.block_shape)

    def descriptor_store(self, desc, offsets, value) -> None:
        desc = self._descriptor(desc, "store")
        names = self._offsets(desc, offsets, "store")
        value = _unwrap(value)
        if isinstance(value, Value):
            if value.dtype != desc.dtype:
                self.error(f"the descriptor stores {desc.dtype.name} blocks, got {describe(value.dtype, value.shape)} "
                           f"(convert it with .to(tl.{desc.dtype.name}))")
            if value.shape != desc.block_shape:
                if value.shape:
                    self.error(f"the descriptor stores blocks of shape {list(desc.block_shape)}, "
                               f"got {describe(value.dtype, value.shape)}")
        value = self.as_value(value, desc.dtype, desc.block_shape)
        self.b.emit(f"tile.descriptor_store {desc.name}[{', '.join(names)}], {value.name} : "
                    f"{desc.type}, {value.type}")
        return None

    # -- atomics ---------------------------------------------------------------------------------

    def atomic_rmw(self, kind, ptr, val, mask, sem, scope):
        ptr = self._check_ptr(ptr, f"tl.atomic_{kind}")
        val, mask = _unwrap(val), _unwrap(mask)
        self._fits_pointer(f"tl.atomic_{kind}", "value", val, ptr)
        self._fits_pointer(f"tl.atomic_{kind}", "mask", mask, ptr)
        shape = ptr.shape
        elem = ptr.dtype.element_ty
        if elem.is_bool() or elem.is_ptr() or elem.is_fp8():
            self.error(f"tl.atomic_{kind} does not support {elem.name}")
        if kind in ("and", "or", "xor") and not elem.is_int():
            self.error(f"tl.atomic_{kind} needs an integer pointer, got {elem.name}")
        if kind == "add":
            rmw = "fadd" if elem.is_floating() else "add"
        elif kind in ("max", "min"):
            rmw = ("u" + kind) if elem.is_int_unsigned() else kind
        else:
            rmw = kind
        v = self.as_value(val, elem, shape)
        m = self._mask(mask, shape)
        sem, scope = _unwrap(sem), _unwrap(scope)
        if sem not in _SEMS:
            self.error(f"unknown memory semantic {sem!r} (expected acquire, release, acq_rel or relaxed)")
        if scope not in _SCOPES:
            self.error(f"unknown memory scope {scope!r} (expected gpu, cta or sys)")
        mask_text = f", {m.name}" if m is not None else ""
        return self.b.op(f"tile.atomic_rmw {rmw}, {_SEMS[sem]}, {_SCOPES[scope]}, {ptr.name}, "
                         f"{v.name}{mask_text} : {ptr.type}", elem, shape)

    def atomic_cas(self, ptr, cmp, val, sem, scope):
        ptr = self._check_ptr(ptr, "tl.atomic_cas")
        self._fits_pointer("tl.atomic_cas", "compared value", _unwrap(cmp), ptr)
        self._fits_pointer("tl.atomic_cas", "value", _unwrap(val), ptr)
        shape = ptr.shape
        elem = ptr.dtype.element_ty
        c = self.as_value(_unwrap(cmp), elem, shape)
        v = self.as_value(_unwrap(val), elem, shape)
        sem, scope = _unwrap(sem), _unwrap(scope)
        if sem not in _SEMS or scope not in _SCOPES:
            self.error(f"unknown memory semantic or scope ({sem!r}, {scope!r})")
        return self.b.op(f"tile.atomic_cas {_SEMS[sem]}, {_SCOPES[scope]}, {ptr.name}, {c.name}, "
                         f"{v.name} : {ptr.type}", elem, shape)

    # -- dot -------------------------------------------------------------------------------------

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
        out_dtype = self.const_dtype(out_dtype, "tl.dot's out_dtype")
        if a.dtype.is_int():
            ret = tlc.int32
        elif a.dtype.is_fp64():
            ret = tlc.float64
        else:
            ret = out_dtype
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

    # -- shapes ----------------------------------------------------------------------------------

    def _norm_axis(self, axis, rank: int, what: str, extra: int = 0) -> int:
        axis = self.const_int(axis, what)
        if not -(rank + extra) <= axis < rank + extra:
            self.error(f"{what} {axis} is out of range for a tensor of rank {rank}")
        return axis + rank + extra if axis < 0 else axis

    def expand_dims(self, x, axis):
        x = self.require_value(x, "tl.expand_dims's operand")
        axis = _unwrap(axis)
        if isinstance(axis, (tuple, list)):
            for a in sorted(self._norm_axis(a, len(x.shape), "axis", len(axis)) for a in axis):
                x = self.expand_dims(x, a)
            return x
        if not x.shape:
            x = self.broadcast_value(x, (1,))
            return x
        ax = self._norm_axis(axis, len(x.shape), "axis", 1)
        shape = x.shape[:ax] + (1,) + x.shape[ax:]
        return self.b.op(f"tile.expand_dims {x.name} {{axis = {ax} : i32}} : {x.type} -> "
                         f"{type_str(x.dtype, shape)}", x.dtype, shape)

    def reshape(self, x, shape, can_reorder):
        x = self.require_value(x, "tl.reshape's operand")
        if len(shape) == 1 and isinstance(_unwrap(shape[0]), (tuple, list)):
            shape = _unwrap(shape[0])
        dims = tuple(self.const_int(d, "reshape dimension") for d in shape)
        if math.prod(dims) != x.numel():
            self.error(f"cannot reshape {list(x.shape)} ({x.numel()} elements) to {list(dims)}")
        if dims == x.shape:
            return x
        if not x.shape or not dims:
            self.error("reshape of scalars is not supported")
        flag = " allow_reorder" if self.const_bool(can_reorder, "tl.reshape's can_reorder") else ""
        return self.b.op(f"tile.reshape {x.name}{flag} : {x.type} -> {type_str(x.dtype, dims)}",
                         x.dtype, dims)

    def permute(self, x, dims):
        x = self.require_value(x, "tl.trans's operand")
        if len(dims) == 1 and isinstance(_unwrap(dims[0]), (tuple, list)):
            dims = _unwrap(dims[0])
        if not dims:
            if len(x.shape) != 2:
                self.error(f"tl.trans without dims needs a 2-D tensor, got {list(x.shape)}")
            dims = (1, 0)
        order = [self.const_int(d, "permutation index") for d in dims]
        if sorted(order) != list(range(len(x.shape))):
            self.error(f"{order} is not a permutation of the {len(x.shape)} dimensions")
        shape = tuple(x.shape[i] for i in order)
        return self.b.op(f"tile.trans {x.name} {{order = array<i32: {', '.join(map(str, order))}>}} : "
                         f"{x.type} -> {type_str(x.dtype, shape)}", x.dtype, shape)

    # -- joining, splitting and flipping ------------------------------------------------
    #
    # No op of the tile dialect moves elements between positions other than
    # reshape and trans, so these are built from selects, reshapes and
    # xor-reductions over axes of size 2 (exact on the bits, in any order).

    def _bits(self, v: Value):
        """``v`` as integers of its width, and the function that turns such
        integers back into ``v``'s type."""
        dt = v.dtype
        if dt.is_ptr():
            return self.cast(v, tlc.int64), lambda b: self.cast(b, dt)
        if dt.is_bool():
            return self.cast(v, tlc.int8), lambda b: self.cast(b, dt)
        if dt.is_floating():
            ity = {8: tlc.int8, 16: tlc.int16, 32: tlc.int32, 64: tlc.int64}[dt.primitive_bitwidth]
            return self.cast(v, ity, bitcast=True), lambda b: self.cast(b, dt, bitcast=True)
        return v, lambda b: b

    def _xor_along(self, bits: Value, axis: int, keep_dims: bool) -> Value:
        return self.reduce_values([bits], axis, self._binary_combine("xor_sum"), keep_dims)[0]

    def join(self, a, b):
        """``tl.join``: ``a`` and ``b`` (one dtype, broadcast to one shape)
        stacked along a new minor dimension of size 2."""
        a, b = self.require_value(_unwrap(a), "tl.join's operand"), self.require_value(_unwrap(b), "tl.join's operand")
        if a.dtype != b.dtype:
            self.error(f"tl.join needs operands of one dtype, got {a.dtype.name} and {b.dtype.name}")
        shape = self.broadcast_shapes(a.shape, b.shape)
        a, b = self.broadcast_value(a, shape), self.broadcast_value(b, shape)
        rank = len(shape)
        if rank:
            a, b = self.expand_dims(a, rank), self.expand_dims(b, rank)
        first = self.compare("==", self.arange(0, 2), 0)
        (abits, restore), (bbits, _) = self._bits(a), self._bits(b)
        return restore(self.where(first, abits, bbits))

    def split(self, x):
        """``tl.split``: the two halves of ``x`` along its last dimension,
        which must have size 2."""
        x = self.require_value(_unwrap(x), "tl.split's operand")
        if not x.shape or x.shape[-1] != 2:
            self.error(f"tl.split needs a tensor whose last dimension is 2, got {describe(x.dtype, x.shape)}")
        bits, restore = self._bits(x)
        first = self.broadcast_value(self.compare("==", self.arange(0, 2), 0), x.shape)
        axis = len(x.shape) - 1
        lo = self._xor_along(self.where(first, bits, 0), axis, False)
        hi = self._xor_along(self.where(first, 0, bits), axis, False)
        return restore(lo), restore(hi)

    def interleave(self, a, b):
        """``tl.interleave``: ``join(a, b)`` with its last two dimensions merged."""
        j = self.join(a, b)
        if len(j.shape) == 1:
            return j
        return self.reshape(j, j.shape[:-2] + (2 * j.shape[-2],), False)

    def cat(self, a, b, can_reorder):
        """``tl.cat``: ``a`` then ``b`` along dimension 0, in order (Triton
        requires ``can_reorder=True`` and may reorder; tilelang does not)."""
        self.const_bool(can_reorder, "tl.cat's can_reorder")
        a, b = self.require_value(_unwrap(a), "tl.cat's operand"), self.require_value(_unwrap(b), "tl.cat's operand")
        if a.shape != b.shape or not a.shape:
            self.error(f"tl.cat needs two tensors of one shape, got {describe(a.dtype, a.shape)} and "
                       f"{describe(b.dtype, b.shape)}")
        j = self.join(a, b)
        rank = len(a.shape)
        front = self.permute(j, (rank,) + tuple(range(rank)))
        return self.reshape(front, (2 * a.shape[0],) + a.shape[1:], False)

    def flip(self, x, dim):
        """``tl.flip``: ``x`` reversed along ``dim`` (the last one by
        default), a power of 2 long. Reversing index i of n = 2^s is i xor
        (n - 1), flipping each of its s bits: the dimension becomes s
        dimensions of size 2, and swapping the two elements of one is
        ``y ^ xor(y[0], y[1])``."""
        x = self.require_value(_unwrap(x), "tl.flip's operand")
        if not x.shape:
            self.error("tl.flip needs a tensor, got a scalar")
        dim = _unwrap(dim)
        d = len(x.shape) - 1 if dim is None else self._norm_axis(dim, len(x.shape), "tl.flip's dim")
        n = x.shape[d]
        steps = n.bit_length() - 1
        if steps == 0:
            return x
        bits, restore = self._bits(x)
        y = self.reshape(bits, x.shape[:d] + (2,) * steps + x.shape[d + 1:], False)
        for axis in range(d, d + steps):
            y = self.binary("^", y, self._xor_along(y, axis, True))
        return restore(self.reshape(y, x.shape, False))

    def _pick(self, bits: Value, mask: Value, axis: int) -> Value:
        """The one element per position along ``axis`` where ``mask`` holds
        (zeros where it holds nowhere), kept as an axis of 1: an
        xor-reduction of the bits, exact whatever the order."""
        return self._xor_along(self.where(mask, bits, 0), axis, True)

    def sort(self, x, dim, descending, k=None):
        """``tl.sort`` (and ``tl.topk``: the ``k`` largest, descending) along
        the last dimension, a power of 2 long: a bitonic sorting network.
        Step (s, j) compares the elements whose indices differ in bit j only
        (the dimension seen as (n / 2^(j+1), 2, 2^j)) and orders each pair
        ascending where bit s of the index is 0 (descending where it is 1;
        the whole order reversed for ``descending``)."""
        x = self.require_value(_unwrap(x), "tl.sort's operand")
        if not x.shape:
            self.error("tl.sort needs a tensor, got a scalar")
        rank = len(x.shape)
        dim = _unwrap(dim)
        d = rank - 1 if dim is None else self._norm_axis(dim, rank, "tl.sort's dim")
        if d != rank - 1:
            self.error(f"tl.sort sorts along the last dimension only, got dim={dim}")
        descending = self.const_bool(descending, "tl.sort's descending")
        if x.dtype.is_ptr():
            self.error("tl.sort does not sort pointers")
        n = x.shape[-1]
        steps = n.bit_length() - 1
        lead = x.shape[:-1]
        ones = (1,) * len(lead)
        y = x
        for s in range(1, steps + 1):
            for j in range(s - 1, -1, -1):
                outer, inner = n >> (j + 1), 1 << j
                bits, restore = self._bits(self.reshape(y, lead + (outer, 2, inner), False))
                first = self.compare("==", self.reshape(self.arange(0, 2), ones + (1, 2, 1), False), 0)
                lo = restore(self._pick(bits, first, rank))
                hi = restore(self._pick(bits, self.logical_not(first), rank))
                # Out of order: lo > hi (lo < hi for descending; ties stay).
                swap = self.compare("<" if descending else ">", lo, hi)
                if s < steps:
                    # Bit s of the index is bit (s - j - 1) of the outer position.
                    position = self.reshape(self.arange(0, outer), ones + (outer, 1, 1), False)
                    bit = self.binary("&", self.binary(">>", position, s - j - 1), 1)
                    swap = self.binary("^", swap, self.compare("!=", bit, 0))
                merged = self.where(first, self.where(swap, hi, lo), self.where(swap, lo, hi))
                y = self.reshape(merged, x.shape, False)
        if k is None:
            return y
        k = self.const_int(k, "tl.topk's k")
        if k <= 0 or k & (k - 1) or k > n:
            self.error(f"tl.topk's k must be a power of 2 no larger than {n}, got {k}")
        if k == n:
            return y
        bits, restore = self._bits(self.reshape(y, lead + (n // k, k), False))
        row = self.reshape(self.arange(0, n // k), ones + (n // k, 1), False)
        return restore(self._xor_along(self.where(self.compare("==", row, 0), bits, 0), rank - 1, False))

    def gather(self, src, index, axis):
        """``tl.gather``: ``out[..., i, ...] = src[..., index[..., i, ...], ...]``
        along ``axis``; ``index`` has ``src``'s rank and its other
        dimensions. Every output element is compared with every position
        of the axis (one xor-reduction of the matching bits), so the work
        is ``index.numel() * src.shape[axis]``; an index out of range gives
        0."""
        src = self.require_value(_unwrap(src), "tl.gather's source")
        index = self.require_value(_unwrap(index), "tl.gather's index")
        if not index.dtype.is_int():
            self.error(f"tl.gather's index must be integers, got {describe(index.dtype, index.shape)}")
        rank = len(src.shape)
        if rank == 0 or len(index.shape) != rank:
            self.error(f"tl.gather's index must have the source's rank, got {list(index.shape)} for "
                       f"{list(src.shape)}")
        a = self._norm_axis(axis, rank, "tl.gather's axis")
        for d in range(rank):
            if d != a and index.shape[d] != src.shape[d]:
                self.error(f"tl.gather's index and source differ in dimension {d} "
                           f"({index.shape[d]} and {src.shape[d]})")
        n = src.shape[a]
        bits, restore = self._bits(src)
        wide = self.expand_dims(bits, a)  # [..., 1, n, ...]
        where_ = self.expand_dims(index, a + 1)  # [..., m, 1, ...]
        positions = self.reshape(self.arange(0, n), (1,) * (a + 1) + (n,) + (1,) * (rank - a - 1), False)
        match = self.compare("==", where_, positions)
        return restore(self._xor_along(self.where(match, wide, 0), a + 1, False))

    def histogram(self, x, num_bins, mask=None):
        """``tl.histogram``: int32 counts of the values of the 1-D ``x`` in
        bins of width 1 from 0 (values outside ``[0, num_bins)``, and
        those where ``mask`` is false, are not counted)."""
        x = self.require_value(_unwrap(x), "tl.histogram's input")
        bins = self.const_int(num_bins, "tl.histogram's num_bins")
        if len(x.shape) != 1 or not x.dtype.is_int():
            self.error(f"tl.histogram needs a 1-D integer tensor, got {describe(x.dtype, x.shape)}")
        if bins <= 0 or bins & (bins - 1):
            self.error(f"tl.histogram's num_bins must be a power of 2, got {bins}")
        hits = self.compare("==", self.expand_dims(x, 1), self.expand_dims(self.arange(0, bins), 0))
        mask = _unwrap(mask)
        if mask is not None:
            hits = self.logical("and", hits, self.expand_dims(self.broadcast_to_shape(mask, x.shape), 1))
        return self.reduce_builtin("sum", self.cast(hits, tlc.int32), 0, False, None)

    def subscript(self, x: Value, index):
        if not isinstance(index, tuple):
            index = (index,)
        dims = list(x.shape)
        src_axis = 0
        out = x
        pos = 0
        for item in index:
            if item is None:
                out = self.expand_dims(out, pos)
                pos += 1
            elif isinstance(item, slice) and item == slice(None, None, None):
                if src_axis >= len(dims):
                    self.error(f"too many indices for a tensor of rank {len(dims)}")
                src_axis += 1
                pos += 1
            else:
                self.error("only `None` and `:` may index a tensor (e.g. x[:, None])")
        if src_axis not in (0, len(dims)) and src_axis < len(dims):
            pass  # the remaining dimensions are kept, as in Triton
        return out

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
            if dt.is_floating():
                return self.b.op(f"math.absf {v.name} : {v.type}", dt, v.shape)
            if dt.is_int_signed():
                return self.b.op(f"math.absi {v.name} : {v.type}", dt, v.shape)
            if dt.is_int():
                return v
            self.error(f"tl.abs does not support {dt.name}")
        if not dt.is_floating():
            self.error(f"tl.{name} expects a floating-point operand, got {describe(dt, v.shape)}")
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
        op = "mulsi_extended" if dt.is_int_signed() else "mului_extended"
        res = self.b.fresh()
        self.b.emit(f"{res}:2 = arith.{op} {a.name}, {b.name} : {a.type}")
        return Value(f"{res}#1", dt, a.shape)

    def fma(self, x, y, z):
        dt = self.computation_type(x, y, False)
        dt = self.computation_type(Value("", dt), z, False) if not is_const(z) else dt
        if not dt.is_floating():
            self.error(f"tl.fma expects floating-point operands, got {dt.name}")
        shape = self.broadcast_shapes(self.broadcast_shapes(self.shape_of(x), self.shape_of(y)),
                                      self.shape_of(z))
        a, b, c = (self.as_value(_unwrap(v), dt, shape) for v in (x, y, z))
        return self.b.op(f"math.fma {a.name}, {b.name}, {c.name} : {a.type}", dt, shape)

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

    # -- random numbers (Triton's Philox 4x32-10 / 4x64) ------------------------------------------

    # (key bump A, key bump B, round multiplier A, round multiplier B), as in triton.language.random
    _PHILOX = {32: (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57),
               64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157)}

    def _mul_extended(self, a: Value, b: Value) -> Tuple[Value, Value]:
        """The low and high halves of the unsigned product (``arith.mului_extended``)."""
        res = self.b.fresh()
        self.b.emit(f"{res}:2 = arith.mului_extended {a.name}, {b.name} : {a.type}")
        return Value(f"{res}#0", a.dtype, a.shape), Value(f"{res}#1", a.dtype, a.shape)

    def umulhi(self, x, y):
        x, y = _unwrap(x), _unwrap(y)
        if not (self.dtype_of(x).is_int() and self.dtype_of(y).is_int()):
            self.error(f"tl.umulhi needs integer operands, got {self.dtype_of(x).name} and "
                       f"{self.dtype_of(y).name}")
        dt = self.computation_type(x, y, False)
        a, b = self.prepare(x, y, dt)
        return self._mul_extended(a, b)[1]

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

    def debug_barrier(self):
        self.b.emit("tilegpu.barrier")
        return None

    # -- reductions and scans ----------------------------------------------------------------------

    def _flatten_axis(self, srcs: List[Value], axis):
        axis = _unwrap(axis)
        if axis is None:
            srcs = [self.reshape(s, (s.numel(),), True) if len(s.shape) != 1 else s for s in srcs]
            return srcs, 0
        return srcs, self._norm_axis(axis, len(srcs[0].shape), "axis")

    def reduce_values(self, srcs: Sequence[Value], axis, combine, keep_dims=False) -> List[Value]:
        srcs = list(srcs)
        for s in srcs:
            if not s.shape:
                self.error("cannot reduce a scalar")
            if s.shape != srcs[0].shape:
                self.error(f"the operands of a reduction must have one shape, got {list(srcs[0].shape)} and {list(s.shape)}")
        srcs, ax = self._flatten_axis(srcs, axis)
        shape = srcs[0].shape
        out_shape = shape[:ax] + shape[ax + 1:]
        lhs = [Value(self.b.fresh(), s.dtype) for s in srcs]
        rhs = [Value(self.b.fresh(), s.dtype) for s in srcs]
        with self.b.capture() as body:
            results = self._combine(combine, lhs, rhs)
            self.b.emit(f"tile.reduce.return {', '.join(r.name for r in results)} : "
                        f"{', '.join(r.type for r in results)}")
        res = self.b.fresh()
        n = len(srcs)
        head = f"{res}:{n}" if n > 1 else res
        out_types = [type_str(s.dtype, out_shape) for s in srcs]
        self.b.lines.append(f"{head} = tile.reduce {', '.join(s.name for s in srcs)} axis = {ax} : "
                            f"{', '.join(s.type for s in srcs)} -> {', '.join(out_types)} {{")
        args = ", ".join(f"{v.name}: {v.type}" for v in lhs + rhs)
        self.b.lines.append(f"^bb0({args}):")
        self.b.append_region(body)
        self.b.emit("}")
        outs = [Value(f"{res}#{i}" if n > 1 else res, s.dtype, out_shape) for i, s in enumerate(srcs)]
        if _unwrap(keep_dims):
            if _unwrap(axis) is None:
                outs = [self.reshape(o if o.shape else self.broadcast_value(o, (1,)),
                                     (1,) * len(shape), False) if len(shape) > 1 else
                        self.broadcast_value(o, (1,)) for o in outs]
            else:
                outs = [self.expand_dims(o, ax) if o.shape else self.broadcast_value(o, (1,)) for o in outs]
        return outs

    def _combine(self, combine, lhs, rhs) -> List[Value]:
        results = combine(lhs, rhs)
        if not isinstance(results, (list, tuple)):
            results = [results]
        results = [_unwrap(r) for r in results]
        if len(results) != len(lhs):
            self.error(f"the combine function returns {len(results)} values, expected {len(lhs)}")
        out = []
        for r, l in zip(results, lhs):
            if is_const(r):
                r = self.constant(r, l.dtype, ())
            if r.shape:
                self.error("the combine function must return scalars")
            if r.dtype != l.dtype:
                self.error(f"the combine function returns {r.dtype.name}, expected {l.dtype.name}")
            out.append(r)
        return out

    def _user_combine(self, fn):
        if self.call_jit is None or not hasattr(fn, "fn"):
            self.error("the combine function must be a @tilelang.jit function")

        def combine(lhs, rhs):
            return self.call_jit(fn, list(lhs) + list(rhs))

        return combine

    def reduce_user(self, x, axis, combine_fn, keep_dims):
        x = _unwrap(x)
        srcs = list(x) if isinstance(x, tuple) else [x]
        if not srcs:
            self.error("tl.reduce needs at least one tensor to reduce, got an empty tuple")
        srcs = [self.require_value(s, "tl.reduce's operand") for s in srcs]
        keep_dims = self.const_bool(keep_dims, "tl.reduce's keep_dims")
        outs = self.reduce_values(srcs, axis, self._user_combine(_unwrap(combine_fn)), keep_dims)
        return outs[0] if not isinstance(x, tuple) else tuple(outs)

    def _binary_combine(self, kind: str):
        def combine(lhs, rhs):
            a, b = lhs[0], rhs[0]
            dt = a.dtype
            if kind in ("max", "min"):
                return [self._minmax_values(kind, a, b)]
            if kind in ("xor_sum", "reduce_or"):
                op = "xori" if kind == "xor_sum" else "ori"
                return [self.b.op(f"arith.{op} {a.name}, {b.name} : {a.type}", dt)]
            name = {"sum": "add", "prod": "mul"}[kind] + ("f" if dt.is_floating() else "i")
            return [self.b.op(f"arith.{name} {a.name}, {b.name} : {a.type}", dt)]

        return combine

    def _sum_dtype(self, x: Value, dt) -> dtype:
        dt = _unwrap(dt)
        if dt is not None:
            return self.const_dtype(dt)
        if x.dtype.is_int_signed() and x.dtype.int_bitwidth < 32:
            return tlc.int32
        if x.dtype.is_int_unsigned() and x.dtype.int_bitwidth < 32:
            return tlc.uint32
        return x.dtype

    def reduce_builtin(self, kind, x, axis, keep_dims, dt):
        x = self.require_value(_unwrap(x), f"tl.{kind}'s operand")
        keep_dims = self.const_bool(keep_dims, f"tl.{kind}'s keep_dims")
        if x.dtype.is_ptr():
            self.error(f"tl.{kind} does not support pointers")
        if kind == "sum":
            x = self.cast(x, self._sum_dtype(x, dt))
        elif kind in ("max", "min") and x.dtype.primitive_bitwidth < 32:
            x = self.cast(x, tlc.float32 if x.dtype.is_floating() else tlc.int32)
        elif kind in ("xor_sum", "reduce_or") and not x.dtype.is_int():
            self.error(f"tl.{kind} needs integers")
        return self.reduce_values([x], axis, self._binary_combine(kind), keep_dims)[0]

    def argreduce(self, kind, x, axis, keep_dims):
        x = self.require_value(_unwrap(x), f"tl.arg{kind}'s operand")
        keep_dims = self.const_bool(keep_dims, f"tl.arg{kind}'s keep_dims")
        if not x.shape:
            self.error(f"tl.arg{kind} needs a tensor")
        srcs, ax = self._flatten_axis([x], axis)
        x = srcs[0]
        n = x.shape[ax]
        idx = self.arange(0, n)
        for _ in range(ax):
            idx = self.expand_dims(idx, 0)
        while len(idx.shape) < len(x.shape):
            idx = self.expand_dims(idx, len(idx.shape))
        idx = self.broadcast_value(idx, x.shape)
        dt = x.dtype
        if dt.is_floating():
            pred, eq = ("ogt" if kind == "max" else "olt"), "oeq"
            cmp = "arith.cmpf"
        else:
            s = "s" if dt.is_int_signed() else "u"
            pred, eq = (s + "gt" if kind == "max" else s + "lt"), "eq"
            cmp = "arith.cmpi"

        def combine(lhs, rhs):
            v1, i1 = lhs
            v2, i2 = rhs
            b = self.b
            better = b.op(f"{cmp} {pred}, {v1.name}, {v2.name} : {v1.type}", tlc.int1)
            same = b.op(f"{cmp} {eq}, {v1.name}, {v2.name} : {v1.type}", tlc.int1)
            first = b.op(f"arith.cmpi slt, {i1.name}, {i2.name} : i32", tlc.int1)
            tie = b.op(f"arith.andi {same.name}, {first.name} : i1", tlc.int1)
            pick = b.op(f"arith.ori {better.name}, {tie.name} : i1", tlc.int1)
            v = b.op(f"arith.select {pick.name}, {v1.name}, {v2.name} : {v1.type}", dt)
            i = b.op(f"arith.select {pick.name}, {i1.name}, {i2.name} : i32", tlc.int32)
            return [v, i]

        return self.reduce_values([x, idx], ax, combine, keep_dims)[1]

    def scan_values(self, srcs: Sequence[Value], axis, combine, reverse=False) -> List[Value]:
        srcs = list(srcs)
        for s in srcs:
            if not s.shape:
                self.error("cannot scan a scalar")
            if s.shape != srcs[0].shape:
                self.error("the operands of a scan must have one shape")
        ax = self._norm_axis(axis, len(srcs[0].shape), "axis")
        lhs = [Value(self.b.fresh(), s.dtype) for s in srcs]
        rhs = [Value(self.b.fresh(), s.dtype) for s in srcs]
        with self.b.capture() as body:
            results = self._combine(combine, lhs, rhs)
            self.b.emit(f"tile.scan.return {', '.join(r.name for r in results)} : "
                        f"{', '.join(r.type for r in results)}")
        res = self.b.fresh()
        n = len(srcs)
        head = f"{res}:{n}" if n > 1 else res
        rev = " reverse" if _unwrap(reverse) else ""
        self.b.lines.append(f"{head} = tile.scan {', '.join(s.name for s in srcs)} axis = {ax}{rev} : "
                            f"{', '.join(s.type for s in srcs)} {{")
        self.b.lines.append(f"^bb0({', '.join(f'{v.name}: {v.type}' for v in lhs + rhs)}):")
        self.b.append_region(body)
        self.b.emit("}")
        return [Value(f"{res}#{i}" if n > 1 else res, s.dtype, s.shape) for i, s in enumerate(srcs)]

    def scan_builtin(self, kind, x, axis, reverse, dt):
        x = self.require_value(_unwrap(x), f"tl.cum{kind}'s operand")
        reverse = self.const_bool(reverse, f"tl.cum{kind}'s reverse")
        x = self.cast(x, self._sum_dtype(x, dt))
        return self.scan_values([x], axis, self._binary_combine(kind), reverse)[0]

    def scan_user(self, x, axis, combine_fn, reverse):
        x = _unwrap(x)
        srcs = list(x) if isinstance(x, tuple) else [x]
        if not srcs:
            self.error("tl.associative_scan needs at least one tensor to scan, got an empty tuple")
        srcs = [self.require_value(s, "tl.associative_scan's operand") for s in srcs]
        reverse = self.const_bool(reverse, "tl.associative_scan's reverse")
        outs = self.scan_values(srcs, axis, self._user_combine(_unwrap(combine_fn)), reverse)
        return outs[0] if not isinstance(x, tuple) else tuple(outs)

    def softmax(self, x):
        x = self.require_value(_unwrap(x), "tl.softmax's operand")
        z = self.binary("-", x, self.reduce_builtin("max", x, 0, False, None))
        num = self.math_unary("exp", z)
        den = self.reduce_builtin("sum", num, 0, False, None)
        return self.binary("/", num, den)

    # -- compile time and debugging ---------------------------------------------------------------

    def static_assert(self, cond, msg):
        cond = _unwrap(cond)
        if isinstance(cond, Value):
            self.error("tl.static_assert's condition must be a constexpr")
        if not cond:
            self.error(f"static_assert failed: {_unwrap(msg)}" if _unwrap(msg) else "static_assert failed")

    def device_assert(self, cond, msg):
        if not self.debug:
            return None
        cond = _unwrap(cond)
        c = self.to_bool(cond) if isinstance(cond, Value) else self.constant(bool(cond), tlc.int1, ())
        self.b.emit(f"tile.assert {c.name}, {mlir_string(str(_unwrap(msg)))} : {c.type}")
        return None

    def device_print(self, prefix, args, hex_):
        prefix = _unwrap(prefix)
        if not isinstance(prefix, str):
            self.error("tl.device_print's prefix must be a string")
        vals = [self.require_value(_unwrap(a), "tl.device_print's argument") for a in args]
        text = f"tile.print {mlir_string(prefix)}"
        if self.const_bool(hex_, "tl.device_print's hex"):
            text += " hex"
        if any(v.dtype.is_int_unsigned() and not v.dtype.is_bool() for v in vals):
            flags = ", ".join("0" if v.dtype.is_int_unsigned() else "1" for v in vals)
            text += f" {{isSigned = array<i32: {flags}>}}"
        if vals:
            text += f" {', '.join(v.name for v in vals)} : {', '.join(v.type for v in vals)}"
        self.b.emit(text)
        return None
