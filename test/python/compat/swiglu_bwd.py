"""SwiGLU backward: from dout and the saved halves a, b, the gradients
da = dout * b * s * (1 + a (1 - s)) with s = sigmoid(a), and
db = dout * silu(a), flattened to 1-D blocks over the elements (the
usual "elementwise over numel" form), fp16 in and out."""

CASES = [dict(name="100000", n=100000), dict(name="4099", n=4099)]
BLOCK = 1024


def define(jit, tl):
    @jit
    def swiglu_bwd_kernel(a_ptr, b_ptr, dout_ptr, da_ptr, db_ptr, n_elements, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n_elements
        a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        dout = tl.load(dout_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        s = tl.sigmoid(a)
        silu = a * s
        da = dout * b * s * (1.0 + a * (1.0 - s))
        db = dout * silu
        tl.store(da_ptr + offs, da.to(tl.float16), mask=mask)
        tl.store(db_ptr + offs, db.to(tl.float16), mask=mask)

    return {"swiglu_bwd_kernel": swiglu_bwd_kernel}


COMPILE = {"swiglu_bwd_kernel": ("*fp16,*fp16,*fp16,*fp16,*fp16,i32", dict(BLOCK=BLOCK), {})}


def inputs(case, device):
    import torch

    return {n: torch.randn(case["n"], device=device, dtype=torch.float16) for n in ("a", "b", "dout")}


def launch(k, inp, case):
    import torch

    a = inp["a"]
    da, db = torch.empty_like(a), torch.empty_like(a)
    k["swiglu_bwd_kernel"][((a.numel() + BLOCK - 1) // BLOCK,)](a, inp["b"], inp["dout"], da, db, a.numel(),
                                                                 BLOCK=BLOCK)
    return da, db


def reference(inp, case):
    import torch

    a, b, dout = (inp[n].double().requires_grad_() for n in ("a", "b", "dout"))
    out = torch.nn.functional.silu(a) * b
    da, db = torch.autograd.grad(out, (a, b), dout)
    return da, db


TOLERANCE = dict(rtol=1e-2, atol=1e-2)
