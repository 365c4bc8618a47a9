"""The frontend's semantic layer: typed values, Triton's type rules, and the
tile-IR text of every language operation.

The code generator (``codegen.py``) walks the Python AST and calls into
``Semantic``; ``Semantic`` checks types and shapes, applies Triton's promotion
and broadcasting rules, and emits MLIR text through ``Builder`` (builder.py).
Python values that are not ``Value`` objects (values.py) are compile-time
constants (constexprs). The operations are emitted by family in
emitters/*.py; ``Semantic`` is their sum, with the compile-time checks and
debugging operations below. The interpreter's semantic
(tilelang/interpreter/launch.py) replaces families of it with NumPy.
"""

from __future__ import annotations

from tilelang.frontend.builder import Builder  # noqa: F401 - also importable from here
from tilelang.frontend.emitters.core import SemanticCore
from tilelang.frontend.emitters.dot import DotEmitter
from tilelang.frontend.emitters.elementwise import ElementwiseEmitter
from tilelang.frontend.emitters.memory import MemoryEmitter
from tilelang.frontend.emitters.reductions import ReductionEmitter
from tilelang.frontend.emitters.shapes import ShapeEmitter
from tilelang.frontend.values import (  # noqa: F401 - also importable from here, as before the split
    BlockPtrValue, FrontendError, Scalar, TensorDescValue, Value, _float_bits, _int_range, _unwrap, check_numel,
    describe, fp8_bits, is_const, mlir_string, natural_dtype, type_str,
)
from tilelang.language import core as tlc


class Semantic(MemoryEmitter, DotEmitter, ShapeEmitter, ElementwiseEmitter, ReductionEmitter, SemanticCore):
    """Emits the IR of the language's operations with Triton's type rules."""

    def debug_barrier(self):
        # Marked as the user's: the lowering removes its own barriers where
        # they order nothing, never this one (docs/language.md).
        self.b.emit("tilegpu.barrier {tilegpu.user_barrier}")
        return None

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
