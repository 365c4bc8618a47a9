"""Kernels whose only work is a layout conversion through shared memory,
with results known exactly, so that a misplaced element shows as a wrong
value rather than as an error within a tolerance. `define(jit, tl)` binds
them to tilelang (test/python/gpu/test_layout_conversions.py checks their
numbers on the GPU, test/python/frontend/test_conversion_ptx.py the shared
accesses tilelang emits for them).

- `dot_copy_kernel`: C = A @ I through a tensor-core product, so the
  accumulator holds A exactly (one non-zero product per element, exact in
  fp32), converted to C's type (exact for A's own type) and from the
  accumulator's layout to the blocked layout of the coalesced store: the
  matmul epilogue (stmatrix on sm_90 for 16-bit C).
- `transpose_copy_kernel`: Y = X^T for X read along its columns and Y
  written along its rows, so the loaded tile goes from the load's blocked
  layout to the store's.
"""


def define(jit, tl):
    @jit
    def dot_copy_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            ks = k + offs_k
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :],
                        mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :],
                        mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(c_ptr.dtype.element_ty),
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    @jit
    def transpose_copy_kernel(x_ptr, y_ptr, R, C, stride_x, stride_y,
                              BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
        """Y (C x R, row-major) = X^T for X (R x C, row-major): the tile is
        read with X's columns contiguous and written with Y's."""
        offs_r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
        offs_c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
        mask = (offs_r[None, :] < R) & (offs_c[:, None] < C)
        # (BLOCK_C, BLOCK_R) tile: element (c, r) = X[r, c]; along dim 0 it
        # is contiguous in X, along dim 1 in Y.
        tile = tl.load(x_ptr + offs_r[None, :] * stride_x + offs_c[:, None], mask=mask)
        tl.store(y_ptr + offs_c[:, None] * stride_y + offs_r[None, :], tile, mask=mask)

    return {"dot_copy_kernel": dot_copy_kernel, "transpose_copy_kernel": transpose_copy_kernel}
