"""The frontend's values and types: what a kernel's names are bound to while
it is compiled.

``Value`` is an SSA value of the tile IR being emitted (its name, element
type and block shape); ``TensorDescValue`` and ``BlockPtrValue`` are the
tensor descriptors and block pointers a kernel makes. Python values that are
not ``Value`` objects are compile-time constants (constexprs). Also here:
the type names of the IR text, the constant encodings (floats, fp8) and
``FrontendError``, the user error an emitter raises (the code generator
adds the location).
"""

from __future__ import annotations

import math
import struct
from typing import Optional, Sequence, Tuple, Union

from tilelang.language import core as tlc
from tilelang.language.core import dtype


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


def _unwrap(x):
    return x.value if isinstance(x, tlc.constexpr) else x
