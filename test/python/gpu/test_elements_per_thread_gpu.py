"""The per-thread element limit on the GPU (issue 20, item 3): a block at
the limit (1,024 elements a thread: 2**15 at one warp, and 2**16 at the two
warps the error suggests for it) compiles, links and computes the right
values; a block over it is refused at its first launch with the located
error, before anything runs. The kernel is unmasked (sizes are whole
blocks) so that ptxas, whose time grows with the count, stays at seconds.
Skipped without a GPU."""

import pathlib

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

FILE = str(pathlib.Path(__file__).resolve())


@tilelang.jit
def scale_shift(x, y, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # HERE
    tl.store(y + offs, tl.load(x + offs) * 2.5 + 1.0)


def marked_line():
    for number, text in enumerate(pathlib.Path(FILE).read_text().splitlines(), 1):
        if text.rstrip().endswith("# HERE"):
            return number
    raise AssertionError("no marked line")


@pytest.mark.parametrize("block, num_warps", [(2**15, 1), (2**16, 2)])
def test_block_at_the_limit_runs(block, num_warps):
    n = 3 * block
    x = torch.randn(n, device="cuda")
    y = torch.full_like(x, float("nan"))
    scale_shift[(3,)](x, y, BLOCK=block, num_warps=num_warps)
    torch.cuda.synchronize()
    torch.testing.assert_close(y.double(), x.double() * 2.5 + 1.0, rtol=1e-6, atol=1e-6)


def test_block_over_the_limit_is_refused_at_launch():
    block = 2**16
    x = torch.randn(block, device="cuda")
    y = torch.full_like(x, float("nan"))
    with pytest.raises(tilelang.CompilationError) as info:
        scale_shift[(1,)](x, y, BLOCK=block, num_warps=1)
    err = info.value
    assert (err.file, err.line) == (FILE, marked_line()), str(err)
    assert "puts 2048 elements in each thread at num_warps=1" in str(err), str(err)
    assert "launch with num_warps=2 or more" in str(err), str(err)
    torch.cuda.synchronize()
    assert torch.isnan(y).all()
