"""tilelang.ops.layer_norm and tilelang.ops.rms_norm: normalization over
the last dimension as torch custom operators, with fake implementations
(shapes only, for torch.compile) and autograd. The forward saves each
row's mean and 1/std (fp32); the backward is norm_bwd_dx (the input
gradient, one row per program) and, for the weight and bias gradients,
a two-stage column reduction: norm_bwd_dwdb sums groups of rows into
fp32 partial sums, column_sum adds the groups up."""

from typing import List, Optional, Tuple

import torch
from torch import Tensor

from tilelang.ops import spaces
from tilelang.ops._runtime import FLOATS, Operator, Tuned, check_same, check_tensor, kernels

_LAYER_NORM_FWD = Tuned("layer_norm_fwd", spaces.ROWS, key=["N"], prune=spaces.prune_rows("N"))
_RMS_NORM_FWD = Tuned("rms_norm_fwd", spaces.ROWS, key=["N"], prune=spaces.prune_rows("N"))
_NORM_BWD_DX = Tuned("norm_bwd_dx", spaces.ROWS, key=["N", "RMS"], bucket={"N": spaces.bucket_pow2},
                     prune=spaces.prune_rows("N"))
_NORM_BWD_DWDB = Tuned("norm_bwd_dwdb", spaces.NORM_DWDB, key=["M", "N", "RMS", "HAS_BIAS"],
                       bucket={"M": spaces.bucket_pow2, "N": spaces.bucket_pow2})

# Row groups of the weight gradient's first stage: enough programs to fill
# a GPU (together with the column blocks), few enough that the second stage
# reads little.
_MAX_ROW_GROUPS = 256
_ROWS_PER_GROUP = 64


def _rows(x: Tensor) -> Tensor:
    """x as a contiguous (rows, N) matrix."""
    return x.contiguous().view(-1, x.shape[-1])


# -- forward ----------------------------------------------------------------------------


def _layer_norm_fwd(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                    eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    x2 = _rows(x)
    m, n = x2.shape
    y = torch.empty_like(x2)
    mean = torch.empty(m, device=x.device, dtype=torch.float32)
    rstd = torch.empty(m, device=x.device, dtype=torch.float32)
    w = weight if weight is not None else torch.ones(n, device=x.device, dtype=x.dtype)
    b = bias if bias is not None else torch.zeros(n, device=x.device, dtype=x.dtype)
    if m and n:
        _LAYER_NORM_FWD((m,), x2, y, w, b, mean, rstd, x2.stride(0), n, eps)
    return y.view(x.shape), mean, rstd


def _layer_norm_fwd_fake(x, weight, bias, eps):
    rows = x.numel() // x.shape[-1] if x.shape[-1] else 0
    return (torch.empty_like(x, memory_format=torch.contiguous_format),
            x.new_empty(rows, dtype=torch.float32), x.new_empty(rows, dtype=torch.float32))


def _rms_norm_fwd(x: Tensor, weight: Optional[Tensor], eps: float) -> Tuple[Tensor, Tensor]:
    x2 = _rows(x)
    m, n = x2.shape
    y = torch.empty_like(x2)
    rstd = torch.empty(m, device=x.device, dtype=torch.float32)
    w = weight if weight is not None else torch.ones(n, device=x.device, dtype=x.dtype)
    if m and n:
        _RMS_NORM_FWD((m,), x2, y, w, rstd, x2.stride(0), n, eps)
    return y.view(x.shape), rstd


def _rms_norm_fwd_fake(x, weight, eps):
    rows = x.numel() // x.shape[-1] if x.shape[-1] else 0
    return torch.empty_like(x, memory_format=torch.contiguous_format), x.new_empty(rows, dtype=torch.float32)


# -- backward ---------------------------------------------------------------------------


def _norm_bwd_dx(dy: Tensor, x: Tensor, weight: Optional[Tensor], mean: Optional[Tensor], rstd: Tensor,
                 rms: bool) -> Tensor:
    x2, dy2 = _rows(x), _rows(dy)
    m, n = x2.shape
    dx = torch.empty_like(x2)
    w = weight if weight is not None else torch.ones(n, device=x.device, dtype=x.dtype)
    if m and n:
        _NORM_BWD_DX((m,), dx, dy2, x2, w, rstd if mean is None else mean, rstd, x2.stride(0), n, RMS=rms)
    return dx.view(x.shape)


def _norm_bwd_dx_fake(dy, x, weight, mean, rstd, rms):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


_OP_NORM_BWD_DX = Operator("tilelang::norm_bwd_dx", _norm_bwd_dx, _norm_bwd_dx_fake)


def _norm_bwd_dwdb(dy: Tensor, x: Tensor, mean: Optional[Tensor], rstd: Tensor, rms: bool,
                   has_bias: bool) -> Tuple[Tensor, Tensor]:
    """(sum over rows of dy * x_hat, sum over rows of dy), summed in fp32
    and returned in x's dtype (the parameters'), (N,) each; the second is
    empty without has_bias. column_sum writes every column and converts:
    no zero fill and no cast kernel besides."""
    x2, dy2 = _rows(x), _rows(dy)
    m, n = x2.shape
    if not m:
        return x.new_zeros(n), x.new_zeros(n if has_bias else 0)
    dw = x.new_empty(n)
    db = x.new_empty(n if has_bias else 0)
    if n:
        groups = max(1, min(_MAX_ROW_GROUPS, -(-m // _ROWS_PER_GROUP)))
        rows_per_group = -(-m // groups)
        groups = -(-m // rows_per_group)
        partial_w = torch.empty((groups, n), device=x.device, dtype=torch.float32)
        partial_b = torch.empty((groups, n) if has_bias else (1, 1), device=x.device, dtype=torch.float32)

        def grid(meta):
            return (-(-n // meta["BLOCK_N"]), groups)

        _NORM_BWD_DWDB(grid, partial_w, partial_b, dy2, x2, rstd if mean is None else mean, rstd, x2.stride(0),
                       m, n, rows_per_group, RMS=rms, HAS_BIAS=has_bias)
        column_sum = kernels()["column_sum"]
        for out, partial in ((dw, partial_w), (db, partial_b)) if has_bias else ((dw, partial_w),):
            column_sum[(-(-n // 128),)](out, partial, groups, n, BLOCK_G=32, BLOCK_N=128, num_warps=4)
    return dw, db


def _norm_bwd_dwdb_fake(dy, x, mean, rstd, rms, has_bias):
    n = x.shape[-1]
    return x.new_empty(n), x.new_empty(n if has_bias else 0)


_OP_NORM_BWD_DWDB = Operator("tilelang::norm_bwd_dwdb", _norm_bwd_dwdb, _norm_bwd_dwdb_fake)


# -- autograd ---------------------------------------------------------------------------


def _setup_layer_norm(ctx, inputs, output):
    x, weight, bias, _ = inputs
    _, mean, rstd = output
    ctx.save_for_backward(x, weight, mean, rstd)
    ctx.has_bias = bias is not None


def _backward_layer_norm(ctx, dy, _dmean, _drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    dx = dw = db = None
    if ctx.needs_input_grad[0]:
        dx = _OP_NORM_BWD_DX(dy, x, weight, mean, rstd, False)
    if (weight is not None and ctx.needs_input_grad[1]) or (ctx.has_bias and ctx.needs_input_grad[2]):
        sum_w, sum_b = _OP_NORM_BWD_DWDB(dy, x, mean, rstd, False, ctx.has_bias)
        if weight is not None and ctx.needs_input_grad[1]:
            dw = sum_w.to(weight.dtype)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            db = sum_b.to(dy.dtype)
    return dx, dw, db, None


_OP_LAYER_NORM_FWD = Operator("tilelang::layer_norm_fwd", _layer_norm_fwd, _layer_norm_fwd_fake,
                              _setup_layer_norm, _backward_layer_norm)


def _setup_rms_norm(ctx, inputs, output):
    x, weight, _ = inputs
    _, rstd = output
    ctx.save_for_backward(x, weight, rstd)


def _backward_rms_norm(ctx, dy, _drstd):
    x, weight, rstd = ctx.saved_tensors
    dx = dw = None
    if ctx.needs_input_grad[0]:
        dx = _OP_NORM_BWD_DX(dy, x, weight, None, rstd, True)
    if weight is not None and ctx.needs_input_grad[1]:
        dw = _OP_NORM_BWD_DWDB(dy, x, None, rstd, True, False)[0].to(weight.dtype)
    return dx, dw, None


_OP_RMS_NORM_FWD = Operator("tilelang::rms_norm_fwd", _rms_norm_fwd, _rms_norm_fwd_fake, _setup_rms_norm,
                            _backward_rms_norm)


# -- the public functions ---------------------------------------------------------------


def _check(op: str, x, params: List[Tuple[str, Optional[Tensor]]], eps: float) -> None:
    check_tensor(op, "x", x, FLOATS, min_dims=1)
    n = x.shape[-1]
    for name, tensor in params:
        if tensor is None:
            continue
        check_tensor(op, name, tensor, FLOATS, dims=1)
        if tensor.shape[0] != n:
            raise ValueError(f"tilelang.ops.{op}: {name} has {tensor.shape[0]} elements, x's last dimension "
                             f"{n}")
    check_same(op, "x", x, dict(params))
    if not eps > 0:
        raise ValueError(f"tilelang.ops.{op}: eps must be positive, not {eps}")


def layer_norm(x: Tensor, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-5) -> Tensor:
    """torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps):
    each row of x's last dimension normalized to mean 0 and variance 1 (in
    fp32), times weight, plus bias. x: fp16, bf16 or fp32 on a CUDA device;
    weight and bias: (N,) of x's dtype, or None. Differentiable in x,
    weight and bias."""
    _check("layer_norm", x, [("weight", weight), ("bias", bias)], eps)
    return _OP_LAYER_NORM_FWD(x, weight, bias, float(eps))[0]


def rms_norm(x: Tensor, weight: Optional[Tensor] = None, eps: float = 1e-6) -> Tensor:
    """torch.nn.functional.rms_norm(x, (x.shape[-1],), weight, eps): each row
    of x's last dimension divided by sqrt(mean(x^2) + eps) (in fp32), times
    weight. x: fp16, bf16 or fp32 on a CUDA device; weight: (N,) of x's
    dtype, or None. Differentiable in x and weight."""
    _check("rms_norm", x, [("weight", weight)], eps)
    return _OP_RMS_NORM_FWD(x, weight, float(eps))[0]
