"""fp8 end to end on the GPU (issue 21): torch.float8_e4m3fn / float8_e5m2
tensors as kernel arguments (tl.float8e4nv / tl.float8e5), casts to and
from fp16, bf16 and fp32 bit for bit against torch's conversions (to fp8:
round to nearest even, ties included; beyond the largest finite value
Triton's saturation, where torch gives NaN or infinity), and tl.dot on fp8
(wgmma e4m3/e5m2 on sm_90a, f16 products of the widened operands
elsewhere) against float64, exactly on integer-valued inputs and within
the fp8 products' accumulation error on normal ones, at sizes that are not
multiples of the blocks. Skipped without a GPU, torch, or an sm_89+ device
for the casts to fp8."""

import pytest

import tilelang
import tilelang.language as tl

import byte_matmul_kernels

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

N = 3001  # not a multiple of the block
FP8 = {"e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}
LARGEST = {"e4m3": 448.0, "e5m2": 57344.0}
WIDE = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def fp8_type(name):
    return getattr(torch, FP8[name])


def needs_fp8_conversions():
    if torch.cuda.get_device_capability() < (8, 9):
        pytest.skip("conversions to fp8 need sm_89 or newer")


@tilelang.jit
def cast_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=mask)


def cast(x, dtype):
    y = torch.empty(x.shape, device="cuda", dtype=dtype)
    cast_kernel[(triton_cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


def triton_cdiv(a, b):
    return -(-a // b)


def neighbours_and_ties(fmt, count):
    """Random finite fp8 values, and the midpoints between each and the next
    value up (exact in fp32): the ties that round to the even one."""
    bits = torch.randint(0, 256, (count,), device="cuda", dtype=torch.int16).to(torch.uint8)
    values = bits.view(fp8_type(fmt)).float()
    nxt = (bits.to(torch.int16) + 1).clamp(max=255).to(torch.uint8).view(fp8_type(fmt)).float()
    # Stay among finite values of one sign whose successor is finite.
    ok = values.isfinite() & nxt.isfinite() & (values.abs() < nxt.abs()) & (nxt.abs() <= LARGEST[fmt])
    ok &= torch.sign(values) == torch.sign(nxt)
    return torch.cat([values[ok], (values[ok] + nxt[ok]) / 2])


@pytest.mark.parametrize("src", list(WIDE))
@pytest.mark.parametrize("fmt", list(FP8))
def test_casts_to_fp8_match_torch_bit_for_bit(src, fmt):
    needs_fp8_conversions()
    largest = LARGEST[fmt]
    # Normal values over the format's whole range, tiny ones (its subnormals
    # and below), exact fp8 values and ties between neighbours, zeros.
    spread = torch.randn(N, device="cuda") * torch.exp2(torch.randint(-20, 16, (N,), device="cuda").float())
    x = torch.cat([spread, neighbours_and_ties(fmt, N), torch.tensor([0.0, -0.0], device="cuda")])
    x = x.to(getattr(torch, WIDE[src]))
    x = x[x.float().abs() <= largest]  # beyond: torch does not saturate (below)
    y = cast(x, fp8_type(fmt))
    expected = x.to(fp8_type(fmt))
    different = y.view(torch.uint8) != expected.view(torch.uint8)
    assert not different.any(), (f"{int(different.sum())} of {x.numel()} differ, first: "
                                 f"{x[different][:4].tolist()} -> {y[different][:4].float().tolist()}, "
                                 f"torch {expected[different][:4].float().tolist()}")


@pytest.mark.parametrize("fmt", list(FP8))
def test_casts_to_fp8_saturate_and_keep_nan(fmt):
    # Triton's rounding (cvt.rn.satfinite): beyond the largest finite value,
    # infinities included, the largest finite value of the sign; NaN stays NaN.
    needs_fp8_conversions()
    largest = LARGEST[fmt]
    x = torch.tensor([largest * 1.02, largest * 4, 1e30, float("inf"), -largest * 1.5, float("-inf"),
                      float("nan")], device="cuda")
    y = cast(x, fp8_type(fmt)).float()
    assert y[:4].tolist() == [largest] * 4
    assert y[4:6].tolist() == [-largest] * 2
    assert bool(y[6].isnan())


@pytest.mark.parametrize("dst", list(WIDE))
@pytest.mark.parametrize("fmt", list(FP8))
def test_casts_from_fp8_are_exact(dst, fmt):
    # Every fp8 bit pattern, repeated past a block; NaNs compared as NaN.
    bits = torch.arange(256, device="cuda", dtype=torch.int16).to(torch.uint8).repeat(12)
    x = bits.view(fp8_type(fmt))
    y = cast(x, getattr(torch, WIDE[dst]))
    expected = x.to(getattr(torch, WIDE[dst]))
    nan = expected.isnan()
    assert bool((y.isnan() == nan).all())
    assert torch.equal(y[~nan], expected[~nan])


# The tutorial's kernel with an fp32 accumulator (ACC), shared with the int8 tests.
byte_matmul = byte_matmul_kernels.define(tilelang.jit, tl)


def matmul(a, b, out_dtype, block=(128, 128, 64), num_warps=4, num_stages=3):
    M, K = a.shape
    N = b.shape[1]
    c = torch.full((M, N), float("nan"), device="cuda", dtype=out_dtype)
    bm, bn, bk = block
    byte_matmul[(triton_cdiv(M, bm), triton_cdiv(N, bn))](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, ACC=tl.float32, num_warps=num_warps, num_stages=num_stages)
    return c


def operands(M, N, K, a_fmt, b_fmt, integers, b_k_major=True):
    """A (M x K) and B (K x N) in fp8; B the transpose of a contiguous N x K
    tensor (K-major, as Triton's tutorial stores it) or contiguous itself.
    Integer values in [-2, 2] keep every partial sum exact (at most 2^12 in
    magnitude, well within the 14 bits an fp8 product accumulates with)."""
    def make(rows, cols, fmt):
        if integers:
            values = torch.randint(-2, 3, (rows, cols), device="cuda").to(torch.float16)
        else:
            values = torch.randn((rows, cols), device="cuda", dtype=torch.float16)
        return values.to(fp8_type(fmt))
    a = make(M, K, a_fmt)
    b = make(N, K, b_fmt).T if b_k_major else make(K, N, b_fmt)
    return a, b


CASES = [
    # (a, b, B K-major, block, warps): wgmma e4m3, e5m2 and mixed on sm_90a;
    # B N-major takes the widened f16 product everywhere.
    ("e4m3", "e4m3", True, (128, 128, 64), 4),
    ("e5m2", "e5m2", True, (128, 128, 64), 4),
    ("e4m3", "e5m2", True, (64, 128, 128), 4),
    ("e4m3", "e4m3", True, (128, 256, 128), 8),
    ("e4m3", "e4m3", False, (128, 128, 64), 4),
]


@pytest.mark.parametrize("K", [1024, 1000])
@pytest.mark.parametrize("a_fmt,b_fmt,k_major,block,warps", CASES)
def test_matmul_exact_on_integers(a_fmt, b_fmt, k_major, block, warps, K):
    # M and N are not multiples of the blocks; K = 1000 is not one of
    # BLOCK_K either (the masked last step).
    a, b = operands(300, 200, K, a_fmt, b_fmt, integers=True, b_k_major=k_major)
    c = matmul(a, b, torch.float32, block, warps)
    ref = a.double() @ b.double()
    assert torch.equal(c.double(), ref), f"{int((c.double() != ref).sum())} of {ref.numel()} differ"


@pytest.mark.parametrize("fmt", list(FP8))
def test_matmul_normal_inputs_within_accumulation_error(fmt):
    # fp16 result, as Triton's tutorial: within the accumulation of the fp8
    # products (about 14 bits kept per 32-deep instruction on Hopper) and
    # the rounding to fp16.
    M, N, K = 257, 383, 777
    a, b = operands(M, N, K, fmt, fmt, integers=False)
    c = matmul(a, b, torch.float16)
    ref = a.double() @ b.double()
    bound = (triton_cdiv(K, 32) + 2) * 2.0**-13 * (a.double().abs() @ b.double().abs()) + ref.abs() * 2.0**-11 + 2.0**-24
    error = (c.double() - ref).abs()
    assert bool((error <= bound).all()), f"{int((~(error <= bound)).sum())} beyond the bound"
