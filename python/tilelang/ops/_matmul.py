"""tilelang.ops.matmul: act(A @ B + bias) as a torch custom operator, with
a fake implementation and autograd. The bias add and the activation run on
the fp32 accumulator before the one store (matmul_epilogue_kernel). The
backward is two products through the same operator, on transposed views
(the kernel takes any strides): dA = dZ B^T and dB = A^T dZ, where dZ is
the output gradient through the activation (for gelu and silu, the
pre-activation product is recomputed). An operand whose rows (columns,
column-major) do not start at multiples of 8 elements (16 bytes) is copied
into storage where they do (_aligned), for the kernel's 16-byte copies; the
launch tells the kernel which strides are multiples of 8 (STRIDES_OF_8)."""

import math
from typing import Optional

import torch
from torch import Tensor

from tilelang.ops import _runtime, spaces
from tilelang.ops._runtime import HALVES, Operator, Tuned, check_extent, check_same, check_tensor

ACTIVATIONS = ("none", "relu", "gelu", "silu")

# Elements a row (or column) of an operand starts at a multiple of: what the
# compiler must know of a stride and an address for 16-byte copies of
# fp16/bf16. The launch tells the kernel which strides are multiples of it
# (STRIDES_OF_8: a run-time stride is otherwise known as a multiple of 16 or
# not at all), and a K that is one keeps its last block in the pipelined
# loop (K_GROUP).
_ALIGN = 8


def _even_k(args) -> bool:
    return args["K"] % args["BLOCK_SIZE_K"] == 0


def _k_group(args) -> int:
    """_ALIGN where K is a multiple of it (16 bytes of fp16/bf16), else 0:
    the kernel then keeps a partial last K block in its pipelined loop."""
    return _ALIGN if args["K"] % _ALIGN == 0 else 0


_MATMUL = Tuned("matmul_epilogue_kernel", spaces.MATMUL_OPS, key=["M", "N", "K"], work=spaces.matmul_work,
                untuned=spaces.MATMUL_UNTUNED, heuristics={"EVEN_K": _even_k, "K_GROUP": _k_group})


def _strides_of_8(strides) -> int:
    """matmul_epilogue_kernel's STRIDES_OF_8 for (stride_am, stride_ak,
    stride_bk, stride_bn): a bit for each that is a multiple of _ALIGN."""
    return sum(1 << index for index, stride in enumerate(strides) if stride % _ALIGN == 0)


# How far a tile's rows and columns reach past M and N, and its K offsets
# past 0: the largest block of the space (the masked rows of the last tile
# have offsets too).
_REACH = max(max(c["BLOCK_SIZE_M"], c["BLOCK_SIZE_N"], c["BLOCK_SIZE_K"]) for c in spaces.MATMUL_OPS)


def _offsets_64(m: int, n: int, a_strides, b_strides) -> bool:
    """matmul_epilogue_kernel's OFFSETS_64: whether an element offset a
    tile forms from its row and column indices (of A, B or the contiguous
    M x N output) can reach 2**31, where 32 bits wrap."""
    am, ak = a_strides
    bk, bn = b_strides
    reach = max((m + _REACH) * am + _REACH * ak, _REACH * bk + (n + _REACH) * bn, (m + _REACH) * n)
    return reach >= 2**31


def _aligned(t: Tensor) -> Tensor:
    """t (2-D), or a copy of it in storage whose rows (or, for a column-major
    t, columns) start at multiples of _ALIGN elements: the kernel's loads
    are 16-byte copies only where every row start is known to be aligned,
    and a ragged K (8192x4096x1000) otherwise costs the product its async
    copies. One pass over t, against a product over all of it."""
    rows, cols = t.shape
    row_stride, col_stride = t.stride()
    aligned = t.data_ptr() % (_ALIGN * t.element_size()) == 0
    if col_stride == 1 and (row_stride % _ALIGN == 0 or rows == 1) and aligned:
        return t
    if row_stride == 1 and (col_stride % _ALIGN == 0 or cols == 1) and aligned:
        return t
    if row_stride == 1 and col_stride != 1:  # column-major: keep it so
        copy = t.new_empty((cols, -(-rows // _ALIGN) * _ALIGN))[:, :rows].t()
    else:
        copy = t.new_empty((rows, -(-cols // _ALIGN) * _ALIGN))[:, :cols]
    copy.copy_(t)
    return copy


def _matmul(a: Tensor, b: Tensor, bias: Optional[Tensor], activation: str) -> Tensor:
    """act(a @ b + bias) for 2-D a (M x K) and b (K x N), any strides."""
    m, k = a.shape
    n = b.shape[1]
    out = torch.empty((m, n), device=a.device, dtype=a.dtype)
    if m and n:
        if k == 0:  # nothing to multiply: the epilogue of a zero product
            return _epilogue(torch.zeros((m, n), device=a.device, dtype=torch.float32), bias,
                             activation).to(a.dtype)
        a, b = _aligned(a), _aligned(b)
        if bias is not None:
            # The kernel reads the bias at consecutive addresses (bias_ptr + cols).
            bias = bias.contiguous()

        def grid(meta):
            tiles = -(-m // meta["BLOCK_SIZE_M"]) * -(-n // meta["BLOCK_SIZE_N"])
            persistent = meta.get("PERSISTENT", 0)
            if not persistent:
                return (tiles,)
            return (spaces.matmul_programs(tiles, persistent, _runtime.multiprocessors(a.device)),)

        # The config depends on the sizes (EVEN_K on k exactly), the dtypes and the epilogue; the
        # kernel on which strides are multiples of 8 and on the offsets' width.
        a_strides, b_strides = a.stride(), b.stride()
        strides_of_8 = _strides_of_8(a_strides + b_strides)
        offsets_64 = _offsets_64(m, n, a_strides, b_strides)
        key = (m, n, k, a.dtype, b.dtype, None if bias is None else bias.dtype, activation, strides_of_8,
               offsets_64)
        _MATMUL.launch(key, grid, a, b, bias if bias is not None else out, out, m, n, k, a_strides[0], a_strides[1],
                       b_strides[0], b_strides[1], n, 1, HAS_BIAS=bias is not None, ACTIVATION=activation,
                       STRIDES_OF_8=strides_of_8, OFFSETS_64=offsets_64)
    return out


def _matmul_fake(a, b, bias, activation):
    return a.new_empty((a.shape[0], b.shape[1]))


def _epilogue(z: Tensor, bias: Optional[Tensor], activation: str) -> Tensor:
    """act(z + bias) in torch (fp32), for the empty-K case."""
    if bias is not None:
        z = z + bias.float()
    if activation == "relu":
        return torch.relu(z)
    if activation == "gelu":
        return torch.nn.functional.gelu(z)
    if activation == "silu":
        return torch.nn.functional.silu(z)
    return z


def _activation_grad(dy: Tensor, z: Tensor, activation: str) -> Tensor:
    """dy * act'(z), in fp32, for the activations whose derivative needs z."""
    z = z.float()
    if activation == "gelu":
        cdf = 0.5 * (1.0 + torch.erf(z * (1.0 / math.sqrt(2.0))))
        pdf = torch.exp(-0.5 * z * z) * (1.0 / math.sqrt(2.0 * math.pi))
        return dy.float() * (cdf + z * pdf)
    s = torch.sigmoid(z)  # silu
    return dy.float() * (s * (1.0 + z * (1.0 - s)))


def _setup(ctx, inputs, output):
    a, b, bias, activation = inputs
    ctx.activation = activation
    ctx.has_bias = bias is not None
    ctx.save_for_backward(a, b, bias, output if activation == "relu" else None)


def _backward(ctx, dy):
    a, b, bias, out = ctx.saved_tensors
    activation = ctx.activation
    if activation == "none":
        dz = dy
    elif activation == "relu":
        dz = torch.where(out > 0, dy, 0)  # as torch's threshold_backward: no mask in dy's dtype to multiply by
    else:
        z = _OP_MATMUL(a, b, bias, "none")
        dz = _activation_grad(dy, z, activation)
    if dz.dtype is not a.dtype:
        dz = dz.to(a.dtype)
    da = _OP_MATMUL(dz, b.t(), None, "none") if ctx.needs_input_grad[0] else None
    db = _OP_MATMUL(a.t(), dz, None, "none") if ctx.needs_input_grad[1] else None
    dbias = None
    if ctx.has_bias and ctx.needs_input_grad[2]:
        # A sum over fp16/bf16 accumulates in fp32 (torch's reductions do): no fp32 copy of dz first.
        dbias = dz.sum(0)
        if dbias.dtype is not bias.dtype:
            dbias = dbias.to(bias.dtype)
    return da, db, dbias, None


_OP_MATMUL = Operator("tilelang::matmul", _matmul, _matmul_fake, _setup, _backward)


def matmul(a: Tensor, b: Tensor, bias: Optional[Tensor] = None, activation: Optional[str] = None) -> Tensor:
    """act(a @ b + bias), accumulated in fp32, returned in a's dtype.
    a: (..., K), b: (K, N), bias: (N,) or None, all fp16 or all bf16 on
    one CUDA device, any strides; the leading dimensions of a are batch
    dimensions. activation: None, "relu", "gelu" (the erf form, as
    torch.nn.functional.gelu) or "silu". Differentiable in a, b and bias."""
    op = "matmul"
    check_tensor(op, "a", a, HALVES, min_dims=1)
    check_tensor(op, "b", b, HALVES, dims=2)
    if bias is not None:
        check_tensor(op, "bias", bias, HALVES, dims=1)
    check_same(op, "a", a, {"b": b, "bias": bias})
    activation = "none" if activation is None else activation
    if activation not in ACTIVATIONS:
        raise ValueError(f"tilelang.ops.matmul: activation {activation!r}; supported: None, "
                         + ", ".join(repr(x) for x in ACTIVATIONS[1:]))
    k, n = b.shape
    if a.shape[-1] != k:
        raise ValueError(f"tilelang.ops.matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} do not multiply")
    if bias is not None and bias.shape[0] != n:
        raise ValueError(f"tilelang.ops.matmul: bias has {bias.shape[0]} elements, the product {n} columns")
    for what, size in (("a product of M", math.prod(a.shape[:-1])), ("a product of N", n), ("a product of K", k)):
        check_extent(op, what, size)
    if a.dim() == 2:
        return _OP_MATMUL(a, b, bias, activation)
    lead = a.shape[:-1]
    # The row count spelled out: reshape(-1, 0) of an empty K is ambiguous to torch.
    out = _OP_MATMUL(a.reshape(math.prod(lead), k), b, bias, activation)
    return out.reshape(*lead, n)
