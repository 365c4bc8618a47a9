"""Histogram of integer values: each program counts its block with
`tl.histogram` and adds the block's counts into the global bins with
`tl.atomic_add`, masked tail excluded; the form of bincount and
expert-routing (tokens per expert) kernels."""

CASES = [dict(name="100003 into 64", n=100003, bins=64), dict(name="777 into 8", n=777, bins=8)]
BLOCK = 1024


def define(jit, tl):
    @jit
    def histogram_kernel(x_ptr, bins_ptr, n, BLOCK: tl.constexpr, NUM_BINS: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0)
        counts = tl.histogram(x, NUM_BINS, mask=mask)
        tl.atomic_add(bins_ptr + tl.arange(0, NUM_BINS), counts)

    return {"histogram_kernel": histogram_kernel}


COMPILE = {"histogram_kernel": [("*i32,*i32,i32", dict(BLOCK=BLOCK, NUM_BINS=64), {}),
                                ("*i32,*i32,i32", dict(BLOCK=BLOCK, NUM_BINS=8), {})]}


def inputs(case, device):
    import torch

    return dict(x=torch.randint(0, case["bins"], (case["n"],), device=device, dtype=torch.int32))


def launch(k, inp, case):
    import torch

    x = inp["x"]
    bins = torch.zeros(case["bins"], device=x.device, dtype=torch.int32)
    k["histogram_kernel"][((x.numel() + BLOCK - 1) // BLOCK,)](x, bins, x.numel(), BLOCK=BLOCK,
                                                              NUM_BINS=case["bins"])
    return bins


def reference(inp, case):
    import torch

    return torch.bincount(inp["x"].long(), minlength=case["bins"]).double()


TOLERANCE = dict(rtol=0, atol=0)
