"""The tilelang language: dtypes, constexpr and the builtins of ``tl``.

The names, signatures and semantics follow Triton's ``triton.language``. A
builtin is a thin function that forwards to the frontend's semantic layer
(``tilelang.frontend.semantic``), which emits the tile IR; it may only be
called while a ``@tilelang.jit`` function is being compiled.
"""

from __future__ import annotations

import functools
from typing import Any

# ===----------------------------------------------------------------------===#
# dtypes
# ===----------------------------------------------------------------------===#


class dtype:
    """A scalar element type, named as in Triton (``tl.float16.name == "fp16"``)."""

    SINT_TYPES = ("int8", "int16", "int32", "int64")
    UINT_TYPES = ("int1", "uint8", "uint16", "uint32", "uint64")
    FP_TYPES = ("fp8e4nv", "fp8e5", "fp16", "bf16", "fp32", "fp64")

    _MLIR = {
        "int1": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
        "uint8": "i8", "uint16": "i16", "uint32": "i32", "uint64": "i64",
        "fp8e4nv": "f8E4M3FN", "fp8e5": "f8E5M2", "fp16": "f16", "bf16": "bf16",
        "fp32": "f32", "fp64": "f64",
    }
    _BITS = {
        "int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
        "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64,
        "fp8e4nv": 8, "fp8e5": 8, "fp16": 16, "bf16": 16, "fp32": 32, "fp64": 64,
    }
    _MANTISSA = {"fp8e4nv": 3, "fp8e5": 2, "fp16": 10, "bf16": 7, "fp32": 23, "fp64": 52}
    _PUBLIC = {
        "int1": "int1", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
        "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
        "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp16": "float16", "bf16": "bfloat16",
        "fp32": "float32", "fp64": "float64",
    }

    def __init__(self, name: str):
        if name not in self._MLIR:
            raise ValueError(f"unknown dtype {name!r}")
        self.name = name

    # -- classification -------------------------------------------------------
    def is_ptr(self) -> bool:
        return False

    def is_floating(self) -> bool:
        return self.name in self.FP_TYPES

    def is_fp8(self) -> bool:
        return self.name in ("fp8e4nv", "fp8e5")

    def is_fp16(self) -> bool:
        return self.name == "fp16"

    def is_bf16(self) -> bool:
        return self.name == "bf16"

    def is_fp32(self) -> bool:
        return self.name == "fp32"

    def is_fp64(self) -> bool:
        return self.name == "fp64"

    def is_int(self) -> bool:
        return self.name in self.SINT_TYPES or self.name in self.UINT_TYPES

    def is_bool(self) -> bool:
        return self.name == "int1"

    def is_int_signed(self) -> bool:
        return self.name in self.SINT_TYPES

    def is_int_unsigned(self) -> bool:
        return self.name in self.UINT_TYPES

    @property
    def primitive_bitwidth(self) -> int:
        return self._BITS[self.name]

    @property
    def int_bitwidth(self) -> int:
        return self._BITS[self.name]

    @property
    def fp_mantissa_width(self) -> int:
        return self._MANTISSA[self.name]

    @property
    def scalar(self) -> "dtype":
        return self

    def kind(self) -> int:
        """0: bool, 1: integer, 2: floating point (for scalar promotion)."""
        if self.is_bool():
            return 0
        if self.is_int():
            return 1
        return 2

    def mlir(self) -> str:
        return self._MLIR[self.name]

    def __eq__(self, other) -> bool:
        return isinstance(other, dtype) and type(other) is type(self) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("dtype", self.name))

    def __repr__(self) -> str:
        return f"tl.{self._PUBLIC.get(self.name, self.name)}"

    def __str__(self) -> str:
        return self.name


class pointer_type(dtype):
    """A pointer to ``element_ty`` in ``address_space`` (1: global memory)."""

    def __init__(self, element_ty: dtype, address_space: int = 1):
        if not isinstance(element_ty, dtype):
            raise TypeError(f"pointer_type expects a dtype, got {element_ty!r}")
        self.element_ty = element_ty
        self.address_space = address_space
        self.name = f"pointer<{element_ty.name}>"

    def is_ptr(self) -> bool:
        return True

    def is_floating(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def is_bool(self) -> bool:
        return False

    def is_int_signed(self) -> bool:
        return False

    def is_int_unsigned(self) -> bool:
        return False

    def is_fp8(self) -> bool:
        return False

    def kind(self) -> int:
        return 3

    @property
    def primitive_bitwidth(self) -> int:
        return 64

    def mlir(self) -> str:
        space = "" if self.address_space == 1 else f", {self.address_space}"
        return f"!tile.ptr<{self.element_ty.mlir()}{space}>"

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, pointer_type)
            and other.element_ty == self.element_ty
            and other.address_space == self.address_space
        )

    def __hash__(self) -> int:
        return hash(("ptr", self.element_ty, self.address_space))

    def __repr__(self) -> str:
        return f"tl.pointer_type({self.element_ty!r})"


int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e4nv = dtype("fp8e4nv")
float8e5 = dtype("fp8e5")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")

_BY_NAME = {d.name: d for d in (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                                 float8e4nv, float8e5, float16, bfloat16, float32, float64)}
# Triton's short names as written in signatures ("*fp32", "i32", "u8").
_SHORT = {
    "i1": int1, "i8": int8, "i16": int16, "i32": int32, "i64": int64,
    "u1": int1, "u8": uint8, "u16": uint16, "u32": uint32, "u64": uint64,
    "fp8e4nv": float8e4nv, "fp8e5": float8e5, "fp16": float16, "bf16": bfloat16,
    "fp32": float32, "fp64": float64,
}
for _d in _BY_NAME.values():
    _SHORT.setdefault(_d.name, _d)
    _SHORT.setdefault(dtype._PUBLIC[_d.name], _d)
_SHORT.update({"bool": int1, "float": float32, "half": float16, "double": float64})


class block_type:
    """The type of a tensor value, as Triton's ``x.type`` gives it: the element
    type (``element_ty``, also ``scalar``) and the ``shape``. A scalar's
    ``.type`` is its dtype itself (a pointer's has ``element_ty`` too), so
    ``ptr.type.element_ty`` is the pointee either way."""

    def __init__(self, element_ty: dtype, shape):
        self.element_ty = element_ty
        self.shape = tuple(shape)

    @property
    def scalar(self) -> dtype:
        return self.element_ty

    def __eq__(self, other) -> bool:
        return isinstance(other, block_type) and (other.element_ty, other.shape) == (self.element_ty, self.shape)

    def __hash__(self) -> int:
        return hash(("block", self.element_ty, self.shape))

    def __repr__(self) -> str:
        return f"<{list(self.shape)}, {self.element_ty!r}>"


class tensor_descriptor_type:
    """The signature type of a tensor descriptor argument,
    ``tensordesc<bf16[128,64]>``: blocks of ``block_shape`` elements of
    ``element_ty`` (as Triton writes it)."""

    def __init__(self, element_ty: dtype, block_shape):
        self.element_ty = element_ty
        self.block_shape = tuple(int(d) for d in block_shape)

    @property
    def name(self) -> str:
        return f"tensordesc<{self.element_ty.name}[{','.join(str(d) for d in self.block_shape)}]>"

    def is_ptr(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def __eq__(self, other) -> bool:
        return isinstance(other, tensor_descriptor_type) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("tensordesc", self.name))

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


def dtype_from_string(text: str) -> dtype:
    """``"*fp16"`` -> pointer to float16, ``"i32"`` -> int32, ``"u8"`` -> uint8,
    ``"tensordesc<bf16[128, 64]>"`` -> a tensor descriptor type."""
    text = text.strip()
    if text.startswith("tensordesc<") and text.endswith(">"):
        inner = text[len("tensordesc<"):-1].replace(" ", "")
        element, _, dims = inner.partition("[")
        if not dims.endswith("]"):
            raise ValueError(f"unknown type {text!r}")
        try:
            block = tuple(int(d) for d in dims[:-1].split(","))
        except ValueError:
            raise ValueError(f"unknown type {text!r}") from None
        element_ty = dtype_from_string(element)
        if element_ty.is_ptr():
            raise ValueError(f"unknown type {text!r}")
        return tensor_descriptor_type(element_ty, block)
    if text.startswith("*"):
        return pointer_type(dtype_from_string(text[1:]))
    if text not in _SHORT:
        raise ValueError(f"unknown type {text!r}")
    return _SHORT[text]


# ===----------------------------------------------------------------------===#
# constexpr
# ===----------------------------------------------------------------------===#


class constexpr:
    """A compile-time constant; also the annotation of constexpr parameters."""

    def __init__(self, value: Any):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"

    def __eq__(self, other) -> bool:
        other = other.value if isinstance(other, constexpr) else other
        return self.value == other

    def __hash__(self) -> int:
        return hash(self.value)

    def __index__(self) -> int:
        return self.value

    def __bool__(self) -> bool:
        return bool(self.value)


def _unwrap(value):
    return value.value if isinstance(value, constexpr) else value


# ===----------------------------------------------------------------------===#
# limits
# ===----------------------------------------------------------------------===#

# The most elements one tensor may hold: Triton's cap, under Triton's name. A
# tensor lives in one program's registers; larger blocks only exhaust the
# compiler's time and memory (2**17 elements already take seconds in the NVPTX
# backend). libtilelang refuses the same (tile::kMaxTensorElements).
TRITON_MAX_TENSOR_NUMEL = 1048576


# ===----------------------------------------------------------------------===#
# builtins
# ===----------------------------------------------------------------------===#


# The semantic objects of the interpreted launches under way, innermost last
# (tilelang.interpreter.launch pushes and pops them): while one runs, a
# builtin called without ``_semantic=`` is the interpreted kernel's call.
_INTERPRETING: list = []


def builtin(fn):
    """Marks ``fn`` as a builtin: the frontend calls it with ``_semantic=``."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs.get("_semantic") is None:
            if _INTERPRETING:  # an interpreted kernel is running (tilelang.interpreter)
                kwargs["_semantic"] = _INTERPRETING[-1]
                return fn(*args, **kwargs)
            raise RuntimeError(
                f"tl.{fn.__name__} can only be called inside a @tilelang.jit function"
            )
        return fn(*args, **kwargs)

    wrapper.__tilelang_builtin__ = True
    return wrapper


# -- program geometry ------------------------------------------------------------


@builtin
def program_id(axis, _semantic=None):
    return _semantic.program_id(axis)


@builtin
def num_programs(axis, _semantic=None):
    return _semantic.num_programs(axis)


# -- creation ---------------------------------------------------------------------


@builtin
def arange(start, end, _semantic=None):
    return _semantic.arange(start, end)


@builtin
def zeros(shape, dtype, _semantic=None):
    return _semantic.full(shape, 0, dtype)


@builtin
def zeros_like(input, _semantic=None):
    return _semantic.full(_semantic.shape_of(input), 0, _semantic.dtype_of(input))


@builtin
def full(shape, value, dtype, _semantic=None):
    return _semantic.full(shape, value, dtype)


# -- memory -------------------------------------------------------------------------


@builtin
def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False, _semantic=None):
    return _semantic.load(pointer, mask, other, boundary_check, padding_option,
                          cache_modifier, eviction_policy, volatile)


@builtin
def store(pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy="", _semantic=None):
    return _semantic.store(pointer, value, mask, boundary_check, cache_modifier, eviction_policy)


@builtin
def make_block_ptr(base, shape, strides, offsets, block_shape, order, _semantic=None):
    """A pointer to the ``block_shape`` window at ``offsets`` of the tensor at
    ``base`` (extents ``shape``, element ``strides``); ``order`` is accepted
    as Triton's layout hint."""
    return _semantic.make_block_ptr(base, shape, strides, offsets, block_shape, order)


@builtin
def advance(base, offsets, _semantic=None):
    """The block pointer ``base`` moved by ``offsets`` elements per dimension."""
    return _semantic.advance(base, offsets)


@builtin
def make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero", _semantic=None):
    """A descriptor of the tensor at ``base`` (extents ``shape``, element
    ``strides``, the last one 1) read and written in ``block_shape`` blocks."""
    return _semantic.make_tensor_descriptor(base, shape, strides, block_shape, padding_option)


@builtin
def load_tensor_descriptor(desc, offsets, _semantic=None):
    """``desc.load(offsets)``."""
    return _semantic.descriptor_load(desc, offsets)


@builtin
def store_tensor_descriptor(desc, offsets, value, _semantic=None):
    """``desc.store(offsets, value)``."""
    return _semantic.descriptor_store(desc, offsets, value)


# -- atomics ------------------------------------------------------------------------


def _atomic(kind):
    @builtin
    def atomic(pointer, val, mask=None, sem=None, scope=None, _semantic=None):
        return _semantic.atomic_rmw(kind, pointer, val, mask, sem, scope)

    atomic.__name__ = f"atomic_{kind}"
    atomic.__wrapped__.__name__ = f"atomic_{kind}"
    return atomic


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_xchg = _atomic("xchg")


@builtin
def atomic_cas(pointer, cmp, val, sem=None, scope=None, _semantic=None):
    return _semantic.atomic_cas(pointer, cmp, val, sem, scope)


# -- linear algebra -------------------------------------------------------------------


@builtin
def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=float32, _semantic=None):
    return _semantic.dot(input, other, acc, input_precision, allow_tf32,
                         max_num_imprecise_acc, out_dtype)


# -- casts ----------------------------------------------------------------------------


@builtin
def cast(input, dtype, fp_downcast_rounding=None, bitcast=False, _semantic=None):
    """``input.to(dtype)``; ``fp_downcast_rounding`` is "rtne" (default) or
    "rtz" for floating-point conversions to a narrower type."""
    return _semantic.to(input, dtype, fp_downcast_rounding, bitcast, what="tl.cast")


# -- shapes ---------------------------------------------------------------------------


@builtin
def reshape(input, *shape, can_reorder=False, _semantic=None):
    return _semantic.reshape(input, shape, can_reorder)


@builtin
def view(input, *shape, _semantic=None):
    return _semantic.reshape(input, shape, True)


@builtin
def trans(input, *dims, _semantic=None):
    return _semantic.permute(input, dims)


@builtin
def permute(input, *dims, _semantic=None):
    return _semantic.permute(input, dims)


@builtin
def expand_dims(input, axis, _semantic=None):
    return _semantic.expand_dims(input, axis)


@builtin
def broadcast_to(input, *shape, _semantic=None):
    return _semantic.broadcast_to_shape(input, shape)


@builtin
def broadcast(input, other, _semantic=None):
    return _semantic.broadcast_pair(input, other)


@builtin
def join(a, b, _semantic=None):
    """``a`` and ``b`` stacked along a new minor dimension of size 2."""
    return _semantic.join(a, b)


@builtin
def split(a, _semantic=None):
    """The two halves of ``a`` along its last dimension (of size 2)."""
    return _semantic.split(a)


@builtin
def interleave(a, b, _semantic=None):
    """``a`` and ``b`` interleaved along their last dimension."""
    return _semantic.interleave(a, b)


@builtin
def cat(input, other, can_reorder=False, _semantic=None):
    """``input`` then ``other`` along dimension 0 (in order)."""
    return _semantic.cat(input, other, can_reorder)


@builtin
def flip(x, dim=None, _semantic=None):
    """``x`` reversed along ``dim`` (the last dimension by default)."""
    return _semantic.flip(x, dim)


@builtin
def sort(x, dim=None, descending=False, _semantic=None):
    """``x`` sorted along its last dimension (a bitonic network)."""
    return _semantic.sort(x, dim, descending)


@builtin
def topk(x, k, dim=None, _semantic=None):
    """The ``k`` largest values along the last dimension, descending."""
    return _semantic.sort(x, dim, True, k)


@builtin
def gather(src, index, axis, _semantic=None):
    """``src`` read at ``index`` along ``axis``."""
    return _semantic.gather(src, index, axis)


@builtin
def histogram(input, num_bins, mask=None, _semantic=None):
    """Counts of ``input``'s values in bins of width 1 from 0."""
    return _semantic.histogram(input, num_bins, mask)


# -- elementwise ------------------------------------------------------------------------


@builtin
def where(condition, x, y, _semantic=None):
    return _semantic.where(condition, x, y)


class PropagateNan:
    """``propagate_nan=`` of ``tl.maximum``/``minimum``/``clamp``: ``ALL``
    returns NaN when either operand is NaN; ``NONE`` (the default) the
    other operand."""

    NONE = "none"
    ALL = "all"


@builtin
def add(x, y, sanitize_overflow=True, _semantic=None):
    """``x + y`` (``sanitize_overflow`` is Triton's debug-mode check; accepted)."""
    return _semantic.binary("+", x, y)


@builtin
def sub(x, y, sanitize_overflow=True, _semantic=None):
    """``x - y``."""
    return _semantic.binary("-", x, y)


@builtin
def mul(x, y, sanitize_overflow=True, _semantic=None):
    """``x * y``."""
    return _semantic.binary("*", x, y)


@builtin
def ravel(x, can_reorder=False, _semantic=None):
    """``x`` flattened to one dimension (row-major)."""
    x = _semantic.require_value(_unwrap(x), "tl.ravel's operand")
    return _semantic.reshape(x, (x.numel(),), can_reorder)


@builtin
def swizzle2d(i, j, size_i, size_j, size_g, _semantic=None):
    """The indices of a ``size_i x size_j`` row-major matrix mapped to a
    column-major order within each group of ``size_g`` rows (Triton's
    grouped ordering of program ids)."""
    sem = _semantic
    ij = sem.binary("+", sem.binary("*", i, size_j), j)
    size_gj = sem.binary("*", size_g, size_j)
    off_i = sem.binary("*", sem.binary("//", ij, size_gj), size_g)
    group = sem.minmax("min", sem.binary("-", size_i, off_i), size_g)
    ij = sem.binary("%", ij, size_gj)
    return sem.binary("+", off_i, sem.binary("%", ij, group)), sem.binary("//", ij, group)


@builtin
def maximum(x, y, propagate_nan=None, _semantic=None):
    return _semantic.minmax("max", x, y, propagate_nan)


@builtin
def minimum(x, y, propagate_nan=None, _semantic=None):
    return _semantic.minmax("min", x, y, propagate_nan)


@builtin
def clamp(x, min, max, propagate_nan=None, _semantic=None):
    return _semantic.minmax("min", _semantic.minmax("max", x, min, propagate_nan), max, propagate_nan)


def _math1(name):
    @builtin
    def fn(x, _semantic=None):
        return _semantic.math_unary(name, x)

    fn.__name__ = name
    fn.__wrapped__.__name__ = name
    return fn


exp = _math1("exp")
exp2 = _math1("exp2")
log = _math1("log")
log2 = _math1("log2")
sqrt = _math1("sqrt")
sqrt_rn = _math1("sqrt_rn")
rsqrt = _math1("rsqrt")
abs = _math1("abs")
sin = _math1("sin")
cos = _math1("cos")
erf = _math1("erf")
floor = _math1("floor")
ceil = _math1("ceil")
sigmoid = _math1("sigmoid")


@builtin
def fma(x, y, z, _semantic=None):
    return _semantic.fma(x, y, z)


@builtin
def fdiv(x, y, ieee_rounding=False, _semantic=None):
    return _semantic.fdiv(x, y, ieee=_semantic.const_bool(ieee_rounding, "tl.fdiv's ieee_rounding"))


@builtin
def div_rn(x, y, _semantic=None):
    return _semantic.fdiv(x, y, ieee=True)


@builtin
def cdiv(x, div, _semantic=None):
    return _semantic.cdiv(x, div)


@builtin
def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack, _semantic=None):
    """PTX ``asm`` run on the elements of ``args`` (broadcast to one shape),
    ``pack`` elements at a time; one result per dtype of ``dtype`` (a tuple
    of results when it is a sequence)."""
    return _semantic.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack)


# -- reductions and scans -----------------------------------------------------------------


@builtin
def reduce(input, axis, combine_fn, keep_dims=False, _semantic=None):
    return _semantic.reduce_user(input, axis, combine_fn, keep_dims)


@builtin
def sum(input, axis=None, keep_dims=False, dtype=None, _semantic=None):
    return _semantic.reduce_builtin("sum", input, axis, keep_dims, dtype)


@builtin
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False, _semantic=None):
    if _semantic.const_bool(return_indices, "tl.max's return_indices"):
        return (_semantic.reduce_builtin("max", input, axis, keep_dims, None),
                _semantic.argreduce("max", input, axis, keep_dims))
    return _semantic.reduce_builtin("max", input, axis, keep_dims, None)


@builtin
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True,
        keep_dims=False, _semantic=None):
    if _semantic.const_bool(return_indices, "tl.min's return_indices"):
        return (_semantic.reduce_builtin("min", input, axis, keep_dims, None),
                _semantic.argreduce("min", input, axis, keep_dims))
    return _semantic.reduce_builtin("min", input, axis, keep_dims, None)


@builtin
def xor_sum(input, axis=None, keep_dims=False, _semantic=None):
    return _semantic.reduce_builtin("xor_sum", input, axis, keep_dims, None)


@builtin
def reduce_or(input, axis, keep_dims=False, _semantic=None):
    """The bitwise or of ``input``'s integers along ``axis``."""
    return _semantic.reduce_builtin("reduce_or", input, axis, keep_dims, None)


@builtin
def argmax(input, axis, tie_break_left=True, keep_dims=False, _semantic=None):
    return _semantic.argreduce("max", input, axis, keep_dims)


@builtin
def argmin(input, axis, tie_break_left=True, keep_dims=False, _semantic=None):
    return _semantic.argreduce("min", input, axis, keep_dims)


@builtin
def associative_scan(input, axis, combine_fn, reverse=False, _semantic=None):
    return _semantic.scan_user(input, axis, combine_fn, reverse)


@builtin
def cumsum(input, axis=0, reverse=False, dtype=None, _semantic=None):
    return _semantic.scan_builtin("sum", input, axis, reverse, dtype)


@builtin
def cumprod(input, axis=0, reverse=False, _semantic=None):
    return _semantic.scan_builtin("prod", input, axis, reverse, None)


@builtin
def softmax(x, ieee_rounding=False, _semantic=None):
    return _semantic.softmax(x)


# -- compiler hints ------------------------------------------------------------------------


@builtin
def multiple_of(input, values, _semantic=None):
    """Promises that the first value of each run of ``input`` (along each
    dimension) is a multiple of ``values`` (bytes for pointers)."""
    return _semantic.hint(input, values, "multiple_of")


@builtin
def max_contiguous(input, values, _semantic=None):
    """Promises that ``input`` holds runs of ``values`` consecutive values."""
    return _semantic.hint(input, values, "max_contiguous")


@builtin
def max_constancy(input, values, _semantic=None):
    """Promises that ``input`` holds runs of ``values`` equal values."""
    return _semantic.hint(input, values, "max_constancy")


@builtin
def assume(cond, _semantic=None):
    """Promises that the scalar ``cond`` holds (undefined behaviour if not)."""
    return _semantic.assume(cond)


@builtin
def debug_barrier(_semantic=None):
    return _semantic.debug_barrier()


@builtin
def umulhi(x, y, _semantic=None):
    return _semantic.umul_extended(x, y)[1]


@builtin
def _umul_extended(x, y, _semantic=None):
    """Both halves (low, high) of the unsigned product, from one multiply.
    Not part of the language: Philox (language/random.py) takes both halves
    of each round's two products, which ``*`` and ``tl.umulhi`` would
    compute as two multiplies."""
    return _semantic.umul_extended(x, y)


# -- compile-time and debugging ---------------------------------------------------------------


@builtin
def static_assert(cond, msg="", _semantic=None):
    return _semantic.static_assert(cond, msg)


@builtin
def static_print(*values, sep=" ", end="\n", file=None, flush=False, _semantic=None):
    print(*[_unwrap(v) for v in values], sep=sep, end=end, file=file, flush=flush)


@builtin
def device_assert(cond, msg="", _semantic=None):
    return _semantic.device_assert(cond, msg)


@builtin
def device_print(prefix, *args, hex=False, _semantic=None):
    return _semantic.device_print(prefix, args, hex)


# -- conversions for the functions written in the language ---------------------------------
# (language/random.py: tl.rand and friends are @jit functions, not builtins)


@builtin
def _to_tensor(value, _semantic=None):
    """A number as a scalar of its natural type (Triton's rules: int32,
    uint32, int64 or uint64 by range, fp32, int1); a tensor as it is. Not
    part of the language: for its library functions, which check a value's
    dtype whether the caller gave a number or a tensor."""
    return _semantic.require_value(_unwrap(value), "the operand")


# -- iterators ------------------------------------------------------------------------------


class static_range:
    """A range unrolled at compile time; bounds are constexprs."""

    def __init__(self, arg1, arg2=None, step=None):
        self.args = (arg1, arg2, step)

    def __iter__(self):
        if _INTERPRETING:  # the interpreter's semantic runs the loop
            return _INTERPRETING[-1].static_range_loop(*self.args)
        raise RuntimeError("static_range can only be used in @tilelang.jit functions")


class range:  # noqa: A001 - Triton's name
    """``tl.range``: a run-time loop. ``num_stages`` pipelines this loop with
    that many stages (the kernel's ``num_stages`` otherwise); the other
    options are accepted, and a warning says they are ignored."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 disallow_acc_multi_buffer=False, flatten=False, warp_specialize=False,
                 disable_licm=False):
        self.args = (arg1, arg2, step)

    def __iter__(self):
        if _INTERPRETING:  # the interpreter's semantic runs the loop
            return _INTERPRETING[-1].range_loop(*[a for a in self.args if a is not None])
        raise RuntimeError("tl.range can only be used in @tilelang.jit functions")
