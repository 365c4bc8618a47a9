"""Interpreter values: a tile value with its elements in a NumPy array.

``TValue`` is the frontend's ``Value`` (dtype and shape, so that every type
rule of ``tilelang.frontend.semantic`` applies to it unchanged) plus
``data``, the elements. Storage: integers in the NumPy type of their width
and signedness (arithmetic wraps), int1 as ``bool``, fp16 as ``float16``,
fp32/fp64 as themselves, bf16 and the fp8 types as ``float32`` arrays that
hold only values of the type (``fit`` rounds every result into it), and
pointers as ``int64`` byte addresses into the interpreter's memory
(memory.py). The Python operators and methods of a kernel's tensors
(``x + y``, ``x.to(...)``, ``x[:, None]``, ``x.shape``) forward to the
interpreter's semantic object, as the code generator does for the compiler.
"""

from __future__ import annotations

import numpy as np

from tilelang.frontend.semantic import Value, describe
from tilelang.language import core as tlc

_STORAGE = {
    "int1": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "fp16": np.float16, "bf16": np.float32, "fp32": np.float32, "fp64": np.float64,
    "fp8e4nv": np.float32, "fp8e5": np.float32,
}

# The unsigned integer type of each width, for bit patterns.
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SINT = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def contiguous(x: np.ndarray) -> np.ndarray:
    """``x`` in C order (a copy of a broadcast view), keeping 0-d arrays 0-d."""
    x = np.asarray(x)
    return x if x.flags.c_contiguous else x.copy()


def storage(dt) -> type:
    """The NumPy type holding elements of ``dt``."""
    return np.int64 if dt.is_ptr() else _STORAGE[dt.name]


# ===----------------------------------------------------------------------===#
# Rounding into the narrow float types
# ===----------------------------------------------------------------------===#


def _to_f32_round_to_odd(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounding to odd: the nearest float32, with its
    last bit forced to 1 where the conversion was inexact. Rounding that to
    a type of at most 22 significant bits is the same as rounding ``x``
    directly (no double rounding)."""
    r = x.astype(np.float32)
    inexact = (r.astype(np.float64) != x) & np.isfinite(r)
    if inexact.any():
        bits = r.view(np.uint32).copy()
        even = inexact & ((bits & 1) == 0)
        # Sign-magnitude: one step down in the pattern is towards zero.
        toward_zero = np.abs(r.astype(np.float64)) > np.abs(x)
        bits = np.where(even, np.where(toward_zero, bits - 1, bits + 1), bits).astype(np.uint32)
        r = bits.view(np.float32)
    return r


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """The bf16 bit patterns (uint16) of float32 or float64 values, rounded
    to nearest even (NaN stays a quiet NaN)."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        x = _to_f32_round_to_odd(x)
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    if nan.any():
        rounded = np.where(nan, ((bits >> 16) | 0x40).astype(np.uint16), rounded)
    return rounded


def bf16_from_bits(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def round_bf16(x: np.ndarray) -> np.ndarray:
    return bf16_from_bits(bf16_bits(x))


def _fp8_table(name: str) -> np.ndarray:
    """The float64 value of each of the 256 codes of an fp8 type."""
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    if name == "fp8e4nv":
        exp, man, bias, mbits = (codes >> 3) & 0xF, codes & 0x7, 7, 3
    else:
        exp, man, bias, mbits = (codes >> 2) & 0x1F, codes & 0x3, 15, 2
    normal = (1 + man / (1 << mbits)) * np.exp2(exp.astype(np.float64) - bias)
    sub = (man / (1 << mbits)) * 2.0 ** (1 - bias)
    values = sign * np.where(exp == 0, sub, normal)
    if name == "fp8e4nv":
        values[(codes & 0x7F) == 0x7F] = np.nan  # no infinities
    else:
        values[(codes & 0x7F) == 0x7C] = sign[(codes & 0x7F) == 0x7C] * np.inf
        values[(codes & 0x7F) > 0x7C] = np.nan
    return values


_FP8 = {name: _fp8_table(name) for name in ("fp8e4nv", "fp8e5")}
_FP8_NAN = {"fp8e4nv": 0x7F, "fp8e5": 0x7E}
_FP8_MAX_CODE = {"fp8e4nv": 0x7E, "fp8e5": 0x7B}


def fp8_bits(x: np.ndarray, name: str) -> np.ndarray:
    """fp8 codes (uint8) of values, rounded to nearest even and saturated to
    the largest finite value (the conversion of ``cvt.rn.satfinite``)."""
    x = np.asarray(x, dtype=np.float64)
    positive = _FP8[name][: _FP8_MAX_CODE[name] + 1]
    mag = np.minimum(np.abs(x), positive[-1])
    hi = np.clip(np.searchsorted(positive, mag), 0, len(positive) - 1)
    lo = np.maximum(hi - 1, 0)
    dlo, dhi = mag - positive[lo], positive[hi] - mag
    pick_hi = (dhi < dlo) | ((dhi == dlo) & (hi % 2 == 0))
    code = np.where(pick_hi, hi, lo).astype(np.uint8)
    code = np.where(np.signbit(x), code | 0x80, code).astype(np.uint8)
    return np.where(np.isnan(x), np.uint8(_FP8_NAN[name]), code).astype(np.uint8)


def fp8_from_bits(bits: np.ndarray, name: str) -> np.ndarray:
    return _FP8[name][np.asarray(bits).astype(np.intp)].astype(np.float32)


def fit(dt, data) -> np.ndarray:
    """``data`` (a NumPy array or scalar of a wider or equal type) as the
    storage of ``dt``: integers wrap to the width, floats round to nearest
    even into the type."""
    data = np.asarray(data)
    name = dt.name
    if name == "bf16":
        return round_bf16(data)
    if name in _FP8:
        return fp8_from_bits(fp8_bits(data, name), name)
    st = storage(dt)
    if data.dtype == st:
        return data
    return data.astype(st)


# ===----------------------------------------------------------------------===#
# TValue
# ===----------------------------------------------------------------------===#


def active() -> bool:
    """Whether an interpreted kernel is running (its semantic is on the
    language's list, tlc._INTERPRETING)."""
    return bool(tlc._INTERPRETING)


def current_semantic():
    """The InterpreterSemantic of the kernel running now."""
    if not tlc._INTERPRETING:
        raise RuntimeError("tilelang interpreter values can only be used while an interpreted kernel runs")
    return tlc._INTERPRETING[-1]


class TValue(Value):
    """A scalar or tensor of the interpreted program."""

    __slots__ = ("data",)

    def __init__(self, dt, data, shape=None):
        data = np.asarray(data)
        super().__init__("", dt, data.shape if shape is None else shape)
        self.data = data

    def __repr__(self) -> str:
        return f"<{describe(self.dtype, self.shape)} {self.numpy()!r}>"

    def numpy(self) -> np.ndarray:
        """The elements (bf16 and fp8 as float32; pointers as addresses)."""
        return self.data

    # -- the operators of the language (as the code generator maps them) -----

    def _sem(self):
        return current_semantic()

    def _binary(op, swap=False):
        def method(self, other):
            sem = self._sem()
            a, b = (other, self) if swap else (self, other)
            if op in ("<", "<=", ">", ">=", "==", "!="):
                return sem.compare(op, a, b)
            if op == "**":
                sem.error("** is only supported on constexprs")
            return sem.binary(op, a, b)

        return method

    __add__, __radd__ = _binary("+"), _binary("+", True)
    __sub__, __rsub__ = _binary("-"), _binary("-", True)
    __mul__, __rmul__ = _binary("*"), _binary("*", True)
    __truediv__, __rtruediv__ = _binary("/"), _binary("/", True)
    __floordiv__, __rfloordiv__ = _binary("//"), _binary("//", True)
    __mod__, __rmod__ = _binary("%"), _binary("%", True)
    __and__, __rand__ = _binary("&"), _binary("&", True)
    __or__, __ror__ = _binary("|"), _binary("|", True)
    __xor__, __rxor__ = _binary("^"), _binary("^", True)
    __lshift__, __rlshift__ = _binary("<<"), _binary("<<", True)
    __rshift__, __rrshift__ = _binary(">>"), _binary(">>", True)
    __pow__, __rpow__ = _binary("**"), _binary("**", True)
    __lt__, __le__ = _binary("<"), _binary("<=")
    __gt__, __ge__ = _binary(">"), _binary(">=")
    __eq__, __ne__ = _binary("=="), _binary("!=")
    del _binary

    __hash__ = object.__hash__

    def __neg__(self):
        return self._sem().negate(self)

    def __pos__(self):
        return self

    def __invert__(self):
        return self._sem().invert(self)

    def __abs__(self):
        return self._sem().math_unary("abs", self)

    def __bool__(self) -> bool:
        # A run-time `if`, `while`, `and`, `or`, `not` or `x if c else y`:
        # the compiler takes scalars only (its error came first).
        if self.shape:
            self._sem().error(f"a tensor ({describe(self.dtype, self.shape)}) cannot be used as a condition")
        return bool(self.data)

    def __index__(self) -> int:
        if self.shape or not self.dtype.is_int():
            self._sem().error(f"{describe(self.dtype, self.shape)} cannot be used as an integer here")
        return int(self.data)

    def __len__(self) -> int:
        if not self.shape:
            self._sem().error("len() of a scalar")
        return self.shape[0]

    def __getitem__(self, index):
        return self._sem().subscript(self, index)

    def __iter__(self):
        self._sem().error("a tensor cannot be iterated over")

    # -- attributes and methods ----------------------------------------------

    @property
    def type(self):
        return tlc.block_type(self.dtype, self.shape) if self.shape else self.dtype

    @property
    def T(self):
        return self._sem().permute(self, ())

    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        return self._sem().to(self, dtype, fp_downcast_rounding, bitcast)

    def __getattr__(self, name):
        from tilelang.frontend.codegen import _TENSOR_METHODS

        if name in _TENSOR_METHODS:
            fn = _TENSOR_METHODS[name]
            return lambda *args, **kwargs: fn(self, *args, **kwargs)
        raise AttributeError(f"tensors have no attribute '{name}'")


def scalar(dt, value) -> TValue:
    return TValue(dt, np.asarray(value, dtype=storage(dt)))
