"""The benchmarked kernels, in Triton's language. The same source runs
under tilelang and, when it is installed, under Triton, so both compile
exactly the same program."""


def define(jit, tl):
    """Returns the kernels decorated with `jit`, using language module `tl`."""

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
    def tiny(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)

    return {"layer_norm_fwd": layer_norm_fwd, "softmax": softmax, "tiny": tiny}


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
