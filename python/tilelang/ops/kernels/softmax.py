"""Row softmax in tilelang's language (the same source runs under Triton):
Triton's fused-softmax tutorial kernel, and the forward and backward of
tilelang.ops.softmax."""


def define(jit, tl):
    """The softmax kernels decorated with `jit`, using language module `tl`."""

    @jit
    def softmax(Y, X, x_row_stride, y_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
        # Triton's fused-softmax tutorial kernel: one row per program, the whole
        # row in registers (BLOCK_SIZE = next_power_of_2(n_cols)). The row is
        # widened to fp32 after the load (a no-op for fp32 input) so fp16 rows
        # are reduced and exponentiated in fp32, as torch.softmax does; the
        # store converts back to Y's element type.
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(X + row * x_row_stride + cols, mask=mask, other=-float('inf')).to(tl.float32)
        x_minus_max = x - tl.max(x, axis=0)
        numerator = tl.exp(x_minus_max)
        denominator = tl.sum(numerator, axis=0)
        tl.store(Y + row * y_row_stride + cols, numerator / denominator, mask=mask)

    @jit
    def softmax_fwd(Y, X, x_row_stride, y_row_stride, n_cols, ROW_FITS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
        # Y = softmax(X) along rows, one row per program, in fp32. ROW_FITS
        # (n_cols <= BLOCK_SIZE): the row is read once and kept in registers,
        # as in the tutorial kernel. Otherwise the row goes by in BLOCK_SIZE
        # chunks twice: an online pass keeps, per lane, the largest value m
        # seen and the sum s of exp(x - m), rescaled when m grows; the lanes
        # are then combined and a second pass writes exp(x - max) / sum.
        # Lanes that have only seen -inf keep m = -inf and s = 0 (never
        # exp(-inf - -inf)); a row of -inf comes out NaN, as in torch.
        row = tl.program_id(0)
        X += row.to(tl.int64) * x_row_stride
        Y += row.to(tl.int64) * y_row_stride
        if ROW_FITS:
            cols = tl.arange(0, BLOCK_SIZE)
            mask = cols < n_cols
            x = tl.load(X + cols, mask=mask, other=-float('inf')).to(tl.float32)
            numerator = tl.exp(x - tl.max(x, axis=0))
            tl.store(Y + cols, numerator / tl.sum(numerator, axis=0), mask=mask)
        else:
            m = tl.full([BLOCK_SIZE], -float('inf'), dtype=tl.float32)
            s = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
            for off in range(0, n_cols, BLOCK_SIZE):
                cols = off + tl.arange(0, BLOCK_SIZE)
                x = tl.load(X + cols, mask=cols < n_cols, other=-float('inf')).to(tl.float32)
                m_new = tl.maximum(m, x)
                alpha = tl.where(m == m_new, 1.0, tl.exp(m - m_new))
                p = tl.where(x == -float('inf'), 0.0, tl.exp(x - m_new))
                s = s * alpha + p
                m = m_new
            row_max = tl.max(m, axis=0)
            total = tl.sum(tl.where(m == -float('inf'), 0.0, s * tl.exp(m - row_max)), axis=0)
            for off in range(0, n_cols, BLOCK_SIZE):
                cols = off + tl.arange(0, BLOCK_SIZE)
                mask = cols < n_cols
                x = tl.load(X + cols, mask=mask, other=-float('inf')).to(tl.float32)
                tl.store(Y + cols, tl.exp(x - row_max) / total, mask=mask)

    @jit
    def softmax_bwd(DX, DY, Y, dx_row_stride, dy_row_stride, y_row_stride, n_cols, ROW_FITS: tl.constexpr,
                    BLOCK_SIZE: tl.constexpr):
        # DX = Y * (DY - sum(DY * Y)) along rows, one row per program, in
        # fp32; the row in registers when ROW_FITS, else two chunked passes.
        row = tl.program_id(0)
        DX += row.to(tl.int64) * dx_row_stride
        DY += row.to(tl.int64) * dy_row_stride
        Y += row.to(tl.int64) * y_row_stride
        if ROW_FITS:
            cols = tl.arange(0, BLOCK_SIZE)
            mask = cols < n_cols
            y = tl.load(Y + cols, mask=mask, other=0.).to(tl.float32)
            dy = tl.load(DY + cols, mask=mask, other=0.).to(tl.float32)
            tl.store(DX + cols, y * (dy - tl.sum(y * dy, axis=0)), mask=mask)
        else:
            _dot = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
            for off in range(0, n_cols, BLOCK_SIZE):
                cols = off + tl.arange(0, BLOCK_SIZE)
                mask = cols < n_cols
                y = tl.load(Y + cols, mask=mask, other=0.).to(tl.float32)
                dy = tl.load(DY + cols, mask=mask, other=0.).to(tl.float32)
                _dot += y * dy
            dot = tl.sum(_dot, axis=0)
            for off in range(0, n_cols, BLOCK_SIZE):
                cols = off + tl.arange(0, BLOCK_SIZE)
                mask = cols < n_cols
                y = tl.load(Y + cols, mask=mask, other=0.).to(tl.float32)
                dy = tl.load(DY + cols, mask=mask, other=0.).to(tl.float32)
                tl.store(DX + cols, y * (dy - dot), mask=mask)

    return {"softmax": softmax, "softmax_fwd": softmax_fwd, "softmax_bwd": softmax_bwd}
