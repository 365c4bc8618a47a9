"""The miscompiles of issue 20 (item 1), run on the GPU: a run-time `if`
whose branches assign the same value, loops over unsigned 32- and 64-bit
bounds that straddle 2^31 and 2^63, and conditional expressions whose sides
have effects (only the chosen side runs). test/python/frontend/
test_miscompiles.py checks the same kernels' IR without a GPU. Skipped
without a GPU or without torch."""

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


@tilelang.jit
def same_value_in_both_branches(out, a, n):
    x = 0
    y = 0.0
    if n > 5:
        x = 1
        y = a
    else:
        x = 1
        y = a
    tl.store(out, x + y)


@pytest.mark.parametrize("n", [3, 7])
def test_if_whose_branches_assign_the_same_value(n):
    out = torch.zeros(1, device="cuda")
    same_value_in_both_branches[(1,)](out, 2.5, n)
    assert out.item() == 3.5


@tilelang.jit
def store_each_index(out, m, n):
    for i in range(m, n):
        tl.store(out + (i - m), i)


@pytest.mark.parametrize("m,n", [(2**31 - 2, 2**31 + 2),    # u32, straddling 2^31
                                 (2**32 - 3, 2**32 - 1),
                                 (2**63 - 2, 2**63 + 2),    # u64, straddling 2^63
                                 (2**64 - 4, 2**64 - 1)])
def test_range_over_unsigned_bounds(m, n):
    out = torch.full((8,), -1, device="cuda", dtype=torch.int64)
    store_each_index[(1,)](out, m, n)
    want = [(m + k + 2**63) % 2**64 - 2**63 for k in range(n - m)]  # as int64
    assert out.tolist() == want + [-1] * (8 - len(want))


@tilelang.jit
def atomic_in_one_program(counter, out):
    pid = tl.program_id(0)
    v = tl.atomic_add(counter, 1) if pid == 0 else -1
    tl.store(out + pid, v)


def test_conditional_expression_runs_the_atomic_in_one_program():
    counter = torch.full((1,), 10, device="cuda", dtype=torch.int32)
    out = torch.zeros(64, device="cuda", dtype=torch.int32)
    atomic_in_one_program[(64,)](counter, out)
    assert counter.item() == 11
    assert out.tolist() == [10] + [-1] * 63


@tilelang.jit
def stores_in_both_sides(out, c, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, 1.0) if c > 0 else tl.store(out + offs, 2.0)


@pytest.mark.parametrize("c,want", [(5, 1.0), (-3, 2.0)])  # not 1: that would be a constexpr
def test_conditional_expression_of_two_stores_runs_one(c, want):
    out = torch.zeros(128, device="cuda")
    stores_in_both_sides[(1,)](out, c, BLOCK=128)
    assert (out == want).all()
