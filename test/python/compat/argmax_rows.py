"""Row-wise max and argmax in one reduction (`tl.max(x, axis=1,
return_indices=True)`) next to `tl.argmax`, a block of rows per program,
masked columns read as -inf: the form of sampling and accuracy kernels.
Values are distinct, so the index is unambiguous."""

CASES = [dict(name="100x1000", M=100, N=1000), dict(name="33x64", M=33, N=64)]
BLOCK_M = 4


def define(jit, tl):
    @jit
    def argmax_kernel(x_ptr, max_ptr, idx_ptr, idx2_ptr, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=-float("inf"))
        value, index = tl.max(x, axis=1, return_indices=True)
        tl.store(max_ptr + rows, value, mask=rows < M)
        tl.store(idx_ptr + rows, index, mask=rows < M)
        tl.store(idx2_ptr + rows, tl.argmax(x, axis=1), mask=rows < M)

    return {"argmax_kernel": argmax_kernel}


COMPILE = {"argmax_kernel": [("*fp32,*fp32,*i32,*i32,i32,i32,i32", dict(BLOCK_M=BLOCK_M, BLOCK_N=n), {})
                             for n in (1024, 64)]}


def inputs(case, device):
    import torch

    M, N = case["M"], case["N"]
    # A random permutation per row: distinct values.
    x = torch.rand(M, N, device=device).argsort(dim=1).float() / N - 0.5
    return dict(x=x)


def launch(k, inp, case):
    import torch

    x = inp["x"]
    M, N = x.shape
    mx = torch.empty(M, device=x.device)
    idx = torch.empty(M, device=x.device, dtype=torch.int32)
    idx2 = torch.empty(M, device=x.device, dtype=torch.int32)
    k["argmax_kernel"][((M + BLOCK_M - 1) // BLOCK_M,)](x, mx, idx, idx2, M, N, x.stride(0), BLOCK_M=BLOCK_M,
                                                        BLOCK_N=1 << (N - 1).bit_length())
    return mx, idx, idx2


def reference(inp, case):
    values, index = inp["x"].double().max(dim=1)
    return values, index, index


TOLERANCE = dict(rtol=0, atol=0)
