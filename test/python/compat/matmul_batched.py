"""Batched matrix product with the batch on the grid's third axis
(`tl.program_id(2)`) and 64-bit batch offsets, the form of bmm kernels in
open-source libraries (tilelang does not lower 3-D `tl.dot` operands
yet, so the batch is not a block dimension); fp16, C = A @ B per batch."""

CASES = [dict(name="B4 128x128x64", B=4, M=128, N=128, K=64), dict(name="B3 100x72x50", B=3, M=100, N=72, K=50)]
CONFIG = dict(BLOCK_M=64, BLOCK_N=32, BLOCK_K=32)


def define(jit, tl):
    @jit
    def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                   stride_cb, stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        batch = tl.program_id(2).to(tl.int64)
        a_ptr += batch * stride_ab
        b_ptr += batch * stride_bb
        c_ptr += batch * stride_cb
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            ks = k0 + offs_k
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                        mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                        mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    return {"bmm_kernel": bmm_kernel}


COMPILE = {"bmm_kernel": ("*fp16,*fp16,*fp16" + ",i32" * 12, CONFIG, dict(num_warps=4, num_stages=2))}


def inputs(case, device):
    import torch

    return dict(a=torch.randn(case["B"], case["M"], case["K"], device=device, dtype=torch.float16),
                b=torch.randn(case["B"], case["K"], case["N"], device=device, dtype=torch.float16))


def launch(k, inp, case):
    import torch

    a, b = inp["a"], inp["b"]
    B, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((B, M, N), device=a.device, dtype=torch.float16)
    grid = ((M + CONFIG["BLOCK_M"] - 1) // CONFIG["BLOCK_M"], (N + CONFIG["BLOCK_N"] - 1) // CONFIG["BLOCK_N"], B)
    k["bmm_kernel"][grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(), num_warps=4, num_stages=2,
                          **CONFIG)
    return c


def reference(inp, case):
    return inp["a"].double() @ inp["b"].double()


TOLERANCE = dict(rtol=1e-2, atol=2e-2)
