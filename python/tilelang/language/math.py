"""``tl.math``: the elementwise math functions, as in ``triton.language.math``."""

from tilelang.language.core import (  # noqa: F401
    abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, rsqrt, sigmoid,
    sin, sqrt, sqrt_rn, umulhi,
)
from tilelang.language.core import maximum as max  # noqa: F401
from tilelang.language.core import minimum as min  # noqa: F401
