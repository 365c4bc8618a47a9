"""Row normalizations in tilelang's language (the same source runs under
Triton): layer norm (Triton's tutorial forward) and RMS norm, forward and
backward; below `define`, the benchmark's input helper."""


def define(jit, tl):
    """The normalization kernels decorated with `jit`, using language module `tl`."""

    @jit
    def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
        row = tl.program_id(0)
        Y += row * stride
        X += row * stride
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
    def rms_norm_fwd(X, Y, W, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
        # Y = X / sqrt(mean(X^2) + eps) * W, one row per program, the row in
        # BLOCK_SIZE chunks; the row's 1/rms goes to Rstd for the backward.
        row = tl.program_id(0)
        X += row.to(tl.int64) * stride
        Y += row.to(tl.int64) * stride
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
    def norm_bwd_dwdb(DW, DB, DY, X, Mean, Rstd, stride, M, N, ROWS_PER_PROGRAM,
                      RMS: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        # The first stage of the weight (and bias) gradient: program (i, j)
        # sums DY * x_hat (and DY) over rows [j R, (j + 1) R) of columns
        # [i BLOCK_N, (i + 1) BLOCK_N) into row j of the fp32 partial sums DW
        # (DB), which column_sum then adds up. Each partial has one writer,
        # so the result does not depend on the order programs run in.
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
        tl.store(DW + pid_m * N + cols, tl.sum(dw, axis=0), mask=col_ok)
        if HAS_BIAS:
            tl.store(DB + pid_m * N + cols, tl.sum(db, axis=0), mask=col_ok)

    @jit
    def column_sum(Out, Partial, G, N, BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr):
        # Out[j] = sum over i < G of Partial[i, j] (Partial is G x N, fp32,
        # contiguous), BLOCK_N columns per program, converted to Out's type:
        # the second stage of norm_bwd_dwdb.
        cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
        col_ok = cols < N
        acc = tl.zeros([BLOCK_G, BLOCK_N], dtype=tl.float32)
        for g in range(0, G, BLOCK_G):
            rows = g + tl.arange(0, BLOCK_G)
            mask = (rows < G)[:, None] & col_ok[None, :]
            acc += tl.load(Partial + rows[:, None] * N + cols[None, :], mask=mask, other=0.)
        tl.store(Out + cols, tl.sum(acc, axis=0).to(Out.dtype.element_ty), mask=col_ok)

    return {"layer_norm_fwd": layer_norm_fwd, "rms_norm_fwd": rms_norm_fwd, "norm_bwd_dx": norm_bwd_dx,
            "norm_bwd_dwdb": norm_bwd_dwdb, "column_sum": column_sum}


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

