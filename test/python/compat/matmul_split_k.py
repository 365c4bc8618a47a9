"""Split-K matrix product: the K dimension is cut among SPLIT_K programs
(the grid's second axis), each program's partial tile added into an fp32
C with `tl.atomic_add` (C starts at zero), the form split-K kernels in
open-source libraries take for skinny products with a long K."""

CASES = [dict(name="64x64x4096 split 8", M=64, N=64, K=4096, split=8),
         dict(name="50x90x1000 split 4", M=50, N=90, K=1000, split=4)]
CONFIG = dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=64)


def define(jit, tl):
    @jit
    def matmul_split_k_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                              stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                              SPLIT_K: tl.constexpr):
        pid = tl.program_id(0)
        pid_k = tl.program_id(1)
        grid_n = tl.cdiv(N, BLOCK_N)
        pid_m = pid // grid_n
        pid_n = pid % grid_n
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
            k_remaining = K - k * (BLOCK_K * SPLIT_K)
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_remaining), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_remaining) & (offs_n[None, :] < N), other=0.0)
            acc += tl.dot(a, b)
            a_ptrs += BLOCK_K * SPLIT_K * stride_ak
            b_ptrs += BLOCK_K * SPLIT_K * stride_bk
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.atomic_add(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    return {"matmul_split_k_kernel": matmul_split_k_kernel}


COMPILE = {"matmul_split_k_kernel": [("*fp16,*fp16,*fp32" + ",i32" * 9, dict(CONFIG, SPLIT_K=split),
                                      dict(num_warps=4, num_stages=2)) for split in (8, 4)]}


def inputs(case, device):
    import torch

    return dict(a=torch.randn(case["M"], case["K"], device=device, dtype=torch.float16),
                b=torch.randn(case["K"], case["N"], device=device, dtype=torch.float16))


def launch(k, inp, case):
    import torch

    a, b = inp["a"], inp["b"]
    M, K = a.shape
    N = b.shape[1]
    c = torch.zeros((M, N), device=a.device, dtype=torch.float32)
    tiles = ((M + CONFIG["BLOCK_M"] - 1) // CONFIG["BLOCK_M"]) * ((N + CONFIG["BLOCK_N"] - 1) // CONFIG["BLOCK_N"])
    k["matmul_split_k_kernel"][(tiles, case["split"])](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                       b.stride(1), c.stride(0), c.stride(1), SPLIT_K=case["split"],
                                                       num_warps=4, num_stages=2, **CONFIG)
    return c


def reference(inp, case):
    return inp["a"].double() @ inp["b"].double()


TOLERANCE = dict(rtol=1e-3, atol=1e-2)
