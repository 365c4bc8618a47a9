"""tilelang.ops.softmax: softmax along one dimension as a torch custom
operator with a fake implementation and autograd. Rows that fit in a
block are read once and kept in registers; longer rows go by in chunks
(an online pass for the maximum and the sum, then one that writes). The
backward is DX = Y * (DY - sum(DY * Y)), one row per program."""

from functools import partial

import torch
from torch import Tensor

from tilelang.ops import _autograd, spaces
from tilelang.ops._runtime import FLOATS, Operator, Tuned, as_rows, check_tensor, eager


def _row_fits(args) -> bool:
    return args["n_cols"] <= args["BLOCK_SIZE"]


_SOFTMAX_FWD = Tuned("softmax_fwd", spaces.ROWS, key=["n_cols"], prune=spaces.prune_rows("n_cols"),
                     heuristics={"ROW_FITS": _row_fits})
_SOFTMAX_BWD = Tuned("softmax_bwd", spaces.ROWS, key=["n_cols"], prune=spaces.prune_rows("n_cols"),
                     heuristics={"ROW_FITS": _row_fits})


def _softmax_fwd(x: Tensor) -> Tensor:
    """Softmax along the last dimension."""
    return _softmax_fwd_with(None, x)


def _softmax_fwd_with(launch, x: Tensor) -> Tensor:
    """_softmax_fwd with its launch made by `launch` (Tuned.launch's form;
    None: _SOFTMAX_FWD.launch)."""
    x, m, n = as_rows(x, "softmax")
    y = torch.empty_like(x, memory_format=torch.contiguous_format)
    if m and n:
        (launch or _SOFTMAX_FWD.launch)((n, x.dtype), (m,), y, x, n, n, n)
    return y


def _softmax_fwd_fake(x):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


def _softmax_bwd(dy: Tensor, y: Tensor) -> Tensor:
    return _softmax_bwd_with(_autograd.launch, dy, y)


def _softmax_bwd_with(launch, dy: Tensor, y: Tensor) -> Tensor:
    """_softmax_bwd with its launch made by `launch` (_autograd.launch, or
    the recorder that resolves a C++ backward: _autograd.resolve)."""
    y, m, n = as_rows(y, "softmax")
    dy = dy.contiguous()
    dx = torch.empty_like(y, memory_format=torch.contiguous_format)
    if m and n:
        launch(_SOFTMAX_BWD, (n, y.dtype, dy.dtype), (m,), dx, dy, y, n, n, n, n)
    return dx


def _softmax_bwd_fake(dy, y):
    return torch.empty_like(y, memory_format=torch.contiguous_format)


_OP_SOFTMAX_BWD = Operator("tilelang::softmax_bwd", _softmax_bwd, _softmax_bwd_fake)


def _setup(ctx, inputs, output):
    ctx.save_for_backward(output)


def _backward(ctx, dy):
    (y,) = ctx.saved_tensors
    dx = _OP_SOFTMAX_BWD(dy if dy.dtype is y.dtype else dy.to(y.dtype), y)
    if _autograd.wanted(y):
        _resolve(dy, y)
    return dx


def _key(y: Tensor) -> tuple:
    """What softmax's C++ backward is resolved for (tilelang.ops._autograd)."""
    n = y.shape[-1]
    return (y.numel() // n if n else 0, n, y.dtype, y.get_device())


def _resolve(dy: Tensor, y: Tensor) -> None:
    """After a backward in Python (of dy and the saved output y): resolves
    the same backward for the C++ node, on those tensors or stand-ins of
    them (_autograd.stand_in)."""
    key = _key(y)
    if key in _autograd.plans:
        return
    if not y.numel():
        _autograd.plans[key] = None
        return
    taken = []
    gradient = _autograd.stand_in(dy, y.shape, y.dtype, y.device, taken)
    y_in = _autograd.stand_in(y, y.shape, y.dtype, y.device, taken)
    _autograd.resolve(key, "TileLangSoftmaxBackward", gradient, (y_in,), (),
                      lambda launch: (_softmax_bwd_with(launch, gradient, y_in),))


# The C++ entry's plans (tilelang.ops._autograd.table): None without tilelang._C_torch.
_SOFTMAX = _autograd.table(0, False)


def _native_forward(key: tuple, x: Tensor):
    """The C++ forward's output where `key` has (or now resolves) a
    ForwardPlan, else None. Resolved on x or a stand-in of it; the node
    saves the output."""
    if key not in _autograd.forwards:
        if not x.numel():
            _autograd.forwards[key] = None
        else:
            x_in = _autograd.stand_in(x, x.shape, x.dtype, x.device, [])

            def run(launch):
                y = _softmax_fwd_with(partial(launch, _SOFTMAX_FWD), x_in)
                return y, (y,)

            _autograd.resolve_forward(key, "TileLangSoftmaxBackward", x_in, (), (), None, run)
    plan = _autograd.forward_plan(key)
    return None if plan is None else _autograd.forward_kept(_SOFTMAX, key, plan, 0.0, x)


_OP_SOFTMAX_FWD = Operator("tilelang::softmax_fwd", _softmax_fwd, _softmax_fwd_fake, _setup, _backward)


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    """torch.softmax(x, dim), computed in fp32 and returned in x's dtype.
    x: fp16, bf16 or fp32 on a CUDA device. Along a dimension other than
    the last, x is moved so that the dimension is last (a copy).
    Differentiable in x."""
    if dim == -1 and not torch.compiler.is_compiling() and _SOFTMAX is not None and _autograd.enabled:
        y = _autograd.eager_forward(_SOFTMAX, x)
        if y is not None:
            return y
    recorded = eager(x, FLOATS)
    if recorded is not None and (dim == -1 or dim == x.dim() - 1):
        if recorded and _autograd.enabled:
            key = _key(x)
            plan = _autograd.forward_plan(key)
            if plan is not None:
                return _autograd.forward_kept(_SOFTMAX, key, plan, 0.0, x)
            plan = _autograd.lookup(key)
            if plan is not None:
                y = _native_forward(key, x)
                if y is not None:
                    return y
                y = _softmax_fwd(x)
                return _autograd.record(plan, y, (x,), (y,))
        return _OP_SOFTMAX_FWD.direct(recorded, x)
    check_tensor("softmax", "x", x, FLOATS, min_dims=1)
    if not -x.dim() <= dim < x.dim():
        raise IndexError(f"tilelang.ops.softmax: dim {dim} is out of range for a tensor of {x.dim()} "
                         f"dimensions")
    dim = dim % x.dim()
    if dim == x.dim() - 1:
        return _OP_SOFTMAX_FWD(x)
    return _OP_SOFTMAX_FWD(x.movedim(dim, -1)).movedim(-1, dim)
