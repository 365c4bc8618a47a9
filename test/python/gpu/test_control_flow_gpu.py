"""Early exits and loops on the GPU (issue 21): `if ...: return` as the first
line (an elementwise kernel and the tutorial matmul, whose pipelined loop
then sits under the guard), `return` and `break` inside loops, `continue`,
`while` loops with run-time trip counts (zero included) and `range` with
negative and run-time steps.

Inputs are small integers held in floating point, so every sum the kernels
form is exact and the results must equal the float64 references exactly
(the matmul is checked against a float64 product with fp16 rounding's
bound). Output buffers start poisoned and extend past the result, so both
missing and stray writes show; sizes are not multiples of the blocks.
Skipped without a GPU or without torch."""

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

POISON = -12345.0


def small_ints(*shape, lo=-8, hi=8):
    return torch.randint(lo, hi, shape, device="cuda").to(torch.float32)


@tilelang.jit
def early_exit_scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)


def test_first_line_return():
    n, block = 1000, 128
    x = small_ints(n + 300)
    out = torch.full((n + 300,), POISON, device="cuda")
    early_exit_scale[(tilelang.cdiv(n, block) + 3,)](x, out, n, BLOCK=block)
    torch.cuda.synchronize()
    assert torch.equal(out[:n], x[:n] * 3)
    assert torch.all(out[n:] == POISON)


@tilelang.jit
def matmul_early_exit(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    if pid_m * BLOCK_M >= M:
        return
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def test_matmul_with_early_exit():
    M, N, K = 200, 136, 100
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M + 64, N), float("nan"), device="cuda", dtype=torch.float16)
    grid = (tilelang.cdiv(M, 64) + 2, tilelang.cdiv(N, 64))
    matmul_early_exit[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    bound = 2.0**-10 * ref.abs() + K * 2.0**-22 * (a.double().abs() @ b.double().abs()) + 1e-6
    assert torch.all((c[:M].double() - ref).abs() <= bound)
    assert torch.all(torch.isnan(c[M:]))


@tilelang.jit
def first_above(x_ptr, out_ptr, n_cols, stride, thr, BLOCK: tl.constexpr, USE_RETURN: tl.constexpr):
    """The first column of a row above ``thr`` (-1 if none): a loop over the
    row's blocks that leaves at the first hit, by `break` or by `return`."""
    row = tl.program_id(0)
    found = -1
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=-1e30)
        hit = tl.min(tl.where(v > thr, offs, n_cols + BLOCK), axis=0)
        if hit < n_cols:
            found = hit
            if USE_RETURN:
                tl.store(out_ptr + row, found)
                return
            break
    tl.store(out_ptr + row, found)


@pytest.mark.parametrize("use_return", [False, True])
def test_leaving_a_loop_at_the_first_hit(use_return):
    rows, cols = 37, 1000
    x = small_ints(rows, cols, lo=-100, hi=100)
    x[5] = -50.0  # a row without a hit
    thr = 97.0
    out = torch.full((rows + 5,), -7, device="cuda", dtype=torch.int32)
    first_above[(rows,)](x, out, cols, x.stride(0), thr, BLOCK=128, USE_RETURN=use_return)
    torch.cuda.synchronize()
    hits = x > thr
    want = torch.where(hits.any(dim=1), hits.int().argmax(dim=1), torch.full((rows,), -1, device="cuda"))
    assert torch.equal(out[:rows].long(), want.long())
    assert torch.all(out[rows:] == -7)


@tilelang.jit
def segment_sums(x_ptr, starts_ptr, out_ptr, BLOCK: tl.constexpr):
    """Sums of segments [starts[i], starts[i+1]) by a `while` loop whose trip
    count is read from memory (zero for empty segments); blocks whose first
    element is negative are skipped (`continue`)."""
    seg = tl.program_id(0)
    start = tl.load(starts_ptr + seg)
    end = tl.load(starts_ptr + seg + 1)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    pos = start
    while pos < end:
        offs = pos + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + offs, mask=offs < end, other=0.0)
        first = tl.load(x_ptr + pos)
        pos += BLOCK
        if first < 0:
            continue
        acc += v
    tl.store(out_ptr + seg, tl.sum(acc, axis=0))


def test_while_with_run_time_trip_counts():
    lengths = [0, 5, 300, 0, 64, 129, 1]
    starts = torch.tensor([0] + list(torch.tensor(lengths).cumsum(0)), dtype=torch.int32, device="cuda")
    total = int(starts[-1])
    x = small_ints(total + 1)
    out = torch.full((len(lengths) + 3,), POISON, device="cuda")
    block = 64
    segment_sums[(len(lengths),)](x, starts, out, BLOCK=block)
    torch.cuda.synchronize()
    want = []
    for s, e in zip(starts[:-1].tolist(), starts[1:].tolist()):
        acc = 0.0
        for p in range(s, e, block):
            if x[p] < 0:
                continue
            acc += float(x[p:min(p + block, e)].double().sum())
        want.append(acc)
    assert out[:len(lengths)].tolist() == want
    assert torch.all(out[len(lengths):] == POISON)


@tilelang.jit
def reverse_blocks(x_ptr, out_ptr, n, step, BLOCK: tl.constexpr):
    """out[i] = x[n-1-i] block by block, walking x backwards with a negative
    constant step; then out2 = x walked with the run-time ``step`` (a
    negative or positive number of blocks)."""
    nb = tl.cdiv(n, BLOCK)
    for b in range(nb - 1, -1, -1):
        offs = b * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(out_ptr + (n - 1 - offs), v, mask=offs < n)
    first = 0
    last = nb
    if step < 0:
        first = nb - 1
        last = -1
    k = 0
    for b in range(first, last, step):
        offs = b * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(out_ptr + n + k * BLOCK + tl.arange(0, BLOCK), v, mask=offs < n)
        k += 1


@pytest.mark.parametrize("step", [-2, -1, 1, 3])
def test_negative_and_run_time_steps(step):
    n, block = 1000, 128
    nb = tilelang.cdiv(n, block)
    x = small_ints(n)
    out = torch.full((n + nb * block + 64,), POISON, device="cuda")
    reverse_blocks[(1,)](x, out, n, step, BLOCK=block)
    torch.cuda.synchronize()
    assert torch.equal(out[:n], x.flip(0))
    order = list(range(nb - 1, -1, step)) if step < 0 else list(range(0, nb, step))
    want = torch.full((nb * block + 64,), POISON, device="cuda")
    for k, b in enumerate(order):
        chunk = x[b * block:min((b + 1) * block, n)]
        want[k * block:k * block + len(chunk)] = chunk
    assert torch.equal(out[n:], want)


@tilelang.jit
def triangle_counts(out_ptr, n, limit):
    """Nested loops with `break` in the inner one and `continue` in both."""
    i = tl.program_id(0)
    count = 0
    for j in range(n):
        if j % 5 == 4:
            continue
        for k in range(j, n):
            if k * j > limit:
                break
            if (k + i) % 3 == 0:
                continue
            count += 1
    tl.store(out_ptr + i, count)


def test_nested_break_and_continue():
    n, limit, programs = 40, 300, 6
    out = torch.full((programs + 2,), -1, device="cuda", dtype=torch.int32)
    triangle_counts[(programs,)](out, n, limit)
    torch.cuda.synchronize()
    want = []
    for i in range(programs):
        count = 0
        for j in range(n):
            if j % 5 == 4:
                continue
            for k in range(j, n):
                if k * j > limit:
                    break
                if (k + i) % 3 == 0:
                    continue
                count += 1
        want.append(count)
    assert out[:programs].tolist() == want
    assert out[programs:].tolist() == [-1, -1]
