"""tilelang.ops.attention: the bundled flash-attention forward
(attention_fwd_kernel) as a torch custom operator with a fake
implementation. Forward only: there is no backward kernel yet, and
differentiating through it raises a NotImplementedError that says so."""

from typing import Optional

import torch
from torch import Tensor

from tilelang.ops import spaces
from tilelang.ops._runtime import HALVES, Operator, check_same, check_tensor, kernels, knobs_hold

_TUNER = []


def _tuner():
    """attention_fwd_kernel under the autotuner (ATTENTION space, pruned to
    what fits the device's shared memory), with the sequence length in
    power-of-two buckets; built on first use."""
    if not _TUNER:
        import tilelang
        from tilelang.ops.kernels import attention as family

        _TUNER.append(family.attention_tuner(kernels()["attention_fwd_kernel"], tilelang.autotune, tilelang.heuristics,
                                             spaces.configs(spaces.ATTENTION), spaces.prune_attention,
                                             spaces.ATTENTION_KEY, work=spaces.attention_work,
                                             bucket={"N_CTX": spaces.bucket_pow2}))
    return _TUNER[0]


def _attention_fwd(q: Tensor, k: Tensor, v: Tensor, causal: bool, sm_scale: float) -> Tensor:
    from tilelang import knobs
    from tilelang.ops.kernels import attention as family

    out = torch.empty(q.shape, device=q.device, dtype=q.dtype)
    batch, heads, n_ctx, _ = q.shape
    if n_ctx == 0 or batch * heads == 0:
        return out
    # No launch table here: the kernel's dispatcher keeps what it launches,
    # and holds for the compile knobs' values it was made under.
    knobs_hold()
    if knobs.ops_autotune():
        family.attention_tuned(_tuner(), q, k, v, causal, sm_scale, out=out)
    else:
        family.attention(q, k, v, causal, sm_scale, kernels()["attention_fwd_kernel"], out=out)
    return out


def _attention_fwd_fake(q, k, v, causal, sm_scale):
    return torch.empty(q.shape, device=q.device, dtype=q.dtype)


def _setup(ctx, inputs, output):
    pass


def _backward(ctx, dout):
    raise NotImplementedError("tilelang.ops.attention is forward only: it has no backward kernel yet; "
                              "use torch.nn.functional.scaled_dot_product_attention where gradients are needed")


_OP_ATTENTION_FWD = Operator("tilelang::attention_fwd", _attention_fwd, _attention_fwd_fake, _setup, _backward)


def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool = False, sm_scale: Optional[float] = None) -> Tensor:
    """softmax(q k^T * sm_scale) v (torch's scaled_dot_product_attention
    with is_causal=causal, scale=sm_scale), by the bundled flash-attention
    forward. q: (B, H, N_CTX, D); k, v: (B, H_KV, N_CTX, D) with H_KV
    dividing H (grouped-query heads); fp16 or bf16 on a CUDA device; D 64 or
    128; sm_scale > 0 (None: D ** -0.5). Forward only."""
    op = "attention"
    for name, tensor in (("q", q), ("k", k), ("v", v)):
        check_tensor(op, name, tensor, HALVES, dims=4)
    check_same(op, "q", q, {"k": k, "v": v})
    from tilelang.ops.kernels import attention as family

    try:
        sm_scale, _ = family.attention_operands(q, k, v, sm_scale, q)
    except ValueError as exc:
        raise ValueError(f"tilelang.ops.{exc}") from None
    return _OP_ATTENTION_FWD(q, k, v, bool(causal), float(sm_scale))
