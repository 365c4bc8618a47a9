"""Inclusive prefix sums along rows with `tl.cumsum`, and a reversed one
(`reverse=True`), one row per program, int32 input summed in int32 (exact)
and fp32 input, the form of scan kernels (token offsets, cumulative
probabilities for top-p sampling)."""

CASES = [dict(name="20x1000", M=20, N=1000), dict(name="7x4096", M=7, N=4096)]


def define(jit, tl):
    @jit
    def cumsum_kernel(x_ptr, p_ptr, ysum_ptr, prev_ptr, N, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0)
        tl.store(ysum_ptr + row * N + cols, tl.cumsum(x, axis=0), mask=mask)
        p = tl.load(p_ptr + row * N + cols, mask=mask, other=0.0)
        tl.store(prev_ptr + row * N + cols, tl.cumsum(p, axis=0, reverse=True), mask=mask)

    return {"cumsum_kernel": cumsum_kernel}


COMPILE = {"cumsum_kernel": [("*i32,*fp32,*i32,*fp32,i32", dict(BLOCK=n), {}) for n in (1024, 4096)]}


def inputs(case, device):
    import torch

    M, N = case["M"], case["N"]
    return dict(x=torch.randint(-1000, 1000, (M, N), device=device, dtype=torch.int32),
                p=torch.rand(M, N, device=device))


def launch(k, inp, case):
    import torch

    x, p = inp["x"], inp["p"]
    M, N = x.shape
    ysum = torch.empty_like(x)
    rev = torch.empty_like(p)
    k["cumsum_kernel"][(M,)](x, p, ysum, rev, N, BLOCK=1 << (N - 1).bit_length())
    return ysum, rev


def reference(inp, case):
    p = inp["p"].double()
    return inp["x"].double().cumsum(dim=1), p.flip(1).cumsum(dim=1).flip(1)


TOLERANCE = dict(rtol=1e-5, atol=1e-3)
