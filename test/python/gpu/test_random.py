"""tl.rand and friends on the GPU: the same kernel source compiled by
tilelang and by Triton (when installed) draws the same numbers, and they
match the pure-Python Philox reference. Skipped without a GPU."""

import pathlib

import pytest

import tilelang
import tilelang.language as tl
from tilelang_testing import load_module

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

philox_reference = load_module("philox_reference",
                               pathlib.Path(__file__).parents[1] / "frontend" / "philox_reference.py")


def make_kernels(jit, language):
    @jit
    def draw(out_rand, out_int, seed, n, BLOCK: language.constexpr):
        offs = language.program_id(0) * BLOCK + language.arange(0, BLOCK)
        mask = offs < n
        language.store(out_rand + offs, language.rand(seed, offs), mask=mask)
        language.store(out_int + offs, language.randint(seed, offs), mask=mask)

    @jit
    def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: language.constexpr):
        offs = language.program_id(0) * BLOCK + language.arange(0, BLOCK)
        mask = offs < n
        x = language.load(x_ptr + offs, mask=mask)
        keep = language.rand(seed, offs) > p
        language.store(out_ptr + offs, language.where(keep, x / (1 - p), 0.0), mask=mask)

    return draw, dropout


draw, dropout = make_kernels(tilelang.jit, tl)


@pytest.mark.parametrize("seed", [0, 123, 2**31 + 7])
def test_randint_matches_the_reference(seed):
    n = 1000
    rand = torch.full((n,), float("nan"), device="cuda")
    ints = torch.zeros(n, device="cuda", dtype=torch.int32)
    draw[(tilelang.cdiv(n, 256),)](rand, ints, seed, n, BLOCK=256)
    got = ints.cpu().tolist()
    for offset in (0, 1, 17, 999):
        want = philox_reference.philox_reference(seed, offset)[0]
        assert got[offset] & 0xFFFFFFFF == want, offset
    assert 0.0 <= rand.min().item() and rand.max().item() < 1.0
    assert abs(rand.mean().item() - 0.5) < 0.05


def test_same_numbers_as_triton():
    triton = pytest.importorskip("triton")
    import triton.language as ttl

    triton_draw, _ = make_kernels(triton.jit, ttl)
    n, seed = 4096 + 3, 987654
    ours = [torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda", dtype=torch.int32)]
    theirs = [torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda", dtype=torch.int32)]
    draw[(tilelang.cdiv(n, 256),)](*ours, seed, n, BLOCK=256)
    triton_draw[(tilelang.cdiv(n, 256),)](*theirs, seed, n, BLOCK=256)
    assert torch.equal(ours[1], theirs[1])
    assert torch.equal(ours[0], theirs[0])


def test_dropout_keeps_and_scales():
    n, p, seed = 70001, 0.3, 42
    x = torch.randn(n, device="cuda")
    out = torch.full_like(x, float("nan"))
    dropout[(tilelang.cdiv(n, 1024),)](x, out, n, p, seed, BLOCK=1024)
    rand = torch.zeros(n, device="cuda")
    draw[(tilelang.cdiv(n, 1024),)](rand, torch.zeros(n, device="cuda", dtype=torch.int32), seed, n, BLOCK=1024)
    expected = torch.where(rand > p, x.double() / (1 - p), 0.0)
    assert (out.double() - expected).abs().max().item() < 1e-5
    assert abs((out == 0).double().mean().item() - p) < 0.02
