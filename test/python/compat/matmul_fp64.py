"""Double-precision matrix product (`tl.dot` on fp64 blocks, accumulating
in fp64), the form of scientific-computing kernels that need fp64
results; masked ragged edges, pointers advanced along K."""

CASES = [dict(name="128x96x64", M=128, N=96, K=64), dict(name="70x33x45", M=70, N=33, K=45)]
CONFIG = dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=16)


def define(jit, tl):
    @jit
    def matmul_fp64_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BLOCK_M: tl.constexpr,
                           BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float64)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, out_dtype=tl.float64)
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K * stride_bk
        tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc,
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    return {"matmul_fp64_kernel": matmul_fp64_kernel}


COMPILE = {"matmul_fp64_kernel": ("*fp64,*fp64,*fp64" + ",i32" * 6, CONFIG, dict(num_warps=4))}


def inputs(case, device):
    import torch

    return dict(a=torch.randn(case["M"], case["K"], device=device, dtype=torch.float64),
                b=torch.randn(case["K"], case["N"], device=device, dtype=torch.float64))


def launch(k, inp, case):
    import torch

    a, b = inp["a"], inp["b"]
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float64)
    grid = ((M + CONFIG["BLOCK_M"] - 1) // CONFIG["BLOCK_M"], (N + CONFIG["BLOCK_N"] - 1) // CONFIG["BLOCK_N"])
    k["matmul_fp64_kernel"][grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), num_warps=4, **CONFIG)
    return c


def reference(inp, case):
    return inp["a"] @ inp["b"]


TOLERANCE = dict(rtol=1e-12, atol=1e-12)
