"""tilelang: tile-level GPU kernels in Python, compiled through MLIR to PTX.

``@tilelang.jit`` with ``tilelang.language`` (the Triton-compatible kernel
language) turns Python functions into tile IR (docs/language.md);
``kernel[grid](...)`` compiles it through the compiler library (libtilelang,
reached through the ``tilelang._C`` extension; ``tilelang.ir``) and launches
it through the CUDA driver (docs/runtime.md). ``tilelang.autotune`` tunes
kernels, ``tilelang.ops`` offers the bundled ones as torch operators.
docs/tutorial.md is a first walk through.
"""

import sys

from tilelang.errors import CompilationError, Diagnostic
from tilelang.ir import CompiledIR, compile_ir, compiler_version, run_pipeline, verify
from tilelang.jit import CompiledKernel, JITFunction, cdiv, jit, next_power_of_2
from tilelang.tensor_descriptor import TensorDescriptor

from tilelang._version import __version__

# Load the frontend and the compiled extension now rather than in a
# kernel's first call: that call is what a warm start from the disk cache
# waits for. Without the extension, importing still works (compiling and
# launching then raise its import error).
import tilelang.frontend.codegen  # noqa: E402,F401
import tilelang.cache  # noqa: E402,F401
import tilelang.ir_index  # noqa: E402,F401

try:  # noqa: SIM105
    import tilelang._C  # noqa: E402,F401
except ImportError:
    pass
else:
    # Where torch is imported already, the launcher's link to it (torch's
    # stream query and tilelang._C_torch, milliseconds to load) is made now
    # too; otherwise the first launch after torch's import makes it. A
    # failure here is left to that launch to report. Not while torch is
    # itself still importing (tilelang imported from inside torch's import,
    # by an entry point torch loads, say): the link is made once, and
    # tilelang._C_torch's import against a half-built torch could fail for
    # the rest of the process, where the first launch finds torch complete.
    _torch = sys.modules.get("torch")
    if _torch is not None and not getattr(getattr(_torch, "__spec__", None), "_initializing", False):
        try:
            tilelang._C.connect_torch()
        except Exception:  # noqa: BLE001
            pass
    del _torch

__all__ = [
    "CompilationError",
    "CompiledIR",
    "CompiledKernel",
    "Config",
    "JITFunction",
    "TensorDescriptor",
    "cdiv",
    "autotune",
    "heuristics",
    "jit",
    "next_power_of_2",
    "compile_ir",
    "Diagnostic",
    "compiler_version",
    "run_pipeline",
    "verify",
    "__version__",
]


def __getattr__(name):
    """``tilelang.autotune`` (the package, callable as the decorator),
    ``tilelang.Config`` and ``tilelang.heuristics``, imported on first use."""
    if name in ("autotune", "Config", "heuristics"):
        import importlib

        module = importlib.import_module("tilelang.autotune")
        return module if name == "autotune" else getattr(module, name)
    raise AttributeError(f"module 'tilelang' has no attribute {name!r}")
