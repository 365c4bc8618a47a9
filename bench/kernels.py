"""The benchmarked kernels, in Triton's language. They live in the package
(tilelang.ops.kernels, by op family) so that tilelang.ops can use them; this
module keeps the benchmark's names: `define(jit, tl)` (the package's kernels
plus `tiny`, the launch-overhead kernel, decorated with tilelang's or
Triton's `jit`) and the host helpers that launch the matmuls and the
flash-attention forward, with attention's float64 reference and error
bound (shared by bench/run.py and the GPU tests)."""

from tilelang.ops import kernels as _package
from tilelang.ops.kernels.attention import (ATTENTION_DEFAULT_CONFIG, attention, attention_args,  # noqa: F401
                                            attention_constexprs, attention_error_bound, attention_grid,
                                            attention_launch_options, attention_offsets_64, attention_operands,
                                            attention_reference, attention_tuned, attention_tuner,
                                            attention_whole_blocks)
from tilelang.ops.kernels.matmul import (MATMUL_DEFAULT_CONFIG, matmul, matmul_args, matmul_grid,  # noqa: F401
                                         matmul_launch_options, matmul_with_descriptors)
from tilelang.ops.kernels.norm import layernorm_inputs  # noqa: F401


def define(jit, tl):
    """Returns the kernels decorated with `jit`, using language module `tl`."""

    @jit
    def tiny(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)

    return dict(_package.define(jit, tl), tiny=tiny)
