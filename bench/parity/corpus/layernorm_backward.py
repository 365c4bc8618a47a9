"""LayerNorm backward in the form of Triton's tutorial 05: one row per
program computes dx with the whole row in registers and adds its dw and db
terms into one of GROUP_SIZE_M partial-sum rows, taken under a spin lock
(`tl.atomic_cas` / `tl.atomic_xchg`, a count marking the first writer);
a second kernel sums the GROUP_SIZE_M partial rows. The tutorial's host
heuristics: BLOCK_SIZE_N and num_warps as its forward picks them,
GROUP_SIZE_M by the row length, fp16 partial buffers, the reduction with
32x128 blocks and num_ctas=1. The static mode compiles the dx kernel; a
launch runs both."""

import parity_spec
import triton
import triton.language as tl


@triton.jit
def _layer_norm_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                             GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    # Rows share GROUP_SIZE_M partial-sum rows round robin; each has a lock
    # and, GROUP_SIZE_M further on, a count saying whether it holds a value.
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    # dx = rstd * (w*dy - (xhat * mean(xhat*w*dy) + mean(w*dy))); the padding
    # columns must not enter the two means.
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.0)
    wdy = tl.where(mask, wdy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    # The first program on a partial row stores; later ones add to it.
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    # Every thread's stores must be done before the lock is released.
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def _layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    # One program per BLOCK_SIZE_N columns sums the M partial rows.
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.0)
        db += tl.load(DB + offs, mask=mask, other=0.0)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


def block_size(N, element_size):
    """The tutorial forward's block (the backward reuses it): the whole
    row, up to 64 KB of it."""
    return min(65536 // element_size, triton.next_power_of_2(N))


def group_size_m(N):
    """How many partial-sum rows: more for short rows, where the lock is
    taken more often per byte."""
    if N <= 1024:
        return 256
    if N <= 4096:
        return 128
    if N <= 8192:
        return 96
    return 64


def layer_norm_backward(dy, x, weight, mean, rstd, config):
    """The tutorial's backward host function (dx, dw, db), with num_warps
    from the config."""
    import torch

    M, N = x.shape
    GROUP_SIZE_M = group_size_m(N)
    # The locks and counts start at 0, the partial sums too.
    locks = torch.zeros(2 * GROUP_SIZE_M, dtype=torch.int32, device=weight.device)
    _dw = torch.zeros((GROUP_SIZE_M, N), dtype=x.dtype, device=weight.device)
    _db = torch.zeros((GROUP_SIZE_M, N), dtype=x.dtype, device=weight.device)
    dw = torch.empty((N, ), dtype=weight.dtype, device=weight.device)
    db = torch.empty((N, ), dtype=weight.dtype, device=weight.device)
    dx = torch.empty_like(dy)
    _layer_norm_bwd_dx_fused[(M, )](dx, dy, _dw, _db, x, weight, mean, rstd, locks, x.stride(0), N,
                                    BLOCK_SIZE_N=block_size(N, x.element_size()), GROUP_SIZE_M=GROUP_SIZE_M,
                                    **config)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_SIZE_N"]), )  # noqa: E731
    _layer_norm_bwd_dwdb[grid](_dw, _db, dw, db, min(GROUP_SIZE_M, M), N, BLOCK_SIZE_M=32, BLOCK_SIZE_N=128,
                               num_ctas=1)
    return dx, dw, db


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = _layer_norm_bwd_dx_fused
EPS = 1e-5

# The forward's heuristic gives 4 warps at 1024 columns and 8 on the wider
# rows: with halves and doubles, 2 to 16.
CONFIGS = [dict(num_warps=w) for w in (2, 4, 8, 16)]

PROBLEMS = [dict(name=f"4096x{n} fp16", M=4096, N=n) for n in (1024, 4096)]
# Not a power of two: the masked tail, rows not 16-byte aligned.
PROBLEMS.append(dict(name="4000x3000 fp16", M=4000, N=3000))

# The static mode compiles the first problem and the last, whose sizes are not multiples of a
# vector: other masks and alignments, other code.
STATIC_PROBLEMS = [PROBLEMS[0], PROBLEMS[-1]]


def label(config):
    return f"w{config['num_warps']}"


def constexprs(problem):
    return dict(BLOCK_SIZE_N=block_size(problem["N"], 2), GROUP_SIZE_M=group_size_m(problem["N"]))


def static_args(problem):
    N = problem["N"]
    return dict(DX="*fp16", DY="*fp16", DW="*fp16", DB="*fp16", X="*fp16", W="*fp16", Mean="*fp32",
                Rstd="*fp32", Lock="*i32", stride=N, N=N)


def inputs(problem):
    """The tutorial's inputs (x off-centre, weight in [0, 1), dy = 0.1
    randn) and the Mean and Rstd its forward stores, in fp32."""
    import torch

    M, N = problem["M"], problem["N"]
    x = -2.3 + 0.5 * torch.randn((M, N), device="cuda", dtype=torch.float16)
    weight = torch.rand((N, ), device="cuda", dtype=torch.float16)
    dy = 0.1 * torch.randn_like(x)
    x64 = x.double()
    mean = x64.mean(dim=1)
    rstd = 1 / ((x64 - mean[:, None]) ** 2).mean(dim=1).add(EPS).sqrt()
    return dy, x, weight, mean.float(), rstd.float()


def launch(inputs, problem, config):
    return layer_norm_backward(*inputs, config)


def reference(inputs, problem):
    """The analytic gradients for the given Mean and Rstd."""
    dy, x, w, mean, rstd = (t.double() for t in inputs)
    xhat = (x - mean[:, None]) * rstd[:, None]
    wdy = w * dy
    c1 = (xhat * wdy).mean(dim=1, keepdim=True)
    c2 = wdy.mean(dim=1, keepdim=True)
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    return dx, (dy * xhat).sum(dim=0), dy.sum(dim=0)


def check(out, ref, inputs, problem):
    """dx: fp16 rounding of fp32 math, 1e-2 relative plus 1e-3 of the mean
    |dx|. dw and db: M terms added into fp16 partial rows (a rounding per
    row) then summed in fp32, so 1e-2 relative plus 5e-4 of the sum of the
    terms' magnitudes: 7x the largest error of an emulation of that fp16
    accumulation, yet a row that a broken lock loses or adds twice shows
    in the columns where its terms are largest."""
    dx, dw, db = out
    dx_ref, dw_ref, db_ref = ref
    dy, x, w, mean, rstd = (t.double() for t in inputs)
    xhat = (x - mean[:, None]) * rstd[:, None]
    dw_scale = (dy * xhat).abs().sum(dim=0)
    db_scale = dy.abs().sum(dim=0)
    return (parity_spec.within("dx", dx, dx_ref, 1e-2 * dx_ref.abs() + 1e-3 * dx_ref.abs().mean())
            or parity_spec.within("dw", dw, dw_ref, 1e-2 * dw_ref.abs() + 5e-4 * dw_scale)
            or parity_spec.within("db", db, db_ref, 1e-2 * db_ref.abs() + 5e-4 * db_scale))


def metric(problem):
    # The tutorial's count: reads x and dy, writes dx (fp16).
    return "GB/s", 3 * problem["M"] * problem["N"] * 2
