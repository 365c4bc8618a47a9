"""The interpreter on the GPU suite's atomics (programs run one after
another, so every result is exact) and random numbers (bit-identical to
the Philox reference, which the GPU tests check the compiled kernels
against), and dropout."""

import pathlib

import numpy as np
import pytest

import tilelang
import tilelang.language as tl
from interp_testing import gpu_kernels, interpreted, run
from tilelang_testing import load_module

RNG = np.random.default_rng(11)
philox_reference = load_module("philox_reference",
                               pathlib.Path(__file__).parents[1] / "frontend" / "philox_reference.py")


@pytest.mark.parametrize("dtype", [np.float32, np.int32], ids=["fp32", "i32"])
@pytest.mark.parametrize("n", [1, 1000, 4096 + 5])
def test_atomic_add_min_max(dtype, n):
    slots = 7
    x = (RNG.integers(-1000, 1000, size=n) if dtype == np.int32 else RNG.standard_normal(n)).astype(dtype)
    out = np.zeros(slots, dtype)
    run(gpu_kernels.atomic_add_kernel, (tilelang.cdiv(n, 256),), x, out, n, NUM_SLOTS=slots, BLOCK=256)
    want = np.array([x[i::slots].astype(np.float64).sum() for i in range(slots)])
    if dtype == np.int32:
        np.testing.assert_array_equal(out, want.astype(np.int64))
    else:
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
    hi = np.full(slots, np.iinfo(np.int32).min if dtype == np.int32 else -np.inf, dtype)
    lo = np.full(slots, np.iinfo(np.int32).max if dtype == np.int32 else np.inf, dtype)
    run(gpu_kernels.atomic_minmax_kernel, (tilelang.cdiv(n, 256),), x, hi, lo, n, NUM_SLOTS=slots, BLOCK=256)
    for i in range(min(slots, n)):
        assert hi[i] == x[i::slots].max() and lo[i] == x[i::slots].min()


def test_atomic_tickets_are_a_permutation():
    n = 3000
    counter, tickets = np.zeros(1, np.int32), np.full(n, -1, np.int32)
    run(gpu_kernels.atomic_ticket_kernel, (tilelang.cdiv(n, 512),), counter, tickets, n, BLOCK=512)
    assert counter[0] == n
    np.testing.assert_array_equal(np.sort(tickets), np.arange(n))


def test_cas_counter_lock_and_exchange():
    programs = 50
    counter, tickets = np.zeros(1, np.int32), np.full(programs, -1, np.int32)
    run(gpu_kernels.cas_counter_kernel, (programs,), counter, tickets)
    assert counter[0] == programs
    np.testing.assert_array_equal(np.sort(tickets), np.arange(programs))
    rows, n = 20, 300
    x = RNG.standard_normal((rows, n)).astype(np.float32)
    lock, acc, failed = np.zeros(1, np.int32), np.zeros(n, np.float32), np.zeros(1, np.int32)
    run(gpu_kernels.cas_lock_kernel, (rows,), lock, acc, x, failed, n, MAX_SPINS=100, BLOCK=512)
    assert failed[0] == 0 and lock[0] == 0
    np.testing.assert_allclose(acc, x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5)
    slot, old = np.zeros(1, np.int32), np.full(programs, -1, np.int32)
    run(gpu_kernels.xchg_chain_kernel, (programs,), slot, old)
    np.testing.assert_array_equal(np.sort(np.append(old, slot[0])), np.arange(programs + 1))
    buf = RNG.integers(0, 100, size=1000).astype(np.int32)
    before, new, got = buf.copy(), RNG.integers(0, 100, size=1000).astype(np.int32), np.zeros(1000, np.int32)
    run(gpu_kernels.xchg_block_kernel, (4,), buf, new, got, 1000, BLOCK=256)
    np.testing.assert_array_equal(got, before)
    np.testing.assert_array_equal(buf, new)


@interpreted
def draw(out_rand, out_int, out_normal, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_rand + offs, tl.rand(seed, offs), mask=mask)
    tl.store(out_int + offs, tl.randint(seed, offs), mask=mask)
    tl.store(out_normal + offs, tl.randn(seed, offs), mask=mask)


@interpreted
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    # test/python/gpu/test_random.py's kernel.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@pytest.mark.parametrize("seed", [0, 123, 2**31 + 7])
def test_random_numbers_match_the_philox_reference(seed):
    n = 1000
    rand, ints, normal = np.zeros(n, np.float32), np.zeros(n, np.int32), np.zeros(n, np.float32)
    draw[(tilelang.cdiv(n, 256),)](rand, ints, normal, seed, n, BLOCK=256)
    c = philox_reference.philox_reference(seed, list(range(n)))
    np.testing.assert_array_equal(ints.view(np.uint32), np.array(c[0], dtype=np.uint32))  # bit for bit

    def uniform(u):
        s = np.array(u, dtype=np.uint32).view(np.int32).astype(np.int64)
        s = np.where(s < 0, -s - 1, s)
        return (s.astype(np.float32) * np.float32(4.6566127342e-10)).astype(np.float32)

    np.testing.assert_array_equal(rand, uniform(c[0]))
    u1, u2 = np.maximum(uniform(c[0]).astype(np.float64), 1e-7), uniform(c[1]).astype(np.float64)
    np.testing.assert_allclose(normal, np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * u2), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [4096, 100003])
@pytest.mark.parametrize("p", [0.25, 0.5])
def test_dropout_keeps_and_scales(n, p):
    x = RNG.standard_normal(n).astype(np.float32)
    out, again = np.zeros_like(x), np.zeros_like(x)
    dropout[(tilelang.cdiv(n, 1024),)](x, out, n, p, 42, BLOCK=1024)
    dropout[(tilelang.cdiv(n, 1024),)](x, again, n, p, 42, BLOCK=1024)
    np.testing.assert_array_equal(out, again)
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / np.float32(1 - p), rtol=1e-6)
    assert abs(kept.mean() - (1 - p)) < 0.02


@interpreted
def philox_blocks(out, seed, base, c1, N_ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    # tl.philox with counters of its own: (base + i, c1, 0, 7) under seed.
    offs = tl.arange(0, BLOCK)
    r0, r1, r2, r3 = tl.philox(seed, base + offs, c1, 0, 7, N_ROUNDS)
    tl.store(out + offs, r0)
    tl.store(out + BLOCK + offs, r1)
    tl.store(out + 2 * BLOCK + offs, r2)
    tl.store(out + 3 * BLOCK + offs, r3)


@pytest.mark.parametrize("bits,seed,base,rounds", [(32, 5, 2**31 - 100, 10), (32, -3, 17, 7),
                                                   (64, 2**40 + 9, 2**33 + 1, 10), (64, 1, -64, 6)])
def test_philox_counters_and_widths_match_the_reference(bits, seed, base, rounds):
    # language/random.py runs as Python here: every counter, the key's two
    # halves (32-bit) or (seed, 0) (64-bit) and the rounds, bit for bit.
    block = 64
    udt, idt = (np.uint32, np.int32) if bits == 32 else (np.uint64, np.int64)
    out = np.zeros(4 * block, udt)
    c1 = idt(-2)
    run(philox_blocks, (1,), out, np.int64(seed), idt(base), c1, N_ROUNDS=rounds, BLOCK=block)
    mask = (1 << bits) - 1
    s = seed & (2**64 - 1)
    k0, k1 = (s & 0xFFFFFFFF, s >> 32) if bits == 32 else (s, 0)
    want = [philox_reference.philox_impl((base + i) & mask, int(c1) & mask, 0, 7, k0, k1, rounds, bits)
            for i in range(block)]
    np.testing.assert_array_equal(out.reshape(4, block).T, np.array(want, dtype=udt))
