"""Segmented prefix sums with `tl.associative_scan` over a tuple
(value, segment-start flag) and a user `@jit` combine function that
restarts the sum at each segment head: the form of segment-reduction
kernels (ragged batches packed into one sequence)."""

CASES = [dict(name="2048 segs", n=2048, p=0.05), dict(name="1000 segs", n=1000, p=0.2)]
BLOCK = 2048


def define(jit, tl):
    @jit
    def segmented_add(a_value, a_flag, b_value, b_flag):
        value = tl.where(b_flag != 0, b_value, a_value + b_value)
        return value, a_flag | b_flag

    @jit
    def segment_sum_kernel(x_ptr, flag_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        flag = tl.load(flag_ptr + offs, mask=mask, other=1)
        sums, _ = tl.associative_scan((x, flag), 0, segmented_add)
        tl.store(out_ptr + offs, sums, mask=mask)

    return {"segment_sum_kernel": segment_sum_kernel}


COMPILE = {"segment_sum_kernel": ("*fp32,*i32,*fp32,i32", dict(BLOCK=BLOCK), dict(num_warps=4))}


def inputs(case, device):
    import torch

    n = case["n"]
    flag = (torch.rand(n, device=device) < case["p"]).to(torch.int32)
    flag[0] = 1
    return dict(x=torch.randn(n, device=device), flag=flag)


def launch(k, inp, case):
    import torch

    out = torch.empty_like(inp["x"])
    k["segment_sum_kernel"][(1,)](inp["x"], inp["flag"], out, case["n"], BLOCK=BLOCK)
    return out


def reference(inp, case):
    import torch

    x, flag = inp["x"].double().cpu(), inp["flag"].cpu()
    out = torch.empty_like(x)
    running = 0.0
    for i in range(x.numel()):
        running = x[i].item() if flag[i] else running + x[i].item()
        out[i] = running
    return out.to(inp["x"].device)


TOLERANCE = dict(rtol=1e-4, atol=1e-4)
