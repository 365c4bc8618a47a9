"""RMSNorm forward as LLM kernel libraries write it: one program per row,
the whole row in registers (BLOCK_SIZE = next power of two of the hidden
size), the mean of squares in fp32, `tl.math.rsqrt`, the weight applied
after the cast back (the Llama convention); 1/rms stored per row."""

CASES = [dict(name="97x4096", M=97, N=4096), dict(name="300x1000", M=300, N=1000)]
EPS = 1e-6


def define(jit, tl):
    @jit
    def _rms_norm_fwd(X, W, Y, RSTD, stride_x, stride_y, n_cols, eps, BLOCK_SIZE: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(W + cols, mask=mask, other=0.0)
        mean_square = tl.sum(x * x, axis=0) / n_cols
        rstd = tl.math.rsqrt(mean_square + eps)
        tl.store(RSTD + row, rstd)
        y = (x * rstd).to(tl.float16) * w
        tl.store(Y + row * stride_y + cols, y, mask=mask)

    return {"_rms_norm_fwd": _rms_norm_fwd}


COMPILE = {"_rms_norm_fwd": ("*fp16,*fp16,*fp16,*fp32,i32,i32,i32,fp32", dict(BLOCK_SIZE=4096), dict(num_warps=8))}


def inputs(case, device):
    import torch

    return dict(x=torch.randn(case["M"], case["N"], device=device, dtype=torch.float16),
                w=1 + 0.1 * torch.randn(case["N"], device=device, dtype=torch.float16))


def launch(k, inp, case):
    import torch

    x, w = inp["x"], inp["w"]
    M, N = x.shape
    y = torch.empty_like(x)
    rstd = torch.empty(M, device=x.device, dtype=torch.float32)
    k["_rms_norm_fwd"][(M,)](x, w, y, rstd, x.stride(0), y.stride(0), N, EPS, BLOCK_SIZE=1 << (N - 1).bit_length(),
                             num_warps=8)
    return y, rstd


def reference(inp, case):
    x, w = inp["x"].double(), inp["w"].double()
    rstd = 1 / (x.pow(2).mean(dim=1) + EPS).sqrt()
    return x * rstd[:, None] * w, rstd


TOLERANCE = dict(rtol=1e-2, atol=1e-2)
