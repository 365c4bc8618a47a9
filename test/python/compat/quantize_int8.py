"""Per-row symmetric int8 quantization: each row's absolute maximum
(`tl.max(tl.abs(x))`), the scale absmax/127 stored, values divided by it,
rounded to nearest (`libdevice.rint`) and clamped to [-127, 127] with
`tl.clamp` before the int8 cast: the form of activation-quantization
kernels of W8A8 inference."""

import importlib

CASES = [dict(name="64x4096", M=64, N=4096), dict(name="45x1000", M=45, N=1000)]


def define(jit, tl):
    libdevice = importlib.import_module(tl.__name__ + ".extra.libdevice")

    @jit
    def quantize_kernel(x_ptr, q_ptr, scale_ptr, N, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        absmax = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-8)
        scale = absmax / 127.0
        q = libdevice.rint(x / scale)
        q = tl.clamp(q, -127.0, 127.0)
        tl.store(q_ptr + row * stride + cols, q.to(tl.int8), mask=mask)
        tl.store(scale_ptr + row, scale)

    return {"quantize_kernel": quantize_kernel}


COMPILE = {"quantize_kernel": ("*fp16,*i8,*fp32,i32,i32", dict(BLOCK=4096), dict(num_warps=8))}


def inputs(case, device):
    import torch

    return dict(x=torch.randn(case["M"], case["N"], device=device, dtype=torch.float16))


def launch(k, inp, case):
    import torch

    x = inp["x"]
    M, N = x.shape
    q = torch.empty((M, N), device=x.device, dtype=torch.int8)
    scale = torch.empty(M, device=x.device)
    k["quantize_kernel"][(M,)](x, q, scale, N, x.stride(0), BLOCK=1 << (N - 1).bit_length(), num_warps=8)
    return q, scale


def reference(inp, case):
    x = inp["x"].double()
    scale = x.abs().amax(dim=1) / 127.0
    return (x / scale[:, None]).round().clamp(-127, 127), scale


def check(out, ref, inp, case):
    """The scale to fp32 rounding; a quantized value may differ by one where
    x/scale lies within rounding of a half (fp32 division in the kernel)."""
    q, scale = out
    rq, rscale = ref
    if not ((scale.double() - rscale).abs() <= 1e-6 * rscale).all():
        return "scale differs"
    diff = (q.double() - rq).abs()
    if diff.max() > 1:
        return f"quantized values differ by {diff.max().item()}"
    near_half = ((inp["x"].double() / rscale[:, None]).abs() % 1 - 0.5).abs() < 1e-4
    if (diff[~near_half] != 0).any():
        return "a quantized value away from a rounding tie differs"
    return None
