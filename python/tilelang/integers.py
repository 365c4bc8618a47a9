"""Integer helpers of host code that kernels may also call on constexprs.

``tilelang.cdiv`` and ``tilelang.next_power_of_2`` (Triton's
``triton.cdiv``/``triton.next_power_of_2``): grids and block sizes on the
host; inside a ``@tilelang.jit`` function the code generator evaluates them
on constexpr arguments (frontend/codegen.py). Defined here, below both the
frontend and ``tilelang.jit``.
"""


def cdiv(x: int, div: int) -> int:
    """Ceiling division: the number of blocks of ``div`` that cover ``x``."""
    return (x + div - 1) // div


def next_power_of_2(n: int) -> int:
    """The smallest power of two that is at least ``n`` (1 for n <= 1)."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()
