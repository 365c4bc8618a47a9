"""Matrix products that read an operand transposed (`b.T` of B stored
(N, K), `tl.trans(at)` of A stored (K, M)), through pointers and through
tensor descriptors, in the language's plain form. `define(jit, tl)` binds
them to tilelang or to Triton (test/python/gpu/test_transposed_operands.py
checks their numbers, test/python/frontend/test_transposed_ir.py what
tilelang makes of them)."""


def define(jit, tl):
    @jit
    def matmul_bt_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         TRANS_A: tl.constexpr):
        """C = A @ B^T with B stored (N, K); with TRANS_A, A is stored (K, M)
        and read as a.T too."""
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            ks = k + offs_k
            if TRANS_A:
                at = tl.load(a_ptr + ks[:, None] * stride_am + offs_m[None, :],
                             mask=(ks[:, None] < K) & (offs_m[None, :] < M), other=0.0)
                a = tl.trans(at)
            else:
                a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :],
                            mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + offs_n[:, None] * stride_bn + ks[None, :],
                        mask=(offs_n[:, None] < N) & (ks[None, :] < K), other=0.0)
            acc = tl.dot(a, b.T, acc)
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


    @jit
    def matmul_bt_descriptor_kernel(a_desc, b_desc, c_desc, K,
                                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        """C = A @ B^T through descriptors, B's blocks loaded (BLOCK_N, BLOCK_K)."""
        off_m = tl.program_id(0) * BLOCK_M
        off_n = tl.program_id(1) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = a_desc.load([off_m, k])
            b = b_desc.load([off_n, k])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([off_m, off_n], acc.to(c_desc.dtype))

    return {"matmul_bt_kernel": matmul_bt_kernel, "matmul_bt_descriptor_kernel": matmul_bt_descriptor_kernel}
