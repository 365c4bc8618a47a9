"""tl.join, tl.split, tl.interleave, tl.cat, tl.flip and tl.clamp on the GPU
(issue 21, item 3), against torch's stack/unbind/cat/flip/clamp on fresh
random inputs in several element types, 1-D and 2-D, along each dimension.
Every result must be exact: these ops only move or select elements. Output
buffers start poisoned and extend past the result. Skipped without a GPU or
without torch."""

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

DTYPES = {"fp16": torch.float16, "fp32": torch.float32, "i32": torch.int32, "bf16": torch.bfloat16}


def random(shape, dtype):
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda").to(dtype)
    return torch.randint(-2**31, 2**31 - 1, shape, device="cuda", dtype=dtype)


def poisoned(n, dtype):
    return torch.full((n,), -77, device="cuda", dtype=dtype)


@tilelang.jit
def join_split_kernel(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    y = tl.load(y_ptr + rows * N + cols)
    j = tl.join(x, y)  # [M, N, 2]
    k = tl.arange(0, 2)[None, None, :]
    tl.store(out_ptr + (rows * N + cols)[:, :, None] * 2 + k, j)
    a, b = tl.split(j)
    tl.store(out_ptr + 2 * M * N + rows * N + cols, a)
    tl.store(out_ptr + 3 * M * N + rows * N + cols, b)
    tl.store(out_ptr + 4 * M * N + rows * (2 * N) + tl.arange(0, 2 * N)[None, :], tl.interleave(x, y))


@pytest.mark.parametrize("dt", sorted(DTYPES))
def test_join_split_interleave(dt):
    M, N = 8, 32
    dtype = DTYPES[dt]
    x, y = random((M, N), dtype), random((M, N), dtype)
    out = poisoned(6 * M * N + 16, dtype)
    join_split_kernel[(1,)](x, y, out, M=M, N=N)
    torch.cuda.synchronize()
    stacked = torch.stack([x, y], dim=-1)
    assert torch.equal(out[:2 * M * N].view(M, N, 2), stacked)
    assert torch.equal(out[2 * M * N:3 * M * N].view(M, N), x)
    assert torch.equal(out[3 * M * N:4 * M * N].view(M, N), y)
    assert torch.equal(out[4 * M * N:6 * M * N].view(M, 2 * N), stacked.reshape(M, 2 * N))
    assert torch.all(out[6 * M * N:] == -77)


@tilelang.jit
def cat_flip_kernel(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    y = tl.load(y_ptr + rows * N + cols)
    tl.store(out_ptr + tl.arange(0, 2 * M)[:, None] * N + cols, tl.cat(x, y, can_reorder=True))
    base = 2 * M * N
    tl.store(out_ptr + base + rows * N + cols, tl.flip(x, 0))
    tl.store(out_ptr + base + M * N + rows * N + cols, tl.flip(x, 1))
    tl.store(out_ptr + base + 2 * M * N + rows * N + cols, tl.flip(x))
    v = tl.load(x_ptr + tl.arange(0, M * N))
    tl.store(out_ptr + base + 3 * M * N + tl.arange(0, M * N), tl.flip(v, 0))
    tl.store(out_ptr + base + 4 * M * N + tl.arange(0, 2 * M * N), tl.cat(v, v.flip(0)))


@pytest.mark.parametrize("dt", sorted(DTYPES))
def test_cat_and_flip(dt):
    M, N = 16, 8
    dtype = DTYPES[dt]
    x, y = random((M, N), dtype), random((M, N), dtype)
    out = poisoned(8 * M * N + 16, dtype)
    cat_flip_kernel[(1,)](x, y, out, M=M, N=N)
    torch.cuda.synchronize()
    base = 2 * M * N
    assert torch.equal(out[:base].view(2 * M, N), torch.cat([x, y], 0))
    assert torch.equal(out[base:base + M * N].view(M, N), x.flip(0))
    assert torch.equal(out[base + M * N:base + 2 * M * N].view(M, N), x.flip(1))
    assert torch.equal(out[base + 2 * M * N:base + 3 * M * N].view(M, N), x.flip(1))
    v = x.reshape(-1)
    assert torch.equal(out[base + 3 * M * N:base + 4 * M * N], v.flip(0))
    assert torch.equal(out[base + 4 * M * N:base + 6 * M * N], torch.cat([v, v.flip(0)]))
    assert torch.all(out[base + 6 * M * N:] == -77)


@tilelang.jit
def clamp_kernel(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.clamp(x, lo, hi), mask=mask)


def test_clamp():
    n = 1000
    x = torch.randn(n, device="cuda") * 3
    out = torch.full((n + 24,), -77.0, device="cuda")
    clamp_kernel[(tilelang.cdiv(n, 128),)](x, out, -1.5, 2.25, n, BLOCK=128)
    torch.cuda.synchronize()
    assert torch.equal(out[:n], x.clamp(-1.5, 2.25))
    assert torch.all(out[n:] == -77.0)


@tilelang.jit
def ravel_or_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(out_ptr + tl.arange(0, M * N), tl.ravel(x))
    tl.store(out_ptr + M * N + tl.arange(0, M), tl.reduce_or(x, 1))
    tl.store(out_ptr + M * N + M + tl.arange(0, N), tl.reduce_or(x, 0))


def test_ravel_and_reduce_or():
    M, N = 16, 32
    x = random((M, N), torch.int32)
    out = poisoned(M * N + M + N + 8, torch.int32)
    ravel_or_kernel[(1,)](x, out, M=M, N=N)
    torch.cuda.synchronize()
    assert torch.equal(out[:M * N], x.reshape(-1))

    def bitwise_or(t, dim):
        acc = torch.zeros_like(t.select(dim, 0))
        for k in range(t.shape[dim]):
            acc |= t.select(dim, k)
        return acc

    assert torch.equal(out[M * N:M * N + M], bitwise_or(x, 1))
    assert torch.equal(out[M * N + M:M * N + M + N], bitwise_or(x, 0))
    assert torch.all(out[M * N + M + N:] == -77)


@tilelang.jit
def sort_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    tl.store(out_ptr + rows * N + cols, tl.sort(x))
    tl.store(out_ptr + M * N + rows * N + cols, x.sort(descending=True))
    tl.store(out_ptr + 2 * M * N + rows * K + tl.arange(0, K)[None, :], tl.topk(x, K))
    v = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + 2 * M * N + M * K + tl.arange(0, N), tl.sort(v, 0))


@pytest.mark.parametrize("dt", ["fp32", "i32", "fp16"])
def test_sort_and_topk(dt):
    M, N, K = 8, 64, 8
    dtype = DTYPES[dt]
    x = random((M, N), dtype)
    if dtype.is_floating_point:
        x[0, :8] = x[0, 8:16]  # ties
    out = poisoned(2 * M * N + M * K + N + 8, dtype)
    sort_kernel[(1,)](x, out, M=M, N=N, K=K)
    torch.cuda.synchronize()
    assert torch.equal(out[:M * N].view(M, N), torch.sort(x, dim=1).values)
    assert torch.equal(out[M * N:2 * M * N].view(M, N), torch.sort(x, dim=1, descending=True).values)
    top = out[2 * M * N:2 * M * N + M * K].view(M, K)
    assert torch.equal(top, torch.topk(x, K, dim=1, sorted=True).values)
    assert torch.equal(out[2 * M * N + M * K:2 * M * N + M * K + N], torch.sort(x[0]).values)
    assert torch.all(out[2 * M * N + M * K + N:] == -77)


@tilelang.jit
def gather_kernel(x_ptr, i_ptr, j_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    i = tl.load(i_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])  # [M, K] into axis 1
    j = tl.load(j_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])  # [K, N] into axis 0
    tl.store(out_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], tl.gather(x, i, 1))
    tl.store(out_ptr + M * K + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :], tl.gather(x, j, 0))


@pytest.mark.parametrize("dt", ["fp16", "i32"])
def test_gather(dt):
    M, N, K = 16, 32, 64
    dtype = DTYPES[dt]
    x = random((M, N), dtype)
    i = torch.randint(0, N, (M, K), device="cuda", dtype=torch.int32)
    j = torch.randint(0, M, (K, N), device="cuda", dtype=torch.int32)
    out = poisoned(M * K + K * N + 8, dtype)
    gather_kernel[(1,)](x, i, j, out, M=M, N=N, K=K)
    torch.cuda.synchronize()
    assert torch.equal(out[:M * K].view(M, K), torch.gather(x, 1, i.long()))
    assert torch.equal(out[M * K:M * K + K * N].view(K, N), torch.gather(x, 0, j.long()))
    assert torch.all(out[M * K + K * N:] == -77)


@tilelang.jit
def histogram_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


def test_histogram():
    n, block, bins = 1000, 1024, 32
    x = torch.randint(-4, bins + 4, (n,), device="cuda", dtype=torch.int32)  # some outside the bins
    out = poisoned(bins + 8, torch.int32)
    histogram_kernel[(1,)](x, out, n, BLOCK=block, BINS=bins)
    torch.cuda.synchronize()
    inside = x[(x >= 0) & (x < bins)].long()
    assert torch.equal(out[:bins].long(), torch.bincount(inside, minlength=bins))
    assert torch.all(out[bins:] == -77)
