"""tilelang.ops: the bundled kernels as torch operators.

``matmul`` (with a fused bias and activation), ``layer_norm``, ``rms_norm``,
``softmax`` and ``attention`` (forward only) are ``torch.library``
custom operators (namespace ``tilelang``) with fake implementations, so
``torch.compile(fullgraph=True)`` traces through them, and with autograd
(backward kernels for the norms and softmax; two products through the same
operator for matmul). Each kernel is tuned on its first use per shape
bucket and the results persist in the autotune store (docs/ops.md).

torch is needed only here, and only when an operator is first used:
``import tilelang.ops`` works without it, and so do the torch-free
``tilelang.ops.kernels`` (the kernels' source, shared with the benchmark)
and ``tilelang.ops.spaces`` (their tuning spaces)."""

import importlib

# Public name -> the module (imported on first use) that defines it.
_OPERATORS = {"matmul": "_matmul", "layer_norm": "_norm", "rms_norm": "_norm", "softmax": "_softmax",
              "attention": "_attention"}

__all__ = sorted(_OPERATORS)


def __getattr__(name):
    module = _OPERATORS.get(name)
    if module is None:
        raise AttributeError(f"module 'tilelang.ops' has no attribute {name!r}")
    importlib.import_module("tilelang.ops._runtime")  # says what to install when torch is missing
    value = getattr(importlib.import_module(f"tilelang.ops.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_OPERATORS))
