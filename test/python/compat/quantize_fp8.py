"""Per-row fp8 (e4m3) quantization: each row's absolute maximum, the scale
absmax/448 (e4m3's largest finite value) stored, values divided by it and
cast to `tl.float8e4nv`, which rounds to nearest even: the form of the
activation-quantization kernels of fp8 inference (the operands of an fp8
`_scaled_mm`)."""

CASES = [dict(name="64x4096", M=64, N=4096), dict(name="45x1000", M=45, N=1000)]

E4M3_MAX = 448.0
#: Conversions to fp8 need sm_89 or newer (test_compile checks sm_80's refusal).
NEEDS_ARCH = "sm_89"


def define(jit, tl):
    @jit
    def quantize_fp8_kernel(x_ptr, q_ptr, scale_ptr, N, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
        absmax = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-8)
        scale = absmax / 448.0
        q = (x / scale).to(tl.float8e4nv)
        tl.store(q_ptr + row * stride + cols, q, mask=mask)
        tl.store(scale_ptr + row, scale)

    return {"quantize_fp8_kernel": quantize_fp8_kernel}


COMPILE = {"quantize_fp8_kernel": ("*bf16,*fp8e4nv,*fp32,i32,i32", dict(BLOCK=4096), dict(num_warps=8))}


def inputs(case, device):
    import torch

    return dict(x=torch.randn(case["M"], case["N"], device=device, dtype=torch.bfloat16))


def launch(k, inp, case):
    import torch

    x = inp["x"]
    M, N = x.shape
    q = torch.empty((M, N), device=x.device, dtype=torch.float8_e4m3fn)
    scale = torch.empty(M, device=x.device)
    k["quantize_fp8_kernel"][(M,)](x, q, scale, N, x.stride(0), BLOCK=1 << (N - 1).bit_length(), num_warps=8)
    return q, scale


def reference(inp, case):
    x = inp["x"].double()
    scale = x.abs().amax(dim=1) / E4M3_MAX
    return x / scale[:, None], scale


def check(out, ref, inp, case):
    """The scale to fp32 rounding; each quantized value within half an e4m3
    step of x/scale (3 mantissa bits: 2**-4 relative for normal values, an
    absolute 2**-10 below 2**-6, e4m3's smallest normal), and the row's
    maximum at +-448 exactly."""
    q, scale = out
    scaled, rscale = ref
    if not ((scale.double() - rscale).abs() <= 1e-6 * rscale).all():
        return "scale differs"
    value = q.double()
    bound = (scaled.abs() * 2.0**-4).clamp(min=2.0**-10) * (1 + 1e-5)
    error = (value - scaled).abs()
    if not (error <= bound).all():
        return f"{int((error > bound).sum())} quantized values farther than half an e4m3 step"
    if not (value.abs().amax(dim=1) == E4M3_MAX).all():
        return "a row's largest value is not quantized to 448"
    return None
