"""An element-wise libdevice call in the form of Triton's libdevice
tutorial (07): the module `triton.language.extra.libdevice` (in tilelang
`tilelang.language.extra.libdevice`) imported and its functions called on
a block, here tanh and pow on fp32 and fp64."""

import importlib

CASES = [dict(name="fp32 98307", n=98307, dtype="float32"), dict(name="fp64 5000", n=5000, dtype="float64")]


def define(jit, tl):
    libdevice = importlib.import_module(tl.__name__ + ".extra.libdevice")

    @jit
    def libdevice_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(0)
        offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = libdevice.tanh(x) + libdevice.pow(tl.abs(x), tl.full((BLOCK_SIZE,), 1.5, x.dtype))
        tl.store(y_ptr + offsets, y, mask=mask)

    return {"libdevice_kernel": libdevice_kernel}


COMPILE = {"libdevice_kernel": [("*fp32,*fp32,i32", dict(BLOCK_SIZE=1024), {}),
                                ("*fp64,*fp64,i32", dict(BLOCK_SIZE=1024), {})]}


def inputs(case, device):
    import torch

    return dict(x=3 * torch.randn(case["n"], device=device, dtype=getattr(torch, case["dtype"])))


def launch(k, inp, case):
    import torch

    x = inp["x"]
    y = torch.empty_like(x)
    k["libdevice_kernel"][((x.numel() + 1023) // 1024,)](x, y, x.numel(), BLOCK_SIZE=1024)
    return y


def reference(inp, case):
    x = inp["x"].double()
    return x.tanh() + x.abs() ** 1.5


TOLERANCE = dict(rtol=1e-5, atol=1e-5)
