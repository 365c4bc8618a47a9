"""Top-k of each row with `tl.topk` (the k largest, descending) and a
full row sort with `tl.sort`, one row per program, rows padded with
-inf to a power of two: the form of top-k sampling and MoE router
kernels. Values are distinct, so the order is unambiguous."""

CASES = [dict(name="50x200 k=8", M=50, N=200, k=8), dict(name="9x64 k=16", M=9, N=64, k=16)]


def define(jit, tl):
    @jit
    def topk_kernel(x_ptr, top_ptr, sorted_ptr, N, BLOCK: tl.constexpr, K: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
        top = tl.topk(x, K)
        tl.store(top_ptr + row * K + tl.arange(0, K), top)
        ascending = tl.sort(x)
        # -inf padding sorts first: the row's values are the last N.
        tl.store(sorted_ptr + row * N + cols - (BLOCK - N), ascending, mask=cols >= BLOCK - N)

    return {"topk_kernel": topk_kernel}


COMPILE = {"topk_kernel": [("*fp32,*fp32,*fp32,i32", dict(BLOCK=256, K=8), {}),
                           ("*fp32,*fp32,*fp32,i32", dict(BLOCK=64, K=16), {})]}


def inputs(case, device):
    import torch

    M, N = case["M"], case["N"]
    return dict(x=torch.rand(M, N, device=device).argsort(dim=1).float() * 0.25 - 3.0)


def launch(k, inp, case):
    import torch

    x = inp["x"]
    M, N = x.shape
    top = torch.empty(M, case["k"], device=x.device)
    srt = torch.empty_like(x)
    k["topk_kernel"][(M,)](x, top, srt, N, BLOCK=1 << (N - 1).bit_length(), K=case["k"])
    return top, srt


def reference(inp, case):
    x = inp["x"].double()
    return x.topk(case["k"], dim=1).values, x.sort(dim=1).values


TOLERANCE = dict(rtol=0, atol=0)
