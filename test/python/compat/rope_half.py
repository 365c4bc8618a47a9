"""Rotary position embedding in the "half" (GPT-NeoX / Llama) layout: the
head dimension is split into two halves x1, x2 rotated as
(x1 cos - x2 sin, x2 cos + x1 sin) with per-position cos/sin tables; one
program per (token, head-block), heads and half-dimension as a 2-D block,
the form of fused RoPE kernels in LLM libraries. q is (tokens, heads, D)."""

CASES = [dict(name="T100 H8 D128", T=100, H=8, D=128), dict(name="T37 H5 D64", T=37, H=5, D=64)]


def define(jit, tl):
    @jit
    def rope_kernel(q_ptr, out_ptr, cos_ptr, sin_ptr, stride_qt, stride_qh, stride_ct, n_heads,
                    HALF: tl.constexpr, BLOCK_H: tl.constexpr):
        t = tl.program_id(0)
        hb = tl.program_id(1)
        heads = hb * BLOCK_H + tl.arange(0, BLOCK_H)
        d = tl.arange(0, HALF)
        mask = heads[:, None] < n_heads
        base = t * stride_qt + heads[:, None] * stride_qh + d[None, :]
        x1 = tl.load(q_ptr + base, mask=mask, other=0.0).to(tl.float32)
        x2 = tl.load(q_ptr + base + HALF, mask=mask, other=0.0).to(tl.float32)
        cos = tl.load(cos_ptr + t * stride_ct + d)[None, :]
        sin = tl.load(sin_ptr + t * stride_ct + d)[None, :]
        tl.store(out_ptr + base, (x1 * cos - x2 * sin).to(out_ptr.dtype.element_ty), mask=mask)
        tl.store(out_ptr + base + HALF, (x2 * cos + x1 * sin).to(out_ptr.dtype.element_ty), mask=mask)

    return {"rope_kernel": rope_kernel}


COMPILE = {"rope_kernel": [("*bf16,*bf16,*fp32,*fp32,i32,i32,i32,i32", dict(HALF=half, BLOCK_H=4), {})
                            for half in (64, 32)]}


def tables(T, D, device):
    import torch

    inv_freq = 1.0 / (10000 ** (torch.arange(0, D, 2, device=device, dtype=torch.float64) / D))
    angles = torch.arange(T, device=device, dtype=torch.float64)[:, None] * inv_freq[None, :]
    return angles.cos().float(), angles.sin().float()


def inputs(case, device):
    import torch

    cos, sin = tables(case["T"], case["D"], device)
    return dict(q=torch.randn(case["T"], case["H"], case["D"], device=device, dtype=torch.bfloat16), cos=cos, sin=sin)


def launch(k, inp, case):
    import torch

    q, cos, sin = inp["q"], inp["cos"], inp["sin"]
    T, H, D = q.shape
    out = torch.empty_like(q)
    k["rope_kernel"][(T, (H + 3) // 4)](q, out, cos, sin, q.stride(0), q.stride(1), cos.stride(0), H, HALF=D // 2,
                                       BLOCK_H=4)
    return out


def reference(inp, case):
    import torch

    q = inp["q"].double()
    cos, sin = inp["cos"].double()[:, None, :], inp["sin"].double()[:, None, :]
    x1, x2 = q[..., : case["D"] // 2], q[..., case["D"] // 2:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


TOLERANCE = dict(rtol=1e-2, atol=2e-2)
