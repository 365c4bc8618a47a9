"""Out-of-place 2-D transpose in tiles: a (BLOCK_M, BLOCK_N) tile read
row-major, `tl.trans`-posed in registers and written as a (BLOCK_N,
BLOCK_M) tile of the output, both edges masked, the form of
layout-conversion kernels (fp16)."""

CASES = [dict(name="512x384", M=512, N=384), dict(name="333x77", M=333, N=77)]
BLOCK_M, BLOCK_N = 64, 32


def define(jit, tl):
    @jit
    def transpose_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        tile = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :],
                       mask=(offs_m[:, None] < M) & (offs_n[None, :] < N), other=0.0)
        tl.store(y_ptr + offs_n[:, None] * stride_ym + offs_m[None, :], tl.trans(tile),
                 mask=(offs_n[:, None] < N) & (offs_m[None, :] < M))

    return {"transpose_kernel": transpose_kernel}


COMPILE = {"transpose_kernel": ("*fp16,*fp16,i32,i32,i32,i32", dict(BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N), {})}


def inputs(case, device):
    import torch

    return dict(x=torch.randn(case["M"], case["N"], device=device, dtype=torch.float16))


def launch(k, inp, case):
    import torch

    x = inp["x"]
    M, N = x.shape
    y = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = ((M + BLOCK_M - 1) // BLOCK_M, (N + BLOCK_N - 1) // BLOCK_N)
    k["transpose_kernel"][grid](x, y, M, N, x.stride(0), y.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y


def reference(inp, case):
    return inp["x"].double().T


TOLERANCE = dict(rtol=0, atol=0)
