"""Compile options: ``arch``, ``num_warps``, ``num_stages``, ``maxnreg`` and
``num_ctas``, their defaults, and their checks.

The defaults and the limits are the compiler library's (``CompileOptions``
in include/tilelang/Compiler/Compiler.h), read through ``tilelang._C``
(``compile_defaults``, ``launch_option_limits``): ``DEFAULT_OPTIONS`` holds
them once for Python, and every signature that takes an option
(``kernel[grid](...)``, ``warmup``, ``compile``, ``tilelang.Config``,
``compile_ir``, the interpreter) defaults to it. The options are checked
where a user gives them, so a bad value is a TypeError or ValueError
naming the option before anything is compiled, not a compiler diagnostic
without a place.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Optional, Tuple

from tilelang.errors import callers_error
from tilelang.native import extension

#: Keywords of a launch that are options of the compilation, not arguments.
LAUNCH_OPTIONS = ("num_warps", "num_stages", "maxnreg", "num_ctas")

_LIMITS = {}


def limits() -> dict:
    """The compiler's limits: max_warps, min_maxnreg, max_maxnreg,
    max_stages (read once)."""
    if not _LIMITS:
        _LIMITS.update(extension().launch_option_limits)
    return _LIMITS


def _compiler_defaults() -> dict:
    """CompileOptions' defaults in the compiler library; empty without the
    extension (nothing compiles then: the first compile or launch raises
    its import error, and the fields below stay None)."""
    try:
        return dict(extension().compile_defaults)
    except ImportError:
        return {}


_DEFAULTS = _compiler_defaults()


@dataclasses.dataclass(frozen=True)
class CompileOptions:
    """The options of one kernel's compilation, each default written once
    (the compiler library's, above). ``maxnreg`` None is no register cap
    (the library's 0); ``num_ctas`` is Triton's, and only 1 compiles."""

    arch: str = _DEFAULTS.get("arch")
    num_warps: int = _DEFAULTS.get("num_warps")
    num_stages: int = _DEFAULTS.get("num_stages")
    maxnreg: Optional[int] = _DEFAULTS.get("max_registers") or None
    num_ctas: int = 1

    def checked(self, device_limit: bool = True) -> "CompileOptions":
        """These options checked and normalized (ints, maxnreg None for no
        cap), so that equal options compare and hash equal."""
        num_warps, num_stages, maxnreg = check_launch_options(self.num_warps, self.num_stages, self.maxnreg,
                                                              self.num_ctas, device_limit)
        return dataclasses.replace(self, num_warps=num_warps, num_stages=num_stages, maxnreg=maxnreg)


#: The defaults, for the signatures that take an option.
DEFAULT_OPTIONS = CompileOptions()


def take_launch_options(kwargs: dict, params) -> CompileOptions:
    """The options of a launch (``kernel[grid](..., num_stages=4)``), taken
    out of its keyword arguments ``kwargs`` (a dict, changed in place) and
    checked. An option the kernel also declares as a parameter (``params``)
    goes back into ``kwargs``, checked, so that it reaches the kernel too
    (Triton's tutorials pass num_stages to the kernel this way); a kernel
    parameter named num_ctas is the kernel's alone."""
    num_ctas = kwargs.pop("num_ctas", DEFAULT_OPTIONS.num_ctas) if "num_ctas" not in params \
        else DEFAULT_OPTIONS.num_ctas
    options = CompileOptions(num_warps=kwargs.pop("num_warps", DEFAULT_OPTIONS.num_warps),
                             num_stages=kwargs.pop("num_stages", DEFAULT_OPTIONS.num_stages),
                             maxnreg=kwargs.pop("maxnreg", DEFAULT_OPTIONS.maxnreg), num_ctas=num_ctas).checked()
    for option in ("num_warps", "num_stages", "maxnreg"):
        if option in params and option not in kwargs:
            kwargs[option] = getattr(options, option)
    return options


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


def check_launch_options(num_warps=DEFAULT_OPTIONS.num_warps, num_stages=DEFAULT_OPTIONS.num_stages,
                         maxnreg=DEFAULT_OPTIONS.maxnreg, num_ctas=DEFAULT_OPTIONS.num_ctas,
                         device_limit: bool = True) -> Tuple[int, int, Optional[int]]:
    """Checks every launch option; returns (num_warps, num_stages, maxnreg)
    normalized (ints; maxnreg None for no cap), so that equal options give
    equal cache keys."""
    check_num_ctas(num_ctas)
    return (check_num_warps(num_warps, device_limit), check_num_stages(num_stages), check_maxnreg(maxnreg))
