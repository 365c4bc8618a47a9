"""Kernels for the GPU tests in this folder (test_gpu_kernels.py, test_atomics.py,
test_arguments.py, test_faults.py), written as for Triton with
``import tilelang.language as tl``.

They live in a module of their own, imported without torch, so that they can
be compiled to PTX on a machine with no GPU, and so that the fault tests'
child interpreters can load them by path (the frontend reads a kernel's
source, which a ``python -c`` string does not have)."""

import tilelang
import tilelang.language as tl

# ---------------------------------------------------------------------------
# Elementwise and 2-D grids
# ---------------------------------------------------------------------------


@tilelang.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@tilelang.jit
def chunked_scale_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_out, alpha, BLOCK: tl.constexpr):
    # One row per program, walked in chunks by a loop without loop-carried
    # values (its accesses are vectorized through the induction variable).
    row = tl.program_id(0)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_x + cols, mask=mask)
        tl.store(out_ptr + row * stride_out + cols, x * alpha, mask=mask)


@tilelang.jit
def scale_2d_kernel(x_ptr, out_ptr, rows, cols, stride_x, stride_out, alpha, beta,
                    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    # out[r, c] = x[r, c] * alpha + beta over a 2-D grid of tiles.
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    x = tl.load(x_ptr + r[:, None] * stride_x + c[None, :], mask=mask, other=0.0)
    y = x.to(tl.float32) * alpha + beta
    tl.store(out_ptr + r[:, None] * stride_out + c[None, :], y, mask=mask)


@tilelang.jit
def transpose_2d_kernel(x_ptr, out_ptr, rows, cols, stride_x, stride_out,
                        BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    # out[c, r] = x[r, c]; the tile is read row-major and written transposed.
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    x = tl.load(x_ptr + r[:, None] * stride_x + c[None, :], mask=mask)
    tl.store(out_ptr + c[None, :] * stride_out + r[:, None], x, mask=mask)


@tilelang.jit
def grid_ids_kernel(out_ptr, BLOCK: tl.constexpr):
    # Every program writes (pid0, pid1, num0, num1) at its own slot.
    p0 = tl.program_id(0)
    p1 = tl.program_id(1)
    n0 = tl.num_programs(0)
    n1 = tl.num_programs(1)
    slot = (p1 * n0 + p0) * 4
    offs = tl.arange(0, BLOCK)
    vals = tl.where(offs == 0, p0, tl.where(offs == 1, p1, tl.where(offs == 2, n0, n1)))
    tl.store(out_ptr + slot + offs, vals, mask=offs < 4)


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


@tilelang.jit
def reduce_2d_kernel(x_ptr, sum_ptr, max_ptr, min_ptr, argmax_ptr, argmin_ptr, M, N, stride,
                     AXIS: tl.constexpr, ACC: tl.constexpr, LOW: tl.constexpr, HIGH: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # AXIS == 1: program p reduces rows [p*BLOCK_M, ...) across all N columns.
    # AXIS == 0: program p reduces columns [p*BLOCK_N, ...) across all M rows.
    pid = tl.program_id(0)
    if AXIS == 1:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
        out = rows
        out_mask = rows < M
    else:
        rows = tl.arange(0, BLOCK_M)
        cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
        out = cols
        out_mask = cols < N
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = x_ptr + rows[:, None] * stride + cols[None, :]
    x = tl.load(ptrs, mask=mask, other=0)
    # Masked-off elements take the identity of each reduction.
    s = tl.sum(x.to(ACC), axis=AXIS)
    hi = tl.max(tl.where(mask, x, LOW), axis=AXIS)
    lo = tl.min(tl.where(mask, x, HIGH), axis=AXIS)
    amax = tl.argmax(tl.where(mask, x, LOW), axis=AXIS)
    amin = tl.argmin(tl.where(mask, x, HIGH), axis=AXIS)
    tl.store(sum_ptr + out, s, mask=out_mask)
    tl.store(max_ptr + out, hi, mask=out_mask)
    tl.store(min_ptr + out, lo, mask=out_mask)
    tl.store(argmax_ptr + out, amax, mask=out_mask)
    tl.store(argmin_ptr + out, amin, mask=out_mask)


@tilelang.jit
def max_with_indices_kernel(x_ptr, val_ptr, idx_ptr, M, N, stride, BLOCK_M: tl.constexpr,
                            BLOCK_N: tl.constexpr):
    # tl.max(..., return_indices=True) along axis 1, rows tiled over programs.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=-float("inf"))
    val, idx = tl.max(x, axis=1, return_indices=True)
    tl.store(val_ptr + rows, val, mask=rows < M)
    tl.store(idx_ptr + rows, idx, mask=rows < M)


@tilelang.jit
def full_reduce_kernel(x_ptr, sum_ptr, max_ptr, min_ptr, M, N, stride,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Program p reduces its BLOCK_M rows (all N columns, in BLOCK_N chunks)
    # to three scalars: tl.sum/max/min with axis=None over a 2-D tile.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc_sum = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    acc_max = tl.full([BLOCK_M, BLOCK_N], -float("inf"), tl.float32)
    acc_min = tl.full([BLOCK_M, BLOCK_N], float("inf"), tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
        acc_sum += x
        acc_max = tl.maximum(acc_max, tl.where(mask, x, -float("inf")))
        acc_min = tl.minimum(acc_min, tl.where(mask, x, float("inf")))
    pid = tl.program_id(0)
    tl.store(sum_ptr + pid, tl.sum(acc_sum))
    tl.store(max_ptr + pid, tl.max(acc_max))
    tl.store(min_ptr + pid, tl.min(acc_min, axis=None))


@tilelang.jit
def masked_sum_1d_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # One scalar per program: the sum of its (masked) block.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(x))


@tilelang.jit
def scan_2d_kernel(x_ptr, out_ptr, M, N, stride, OP: tl.constexpr, AXIS: tl.constexpr,
                   REVERSE: tl.constexpr, ACC: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # A whole BLOCK_M x BLOCK_N tile per program, rows tiled over programs
    # along axis 0 of the grid (AXIS == 1) or columns (AXIS == 0).
    pid = tl.program_id(0)
    if AXIS == 1:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tl.arange(0, BLOCK_N)
    else:
        rows = tl.arange(0, BLOCK_M)
        cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride + cols[None, :]
    if OP == "sum":
        # Masked-off elements are 0, so the scan of the valid ones is unchanged
        # (also for REVERSE, where they come first).
        x = tl.load(x_ptr + offs, mask=mask, other=0).to(ACC)
        y = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    else:
        x = tl.load(x_ptr + offs, mask=mask, other=1).to(ACC)
        y = tl.cumprod(x, axis=AXIS, reverse=REVERSE)
    tl.store(out_ptr + offs, y, mask=mask)


# ---------------------------------------------------------------------------
# Atomics
# ---------------------------------------------------------------------------


@tilelang.jit
def atomic_add_kernel(x_ptr, out_ptr, n, NUM_SLOTS: tl.constexpr, BLOCK: tl.constexpr):
    # out[i % NUM_SLOTS] += x[i]: every slot is hit by every program.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.atomic_add(out_ptr + offs % NUM_SLOTS, x, mask=mask)


@tilelang.jit
def atomic_minmax_kernel(x_ptr, max_ptr, min_ptr, n, NUM_SLOTS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.atomic_max(max_ptr + offs % NUM_SLOTS, x, mask=mask)
    tl.atomic_min(min_ptr + offs % NUM_SLOTS, x, mask=mask)


@tilelang.jit
def atomic_ticket_kernel(counter_ptr, tickets_ptr, n, BLOCK: tl.constexpr):
    # Every element draws a ticket from one counter: the old values that
    # tl.atomic_add returns must be a permutation of 0..n-1.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    old = tl.atomic_add(counter_ptr + tl.zeros([BLOCK], dtype=tl.int32), 1, mask=mask)
    tl.store(tickets_ptr + offs, old, mask=mask)


@tilelang.jit
def cas_counter_kernel(counter_ptr, tickets_ptr):
    # A lock-free increment built from tl.atomic_cas: retry until the CAS
    # sees the value it expected. Program p records the value it replaced.
    cur = tl.load(counter_ptr, volatile=True)
    old = tl.atomic_cas(counter_ptr, cur, cur + 1)
    while old != cur:
        cur = old
        old = tl.atomic_cas(counter_ptr, cur, cur + 1)
    tl.store(tickets_ptr + tl.program_id(0), cur)


@tilelang.jit
def cas_lock_kernel(lock_ptr, acc_ptr, x_ptr, failed_ptr, N, MAX_SPINS: tl.constexpr, BLOCK: tl.constexpr):
    # As in Triton's layer-norm backward tutorial: a spin lock taken with
    # tl.atomic_cas and released with tl.atomic_xchg guards a plain
    # load-add-store of acc[0:N] (a race without the lock). The spin is
    # bounded so that a broken lock fails the test instead of hanging it; a
    # program that gives up adds 1 to failed[0].
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    spins = 0
    while (tl.atomic_cas(lock_ptr, 0, 1) == 1) & (spins < MAX_SPINS):
        spins += 1
    if spins >= MAX_SPINS:
        tl.atomic_add(failed_ptr, 1)
    acc = tl.load(acc_ptr + cols, mask=mask, other=0.0)
    tl.store(acc_ptr + cols, acc + x, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


@tilelang.jit
def xchg_chain_kernel(slot_ptr, old_ptr):
    # Every program swaps pid + 1 into one slot and records what it took
    # out: the values taken out plus the final one are each written value
    # (and the initial 0) exactly once.
    pid = tl.program_id(0)
    old = tl.atomic_xchg(slot_ptr, pid + 1)
    tl.store(old_ptr + pid, old)


@tilelang.jit
def xchg_block_kernel(buf_ptr, new_ptr, old_ptr, n, BLOCK: tl.constexpr):
    # Element-wise exchange on distinct addresses: old gets the previous contents.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    new = tl.load(new_ptr + offs, mask=mask)
    old = tl.atomic_xchg(buf_ptr + offs, new, mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)


# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------


@tilelang.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


@tilelang.jit
def int_scalars_kernel(out_ptr, a, b):
    # What the kernel sees of two integer scalars, widened to int64 (for
    # every combination of widths the launcher picks: i32, u32, i64).
    tl.store(out_ptr + 0, a.to(tl.int64))
    tl.store(out_ptr + 1, b.to(tl.int64))
    tl.store(out_ptr + 2, a.to(tl.int64) + b.to(tl.int64))
    tl.store(out_ptr + 3, b.to(tl.int64) >> 32)


@tilelang.jit
def float_bool_scalars_kernel(out_f_ptr, out_i_ptr, x, flag, k):
    tl.store(out_f_ptr + 0, x)
    tl.store(out_f_ptr + 1, x * 3.0)
    tl.store(out_f_ptr + 2, x * k)
    if flag:
        chosen = 11
    else:
        chosen = 22
    tl.store(out_i_ptr + 0, chosen)
    tl.store(out_i_ptr + 1, flag.to(tl.int32))


@tilelang.jit
def explicit_scalars_kernel(out_i_ptr, out_f_ptr, a, b, c, d, e):
    # Compiled with an explicit signature (i8, i16, u64, fp64, fp32 scalars).
    tl.store(out_i_ptr + 0, a.to(tl.int64))
    tl.store(out_i_ptr + 1, b.to(tl.int64))
    tl.store(out_i_ptr + 2, (c >> 32).to(tl.int64))
    tl.store(out_i_ptr + 3, (c & 0xFFFFFFFF).to(tl.int64))
    tl.store(out_f_ptr + 0, d)
    tl.store(out_f_ptr + 1, e.to(tl.float64))


# ---------------------------------------------------------------------------
# Faults
# ---------------------------------------------------------------------------


@tilelang.jit
def store_at_offset_kernel(out_ptr, offset, BLOCK: tl.constexpr):
    # Stores BLOCK floats at out_ptr + offset (a wild address when offset is).
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offset + offs, offs.to(tl.float32))


@tilelang.jit
def spin_kernel(flag_ptr, out_ptr):
    # Waits for *flag_ptr to become non-zero: forever, when nothing sets it.
    v = tl.load(flag_ptr, volatile=True)
    while v == 0:
        v = tl.load(flag_ptr, volatile=True)
    tl.store(out_ptr, v)


# ---------------------------------------------------------------------------
# Launching a compiled kernel directly (the loaded kernel's own launch(),
# which takes raw addresses and __cuda_array_interface__ objects)
# ---------------------------------------------------------------------------


def device_arch() -> str:
    """sm_XX of the current device, with the "a" suffix on Hopper, as the
    launcher picks it."""
    from tilelang import _C

    major, minor = _C.device_info()["capability"]
    return f"sm_{major}{minor}" + ("a" if (major, minor) == (9, 0) else "")


def launch_compiled(compiled, grid, stream, *args):
    """Launches a CompiledKernel with its run-time arguments in
    ``compiled.arg_names`` order, through the loaded kernel."""
    compiled.launchable(device_arch()).launch(tuple(grid), stream, *args)
