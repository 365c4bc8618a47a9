"""SwiGLU forward: `silu(a) * b` on the two halves of a fused
gate/up projection (a (rows, 2n) tensor, the halves read at column
offsets 0 and n), computed in fp32 with `tl.sigmoid`, the form of the
activation kernels of LLM training libraries. One program per row block
and column block."""

CASES = [dict(name="64x2752", M=64, N=2752), dict(name="129x1000", M=129, N=1000)]
BLOCK_M, BLOCK_N = 4, 256


def define(jit, tl):
    @jit
    def swiglu_fwd_kernel(xy_ptr, out_ptr, stride_xy, stride_out, M, N, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        a_ptrs = xy_ptr + rows[:, None] * stride_xy + cols[None, :]
        a = tl.load(a_ptrs, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(a_ptrs + N, mask=mask, other=0.0).to(tl.float32)
        out = a * tl.sigmoid(a) * b
        tl.store(out_ptr + rows[:, None] * stride_out + cols[None, :], out.to(tl.bfloat16), mask=mask)

    return {"swiglu_fwd_kernel": swiglu_fwd_kernel}


COMPILE = {"swiglu_fwd_kernel": ("*bf16,*bf16,i32,i32,i32,i32", dict(BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N), {})}


def inputs(case, device):
    import torch

    return dict(xy=torch.randn(case["M"], 2 * case["N"], device=device, dtype=torch.bfloat16))


def launch(k, inp, case):
    import torch

    xy = inp["xy"]
    M, N = xy.shape[0], xy.shape[1] // 2
    out = torch.empty((M, N), device=xy.device, dtype=torch.bfloat16)
    grid = ((M + BLOCK_M - 1) // BLOCK_M, (N + BLOCK_N - 1) // BLOCK_N)
    k["swiglu_fwd_kernel"][grid](xy, out, xy.stride(0), out.stride(0), M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


def reference(inp, case):
    import torch

    a, b = inp["xy"].double().chunk(2, dim=1)
    return torch.nn.functional.silu(a) * b


TOLERANCE = dict(rtol=1e-2, atol=1e-2)
