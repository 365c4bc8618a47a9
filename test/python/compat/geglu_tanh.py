"""GEGLU forward and backward with the tanh approximation of GELU
(`tl.math.tanh` / libdevice tanh in Triton code), the form of the fused
GEGLU kernels of LLM libraries: out = gelu_tanh(a) * b and, in a second
kernel, da and db from dout."""

import importlib

CASES = [dict(name="65537", n=65537), dict(name="2048", n=2048)]
BLOCK = 512


def define(jit, tl):
    libdevice = importlib.import_module(tl.__name__ + ".extra.libdevice")

    @jit
    def geglu_fwd_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n_elements
        a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0)
        inner = 0.7978845608028654 * (a + 0.044715 * a * a * a)
        gelu = 0.5 * a * (1.0 + libdevice.tanh(inner))
        tl.store(out_ptr + offs, (gelu * b).to(b.dtype), mask=mask)

    @jit
    def geglu_bwd_kernel(a_ptr, b_ptr, dout_ptr, da_ptr, db_ptr, n_elements, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n_elements
        a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        dout = tl.load(dout_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        inner = 0.7978845608028654 * (a + 0.044715 * a * a * a)
        t = libdevice.tanh(inner)
        gelu = 0.5 * a * (1.0 + t)
        dgelu = 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * a * a)
        tl.store(da_ptr + offs, (dout * b * dgelu).to(tl.float16), mask=mask)
        tl.store(db_ptr + offs, (dout * gelu).to(tl.float16), mask=mask)

    return {"geglu_fwd_kernel": geglu_fwd_kernel, "geglu_bwd_kernel": geglu_bwd_kernel}


COMPILE = {"geglu_fwd_kernel": ("*fp16,*fp16,*fp16,i32", dict(BLOCK=BLOCK), {}),
           "geglu_bwd_kernel": ("*fp16,*fp16,*fp16,*fp16,*fp16,i32", dict(BLOCK=BLOCK), {})}


def inputs(case, device):
    import torch

    return {n: torch.randn(case["n"], device=device, dtype=torch.float16) for n in ("a", "b", "dout")}


def launch(k, inp, case):
    import torch

    a, b, dout = inp["a"], inp["b"], inp["dout"]
    n = a.numel()
    grid = ((n + BLOCK - 1) // BLOCK,)
    out, da, db = torch.empty_like(a), torch.empty_like(a), torch.empty_like(a)
    k["geglu_fwd_kernel"][grid](a, b, out, n, BLOCK=BLOCK)
    k["geglu_bwd_kernel"][grid](a, b, dout, da, db, n, BLOCK=BLOCK)
    return out, da, db


def reference(inp, case):
    import torch

    a, b = (inp[n].double().requires_grad_() for n in ("a", "b"))
    out = torch.nn.functional.gelu(a, approximate="tanh") * b
    da, db = torch.autograd.grad(out, (a, b), inp["dout"].double())
    return out.detach(), da, db


TOLERANCE = dict(rtol=1e-2, atol=1e-2)
