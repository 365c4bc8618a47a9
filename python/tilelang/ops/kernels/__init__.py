"""The bundled kernels in tilelang's language, by op family (matmul, norm,
softmax, attention), and the host helpers that launch them. Every family
is a ``define(jit, tl)`` that decorates its kernels with ``jit`` and writes
them against language module ``tl``, so the same source compiles under
tilelang (``tilelang.jit``, ``tilelang.language``) and under Triton
(``triton.jit``, ``triton.language``); the benchmark and the parity
harness rely on that. No torch here: ``tilelang.ops`` builds the torch
operators on top."""

from tilelang.ops.kernels import attention, matmul, norm, softmax
from tilelang.ops.kernels.attention import (ATTENTION_DEFAULT_CONFIG, attention_args,  # noqa: F401
                                            attention_constexprs, attention_error_bound, attention_grid,
                                            attention_launch_options, attention_offsets_64, attention_operands,
                                            attention_reference, attention_tuned, attention_tuner,
                                            attention_whole_blocks)
from tilelang.ops.kernels.matmul import (MATMUL_DEFAULT_CONFIG, matmul_args, matmul_grid,  # noqa: F401
                                         matmul_launch_options, matmul_with_descriptors)
from tilelang.ops.kernels.norm import layernorm_inputs  # noqa: F401

FAMILIES = (matmul, norm, softmax, attention)


def define(jit, tl):
    """Every family's kernels decorated with `jit`, using language module
    `tl`, in one dict by name."""
    kernels = {}
    for family in FAMILIES:
        kernels.update(family.define(jit, tl))
    return kernels
