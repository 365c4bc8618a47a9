"""Matrix products on the GPU: bench/kernels.py's matmul_kernel (Triton's
tutorial matmul: grouped program order, masks on the M, N and K edges, an
fp32 or int32 accumulator) against float64 torch references on fresh random
inputs, in fp16, bf16, fp32 (tf32 tensor cores, the default precision of
tl.dot) and int8 (int32 accumulation and output, exact); at shapes that are
multiples of the block and shapes that are not (K not a multiple of
BLOCK_SIZE_K, K smaller than it, M or N of 1); over block shapes from 16x16x16
on one warp to 128x256x64 on eight, and several num_stages; with transposed
and padded operands and outputs (strides other than (K, 1)); and a fused
epilogue (bias add, relu and cast on the accumulator).

Error bounds. Every product of two fp16, bf16 or tf32 values is exact in
fp32; the accumulation of K of them in fp32 on tensor cores (which may
truncate) errs by at most (K + 2) * 2^-22 * sum_k |a_ik| |b_kj| (twice the
truncation bound, as a margin); fp32 operands are first rounded (or
truncated) to tf32, a relative error of 2^-10 each; the conversion to the
output type adds u_out * |c| (u_out: 2^-11 fp16, 2^-8 bf16, 2^-24 fp32). The
test asserts that bound element by element. int8 results are exact.

Output buffers start poisoned (NaN, or -77 for int32) and are larger than C,
so unwritten elements and writes past the M and N edges both show. Skipped
without a GPU or without torch.

TILELANG_MATMUL_TEST_WITH=triton runs the same tests with the same kernel
source under Triton instead of tilelang (to check the tests themselves, or
to tell a tilelang bug from a test bug)."""


import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

from tilelang_testing import REPO_ROOT, define_under_test, load_module  # noqa: E402

BENCH_KERNELS = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py")

WITH, KERNELS = define_under_test(BENCH_KERNELS.define, "TILELANG_MATMUL_TEST_WITH")

MATMUL = KERNELS["matmul_kernel"]
MATMUL_BIAS_RELU = KERNELS["matmul_bias_relu_kernel"]
MATMUL_DESCRIPTORS = KERNELS["matmul_descriptor_kernel"]
if WITH == "triton":
    from triton.tools.tensor_descriptor import TensorDescriptor
else:
    from tilelang import TensorDescriptor
matmul = BENCH_KERNELS.matmul

U_ACC = 2.0**-22  # fp32 accumulation on tensor cores: twice the truncation bound 2^-23
U_IN = {torch.float16: 0.0, torch.bfloat16: 0.0, torch.float32: 2.0**-10}  # fp32 -> tf32
U_OUT = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8, torch.float32: 2.0**-24}
NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32", torch.int8: "int8",
         torch.int32: "int32"}
PAD = (3, 5)  # poisoned rows and columns around every output


def config(bm, bn, bk, warps, stages=3, group=8):
    return {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": group,
            "num_warps": warps, "num_stages": stages}


def random_matrix(rows, cols, dtype, layout="row"):
    """A fresh random rows x cols matrix: randn for floats, integers in
    [-8, 8) for int8. layout "row": contiguous; "col": the transpose of a
    contiguous cols x rows matrix (stride (1, rows)); "padded": the first
    cols columns of a rows x (cols + 5) matrix (row stride cols + 5)."""
    shape = {"row": (rows, cols), "col": (cols, rows), "padded": (rows, cols + 5)}[layout]
    if dtype == torch.int8:
        x = torch.randint(-8, 8, shape, device="cuda", dtype=dtype)
    else:
        x = torch.randn(shape, device="cuda", dtype=torch.float32).to(dtype)
    return {"row": x, "col": x.t(), "padded": x[:, :cols]}[layout]


def poisoned_output(m, n, dtype, layout="row"):
    """(C, the buffer holding it): C is m x n inside a larger poisoned buffer,
    row-major ("row") or column-major ("col")."""
    fill = float("nan") if dtype.is_floating_point else -77
    if layout == "row":
        buf = torch.full((m + PAD[0], n + PAD[1]), fill, device="cuda", dtype=dtype)
        return buf[:m, :n], buf
    buf = torch.full((n + PAD[1], m + PAD[0]), fill, device="cuda", dtype=dtype)
    return buf[:n, :m].t(), buf


def assert_padding_poisoned(out, buf):
    """Nothing but C was written in its buffer."""
    mask = torch.ones_like(buf, dtype=torch.bool)
    if out.stride(1) == 1:
        mask[:out.shape[0], :out.shape[1]] = False
    else:
        mask[:out.shape[1], :out.shape[0]] = False
    rest = buf[mask]
    poisoned = torch.isnan(rest) if rest.is_floating_point() else rest == -77
    assert bool(poisoned.all()), f"{int((~poisoned).sum())} elements written outside C"


def product_bound(a, b, ref, out_dtype, extra=0.0):
    """The elementwise error bound of the module docstring for C = A @ B
    computed on tensor cores from a, b (their dtype) into out_dtype; `extra`
    is added to the error before the output conversion."""
    k = a.shape[1]
    u_in = U_IN[a.dtype]
    abs_products = a.double().abs() @ b.double().abs()
    before_cast = ((1 + u_in) ** 2 - 1 + (k + 2) * U_ACC * (1 + u_in) ** 2) * abs_products + extra
    info = torch.finfo(out_dtype)
    tiny = info.smallest_normal * info.eps  # subnormal spacing: the absolute floor of a rounding
    return U_OUT[out_dtype] * ref.abs() + (1 + U_OUT[out_dtype]) * before_cast + tiny


def assert_within(got, ref, bound, what):
    got = got.double()
    assert not bool(torch.isnan(got).any()), f"{what}: NaN in C (elements not written)"
    err = (got - ref).abs()
    bad = ~(err <= bound)
    if bool(bad.any()):
        ratio = err / bound
        i = int(ratio.argmax())
        r, c = divmod(i, ref.shape[1])
        raise AssertionError(f"{what}: {int(bad.sum())} of {ref.numel()} elements beyond the bound; worst at "
                             f"[{r}, {c}]: got {got[r, c].item():.6g}, expected {ref[r, c].item():.6g}, "
                             f"error {err[r, c].item():.3g} > bound {bound[r, c].item():.3g}")


def check_matmul(m, n, k, dtype, cfg=None, a_layout="row", b_layout="row", c_layout="row", out_dtype=None):
    a = random_matrix(m, k, dtype, a_layout)
    b = random_matrix(k, n, dtype, b_layout)
    if out_dtype is None:
        out_dtype = torch.int32 if dtype == torch.int8 else dtype
    out, buf = poisoned_output(m, n, out_dtype, c_layout)
    result = matmul(a, b, MATMUL, cfg, out=out)
    assert result is out
    torch.cuda.synchronize()
    what = (f"{m}x{n}x{k} {NAMES[dtype]}->{NAMES[out_dtype]} A {a_layout} B {b_layout} C {c_layout} "
            f"config {BENCH_KERNELS.matmul_launch_options(cfg)}")
    assert_product(a, b, out, buf, what)


def assert_product(a, b, out, buf, what):
    """C (`out`, inside the poisoned `buf`) is A @ B: exactly for int8
    (|C| <= 64 K, far below 2^53), within product_bound otherwise; nothing
    else in `buf` was written."""
    ref = a.double() @ b.double()
    if a.dtype == torch.int8:
        assert torch.equal(out.double(), ref), f"{what}: {int((out.double() != ref).sum())} elements differ"
    else:
        assert_within(out, ref, product_bound(a, b, ref, out.dtype), what)
    assert_padding_poisoned(out, buf)


# ---------------------------------------------------------------------------
# Element types and shapes, with the default config (128x128x32, GROUP_SIZE_M
# 8, 4 warps, 3 stages)
# ---------------------------------------------------------------------------

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.int8]


@pytest.mark.parametrize("dtype", DTYPES, ids=NAMES.get)
@pytest.mark.parametrize("m,n,k", [(256, 256, 256), (64, 64, 4096), (1000, 1000, 1000), (77, 300, 129)],
                         ids=lambda v: str(v))
def test_matmul_dtypes(dtype, m, n, k):
    """Multiples of the block (256^3), one tile with a long K loop (64x64x4096),
    and M, N, K that are not multiples of the block (K % BLOCK_SIZE_K != 0)."""
    check_matmul(m, n, k, dtype)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (1, 300, 64), (300, 1, 64), (33, 17, 5), (40, 50, 0)],
                         ids=lambda v: str(v))
def test_matmul_edge_shapes(m, n, k):
    """Extents of 1 (the launcher passes them as constexprs), K smaller than
    one BLOCK_SIZE_K step, and K = 0 (no iteration: C = 0)."""
    check_matmul(m, n, k, torch.float16)


@pytest.mark.parametrize("dtype,out_dtype", [(torch.float16, torch.float32), (torch.bfloat16, torch.float32),
                                             (torch.float16, torch.bfloat16)], ids=lambda v: NAMES[v])
def test_matmul_output_dtype(dtype, out_dtype):
    """The accumulator converted to an output type other than the operands'
    (the kernel stores acc.to(c_ptr.dtype.element_ty))."""
    check_matmul(200, 136, 160, dtype, out_dtype=out_dtype)


# ---------------------------------------------------------------------------
# Block shapes, warps, stages and group sizes
# ---------------------------------------------------------------------------

CONFIGS = [
    config(16, 16, 16, 1, stages=1, group=1),
    config(16, 16, 16, 2, stages=2, group=4),
    config(16, 64, 32, 1),
    config(64, 64, 32, 4),
    config(64, 128, 64, 4, stages=4),
    config(128, 128, 32, 4),
    config(128, 256, 64, 8),
    config(256, 128, 32, 8, stages=2, group=4),
]


def config_id(cfg):
    return (f"{cfg['BLOCK_SIZE_M']}x{cfg['BLOCK_SIZE_N']}x{cfg['BLOCK_SIZE_K']}-w{cfg['num_warps']}"
            f"-s{cfg['num_stages']}-g{cfg['GROUP_SIZE_M']}")


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_matmul_configs(cfg):
    """fp16 at 300x270x200: no extent is a multiple of any block, the K loop
    ends on a partial step, the last program group is short."""
    check_matmul(300, 270, 200, torch.float16, cfg)


# Early refill (shouldRefillEarly, docs/lowering.md): these configs (num_stages
# - 2 iterations of 2^23 byte-MACs or more) refill the stage read two
# iterations before right after issuing the product, under one barrier an
# iteration; frontend/test_matmul_ir.py checks that they do at these shapes.
# N and K are multiples of 16 (16-byte cp.async rows); M, N and K are ragged
# against the blocks, and K runs 0, 1, 2, 3 and 17 (the last partial) steps.
EARLY_REFILL_CONFIGS = [config(256, 128, 64, 8, stages=4), config(128, 256, 64, 8, stages=4)]
EARLY_REFILL_K = [0, 64, 128, 192, 1040]


@pytest.mark.parametrize("k", EARLY_REFILL_K)
@pytest.mark.parametrize("cfg", EARLY_REFILL_CONFIGS, ids=config_id)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=NAMES.get)
def test_matmul_early_refill(dtype, cfg, k):
    check_matmul(300, 272, k, dtype, cfg)


@pytest.mark.parametrize("cfg", [config(16, 16, 16, 1), config(64, 64, 32, 4), config(128, 256, 32, 8)],
                         ids=config_id)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32], ids=NAMES.get)
def test_matmul_configs_other_dtypes(cfg, dtype):
    """(128x256x64 in fp32 over 3 stages would need 288 KB of shared memory.)"""
    check_matmul(300, 270, 200, dtype, cfg)


@pytest.mark.parametrize("cfg", [config(32, 32, 32, 1), config(64, 64, 64, 4), config(128, 128, 64, 8)],
                         ids=config_id)
def test_matmul_configs_int8(cfg):
    """int8 with BLOCK_SIZE_K of at least 32 (the k-extent of an int8 mma)."""
    check_matmul(300, 270, 200, torch.int8, cfg)


@pytest.mark.skipif(WITH != "tilelang", reason="checks tilelang's launcher message")
def test_shared_memory_over_the_device_limit_is_a_clear_error():
    # 6 stages of 64x64 + 64x256 bf16 tiles: 240 KiB, over any current GPU's
    # per-block limit (227 KiB on the H100).
    from tilelang import _C

    a = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    limit = _C.device_info()["max_shared_per_block"]
    with pytest.raises(Exception, match=rf"needs \d+ bytes of shared memory, over the {limit} that .* allows"):
        BENCH_KERNELS.matmul(a, b, KERNELS["matmul_kernel"], config(64, 256, 64, 4, 6))


# ---------------------------------------------------------------------------
# Strided operands and outputs
# ---------------------------------------------------------------------------

LAYOUTS = [("col", "row", "row"), ("row", "col", "row"), ("col", "col", "row"), ("padded", "padded", "row"),
           ("row", "row", "col"), ("col", "col", "col")]


@pytest.mark.parametrize("a_layout,b_layout,c_layout", LAYOUTS, ids=lambda v: v)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int8], ids=NAMES.get)
def test_matmul_strided(dtype, a_layout, b_layout, c_layout):
    """A or B transposed (stride_ak != 1: A^T's view, so stride_am = 1;
    stride_bn != 1), rows padded (a row stride that is not the row length),
    C column-major."""
    check_matmul(157, 93, 200, dtype, config(64, 64, 32, 4), a_layout, b_layout, c_layout)


# ---------------------------------------------------------------------------
# A fused epilogue: C = relu(A @ B + bias) converted to C's type
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=NAMES.get)
@pytest.mark.parametrize("m,n,k", [(256, 256, 256), (300, 270, 200)], ids=lambda v: str(v))
def test_matmul_bias_relu(dtype, m, n, k):
    a = random_matrix(m, k, dtype)
    b = random_matrix(k, n, dtype)
    bias = torch.randn(n, device="cuda", dtype=torch.float32) * 4
    out, buf = poisoned_output(m, n, dtype)
    matmul(a, b, MATMUL_BIAS_RELU, config(64, 128, 32, 4), out=out, bias=bias)
    torch.cuda.synchronize()
    exact = a.double() @ b.double()
    ref = torch.relu(exact + bias.double())
    # The bias add in fp32 is one more rounding; relu is 1-Lipschitz.
    extra = 2.0**-24 * (exact.abs() + bias.double().abs())
    bound = product_bound(a, b, ref, dtype, extra=extra)
    assert_within(out, ref, bound, f"bias+relu {m}x{n}x{k} {NAMES[dtype]}")
    assert bool((out >= 0).all())
    assert_padding_poisoned(out, buf)


def test_matmul_helper_allocates():
    """matmul() without out: a new C of A's type (int32 for int8)."""
    a = random_matrix(100, 64, torch.int8)
    b = random_matrix(64, 48, torch.int8)
    c = matmul(a, b, MATMUL, {"BLOCK_SIZE_K": 64})
    assert c.dtype == torch.int32 and c.shape == (100, 48)
    assert torch.equal(c.double(), a.double() @ b.double())
    x = random_matrix(64, 32, torch.float16)
    y = random_matrix(32, 16, torch.float16)
    z = matmul(x, y, MATMUL)
    assert z.dtype == torch.float16
    ref = x.double() @ y.double()
    assert_within(z, ref, product_bound(x, y, ref, torch.float16), "allocated fp16")


# ---------------------------------------------------------------------------
# Through tensor descriptors (matmul_descriptor_kernel): no masks in the
# kernel, the descriptors bound the blocks. Rows are contiguous and their
# strides multiples of 16 bytes (the descriptor rules); the extents are not
# multiples of the blocks.
# ---------------------------------------------------------------------------


def padded_matrix(rows, cols, dtype, extra):
    """A fresh random rows x cols matrix whose rows are `extra` elements
    longer than cols (0: contiguous)."""
    x = random_matrix(rows, cols + extra, dtype)
    return x[:, :cols]


def check_matmul_descriptors(m, n, k, dtype, cfg=None, row_padding=0):
    a = padded_matrix(m, k, dtype, row_padding)
    b = padded_matrix(k, n, dtype, row_padding)
    out_dtype = torch.int32 if dtype == torch.int8 else dtype
    # C sits in a poisoned buffer with 16 bytes of extra columns and 3 rows.
    pad = 16 // torch.empty((), dtype=out_dtype).element_size()
    fill = float("nan") if out_dtype.is_floating_point else -77
    buf = torch.full((m + 3, n + pad), fill, device="cuda", dtype=out_dtype)
    out = buf[:m, :n]
    BENCH_KERNELS.matmul_with_descriptors(a, b, MATMUL_DESCRIPTORS, TensorDescriptor, cfg, out=out)
    torch.cuda.synchronize()
    assert_product(a, b, out, buf, f"descriptors {m}x{n}x{k} {NAMES[dtype]} row padding {row_padding} "
                                   f"config {BENCH_KERNELS.matmul_launch_options(cfg)}")


@pytest.mark.parametrize("dtype", DTYPES, ids=NAMES.get)
@pytest.mark.parametrize("m,n,k", [(256, 256, 256), (77, 304, 144), (1000, 1008, 1008), (64, 64, 4096)],
                         ids=lambda v: str(v))
def test_matmul_descriptors_dtypes(dtype, m, n, k):
    cfg = config(64, 64, 64, 4) if dtype == torch.int8 else None
    check_matmul_descriptors(m, n, k, dtype, cfg)


@pytest.mark.parametrize("cfg", [config(16, 16, 16, 1), config(64, 64, 32, 4, stages=2), config(128, 256, 64, 8, 4),
                                 config(128, 128, 64, 4, 3)], ids=config_id)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=NAMES.get)
def test_matmul_descriptors_configs(cfg, dtype):
    """Blocks from 16x16x16 on one warp to 128x256x64 on eight (wgmma on
    sm_90a), extents that no block divides, rows padded by 8 elements."""
    check_matmul_descriptors(300, 264, 200, dtype, cfg, row_padding=8)
