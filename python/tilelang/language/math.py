"""``tl.math``: the elementwise math functions, as in ``triton.language.math``,
plus ``tanh``, ``pow``, ``log1p``, ``expm1``, ``log10`` and ``tan``, which
Triton offers through libdevice only (``tl.extra.cuda.libdevice`` has them
too)."""

from tilelang.language.core import (  # noqa: F401
    abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, rsqrt, sigmoid,
    sin, sqrt, sqrt_rn, umulhi,
)
from tilelang.language.core import _math1
from tilelang.language.core import builtin as _builtin
from tilelang.language.core import maximum as max  # noqa: F401
from tilelang.language.core import minimum as min  # noqa: F401

tanh = _math1("tanh")
log1p = _math1("log1p")
expm1 = _math1("expm1")
log10 = _math1("log10")
tan = _math1("tan")


@_builtin
def pow(x, y, _semantic=None):  # noqa: A001 - the function's name
    """``x ** y`` on floating-point operands, as C's ``powf``."""
    return _semantic.math_binary("pow", x, y)
