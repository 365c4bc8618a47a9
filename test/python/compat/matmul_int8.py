"""W8A8 quantized matrix product: int8 A and B, `tl.dot` accumulating in
int32, dequantized in the epilogue by a per-row scale of A and a
per-column scale of B to fp16, the form of int8 GEMMs in quantization
libraries. The int32 accumulation is exact, so the reference is too."""

CASES = [dict(name="256x256x512", M=256, N=256, K=512), dict(name="77x130x96", M=77, N=130, K=96)]
CONFIG = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=64)


def define(jit, tl):
    @jit
    def int8_matmul_kernel(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K, stride_am, stride_bk,
                           stride_cm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
        for k in range(0, K, BLOCK_K):
            ks = k + offs_k
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + ks[None, :],
                        mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0)
            b = tl.load(b_ptr + ks[:, None] * stride_bk + offs_n[None, :],
                        mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0)
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        a_scale = tl.load(a_scale_ptr + offs_m, mask=offs_m < M, other=0.0)
        b_scale = tl.load(b_scale_ptr + offs_n, mask=offs_n < N, other=0.0)
        c = acc.to(tl.float32) * a_scale[:, None] * b_scale[None, :]
        tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], c.to(tl.float16),
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    return {"int8_matmul_kernel": int8_matmul_kernel}


COMPILE = {"int8_matmul_kernel": ("*i8,*i8,*fp16,*fp32,*fp32" + ",i32" * 6, CONFIG, dict(num_warps=4, num_stages=2))}


def inputs(case, device):
    import torch

    M, N, K = case["M"], case["N"], case["K"]
    return dict(a=torch.randint(-128, 128, (M, K), device=device, dtype=torch.int8),
                b=torch.randint(-128, 128, (K, N), device=device, dtype=torch.int8),
                sa=torch.rand(M, device=device) / 2048, sb=torch.rand(N, device=device) / 64)


def launch(k, inp, case):
    import torch

    a, b = inp["a"], inp["b"]
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = ((M + 63) // 64, (N + 63) // 64)
    k["int8_matmul_kernel"][grid](a, b, c, inp["sa"], inp["sb"], M, N, K, a.stride(0), b.stride(0), c.stride(0),
                                  num_warps=4, num_stages=2, **CONFIG)
    return c


def reference(inp, case):
    acc = inp["a"].double() @ inp["b"].double()
    return acc * inp["sa"].double()[:, None] * inp["sb"].double()[None, :]


TOLERANCE = dict(rtol=2e-3, atol=2e-3)
