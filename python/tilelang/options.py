"""Launch options: ``num_warps``, ``num_stages``, ``maxnreg`` and
``num_ctas``, checked where a user gives them (``kernel[grid](...)``,
``warmup``, ``compile``, ``tilelang.Config``, ``compile_ir``) with the
limits the compiler library defines (``CompileOptions`` in
include/tilelang/Compiler/Compiler.h, read through ``tilelang._C``), so a
bad value is a TypeError or ValueError naming the option before anything
is compiled, not a compiler diagnostic without a place.
"""

from __future__ import annotations

import operator
from typing import Optional, Tuple

from tilelang.errors import callers_error

#: Keywords of a launch that are options of the compilation, not arguments.
LAUNCH_OPTIONS = ("num_warps", "num_stages", "maxnreg", "num_ctas")

_LIMITS = {}


def limits() -> dict:
    """The compiler's limits: max_warps, min_maxnreg, max_maxnreg,
    max_stages (read once)."""
    if not _LIMITS:
        from tilelang.ir import _native

        _LIMITS.update(_native().launch_option_limits)
    return _LIMITS


def _int_option(name: str, value, allow_none: bool = False) -> Optional[int]:
    """`value` as an int (anything with ``__index__`` but a bool), or a
    TypeError naming the option."""
    if value is None and allow_none:
        return None
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    expected = "an int or None" if allow_none else "an int"
    raise callers_error(TypeError, f"{name} must be {expected}, got {type(value).__name__}")


def check_num_warps(num_warps, device_limit: bool = True) -> int:
    """``num_warps`` as an int: a power of two from 1 to the compiler's
    limit (with ``device_limit``; without it, any power of two, as a tuning
    space may hold configs the autotuner prunes for the device)."""
    value = _int_option("num_warps", num_warps)
    most = limits()["max_warps"]
    if value < 1 or value & (value - 1) or (device_limit and value > most):
        raise callers_error(ValueError, f"num_warps={value}: it must be a power of two from 1 to {most}")
    return value


def check_num_stages(num_stages) -> int:
    """``num_stages`` as an int in [0, max_stages] (0 and 1: no pipelining)."""
    value = _int_option("num_stages", num_stages)
    most = limits()["max_stages"]
    if not 0 <= value <= most:
        raise callers_error(ValueError, f"num_stages={value}: it must be from 0 to {most}")
    return value


def check_maxnreg(maxnreg) -> Optional[int]:
    """``maxnreg`` as an int in the compiler's range, or None (0 too, as
    Triton takes it: no cap)."""
    value = _int_option("maxnreg", maxnreg, allow_none=True)
    if not value:
        return None
    low, high = limits()["min_maxnreg"], limits()["max_maxnreg"]
    if not low <= value <= high:
        raise callers_error(ValueError, f"maxnreg={value}: it must be from {low} to {high} registers a thread "
                                        f"(or None for no cap)")
    return value


def check_num_ctas(num_ctas) -> None:
    """Triton's ``num_ctas`` launch option: CTAs per program (a thread-block
    cluster on Hopper). tilelang runs one CTA per program, so 1 (Triton's
    default, which its tutorials pass explicitly) is accepted and anything
    else refused."""
    if num_ctas not in (None, 1):
        raise callers_error(ValueError, f"num_ctas={num_ctas!r}: tilelang runs one CTA per program "
                                        "(thread-block clusters are not supported); pass num_ctas=1 or leave it out")


def check_launch_options(num_warps=4, num_stages=3, maxnreg=None, num_ctas=1,
                         device_limit: bool = True) -> Tuple[int, int, Optional[int]]:
    """Checks every launch option; returns (num_warps, num_stages, maxnreg)
    normalized (ints; maxnreg None for no cap), so that equal options give
    equal cache keys."""
    check_num_ctas(num_ctas)
    return (check_num_warps(num_warps, device_limit), check_num_stages(num_stages), check_maxnreg(maxnreg))
