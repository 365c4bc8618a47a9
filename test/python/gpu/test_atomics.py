"""Atomics on the GPU, with many programs hitting the same addresses:
tl.atomic_add on fp32 and int32 (and the old values it returns),
tl.atomic_max/min on int32 and fp32, tl.atomic_cas as a lock-free counter
and as the spin lock of Triton's layer-norm backward tutorial, and
tl.atomic_xchg on one shared slot and element-wise.

References are exact: integer arithmetic in int64, and fp32 inputs on a
coarse grid (randn rounded to multiples of 1/64 within +-4), for which every
partial sum is exact in fp32, so the result cannot depend on the order in
which the atomics land; it must equal the float64 sum exactly. Skipped
without a GPU or without torch."""

import pathlib

import pytest

import tilelang
from tilelang_testing import load_module

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

K = load_module("gpu_kernels", pathlib.Path(__file__).with_name("gpu_kernels.py"))

SIZES = [1, 1000, 4096, 100003]


def grid_values(n):
    x = torch.randn(n, device="cuda", dtype=torch.float64).clamp(-4, 4)
    return (torch.round(x * 64) / 64).float()


def slot_reduce(x, init, num_slots, how):
    """init[k] combined with every x[i] with i % num_slots == k (int64/float64)."""
    index = torch.arange(x.numel(), device="cuda") % num_slots
    return init.clone().scatter_reduce(0, index, x, reduce=how, include_self=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("num_slots", [1, 16, 1000])
def test_atomic_add_same_addresses(dtype, n, num_slots):
    if dtype == torch.float32:
        x = grid_values(n)
        init = grid_values(num_slots)
        wide = torch.float64
        # Every partial sum, in any order, is at most sum|x| + |init| < 2**18
        # and a multiple of 1/64: exact in fp32's 24 bits.
        assert x.abs().sum().item() + init.abs().sum().item() < 2**18
    else:
        x = torch.randint(-1000, 1000, (n,), device="cuda", dtype=dtype)
        init = torch.randint(-1000, 1000, (num_slots,), device="cuda", dtype=dtype)
        wide = torch.int64
    out = init.clone()
    block = 256
    K.atomic_add_kernel[(tilelang.cdiv(n, block),)](x, out, n, NUM_SLOTS=num_slots, BLOCK=block)
    ref = slot_reduce(x.to(wide), init.to(wide), num_slots, "sum")
    assert torch.equal(out.to(wide), ref)


@pytest.mark.parametrize("dtype", [torch.int32, torch.float32])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("num_slots", [1, 16, 1000])
def test_atomic_max_min_same_addresses(dtype, n, num_slots):
    if dtype == torch.int32:
        # The whole int32 range: the comparison must be signed.
        x = torch.randint(-(2**31), 2**31 - 1, (n,), device="cuda", dtype=dtype)
        init = torch.randint(-(2**31), 2**31 - 1, (num_slots,), device="cuda", dtype=dtype)
        wide = torch.int64
    else:
        # Both signs, and magnitudes far apart (float max/min by bit pattern).
        x = torch.randn(n, device="cuda") * torch.exp2(torch.randint(-20, 20, (n,), device="cuda").float())
        init = torch.randn(num_slots, device="cuda")
        wide = torch.float64
    maxs, mins = init.clone(), init.clone()
    block = 256
    K.atomic_minmax_kernel[(tilelang.cdiv(n, block),)](x, maxs, mins, n, NUM_SLOTS=num_slots, BLOCK=block)
    assert torch.equal(maxs.to(wide), slot_reduce(x.to(wide), init.to(wide), num_slots, "amax"))
    assert torch.equal(mins.to(wide), slot_reduce(x.to(wide), init.to(wide), num_slots, "amin"))


@pytest.mark.parametrize("n", [1, 1000, 4096, 100003])
def test_atomic_add_returns_distinct_old_values(n):
    counter = torch.zeros(1, device="cuda", dtype=torch.int32)
    tickets = torch.full((n + 10,), -1, device="cuda", dtype=torch.int32)
    block = 256
    K.atomic_ticket_kernel[(tilelang.cdiv(n, block),)](counter, tickets, n, BLOCK=block)
    assert counter.item() == n
    assert torch.equal(tickets[:n].sort().values.long(), torch.arange(n, device="cuda"))
    assert bool((tickets[n:] == -1).all())


@pytest.mark.parametrize("programs", [1, 100, 5000])
def test_atomic_cas_counter(programs):
    counter = torch.zeros(1, device="cuda", dtype=torch.int32)
    tickets = torch.full((programs,), -1, device="cuda", dtype=torch.int32)
    K.cas_counter_kernel[(programs,)](counter, tickets)
    assert counter.item() == programs
    # Every program replaced a different value: the increments serialized.
    assert torch.equal(tickets.sort().values.long(), torch.arange(programs, device="cuda"))


@pytest.mark.parametrize("rows", [1, 64, 1000])
@pytest.mark.parametrize("n", [1, 100, 128])
def test_atomic_cas_spin_lock(rows, n):
    x = torch.stack([grid_values(n) for _ in range(rows)])
    lock = torch.zeros(1, device="cuda", dtype=torch.int32)
    acc = torch.zeros(n, device="cuda")
    failed = torch.zeros(1, device="cuda", dtype=torch.int32)
    K.cas_lock_kernel[(rows,)](lock, acc, x, failed, n, MAX_SPINS=2**20, BLOCK=tilelang.next_power_of_2(n))
    assert failed.item() == 0, f"{failed.item()} programs gave up waiting for the lock"
    assert lock.item() == 0  # released
    # Each guarded read-modify-write saw the previous one's store: exact sums.
    assert torch.equal(acc.double(), x.double().sum(dim=0))


@pytest.mark.parametrize("programs", [1, 257, 4096])
def test_atomic_xchg_chain(programs):
    slot = torch.zeros(1, device="cuda", dtype=torch.int32)
    olds = torch.full((programs,), -1, device="cuda", dtype=torch.int32)
    K.xchg_chain_kernel[(programs,)](slot, olds)
    # Each written value (1..programs) and the initial 0 came out exactly
    # once: taken out by the next exchange, or left in the slot.
    seen = torch.cat([olds, slot]).sort().values.long()
    assert torch.equal(seen, torch.arange(programs + 1, device="cuda"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.int64])
@pytest.mark.parametrize("n", [1, 1000, 4096])
def test_atomic_xchg_elementwise(dtype, n):
    if dtype.is_floating_point:
        before, new = torch.randn(n + 8, device="cuda"), torch.randn(n, device="cuda")
    else:
        lim = 2**31 - 1 if dtype == torch.int32 else 2**62
        before = torch.randint(-lim, lim, (n + 8,), device="cuda", dtype=dtype)
        new = torch.randint(-lim, lim, (n,), device="cuda", dtype=dtype)
    buf = before.clone()
    old = torch.zeros(n, device="cuda", dtype=dtype)
    K.xchg_block_kernel[(tilelang.cdiv(n, 256),)](buf, new, old, n, BLOCK=256)
    assert torch.equal(old, before[:n])
    assert torch.equal(buf[:n], new)
    assert torch.equal(buf[n:], before[n:])
