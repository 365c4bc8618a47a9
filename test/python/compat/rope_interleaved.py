"""Rotary position embedding in the interleaved (GPT-J) layout: pairs of
adjacent elements (x[2i], x[2i+1]) are rotated; the kernel loads the
whole head row, separates the pairs with `tl.split` of a
`(HALF, 2)` reshape and puts them back with `tl.interleave`, the form of
kernels written since Triton added those builtins. fp16, one program per
(token, head)."""

CASES = [dict(name="T64 H4 D128", T=64, H=4, D=128), dict(name="T33 H3 D32", T=33, H=3, D=32)]


def define(jit, tl):
    @jit
    def rope_interleaved_kernel(x_ptr, out_ptr, cos_ptr, sin_ptr, stride_xt, stride_xh, stride_ct,
                                D: tl.constexpr):
        t = tl.program_id(0)
        h = tl.program_id(1)
        offs = tl.arange(0, D)
        row = x_ptr + t * stride_xt + h * stride_xh
        x = tl.load(row + offs).to(tl.float32)
        even, odd = tl.split(tl.reshape(x, (D // 2, 2)))
        half = tl.arange(0, D // 2)
        cos = tl.load(cos_ptr + t * stride_ct + half)
        sin = tl.load(sin_ptr + t * stride_ct + half)
        y = tl.interleave(even * cos - odd * sin, odd * cos + even * sin)
        tl.store(out_ptr + t * stride_xt + h * stride_xh + offs, y.to(tl.float16))

    return {"rope_interleaved_kernel": rope_interleaved_kernel}


COMPILE = {"rope_interleaved_kernel": [("*fp16,*fp16,*fp32,*fp32,i32,i32,i32", dict(D=d), {}) for d in (128, 32)]}


def inputs(case, device):
    import torch

    T, D = case["T"], case["D"]
    inv_freq = 1.0 / (10000 ** (torch.arange(0, D, 2, device=device, dtype=torch.float64) / D))
    angles = torch.arange(T, device=device, dtype=torch.float64)[:, None] * inv_freq[None, :]
    return dict(x=torch.randn(T, case["H"], D, device=device, dtype=torch.float16), cos=angles.cos().float(),
                sin=angles.sin().float())


def launch(k, inp, case):
    import torch

    x = inp["x"]
    T, H, D = x.shape
    out = torch.empty_like(x)
    k["rope_interleaved_kernel"][(T, H)](x, out, inp["cos"], inp["sin"], x.stride(0), x.stride(1),
                                        inp["cos"].stride(0), D=D)
    return out


def reference(inp, case):
    import torch

    x = inp["x"].double()
    even, odd = x[..., 0::2], x[..., 1::2]
    cos, sin = inp["cos"].double()[:, None, :], inp["sin"].double()[:, None, :]
    return torch.stack([even * cos - odd * sin, odd * cos + even * sin], dim=-1).flatten(-2)


TOLERANCE = dict(rtol=1e-2, atol=1e-2)
