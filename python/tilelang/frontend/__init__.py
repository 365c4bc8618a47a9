"""The Python frontend: ``@jit`` function source -> tile-dialect MLIR text.

``codegen`` walks the AST of a ``function.KernelFunction``; ``semantic``
(the sum of the op emitters in ``emitters/``) holds the type rules and emits
the ops through ``builder``, on the values of ``values``. ``tilelang.jit``
drives both and verifies the result with libtilelang.
"""

from tilelang.frontend.codegen import generate
from tilelang.frontend.function import FunctionInfo
from tilelang.frontend.values import FrontendError, Value

__all__ = ["FunctionInfo", "FrontendError", "Value", "generate"]
