"""tl.math's tanh, pow, log1p and expm1, libdevice's sinh/cosh/hypot/
classification functions, and tl.cast with rounding toward zero, on the GPU
against float64 references (issue 21, item 2).

The bounds are relative errors that the lowering's approximations (ex2 and
lg2 approximations, series near zero; docs/lowering.md) stay well within,
over inputs that include the ranges near zero where ex2(x)-1 or lg2(1+x)
alone would lose every digit. Casts toward zero are checked against the
float64 value truncated to the target's grid. Skipped without a GPU or
without torch."""

import math

import pytest

import tilelang
import tilelang.language as tl
from tilelang.language.extra import libdevice

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

N = 3000  # not a multiple of the block


@tilelang.jit
def unary_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if FN == "tanh":
        r = tl.math.tanh(x)
    elif FN == "log1p":
        r = tl.math.log1p(x)
    elif FN == "expm1":
        r = tl.math.expm1(x)
    elif FN == "sinh":
        r = libdevice.sinh(x)
    else:
        r = libdevice.cosh(x)
    tl.store(out_ptr + offs, r, mask=mask)


def inputs(lo, hi, tiny=True):
    """Uniform in [lo, hi], with a quarter of the values near zero (down to
    1e-7 in magnitude) where cancellation would show."""
    x = torch.empty(N, device="cuda", dtype=torch.float64).uniform_(lo, hi)
    if tiny:
        small = torch.logspace(-7, -0.5, N // 4, device="cuda", dtype=torch.float64)
        x[: N // 4] = small * torch.where(torch.rand(N // 4, device="cuda") < 0.5, -1.0, 1.0)
    return x.to(torch.float32)


REFERENCES = {
    "tanh": (torch.tanh, (-12.0, 12.0)),
    "log1p": (torch.log1p, (-0.99, 50.0)),
    "expm1": (torch.expm1, (-20.0, 20.0)),
    "sinh": (torch.sinh, (-8.0, 8.0)),
    "cosh": (torch.cosh, (-8.0, 8.0)),
}


@pytest.mark.parametrize("fn", sorted(REFERENCES))
def test_unary_functions_against_float64(fn):
    ref_fn, (lo, hi) = REFERENCES[fn]
    x = inputs(lo, hi)
    out = torch.full((N + 64,), float("nan"), device="cuda")
    unary_kernel[(tilelang.cdiv(N, 256),)](x, out, N, FN=fn, BLOCK=256)
    torch.cuda.synchronize()
    ref = ref_fn(x.double())
    err = (out[:N].double() - ref).abs() / ref.abs().clamp_min(1e-30)
    assert err.max().item() < 4e-6, (fn, x[err.argmax()].item(), out[err.argmax()].item(), ref[err.argmax()].item())
    assert torch.all(torch.isnan(out[N:]))


@tilelang.jit
def unary_f64_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.math.tanh(x), mask=mask)
    tl.store(out_ptr + n + offs, tl.math.log1p(x), mask=mask)
    tl.store(out_ptr + 2 * n + offs, tl.math.expm1(x), mask=mask)


def test_f64_tanh_log1p_expm1():
    # Kahan's corrections on the f64 exp and log: relative errors at
    # rounding level, near zero included.
    x = inputs(-0.99, 30.0).double()
    x[N // 4:N // 2] = torch.empty(N // 4, device="cuda", dtype=torch.float64).uniform_(-30.0, 30.0)
    out = torch.full((3 * N,), float("nan"), device="cuda", dtype=torch.float64)
    unary_f64_kernel[(tilelang.cdiv(N, 128),)](x, out, N, BLOCK=128)
    torch.cuda.synchronize()
    for k, fn in enumerate((torch.tanh, torch.log1p, torch.expm1)):
        got, ref = out[k * N:(k + 1) * N], fn(x)
        ok = ~torch.isnan(ref)  # log1p below -1
        assert torch.equal(torch.isnan(got), torch.isnan(ref)), fn
        err = (got[ok] - ref[ok]).abs() / ref[ok].abs().clamp_min(1e-300)
        assert err.max().item() < 1e-14, (fn, x[ok][err.argmax()].item())


@tilelang.jit
def special_values(out_ptr):
    nan = float("nan")
    inf = float("inf")
    idx = tl.arange(0, 16)
    x = tl.where(idx == 1, inf, tl.where(idx == 2, -inf, tl.where(idx == 3, nan, 0.0)))
    x = tl.where(idx == 4, -0.0, x)
    tl.store(out_ptr + idx, tl.math.tanh(x))
    tl.store(out_ptr + 16 + idx, tl.math.expm1(x))
    tl.store(out_ptr + 32 + idx, tl.math.log1p(x))
    flags = libdevice.isnan(x) + 2 * libdevice.isinf(x) + 4 * libdevice.signbit(x) + 8 * libdevice.finitef(x)
    tl.store(out_ptr + 48 + idx, flags.to(tl.float32))


def test_special_values():
    out = torch.zeros(64, device="cuda")
    special_values[(1,)](out)
    torch.cuda.synchronize()
    x = torch.zeros(16, dtype=torch.float64)
    x[1], x[2], x[3], x[4] = math.inf, -math.inf, math.nan, -0.0
    for k, fn in enumerate((torch.tanh, torch.expm1, torch.log1p)):
        got, want = out[16 * k:16 * (k + 1)].cpu().double(), fn(x)
        assert torch.equal(torch.isnan(got), torch.isnan(want)), fn
        ok = ~torch.isnan(want)
        assert torch.equal(got[ok], want[ok]), fn
        assert torch.equal(torch.signbit(got[ok]), torch.signbit(want[ok])), fn
    # isnan + 2 isinf + 4 signbit + 8 finite: 0.0, inf, -inf, NaN, -0.0, zeros.
    assert out[48:].cpu().tolist() == [8.0, 2.0, 6.0, 1.0, 12.0] + [8.0] * 11


@tilelang.jit
def pow_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, tl.math.pow(x, y), mask=mask)


def test_pow_against_float64():
    x = torch.empty(N, device="cuda").uniform_(0.05, 20.0)
    y = torch.empty(N, device="cuda").uniform_(-4.0, 4.0)
    # Negative bases with integer exponents (odd ones negate), and a
    # negative base with a fractional exponent (NaN), zero exponents, 1 ** nan.
    x[:600] = -x[:600]
    y[:600] = torch.randint(-4, 5, (600,), device="cuda").float()
    x[600], y[600] = -2.0, 0.5
    x[601], y[601] = float("nan"), 0.0
    x[602], y[602] = 1.0, float("nan")
    out = torch.full((N,), 123.0, device="cuda")
    pow_kernel[(tilelang.cdiv(N, 128),)](x, y, out, N, BLOCK=128)
    torch.cuda.synchronize()
    ref = torch.pow(x.double(), y.double())
    got = out.double()
    assert torch.equal(torch.isnan(got), torch.isnan(ref))
    ok = ~torch.isnan(ref)
    err = (got[ok] - ref[ok]).abs() / ref[ok].abs()
    assert err.max().item() < 8e-6
    assert got[601].item() == 1.0 and got[602].item() == 1.0


@tilelang.jit
def hypot_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, libdevice.hypot(x, y), mask=mask)


def test_hypot():
    x = torch.randn(N, device="cuda") * 100
    y = torch.randn(N, device="cuda") * 100
    out = torch.empty(N, device="cuda")
    hypot_kernel[(tilelang.cdiv(N, 128),)](x, y, out, N, BLOCK=128)
    torch.cuda.synchronize()
    ref = torch.hypot(x.double(), y.double())
    assert ((out.double() - ref).abs() / ref).max().item() < 1e-6


@tilelang.jit
def cast_kernel(x_ptr, h_ptr, b_ptr, n, MODE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(h_ptr + offs, tl.cast(x, tl.float16, fp_downcast_rounding=MODE), mask=mask)
    tl.store(b_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding=MODE), mask=mask)


def toward_zero(x, mantissa_bits, min_exponent, largest):
    """float64 ``x`` truncated onto the grid of a float format (normal and
    subnormal numbers; beyond the largest finite value, that value). On
    the CPU, with ulps from ldexp: CUDA's float64 pow(2, e) is not exact
    (72.1875 came out as 72.18749999999999)."""
    x = x.cpu()
    a = x.abs()
    e = torch.floor(torch.log2(a.clamp(1e-300, 1e300))).clamp_min(min_exponent)
    ulp = torch.ldexp(torch.ones_like(a), (e - mantissa_bits).to(torch.int64))
    t = torch.floor(a / ulp) * ulp
    t = torch.where(a >= largest, torch.full_like(a, largest), t)
    t = torch.where(torch.isinf(a), a, t)
    return torch.copysign(t, x)


def test_cast_toward_zero():
    x = torch.randn(N, device="cuda") * 300
    x[:100] = torch.randn(100, device="cuda") * 1e-6  # fp16 subnormals
    x[100:150] = torch.randn(50, device="cuda") * 1e6  # beyond fp16's range
    x[150] = float("inf")
    x[151] = -float("inf")
    x[152] = 1.0  # exact
    h = torch.empty(N, device="cuda", dtype=torch.float16)
    b = torch.empty(N, device="cuda", dtype=torch.bfloat16)
    cast_kernel[(tilelang.cdiv(N, 256),)](x, h, b, N, MODE="rtz", BLOCK=256)
    torch.cuda.synchronize()
    xd = x.double()
    assert torch.equal(h.double().cpu(), toward_zero(xd, 10, -14, 65504.0))
    assert torch.equal(b.double().cpu(), toward_zero(xd, 7, -126, float(torch.finfo(torch.bfloat16).max)))
    cast_kernel[(tilelang.cdiv(N, 256),)](x, h, b, N, MODE="rtne", BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(h, x.to(torch.float16)) and torch.equal(b, x.to(torch.bfloat16))


@tilelang.jit
def sqrt_kernel(x_ptr, fast_ptr, rn_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(fast_ptr + offs, tl.sqrt(x), mask=mask)
    tl.store(rn_ptr + offs, tl.sqrt_rn(x), mask=mask)


def test_sqrt_fast_and_rounded_to_nearest():
    # tl.sqrt is the fast square root (sqrt.approx.ftz.f32, as Triton's): a
    # few ulp (bound: 8); tl.sqrt_rn is IEEE's, the float64 root rounded to float32.
    # Normal inputs from 1e-30 to 1e30 and zero (approx flushes denormals).
    x = torch.logspace(-30, 30, N, device="cuda", dtype=torch.float64).to(torch.float32)
    x[torch.randperm(N, device="cuda")[:N // 4]] *= torch.rand(N // 4, device="cuda") + 0.5
    x[7] = 0.0
    fast, rn = torch.full_like(x, float("nan")), torch.full_like(x, float("nan"))
    sqrt_kernel[(tilelang.cdiv(N, 1024),)](x, fast, rn, N, BLOCK=1024)
    ref = torch.sqrt(x.double())
    assert torch.equal(rn, ref.to(torch.float32))
    assert ((fast.double() - ref).abs() / ref.clamp_min(1e-38)).max().item() < 1e-6
    assert fast[7].item() == 0.0


@tilelang.jit
def erf_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.erf(tl.load(x_ptr + offs, mask=mask, other=0.0)), mask=mask)


def test_erf_against_float64_and_at_the_limits():
    # erf's fit (erfc to 1.2e-7 in relative terms) with its approximate
    # reciprocal and ex2 stays within 2e-6 absolute (erf is 1 - erfc, so
    # the error is absolute); the tails go to +-1 exactly, NaN stays NaN.
    x = inputs(-7.0, 7.0)
    specials = torch.tensor([float("inf"), float("-inf"), float("nan"), 3e38, -3e38, 10.0], device="cuda")
    x = torch.cat([x, specials])
    out = torch.full((x.numel(),), float("nan"), device="cuda")
    erf_kernel[(tilelang.cdiv(x.numel(), 256),)](x, out, x.numel(), BLOCK=256)
    torch.cuda.synchronize()
    got, ref = out[:N].double(), torch.erf(x[:N].double())
    err = (got - ref).abs()
    assert err.max().item() < 2e-6, (x[err.argmax()].item(), got[err.argmax()].item(), ref[err.argmax()].item())
    assert out[N:N + 2].tolist() == [1.0, -1.0] and math.isnan(out[N + 2].item())
    assert out[N + 3:].tolist() == [1.0, -1.0, 1.0]
