"""Weight-only int8 matrix product (W8A16): fp16 activations times int8
weights converted to fp16 in the loop (`b.to(tl.float16)`), fp32
accumulation, a per-output-channel scale in the epilogue, the form of the
mixed-precision GEMMs of LLM inference libraries."""

CASES = [dict(name="16x512x1024", M=16, N=512, K=1024), dict(name="45x200x333", M=45, N=200, K=333)]
CONFIG = dict(BLOCK_M=16, BLOCK_N=64, BLOCK_K=64)


def define(jit, tl):
    @jit
    def w8a16_matmul_kernel(a_ptr, w_ptr, scale_ptr, c_ptr, M, N, K, stride_am, stride_wk, stride_cm,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            ks = k + offs_k
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :],
                        mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
            w = tl.load(w_ptr + ks[:, None] * stride_wk + offs_n[None, :],
                        mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0)
            acc = tl.dot(a, w.to(tl.float16), acc)
        scale = tl.load(scale_ptr + offs_n, mask=offs_n < N, other=0.0)
        c = acc * scale[None, :].to(tl.float32)
        tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], c.to(tl.float16),
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    return {"w8a16_matmul_kernel": w8a16_matmul_kernel}


COMPILE = {"w8a16_matmul_kernel": ("*fp16,*i8,*fp16,*fp16" + ",i32" * 6, CONFIG, dict(num_warps=4, num_stages=3))}


def inputs(case, device):
    import torch

    M, N, K = case["M"], case["N"], case["K"]
    return dict(a=torch.randn(M, K, device=device, dtype=torch.float16),
                w=torch.randint(-127, 128, (K, N), device=device, dtype=torch.int8),
                s=(torch.rand(N, device=device) / 256).half())


def launch(k, inp, case):
    import torch

    a, w = inp["a"], inp["w"]
    M, K = a.shape
    N = w.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = ((M + CONFIG["BLOCK_M"] - 1) // CONFIG["BLOCK_M"], (N + CONFIG["BLOCK_N"] - 1) // CONFIG["BLOCK_N"])
    k["w8a16_matmul_kernel"][grid](a, w, inp["s"], c, M, N, K, a.stride(0), w.stride(0), c.stride(0),
                                   num_warps=4, num_stages=3, **CONFIG)
    return c


def reference(inp, case):
    return (inp["a"].double() @ inp["w"].double()) * inp["s"].double()[None, :]


TOLERANCE = dict(rtol=1e-2, atol=1e-2)
