"""The bundled flash-attention forward on the GPU: bench/kernels.py's
attention_fwd_kernel (through kernels.attention) against float64 torch
references on fresh random inputs, in fp16 and bf16, head dimensions 64 and
128, causal and full; at sequence lengths of one row, less than a block,
one block, and lengths that no block divides (1000) or that several whole
blocks fill (2048); with grouped-query heads (8 query heads over 2
key/value heads), strided inputs and a strided output inside a poisoned
buffer, sharp score distributions (the running maximum moves far between
blocks), every config of the tuning space (autotune/spaces.py's
ATTENTION), and the autotuner over that space.

Error bound. kernels.attention_error_bound, element by element: relative to
M = softmax(q k^T * scale) |v| (the reference's magnitude), 2 u for the
roundings of P and of the output to the input type (u = 2^-11 fp16, 2^-8
bf16), the worst-case fp32 errors of the scores (scaled by the row's
largest sum_i |q_i k_i| * scale) and of the N_CTX-long sums, plus a small
constant. A wrong mask, head, stride or rescaling errs by about M itself.

Output buffers start as NaN (and, for the strided output, sit inside a
larger NaN buffer), so unwritten elements and writes past the rows both
show. The config is the wrapper's default (128x64 blocks, 8 warps, 3
stages) unless a test says otherwise. A config whose compiled kernel needs
more shared memory than the device allows per block is skipped with the
figure, not failed: the tuner prunes it the same way, and the tests of the
space's other configs still cover the variant. Skipped without a GPU or
without torch.

TILELANG_ATTENTION_TEST_WITH=triton runs the same tests with the same
kernel source under Triton (to check the tests themselves)."""


import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

from tilelang_testing import REPO_ROOT, define_under_test, load_module  # noqa: E402

BENCH_KERNELS = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py")
SPACES = load_module("autotune_spaces", REPO_ROOT / "autotune" / "spaces.py")

WITH, KERNELS = define_under_test(BENCH_KERNELS.define, "TILELANG_ATTENTION_TEST_WITH")
if WITH == "tilelang":
    import tilelang

ATTENTION = KERNELS["attention_fwd_kernel"]
NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16"}

CONFIG = BENCH_KERNELS.ATTENTION_DEFAULT_CONFIG


def shared_limit():
    if WITH == "tilelang":
        from tilelang import _C

        return int(_C.device_info()["max_shared_per_block"])
    return None  # Triton raises its own OutOfResources; every config of the space fits there


def inputs(batch, heads, kv_heads, n_ctx, head_dim, dtype, scale=1.0):
    """Fresh q (batch, heads, n_ctx, head_dim) and k, v (batch, kv_heads,
    ...): randn, q times `scale` (sharper softmax)."""
    def randn(h):
        return torch.randn(batch, h, n_ctx, head_dim, device="cuda", dtype=torch.float32)

    return (randn(heads) * scale).to(dtype), randn(kv_heads).to(dtype), randn(kv_heads).to(dtype)


def assert_attention(q, k, v, causal, out, what, sm_scale=None):
    expected, magnitude, spread = BENCH_KERNELS.attention_reference(q, k, v, causal, sm_scale)
    got = out.double()
    assert not bool(torch.isnan(got).any()), f"{what}: NaN in the output ({int(torch.isnan(got).sum())} elements)"
    error = (got - expected).abs()
    bound = BENCH_KERNELS.attention_error_bound(q, magnitude, spread)
    bad = ~(error <= bound)
    if bool(bad.any()):
        worst = int((error / bound).flatten().argmax())
        b, h, r, d = (int(i) for i in torch.unravel_index(torch.tensor(worst), error.shape))
        raise AssertionError(f"{what}: {int(bad.sum())} of {error.numel()} elements beyond the bound; worst at "
                             f"[{b}, {h}, {r}, {d}]: got {got[b, h, r, d].item():.6g}, expected "
                             f"{expected[b, h, r, d].item():.6g}, error {error[b, h, r, d].item():.3g} > bound "
                             f"{bound[b, h, r, d].item():.3g}")


def fits(q, k, v, causal, config):
    """None when `config` fits in the device's shared memory for this
    problem, else the reason to skip (tilelang's compiled figure)."""
    limit = shared_limit()
    if limit is None:
        return None
    from tilelang.jit import _current_arch

    options = BENCH_KERNELS.attention_launch_options(config)
    out = torch.empty_like(q)
    compiled = ATTENTION.warmup(*BENCH_KERNELS.attention_args(q, k, v, out, q.shape[3] ** -0.5),
                                **BENCH_KERNELS.attention_constexprs(q, causal, options), **options)
    need = compiled.to_ptx(_current_arch()).shared_bytes
    if need > limit:
        return f"needs {need} bytes of shared memory, over the device's {limit}"
    return None


def check(batch, heads, kv_heads, n_ctx, head_dim, dtype, causal, config=CONFIG, scale=1.0):
    q, k, v = inputs(batch, heads, kv_heads, n_ctx, head_dim, dtype, scale)
    reason = fits(q, k, v, causal, config)
    if reason is not None:
        pytest.skip(reason)
    out = torch.full_like(q, float("nan"))
    result = BENCH_KERNELS.attention(q, k, v, causal, None, ATTENTION, config, out=out)
    assert result is out
    torch.cuda.synchronize()
    assert_attention(q, k, v, causal, out, f"B{batch} H{heads}/{kv_heads} N{n_ctx} D{head_dim} {NAMES[dtype]} "
                                           f"{'causal' if causal else 'full'} config {config}")


# ---------------------------------------------------------------------------
# Element types, head dimensions, masks and sequence lengths
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_ctx", [1, 17, 64, 1000, 2048])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=NAMES.get)
def test_attention(dtype, head_dim, causal, n_ctx):
    """One row (N_CTX passed as the constant 1), fewer rows than a block,
    one whole block, a length no block divides (the last query block and
    the last key block partial) and 32 whole blocks; batch 2, 2 heads."""
    check(2, 2, 2, n_ctx, head_dim, dtype, causal)


@pytest.mark.parametrize("n_ctx", [1000, 2048])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=NAMES.get)
def test_attention_grouped_query_heads(dtype, head_dim, causal, n_ctx):
    """8 query heads over 2 key/value heads: query head h reads key/value
    head h // 4 (every key/value head differs, so a wrong one shows)."""
    check(2, 8, 2, n_ctx, head_dim, dtype, causal)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_sharp_scores(causal):
    """q times 8: scores spread over tens of units, so the running maximum
    rises by far between key blocks and alpha rescales by tiny factors."""
    check(1, 4, 4, 1000, 64, torch.float16, causal, scale=8.0)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=NAMES.get)
def test_attention_strided(dtype, causal):
    """q, k, v as the head-major views of (batch, N_CTX, heads, HEAD_DIM)
    tensors (the layout of a fused QKV projection: row stride heads *
    HEAD_DIM), and the output a (batch, N_CTX, heads, HEAD_DIM) view inside
    a larger NaN buffer: nothing but the output may be written."""
    batch, heads, kv_heads, n_ctx, head_dim = 2, 4, 2, 777, 64

    def token_major(h):
        x = torch.randn(batch, n_ctx, h, head_dim, device="cuda", dtype=torch.float32).to(dtype)
        return x.transpose(1, 2)

    q, k, v = token_major(heads), token_major(kv_heads), token_major(kv_heads)
    buf = torch.full((batch, n_ctx + 3, heads + 1, head_dim + 8), float("nan"), device="cuda", dtype=dtype)
    out = buf[:, :n_ctx, :heads, :head_dim].transpose(1, 2)
    assert q.stride(2) == heads * head_dim and out.stride(2) == (heads + 1) * (head_dim + 8)
    reason = fits(q, k, v, causal, CONFIG)
    if reason is not None:
        pytest.skip(reason)
    BENCH_KERNELS.attention(q, k, v, causal, None, ATTENTION, CONFIG, out=out)
    torch.cuda.synchronize()
    assert_attention(q, k, v, causal, out, f"strided {NAMES[dtype]} {'causal' if causal else 'full'}")
    outside = torch.ones_like(buf, dtype=torch.bool)
    outside[:, :n_ctx, :heads, :head_dim] = False
    assert bool(torch.isnan(buf[outside]).all()), f"{int((~torch.isnan(buf[outside])).sum())} elements written " \
                                                  f"outside the output"


NON_FINITE_CONFIGS = [CONFIG, {"BLOCK_M": 64, "BLOCK_N": 64, "num_warps": 4, "num_stages": 4}]


@pytest.mark.parametrize("config", NON_FINITE_CONFIGS, ids=["128x64-w8-s3", "64x64-w4-s4"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_attention_zero_weights_meet_no_non_finite_values(head_dim, causal, config):
    """The products where P is zero must not meet NaN or inf (0 * inf is
    NaN): (1) the keys past N_CTX of the last, partial key block, and the
    query rows past it, sit here in memory that holds NaN and inf (each
    head's rows inside a buffer 64 rows longer): their loads are masked to
    zeros, so the padded keys add exp2(-1e6 - m) = 0 times 0; (2) the first
    iteration of a loop with a deferred P V product issues it with a zero P
    on V's stage 0: launched right after a launch on NaN inputs, whose
    stages leave NaN bit patterns in shared memory, it must read the stage
    the prologue filled and waited for, not what the earlier kernel left."""
    batch, heads, n_ctx, dtype = 2, 2, 1000, torch.float16
    q, k, v = inputs(batch, heads, heads, n_ctx, head_dim, dtype)
    reason = fits(q, k, v, causal, config)
    if reason is not None:
        pytest.skip(reason)

    def padded(x):
        buf = torch.empty(batch, heads, n_ctx + 64, head_dim, device="cuda", dtype=dtype)
        buf[:, :, n_ctx::2] = float("nan")
        buf[:, :, n_ctx + 1::2] = float("inf")
        buf[:, :, :n_ctx] = x
        return buf[:, :, :n_ctx]

    nan = torch.full_like(q, float("nan"))
    BENCH_KERNELS.attention(nan, nan, nan, causal, None, ATTENTION, config, out=torch.empty_like(q))
    out = torch.full_like(q, float("nan"))
    BENCH_KERNELS.attention(padded(q), padded(k), padded(v), causal, None, ATTENTION, config, out=out)
    torch.cuda.synchronize()
    assert_attention(q, k, v, causal, out, f"non-finite padding D{head_dim} {'causal' if causal else 'full'} "
                                           f"config {config}")


def test_attention_explicit_scale():
    """An sm_scale other than HEAD_DIM ** -0.5 reaches the kernel."""
    q, k, v = inputs(1, 2, 2, 300, 64, torch.float16)
    out = BENCH_KERNELS.attention(q, k, v, False, 0.3, ATTENTION, CONFIG)
    torch.cuda.synchronize()
    assert out.dtype == torch.float16 and out.shape == q.shape
    assert_attention(q, k, v, False, out, "sm_scale 0.3", sm_scale=0.3)


@pytest.mark.parametrize("n_ctx", [1, 17, 1000, 2048])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=NAMES.get)
def test_attention_four_stages(dtype, head_dim, causal, n_ctx):
    """128x64 blocks, 8 warps, 4 stages: the config whose loops
    TILELANG_OVERLAP_PRODUCTS=1 issues S one iteration ahead (it takes
    loops of four stages or more; the default config has three), at the
    same lengths as test_attention: one row, less than a block, a partial
    last block, whole blocks. Run with the knob on and off."""
    config = {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 8, "num_stages": 4}
    check(2, 2, 2, n_ctx, head_dim, dtype, causal, config=config)


# ---------------------------------------------------------------------------
# The tuning space, config by config, and the autotuner over it
# ---------------------------------------------------------------------------


def config_id(cfg):
    return f"{cfg['BLOCK_M']}x{cfg['BLOCK_N']}-w{cfg['num_warps']}-s{cfg['num_stages']}"


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("cfg", SPACES.ATTENTION, ids=config_id)
def test_attention_space_configs(cfg, causal):
    """Every config of the tuning space at HEAD_DIM 128, fp16, 1000 rows
    (no block divides them), grouped-query heads; where the shared-memory
    estimate of the space's prune rules the config out at HEAD_DIM 128, at
    HEAD_DIM 64 instead."""
    head_dim = 128
    if SPACES.attention_shared_estimate(cfg, 128, 2) > 227 * 1024:
        head_dim = 64
    check(1, 4, 2, 1000, head_dim, torch.float16, causal, config=cfg)


@pytest.mark.skipif(WITH != "tilelang", reason="tilelang's autotuner")
def test_attention_autotuned_over_the_space(tmp_path):
    """tilelang.autotune over spaces.ATTENTION with its early prune and
    WHOLE_BLOCKS from heuristics: the configs that cannot fit are pruned
    (before compiling, or on the compiled kernel's shared memory) and do
    not stop the sweep; the winner's output is right; the store names the
    key."""
    tuned = BENCH_KERNELS.attention_tuner(
        ATTENTION, tilelang.autotune, tilelang.heuristics, SPACES.configs(SPACES.ATTENTION),
        SPACES.prune_attention, SPACES.ATTENTION_KEY, work=SPACES.attention_work, warmup=5, rep=20)
    tuned.store_path = str(tmp_path / "autotune.json")  # a store of its own: this sweep times every config
    q, k, v = inputs(1, 8, 2, 1000, 128, torch.float16)
    out, best = BENCH_KERNELS.attention_tuned(tuned, q, k, v, True)
    torch.cuda.synchronize()
    assert_attention(q, k, v, True, out, f"autotuned, best {best}")
    records = tuned.last_sweep["records"]
    assert tuned.last_sweep["key"] == {"N_CTX": 1000, "H_Q": 8, "H_KV": 2, "HEAD_DIM": 128, "CAUSAL": True}
    early = SPACES.prune_attention(SPACES.configs(SPACES.ATTENTION), {"Q": q, "HEAD_DIM": 128})
    assert len(records) == len(early) < len(SPACES.ATTENTION)  # 128x128 at 4 stages: 288 KB
    for record in records:
        assert record["status"] == "ok" or "shared memory" in (record["reason"] or ""), record
    assert best.ident() in {r["id"] for r in records if r["status"] == "ok"}
