"""The Python frontend: ``@jit`` function source -> tile-dialect MLIR text.

``codegen`` walks the AST; ``semantic`` holds the type rules and emits the
ops. ``tilelang.jit`` drives both and verifies the result with libtilelang.
"""

from tilelang.frontend.codegen import FunctionInfo, generate
from tilelang.frontend.semantic import FrontendError, Value

__all__ = ["FunctionInfo", "FrontendError", "Value", "generate"]
