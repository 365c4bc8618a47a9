"""Row normalizations in tilelang's language (the same source runs under
Triton): layer norm (Triton's tutorial forward) and RMS norm, forward and
backward; below `define`, the benchmark's input helper."""


def define(jit, tl):
    """The normalization kernels decorated with `jit`, using language module `tl`."""

    @jit
    def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr,
                       ROW_FITS: tl.constexpr = False):
        # One row per program; its mean and 1/std go to Mean and Rstd for the
        # backward. ROW_FITS (N <= BLOCK_SIZE): the row is read once and kept
        # in registers, x, w and b loaded together. Otherwise Triton's
        # tutorial form: three passes over the row in BLOCK_SIZE chunks (the
        # mean, the variance, the output).
        row = tl.program_id(0)
        Y += row.to(tl.int64) * stride
        X += row.to(tl.int64) * stride
        if ROW_FITS:
            cols = tl.arange(0, BLOCK_SIZE)
            mask = cols < N
            x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
            w = tl.load(W + cols, mask=mask).to(tl.float32)
            b = tl.load(B + cols, mask=mask).to(tl.float32)
            mean = tl.sum(x, axis=0) / N
            # The padding columns read 0 but must not add (0 - mean)^2.
            xbar = tl.where(mask, x - mean, 0.)
            rstd = 1 / tl.sqrt(tl.sum(xbar * xbar, axis=0) / N + eps)
            tl.store(Mean + row, mean)
            tl.store(Rstd + row, rstd)
            tl.store(Y + cols, xbar * rstd * w + b, mask=mask)
        else:
            _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
            for off in range(0, N, BLOCK_SIZE):
                cols = off + tl.arange(0, BLOCK_SIZE)
                a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
                _mean += a
            mean = tl.sum(_mean, axis=0) / N
            _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
            for off in range(0, N, BLOCK_SIZE):
                cols = off + tl.arange(0, BLOCK_SIZE)
                x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
                x = tl.where(cols < N, x - mean, 0.)
                _var += x * x
            var = tl.sum(_var, axis=0) / N
            rstd = 1 / tl.sqrt(var + eps)
            tl.store(Mean + row, mean)
            tl.store(Rstd + row, rstd)
            for off in range(0, N, BLOCK_SIZE):
                cols = off + tl.arange(0, BLOCK_SIZE)
                mask = cols < N
                w = tl.load(W + cols, mask=mask)
                b = tl.load(B + cols, mask=mask)
                x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
                x_hat = (x - mean) * rstd
                y = x_hat * w + b
                tl.store(Y + cols, y, mask=mask)

    @jit
    def rms_norm_fwd(X, Y, W, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr, ROW_FITS: tl.constexpr = False):
        # Y = X / sqrt(mean(X^2) + eps) * W, one row per program; the row's
        # 1/rms goes to Rstd for the backward. ROW_FITS (N <= BLOCK_SIZE):
        # the row is read once and kept in registers; otherwise it goes by in
        # BLOCK_SIZE chunks twice (the sum of squares, the output).
        row = tl.program_id(0)
        X += row.to(tl.int64) * stride
        Y += row.to(tl.int64) * stride
        if ROW_FITS:
            cols = tl.arange(0, BLOCK_SIZE)
            mask = cols < N
            x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
            w = tl.load(W + cols, mask=mask).to(tl.float32)
            rstd = 1 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
            tl.store(Rstd + row, rstd)
            tl.store(Y + cols, x * rstd * w, mask=mask)
        else:
            _sum = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
            for off in range(0, N, BLOCK_SIZE):
                cols = off + tl.arange(0, BLOCK_SIZE)
                x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
                _sum += x * x
            rstd = 1 / tl.sqrt(tl.sum(_sum, axis=0) / N + eps)
            tl.store(Rstd + row, rstd)
            for off in range(0, N, BLOCK_SIZE):
                cols = off + tl.arange(0, BLOCK_SIZE)
                mask = cols < N
                w = tl.load(W + cols, mask=mask).to(tl.float32)
                x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
                tl.store(Y + cols, x * rstd * w, mask=mask)

    @jit
    def norm_bwd_dx(DX, DY, X, W, Mean, Rstd, stride, N, RMS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
        # The input gradient of layer norm (RMS false) or RMS norm (RMS true),
        # one row per program. With x_hat the normalized row and g = W * DY:
        #   layer norm: DX = rstd * (g - x_hat * mean(x_hat g) - mean(g))
        #   RMS norm:   DX = rstd * (g - x_hat * mean(x_hat g))
        # The first pass sums the two means over the row, the second writes DX.
        row = tl.program_id(0)
        X += row.to(tl.int64) * stride
        DY += row.to(tl.int64) * stride
        DX += row.to(tl.int64) * stride
        rstd = tl.load(Rstd + row)
        if RMS:
            mean = 0.0
        else:
            mean = tl.load(Mean + row)
        _c1 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        _c2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            mask = cols < N
            x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
            dy = tl.load(DY + cols, mask=mask, other=0.).to(tl.float32)
            w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
            x_hat = tl.where(mask, (x - mean) * rstd, 0.)
            g = w * dy
            _c1 += x_hat * g
            _c2 += g
        c1 = tl.sum(_c1, axis=0) / N
        c2 = tl.sum(_c2, axis=0) / N
        for off in range(0, N, BLOCK_SIZE):
            cols = off + tl.arange(0, BLOCK_SIZE)
            mask = cols < N
            x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
            dy = tl.load(DY + cols, mask=mask, other=0.).to(tl.float32)
            w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
            x_hat = (x - mean) * rstd
            if RMS:
                dx = (w * dy - x_hat * c1) * rstd
            else:
                dx = (w * dy - x_hat * c1 - c2) * rstd
            tl.store(DX + cols, dx, mask=mask)

    @jit
    def norm_bwd_fused(DX, PW, PB, DY, X, W, Mean, Rstd, stride, M, N, RMS: tl.constexpr,
                       INPUT_GRAD: tl.constexpr, WEIGHT_GRAD: tl.constexpr, HAS_BIAS: tl.constexpr,
                       ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr, ROWS_64: tl.constexpr = False):
        # The whole backward of layer norm (RMS false) or RMS norm (RMS true)
        # for rows that fit one block (N <= BLOCK_SIZE), in one pass: x and
        # dy are read once, dx written once. Program p takes tiles of ROWS
        # whole rows, p, p + G, p + 2G... (G programs); per tile, each row's
        # two means of norm_bwd_dx and its DX (INPUT_GRAD) come from the tile
        # in registers. WEIGHT_GRAD: the program also sums DY * x_hat (and DY,
        # HAS_BIAS) over its rows in fp32 and writes them as row p of the
        # partial sums PW (PB), G x N, which column_sum adds up; each partial
        # has one writer, so the result does not depend on the order
        # programs run in.
        # w is loaded as [1, BLOCK_SIZE] and the means are kept [ROWS, 1]
        # (keep_dims), in the tile's own layout: they broadcast into the tile
        # without a layout conversion in the loop (w loaded as a vector came
        # through shared memory on every tile). The row statistics are
        # loaded as vectors: loaded as [ROWS, 1] they took a layout of their
        # own, converted after the broadcast, a whole tile's worth.
        # ROWS_64 (norm_bwd_rows_64): the rows are counted in 64 bits. The
        # loop's next start (first + step, up to about 2 M with one tile a
        # program) and the tile's rows would wrap in 32 bits from M = 2**30
        # on, and a wrapped, negative row passes `rows < M`.
        # The partial sums' offsets (pid * N) stay 32-bit: pid is below
        # NORM_BWD_PROGRAMS_PER_SM programs a multiprocessor and N at most
        # NORM_BWD_BLOCK_CAP.
        pid = tl.program_id(0)
        step = tl.num_programs(0) * ROWS
        cols = tl.arange(0, BLOCK_SIZE)[None, :]
        col_ok = cols < N
        w = tl.load(W + cols, mask=col_ok, other=0.).to(tl.float32)
        dw = tl.zeros([ROWS, BLOCK_SIZE], dtype=tl.float32)
        db = tl.zeros([ROWS, BLOCK_SIZE], dtype=tl.float32)
        first_tile = pid * ROWS
        if ROWS_64:
            first_tile = first_tile.to(tl.int64)
        for first in range(first_tile, M, step):
            rows = first + tl.arange(0, ROWS)
            row_ok = rows < M
            mask = row_ok[:, None] & col_ok
            offsets = rows.to(tl.int64)[:, None] * stride + cols
            x = tl.load(X + offsets, mask=mask, other=0.).to(tl.float32)
            dy = tl.load(DY + offsets, mask=mask, other=0.).to(tl.float32)
            rstd = tl.load(Rstd + rows, mask=row_ok, other=0.)[:, None]
            # Padding reads x = dy = 0: g = 0 there, so it adds nothing below.
            if RMS:
                x_hat = x * rstd
            else:
                mean = tl.load(Mean + rows, mask=row_ok, other=0.)[:, None]
                x_hat = (x - mean) * rstd
            g = w * dy
            c1 = tl.sum(x_hat * g, axis=1, keep_dims=True) / N
            if RMS:
                dx = (g - x_hat * c1) * rstd
            else:
                c2 = tl.sum(g, axis=1, keep_dims=True) / N
                dx = (g - x_hat * c1 - c2) * rstd
            if INPUT_GRAD:
                tl.store(DX + offsets, dx, mask=mask)
            if WEIGHT_GRAD:
                dw += dy * x_hat
                if HAS_BIAS:
                    db += dy
        if WEIGHT_GRAD:
            tl.store(PW + pid * N + cols, tl.sum(dw, axis=0, keep_dims=True), mask=col_ok)
            if HAS_BIAS:
                tl.store(PB + pid * N + cols, tl.sum(db, axis=0, keep_dims=True), mask=col_ok)

    @jit
    def norm_bwd_dwdb(DW, DB, DY, X, Mean, Rstd, stride, M, N, ROWS_PER_PROGRAM,
                      RMS: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        # The first stage of the weight (and bias) gradient: program (i, j)
        # sums DY * x_hat (and DY) over rows [j R, (j + 1) R) of columns
        # [i BLOCK_N, (i + 1) BLOCK_N) into row j of the fp32 partial sums DW
        # (DB), which column_sum then adds up. Each partial has one writer,
        # so the result does not depend on the order programs run in. Row
        # j of the partial sums starts j N elements in, in 64 bits: up to
        # 256 groups of rows of 8.4M elements or more pass 2**31.
        pid_n = tl.program_id(0)
        pid_m = tl.program_id(1)
        cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        row_start = pid_m * ROWS_PER_PROGRAM
        row_end = tl.minimum(row_start + ROWS_PER_PROGRAM, M)
        dw = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        db = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for r in range(row_start, row_end, BLOCK_M):
            rows = r + tl.arange(0, BLOCK_M)
            row_ok = rows < row_end
            mask = row_ok[:, None] & col_ok[None, :]
            offsets = rows.to(tl.int64)[:, None] * stride + cols[None, :]
            x = tl.load(X + offsets, mask=mask, other=0.).to(tl.float32)
            dy = tl.load(DY + offsets, mask=mask, other=0.).to(tl.float32)
            rstd = tl.load(Rstd + rows, mask=row_ok, other=0.)
            if RMS:
                x_hat = x * rstd[:, None]
            else:
                mean = tl.load(Mean + rows, mask=row_ok, other=0.)
                x_hat = (x - mean[:, None]) * rstd[:, None]
            dw += dy * x_hat
            if HAS_BIAS:
                db += dy
        partial_row = pid_m.to(tl.int64) * N
        tl.store(DW + partial_row + cols, tl.sum(dw, axis=0), mask=col_ok)
        if HAS_BIAS:
            tl.store(DB + partial_row + cols, tl.sum(db, axis=0), mask=col_ok)

    @jit
    def column_sum(Out, Partial, Out2, Partial2, G, N, TWO: tl.constexpr, BLOCK_G: tl.constexpr,
                   BLOCK_N: tl.constexpr):
        # Out[j] = sum over i < G of Partial[i, j] (Partial is G x N, fp32,
        # contiguous), BLOCK_N columns per program, converted to Out's type:
        # the second stage of the weight (and bias) gradients. TWO: Out2 from
        # Partial2 as well, in the same launch (the bias's).
        cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        acc = tl.zeros([BLOCK_G, BLOCK_N], dtype=tl.float32)
        acc2 = tl.zeros([BLOCK_G, BLOCK_N], dtype=tl.float32)
        for g in range(0, G, BLOCK_G):
            rows = g + tl.arange(0, BLOCK_G)
            mask = (rows < G)[:, None] & col_ok[None, :]
            offsets = rows.to(tl.int64)[:, None] * N + cols[None, :]
            acc += tl.load(Partial + offsets, mask=mask, other=0.)
            if TWO:
                acc2 += tl.load(Partial2 + offsets, mask=mask, other=0.)
        tl.store(Out + cols, tl.sum(acc, axis=0).to(Out.dtype.element_ty), mask=col_ok)
        if TWO:
            tl.store(Out2 + cols, tl.sum(acc2, axis=0).to(Out2.dtype.element_ty), mask=col_ok)

    return {"layer_norm_fwd": layer_norm_fwd, "rms_norm_fwd": rms_norm_fwd, "norm_bwd_dx": norm_bwd_dx,
            "norm_bwd_fused": norm_bwd_fused, "norm_bwd_dwdb": norm_bwd_dwdb, "column_sum": column_sum}


def layernorm_inputs(torch, m, n, dtype=None):
    """Fresh inputs of the layernorm benchmark: x (m x n), weight, bias, a
    NaN-filled y, and the per-row mean and rstd outputs (fp32)."""
    dtype = dtype or torch.float16
    x = torch.randn(m, n, device="cuda", dtype=dtype)
    w = torch.rand(n, device="cuda", dtype=dtype) + 0.5
    b = torch.randn(n, device="cuda", dtype=dtype)
    y = torch.full_like(x, float("nan"))
    mean = torch.empty(m, device="cuda")
    rstd = torch.empty(m, device="cuda")
    return x, w, b, y, mean, rstd

