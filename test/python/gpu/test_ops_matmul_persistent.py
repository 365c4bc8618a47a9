"""tilelang.ops' matmul kernel in its persistent form (matmul_epilogue_kernel
with PERSISTENT) on the GPU, launched directly: fewer programs than tiles
(the grid tilelang.ops launches, spaces.matmul_programs of the device's
multiprocessors, and grids of 1 and 3 programs), each program looping over
its tiles, at ragged M, N and K (K below the block, K a multiple of 8 with
a partial last block, K of no multiple of 8, an even K), with and without a
bias, each activation, fp16 and bf16, against float64 references on fresh
random inputs. Every element is written once: the output starts as NaN.
Skipped without a GPU or torch."""

import math

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

from tilelang.ops import spaces  # noqa: E402
from tilelang.ops._runtime import kernels  # noqa: E402

F = torch.nn.functional
ACTIVATIONS = {"none": lambda z: z, "relu": torch.relu, "gelu": F.gelu, "silu": F.silu}
TOLERANCE = {torch.float16: 4e-3, torch.bfloat16: 3e-2}
# Small tiles (quick to compile) and one of the space's 2-blocks-per-SM tiles.
CONFIGS = [dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=64, GROUP_SIZE_M=4, num_warps=4, num_stages=3),
           dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=4, num_stages=3)]


def _launch(a, b, bias, activation, config, persistent, programs=None):
    m, k = a.shape
    n = b.shape[1]
    out = torch.full((m, n), float("nan"), device="cuda", dtype=a.dtype)
    tiles = -(-m // config["BLOCK_SIZE_M"]) * -(-n // config["BLOCK_SIZE_N"])
    if programs is None:
        sms = torch.cuda.get_device_properties(a.device).multi_processor_count
        programs = spaces.matmul_programs(tiles, persistent, sms)
    strides = (a.stride(0), a.stride(1), b.stride(0), b.stride(1))
    kernels()["matmul_epilogue_kernel"][(programs,)](
        a, b, bias if bias is not None else out, out, m, n, k, *strides, n, 1, HAS_BIAS=bias is not None,
        ACTIVATION=activation, EVEN_K=k % config["BLOCK_SIZE_K"] == 0, K_GROUP=8 if k % 8 == 0 else 0,
        STRIDES_OF_8=sum(1 << i for i, s in enumerate(strides) if s % 8 == 0), OFFSETS_64=False,
        PERSISTENT=persistent, **config)
    return out


def _check(out, a, b, bias, activation, what):
    z = a.double() @ b.double() + (bias.double() if bias is not None else 0)
    ref = ACTIVATIONS[activation](z)
    assert torch.isfinite(out).all(), f"{what}: an element not written (NaN) or not finite"
    error = ((out.double() - ref).abs().max() / ref.abs().max()).item()
    assert error <= TOLERANCE[a.dtype], f"{what}: error {error:.2e}"


@pytest.mark.parametrize("config", CONFIGS, ids=["64x64x64", "128x128x64"])
@pytest.mark.parametrize("persistent", [1, 2])
@pytest.mark.parametrize("m,k,n", [(300, 40, 129), (1000, 1000, 700), (517, 333, 1000), (2000, 256, 1500)])
def test_persistent_matmul(config, persistent, m, k, n):
    torch.manual_seed(m + k + n + persistent)
    for dtype, activation, with_bias in ((torch.float16, "gelu", True), (torch.bfloat16, "silu", False)):
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype) / math.sqrt(k)
        bias = torch.randn(n, device="cuda", dtype=dtype) if with_bias else None
        out = _launch(a, b, bias, activation, config, persistent)
        _check(out, a, b, bias, activation, f"{m}x{k}x{n} {dtype} {activation} P{persistent}")


@pytest.mark.parametrize("programs", [1, 3])
@pytest.mark.parametrize("activation", list(ACTIVATIONS))
def test_few_programs_cover_every_tile(programs, activation):
    """1 and 3 programs for the 12 x 10 tiles of a 700 x 600 product in
    64 x 64 blocks: each program loops over 40 to 120 tiles."""
    torch.manual_seed(programs)
    a = torch.randn(700, 1000, device="cuda", dtype=torch.float16)
    b = torch.randn(600, 1000, device="cuda", dtype=torch.float16).t() / math.sqrt(1000)  # column-major B
    bias = torch.randn(600, device="cuda", dtype=torch.float16) if activation != "none" else None
    out = _launch(a, b, bias, activation, CONFIGS[0], 1, programs=programs)
    _check(out, a, b, bias, activation, f"{programs} programs {activation}")


@pytest.mark.parametrize("config", [c for c in spaces.MATMUL_OPS if c.get("PERSISTENT")],
                         ids=lambda c: f"{c['BLOCK_SIZE_M']}x{c['BLOCK_SIZE_N']}x{c['BLOCK_SIZE_K']}_s{c['num_stages']}")
def test_the_spaces_persistent_configs(config):
    """The persistent configs tilelang.ops' space holds (spaces.MATMUL_OPS:
    128x256x64 on 8 warps), on the device's grid, at ragged shapes of more
    tiles than an H200 has SMs (144 and 136: some programs take two), K a
    multiple of 8 and K of no multiple of 8."""
    options = {name: value for name, value in config.items() if name != "PERSISTENT"}
    torch.manual_seed(config["num_stages"])
    for (m, k, n), dtype, activation, with_bias in (((3000, 1000, 1500), torch.float16, "gelu", True),
                                                   ((2100, 333, 2000), torch.bfloat16, "silu", False)):
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype) / math.sqrt(k)
        bias = torch.randn(n, device="cuda", dtype=dtype) if with_bias else None
        out = _launch(a, b, bias, activation, options, config["PERSISTENT"])
        _check(out, a, b, bias, activation, f"{m}x{k}x{n} {dtype} {activation} {config}")
