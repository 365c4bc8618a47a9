"""Batched products with 3-D `tl.dot` operands: a block of BLOCK_B small
matrices per program ((BLOCK_B, M, K) @ (BLOCK_B, K, N)), the form of
kernels that batch many tiny products (per-head projections, block-sparse
pieces); the batch count not a multiple of the block."""

CASES = [dict(name="B64 16x32x16", B=64, M=16, N=32, K=16), dict(name="B37 16x16x32", B=37, M=16, N=16, K=32)]
BLOCK_B = 4


def define(jit, tl):
    @jit
    def dot3d_kernel(a_ptr, b_ptr, c_ptr, n_batch, BLOCK_B: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                     K: tl.constexpr):
        batch = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
        bmask = batch[:, None, None] < n_batch
        offs_m = tl.arange(0, M)[None, :, None]
        offs_n = tl.arange(0, N)[None, None, :]
        a = tl.load(a_ptr + batch[:, None, None] * (M * K) + offs_m * K + tl.arange(0, K)[None, None, :],
                    mask=bmask, other=0.0)
        b = tl.load(b_ptr + batch[:, None, None] * (K * N) + tl.arange(0, K)[None, :, None] * N + offs_n,
                    mask=bmask, other=0.0)
        c = tl.dot(a, b)
        tl.store(c_ptr + batch[:, None, None] * (M * N) + offs_m * N + offs_n, c, mask=bmask)

    return {"dot3d_kernel": dot3d_kernel}


COMPILE = {"dot3d_kernel": [("*fp16,*fp16,*fp32,i32", dict(BLOCK_B=BLOCK_B, M=16, N=32, K=16), {}),
                            ("*fp16,*fp16,*fp32,i32", dict(BLOCK_B=BLOCK_B, M=16, N=16, K=32), {})]}


def inputs(case, device):
    import torch

    B, M, N, K = case["B"], case["M"], case["N"], case["K"]
    return dict(a=torch.randn(B, M, K, device=device, dtype=torch.float16),
                b=torch.randn(B, K, N, device=device, dtype=torch.float16))


def launch(k, inp, case):
    import torch

    a, b = inp["a"], inp["b"]
    B, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((B, M, N), device=a.device, dtype=torch.float32)
    k["dot3d_kernel"][((B + BLOCK_B - 1) // BLOCK_B,)](a, b, c, B, BLOCK_B=BLOCK_B, M=M, N=N, K=K)
    return c


def reference(inp, case):
    return inp["a"].double() @ inp["b"].double()


# fp16 products are exact in fp32; Triton's tensor cores and tilelang's fp32 sums differ in order only.
TOLERANCE = dict(rtol=1e-4, atol=1e-4)
