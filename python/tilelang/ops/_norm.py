"""tilelang.ops.layer_norm and tilelang.ops.rms_norm: normalization over
the last dimension as torch custom operators, with fake implementations
(shapes only, for torch.compile) and autograd. The forward saves each
row's mean and 1/std (fp32); the backward is one operator, norm_bwd.
Where a row fits a block (up to spaces.NORM_BWD_BLOCK_CAP), one kernel,
norm_bwd_fused, reads x and dy once, writes dx and sums the weight and
bias gradients over each program's rows into fp32 partial sums, and
column_sum adds those up (two launches in all). Longer rows take
norm_bwd_dx (the input gradient, one row per program, in chunks) and
norm_bwd_dwdb (partial sums over groups of rows), then column_sum."""

from functools import partial
from typing import List, Optional, Tuple

import torch
from torch import Tensor

from tilelang.ops import _autograd, _runtime, spaces
from tilelang.ops._runtime import FLOATS, Operator, Tuned, as_rows, check_same, check_tensor, eager, kernels


def _row_fits(args) -> bool:
    return args["N"] <= args["BLOCK_SIZE"]


_LAYER_NORM_FWD = Tuned("layer_norm_fwd", spaces.ROWS, key=["N"], prune=spaces.prune_rows("N"),
                        heuristics={"ROW_FITS": _row_fits})
_RMS_NORM_FWD = Tuned("rms_norm_fwd", spaces.ROWS, key=["N"], prune=spaces.prune_rows("N"),
                      heuristics={"ROW_FITS": _row_fits})
_NORM_BWD_DX = Tuned("norm_bwd_dx", spaces.ROWS, key=["N", "RMS"], bucket={"N": spaces.bucket_pow2},
                     prune=spaces.prune_rows("N"))
_NORM_BWD_DWDB = Tuned("norm_bwd_dwdb", spaces.NORM_DWDB, key=["M", "N", "RMS", "HAS_BIAS"],
                       bucket={"M": spaces.bucket_pow2, "N": spaces.bucket_pow2})
_NORM_BWD_FUSED = Tuned("norm_bwd_fused", spaces.NORM_BWD,
                        key=["M", "N", "RMS", "INPUT_GRAD", "WEIGHT_GRAD", "HAS_BIAS"],
                        bucket={"M": spaces.bucket_pow2, "N": spaces.bucket_pow2}, prune=spaces.prune_norm_bwd)

# Row groups of the weight gradient's first stage: enough programs to fill
# a GPU (together with the column blocks), few enough that the second stage
# reads little.
_MAX_ROW_GROUPS = 256
_ROWS_PER_GROUP = 64

def _rows_64(m: int) -> bool:
    """norm_bwd_fused's ROWS_64 for m rows: whether the row indices its loop
    forms (a tile's rows, and its first row plus the step: below 2 m +
    NORM_BWD_MAX_ROWS with one tile a program) can pass 2**31 - 1."""
    return 2 * m + spaces.NORM_BWD_MAX_ROWS >= 2**31


# -- forward ----------------------------------------------------------------------------


def _layer_norm_fwd(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                    eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    x, m, n = as_rows(x, "layer_norm")
    mean = torch.empty(m, device=x.device, dtype=torch.float32)
    rstd = torch.empty(m, device=x.device, dtype=torch.float32)
    return _layer_norm(x, m, n, weight, bias, eps, mean, rstd), mean, rstd


def _layer_norm_output(x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float) -> Tensor:
    """The output alone, for an eager call that records no gradient: the
    kernel's mean and 1/std go to one scratch buffer (over each other;
    the kernel only stores them) that nothing reads, one allocation
    instead of two."""
    x, m, n = as_rows(x, "layer_norm")
    scratch = torch.empty(m, device=x.device, dtype=torch.float32)
    return _layer_norm(x, m, n, weight, bias, eps, scratch, scratch)


def _layer_norm(x: Tensor, m: int, n: int, weight: Optional[Tensor], bias: Optional[Tensor], eps: float,
                mean: Tensor, rstd: Tensor, launch=None) -> Tensor:
    """layer_norm_fwd over x (contiguous, m rows of n), its statistics
    written to mean and rstd; returns the output. `launch`: Tuned.launch's
    form (the recorder that resolves the C++ forward: _resolve_forward)."""
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    # The kernels read the parameters at consecutive addresses: a strided one is copied.
    w = weight.contiguous() if weight is not None else torch.ones(n, device=x.device, dtype=x.dtype)
    b = bias.contiguous() if bias is not None else torch.zeros(n, device=x.device, dtype=x.dtype)
    if m and n:
        (launch or _LAYER_NORM_FWD.launch)((n, x.dtype, w.dtype, b.dtype), (m,), x, y, w, b, mean, rstd, n, n, eps)
    return y


def _layer_norm_fwd_fake(x, weight, bias, eps):
    rows = x.numel() // x.shape[-1] if x.shape[-1] else 0
    return (torch.empty_like(x, memory_format=torch.contiguous_format),
            x.new_empty(rows, dtype=torch.float32), x.new_empty(rows, dtype=torch.float32))


def _rms_norm_fwd(x: Tensor, weight: Optional[Tensor], eps: float) -> Tuple[Tensor, Tensor]:
    return _rms_norm_fwd_with(None, x, weight, eps)


def _rms_norm_fwd_with(launch, x: Tensor, weight: Optional[Tensor], eps: float) -> Tuple[Tensor, Tensor]:
    """_rms_norm_fwd with its launch made by `launch` (Tuned.launch's form;
    None: _RMS_NORM_FWD.launch)."""
    x, m, n = as_rows(x, "rms_norm")
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    rstd = torch.empty(m, device=x.device, dtype=torch.float32)
    w = weight.contiguous() if weight is not None else torch.ones(n, device=x.device, dtype=x.dtype)
    if m and n:
        (launch or _RMS_NORM_FWD.launch)((n, x.dtype, w.dtype), (m,), x, y, w, rstd, n, n, eps)
    return y, rstd


def _rms_norm_fwd_fake(x, weight, eps):
    rows = x.numel() // x.shape[-1] if x.shape[-1] else 0
    return torch.empty_like(x, memory_format=torch.contiguous_format), x.new_empty(rows, dtype=torch.float32)


# -- backward ---------------------------------------------------------------------------


def _norm_bwd(dy: Tensor, x: Tensor, weight: Optional[Tensor], mean: Optional[Tensor], rstd: Tensor, rms: bool,
              input_grad: bool, weight_grad: bool, has_bias: bool) -> Tuple[Tensor, Tensor, Tensor]:
    """(dx, dw, db) of layer norm (rms false) or RMS norm: dx like x where
    input_grad; dw = sum over rows of dy * x_hat and, with has_bias,
    db = sum of dy, where weight_grad, each (N,) in x's dtype (the
    parameters'), summed in fp32. What is not asked for comes back empty."""
    return _norm_bwd_with(_autograd.launch, dy, x, weight, mean, rstd, rms, input_grad, weight_grad, has_bias)


def _norm_bwd_with(launch, dy: Tensor, x: Tensor, weight: Optional[Tensor], mean: Optional[Tensor], rstd: Tensor,
                   rms: bool, input_grad: bool, weight_grad: bool, has_bias: bool) -> Tuple[Tensor, Tensor, Tensor]:
    """_norm_bwd with its launches made by `launch` (_autograd.launch, or
    the recorder that resolves a C++ backward: _autograd.resolve)."""
    x, m, n = as_rows(x, "norm_bwd")
    dy = dy.contiguous()
    dx = torch.empty_like(x, memory_format=torch.contiguous_format) if input_grad else x.new_empty(0)
    dw = x.new_empty(n if weight_grad else 0)
    db = x.new_empty(n if weight_grad and has_bias else 0)
    if not (m and n):
        return dx, dw.zero_(), db.zero_()
    w = weight.contiguous() if weight is not None else torch.ones(n, device=x.device, dtype=x.dtype)
    stats = rstd if mean is None else mean
    # What decides the tuned configs besides the flags: the sizes and the dtypes.
    key = (m, n, rms, input_grad, weight_grad, has_bias, x.dtype, dy.dtype, w.dtype, stats.dtype, rstd.dtype)
    if n > spaces.NORM_BWD_BLOCK_CAP:
        if input_grad:
            launch(_NORM_BWD_DX, key, (m,), dx, dy, x, w, stats, rstd, n, n, RMS=rms)
        if weight_grad:
            _norm_bwd_dwdb(launch, key, dw, db, dy, x, m, n, stats, rstd, rms, has_bias)
        return dx, dw, db
    if not weight_grad:
        launch(_NORM_BWD_FUSED, key, lambda meta: (-(-m // meta["ROWS"]),), dx, dx, dx, dy, x, w, stats, rstd, n, m,
               n, RMS=rms, INPUT_GRAD=input_grad, WEIGHT_GRAD=False, HAS_BIAS=False, ROWS_64=_rows_64(m))
        return dx, dw, db
    groups = spaces.norm_bwd_programs(m, _runtime.multiprocessors(x.device))
    partial_w, partial_b = _partial_sums(x.device, groups, n, has_bias)
    launch(_NORM_BWD_FUSED, key, (groups,), dx if input_grad else partial_w, partial_w, partial_b, dy, x, w, stats,
           rstd, n, m, n, RMS=rms, INPUT_GRAD=input_grad, WEIGHT_GRAD=True, HAS_BIAS=has_bias, ROWS_64=_rows_64(m))
    _column_sums(launch, dw, partial_w, db, partial_b, groups, n, has_bias)
    return dx, dw, db


def _partial_sums(device, groups: int, n: int, has_bias: bool) -> Tuple[Tensor, Tensor]:
    """The fp32 partial sums of the weight gradient and, with has_bias, of
    the bias gradient ((groups, n) each; without, the weight's twice), in
    one allocation: an allocation fewer in each backward (the C++ node's
    plan keeps the bias's as an offset into it). The bias's start is
    16-byte aligned, as an allocation of its own would be: the kernels are
    specialized for the pointers' alignment."""
    size = groups * n
    if not has_bias:
        partial_w = torch.empty((groups, n), device=device, dtype=torch.float32)
        return partial_w, partial_w
    start = -(-size // 4) * 4
    workspace = torch.empty(start + size, device=device, dtype=torch.float32)
    return workspace[:size].view(groups, n), workspace[start:].view(groups, n)


def _column_sums(launch, dw: Tensor, partial_w: Tensor, db: Tensor, partial_b: Tensor, groups: int, n: int,
                 has_bias: bool) -> None:
    """dw (and db, has_bias) = the column sums of the (groups x n) fp32
    partial sums, converted to their dtype: one launch for both."""
    launch(kernels()["column_sum"], None, (-(-n // spaces.COLUMN_SUM["BLOCK_N"]),), dw, partial_w,
           db if has_bias else dw, partial_b, groups, n, TWO=has_bias, **spaces.COLUMN_SUM)


def _norm_bwd_dwdb(launch, key: tuple, dw: Tensor, db: Tensor, dy2: Tensor, x2: Tensor, m: int, n: int, stats: Tensor,
                   rstd: Tensor, rms: bool, has_bias: bool) -> None:
    """dw and db (has_bias) of rows too long for norm_bwd_fused: norm_bwd_dwdb
    sums groups of rows of BLOCK_N-wide strips into fp32 partial sums,
    column_sum adds them up. x2 and dy2: contiguous, m rows of n."""
    groups = max(1, min(_MAX_ROW_GROUPS, -(-m // _ROWS_PER_GROUP)))
    rows_per_group = -(-m // groups)
    groups = -(-m // rows_per_group)
    partial_w, partial_b = _partial_sums(x2.device, groups, n, has_bias)

    def grid(meta):
        return (-(-n // meta["BLOCK_N"]), groups)

    launch(_NORM_BWD_DWDB, key, grid, partial_w, partial_b, dy2, x2, stats, rstd, n, m, n, rows_per_group, RMS=rms,
           HAS_BIAS=has_bias)
    _column_sums(launch, dw, partial_w, db, partial_b, groups, n, has_bias)


def _norm_bwd_fake(dy, x, weight, mean, rstd, rms, input_grad, weight_grad, has_bias):
    n = x.shape[-1]
    dx = torch.empty_like(x, memory_format=torch.contiguous_format) if input_grad else x.new_empty(0)
    return dx, x.new_empty(n if weight_grad else 0), x.new_empty(n if weight_grad and has_bias else 0)


_OP_NORM_BWD = Operator("tilelang::norm_bwd", _norm_bwd, _norm_bwd_fake)


# -- autograd ---------------------------------------------------------------------------


def _in(tensor: Tensor, dtype: torch.dtype) -> Tensor:
    """`tensor` in `dtype`: the gradients come in the parameters' dtype
    already, and .to() costs a call even when it has nothing to do."""
    return tensor if tensor.dtype is dtype else tensor.to(dtype)


def _setup_layer_norm(ctx, inputs, output):
    x, weight, bias, _ = inputs
    _, mean, rstd = output
    ctx.save_for_backward(x, weight, mean, rstd)
    ctx.has_bias = bias is not None


def _backward_layer_norm(ctx, dy, _dmean, _drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    input_grad = ctx.needs_input_grad[0]
    weight_grad = weight is not None and ctx.needs_input_grad[1]
    bias_grad = ctx.has_bias and ctx.needs_input_grad[2]
    if not (input_grad or weight_grad or bias_grad):
        return None, None, None, None
    dx, sum_w, sum_b = _OP_NORM_BWD(dy, x, weight, mean, rstd, False, input_grad, weight_grad or bias_grad,
                                    ctx.has_bias)
    if _autograd.wanted(x):
        _resolve(dy, x, weight, mean, rstd, False, ctx.has_bias, input_grad, weight_grad, bias_grad)
    return (dx if input_grad else None, _in(sum_w, weight.dtype) if weight_grad else None,
            _in(sum_b, dy.dtype) if bias_grad else None, None)


_OP_LAYER_NORM_FWD = Operator("tilelang::layer_norm_fwd", _layer_norm_fwd, _layer_norm_fwd_fake,
                              _setup_layer_norm, _backward_layer_norm, first_output_only=True)


def _setup_rms_norm(ctx, inputs, output):
    x, weight, _ = inputs
    _, rstd = output
    ctx.save_for_backward(x, weight, rstd)


def _backward_rms_norm(ctx, dy, _drstd):
    x, weight, rstd = ctx.saved_tensors
    input_grad = ctx.needs_input_grad[0]
    weight_grad = weight is not None and ctx.needs_input_grad[1]
    if not (input_grad or weight_grad):
        return None, None, None
    dx, sum_w, _ = _OP_NORM_BWD(dy, x, weight, None, rstd, True, input_grad, weight_grad, False)
    if _autograd.wanted(x):
        _resolve(dy, x, weight, None, rstd, True, False, input_grad, weight_grad, False)
    return dx if input_grad else None, _in(sum_w, weight.dtype) if weight_grad else None, None


_OP_RMS_NORM_FWD = Operator("tilelang::rms_norm_fwd", _rms_norm_fwd, _rms_norm_fwd_fake, _setup_rms_norm,
                            _backward_rms_norm, first_output_only=True)


# -- the C++ backward (tilelang.ops._autograd) ------------------------------------------


def _key(x: Tensor, weight: Optional[Tensor], rms: bool, has_bias: bool, input_grad: bool, weight_grad: bool,
         bias_grad: bool) -> tuple:
    """What a norm's C++ backward is resolved for: the rows, the row length,
    the dtype and device, which parameters there are and which gradients
    the forward's inputs want (their requires_grad at the forward, as
    autograd.Function's needs_input_grad)."""
    n = x.shape[-1]
    return (rms, x.numel() // n if n else 0, n, x.dtype, x.get_device(), weight is None, has_bias, input_grad,
            weight_grad, bias_grad)


def _resolve(dy: Tensor, x: Tensor, weight: Optional[Tensor], mean: Optional[Tensor], rstd: Tensor, rms: bool,
             has_bias: bool, input_grad: bool, weight_grad: bool, bias_grad: bool) -> None:
    """After a backward in Python (of dy and the saved x, weight, mean,
    rstd): resolves the same backward for the C++ node
    (_autograd.resolve), on those tensors or stand-ins of them."""
    key = _key(x, weight, rms, has_bias, input_grad, weight_grad, bias_grad)
    if key in _autograd.plans:
        return
    n = x.shape[-1]
    m = x.numel() // n if n else 0
    if not (m and n):
        _autograd.plans[key] = None  # nothing to launch: the Python backward's zeros
        return
    taken = []
    gradient = _autograd.stand_in(dy, x.shape, x.dtype, x.device, taken)
    x_in = _autograd.stand_in(x, x.shape, x.dtype, x.device, taken)
    w_in = _autograd.stand_in(weight, (n,), x.dtype, x.device, taken) if weight is not None else None
    # Without a weight the kernels read ones, which the plan keeps.
    constants = () if weight is not None else (torch.ones(n, device=x.device, dtype=x.dtype),)
    rstd = _autograd.stand_in(rstd, (m,), torch.float32, x.device, taken)
    mean = None if rms else _autograd.stand_in(mean, (m,), torch.float32, x.device, taken)
    saved = (x_in, w_in, rstd) if rms else (x_in, w_in, mean, rstd)

    def run(launch):
        dx, dw, db = _norm_bwd_with(launch, gradient, x_in, w_in if weight is not None else constants[0], mean,
                                    rstd, rms, input_grad, weight_grad or bias_grad, has_bias)
        grads = (dx if input_grad else None, dw if weight_grad else None)
        return grads if rms else grads + (db if bias_grad else None,)

    name = "TileLangRmsNormBackward" if rms else "TileLangLayerNormBackward"
    _autograd.resolve(key, name, gradient, saved, constants, run)


def _resolve_forward(key: tuple, x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float,
                     rms: bool) -> None:
    """The forward of a key whose backward is resolved (_autograd.plans),
    resolved for the C++ forward (_autograd.resolve_forward) on x, weight
    and bias or stand-ins of them; the node saves what the Python forward's
    record saves."""
    n = x.shape[-1]
    m = x.numel() // n if n else 0
    if not (m and n):
        _autograd.forwards[key] = None  # nothing to launch
        return
    taken = []
    x_in = _autograd.stand_in(x, x.shape, x.dtype, x.device, taken)
    w_in = _autograd.stand_in(weight, (n,), x.dtype, x.device, taken) if weight is not None else None
    b_in = _autograd.stand_in(bias, (n,), x.dtype, x.device, taken) if bias is not None and not rms else None
    # Absent parameters: the kernels read ones (weight) and zeros (bias), which the plan keeps.
    ones = torch.ones(n, device=x.device, dtype=x.dtype) if weight is None else None
    zeros = torch.zeros(n, device=x.device, dtype=x.dtype) if bias is None and not rms else None
    constants = tuple(t for t in (ones, zeros) if t is not None)
    w_run = w_in if weight is not None else ones

    def run(launch):
        if rms:
            y, rstd = _rms_norm_fwd_with(partial(launch, _RMS_NORM_FWD), x_in, w_run, eps)
            return y, (x_in, w_in, rstd)
        mean = torch.empty(m, device=x.device, dtype=torch.float32)
        rstd = torch.empty(m, device=x.device, dtype=torch.float32)
        y = _layer_norm(x_in, m, n, w_run, b_in if bias is not None else zeros, eps, mean, rstd,
                        partial(launch, _LAYER_NORM_FWD))
        return y, (x_in, w_in, mean, rstd)

    parameters = (w_in,) if rms else (w_in, b_in)
    name = "TileLangRmsNormBackward" if rms else "TileLangLayerNormBackward"
    _autograd.resolve_forward(key, name, x_in, parameters, constants, eps, run)


# The C++ entry's plans (tilelang.ops._autograd.table): None without tilelang._C_torch.
_LAYER_NORM = _autograd.table(2, True)
_RMS_NORM = _autograd.table(1, True)


def _native_forward(key: tuple, x: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], eps: float,
                    rms: bool):
    """The C++ forward's output where `key` has (or now resolves) a
    ForwardPlan, else None."""
    if key not in _autograd.forwards:
        _resolve_forward(key, x, weight, bias, eps, rms)
    plan = _autograd.forward_plan(key)
    if plan is None:
        return None
    if rms:
        return _autograd.forward_kept(_RMS_NORM, key, plan, eps, x, weight)
    return _autograd.forward_kept(_LAYER_NORM, key, plan, eps, x, weight, bias)


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
    if not torch.compiler.is_compiling() and _LAYER_NORM is not None and _autograd.enabled:
        y = _autograd.eager_forward(_LAYER_NORM, x, weight, bias, eps)
        if y is not None:
            return y
    recorded = eager(x, FLOATS, weight, bias)
    if recorded is not None and eps > 0:
        if not recorded:
            return _layer_norm_output(x, weight, bias, float(eps))
        if _autograd.enabled:
            key = _key(x, weight, False, bias is not None, x.requires_grad,
                       weight is not None and weight.requires_grad, bias is not None and bias.requires_grad)
            plan = _autograd.forward_plan(key)
            if plan is not None:
                return _autograd.forward_kept(_LAYER_NORM, key, plan, float(eps), x, weight, bias)
            plan = _autograd.lookup(key)
            if plan is not None:
                y = _native_forward(key, x, weight, bias, float(eps), False)
                if y is not None:
                    return y
                y, mean, rstd = _layer_norm_fwd(x, weight, bias, float(eps))
                return _autograd.record(plan, y, (x, weight, bias), (x, weight, mean, rstd))
        return _OP_LAYER_NORM_FWD.direct(True, x, weight, bias, float(eps))[0]
    _check("layer_norm", x, [("weight", weight), ("bias", bias)], eps)
    return _OP_LAYER_NORM_FWD(x, weight, bias, float(eps))[0]


def rms_norm(x: Tensor, weight: Optional[Tensor] = None, eps: float = 1e-6) -> Tensor:
    """torch.nn.functional.rms_norm(x, (x.shape[-1],), weight, eps): each row
    of x's last dimension divided by sqrt(mean(x^2) + eps) (in fp32), times
    weight. x: fp16, bf16 or fp32 on a CUDA device; weight: (N,) of x's
    dtype, or None. Differentiable in x and weight."""
    if not torch.compiler.is_compiling() and _RMS_NORM is not None and _autograd.enabled:
        y = _autograd.eager_forward(_RMS_NORM, x, weight, eps)
        if y is not None:
            return y
    recorded = eager(x, FLOATS, weight)
    if recorded is not None and eps > 0:
        if recorded and _autograd.enabled:
            key = _key(x, weight, True, False, x.requires_grad, weight is not None and weight.requires_grad, False)
            plan = _autograd.forward_plan(key)
            if plan is not None:
                return _autograd.forward_kept(_RMS_NORM, key, plan, float(eps), x, weight)
            plan = _autograd.lookup(key)
            if plan is not None:
                y = _native_forward(key, x, weight, None, float(eps), True)
                if y is not None:
                    return y
                y, rstd = _rms_norm_fwd(x, weight, float(eps))
                return _autograd.record(plan, y, (x, weight), (x, weight, rstd))
        return _OP_RMS_NORM_FWD.direct(recorded, x, weight, float(eps))[0]
    _check("rms_norm", x, [("weight", weight)], eps)
    return _OP_RMS_NORM_FWD(x, weight, float(eps))[0]
