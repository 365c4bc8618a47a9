"""What corpus modules share that is not the user's code: ``Descriptor``,
to describe a tensor descriptor argument to the static mode without torch
(pointers are written "*bf16", a 16-byte aligned tensor; other arguments
are their Python values), and the checks of outputs against float64
references that several modules use."""

from typing import NamedTuple, Tuple


class Descriptor(NamedTuple):
    """A TensorDescriptor argument: element type ("bf16"), block shape and
    the tensor's shape (its extents' divisibility is specialized on)."""

    dtype: str
    block: Tuple[int, ...]
    shape: Tuple[int, ...]


# -- checks shared by corpus modules (torch is imported by the callers' runs) --


def within(name, out, ref, bound):
    """None when every element of `out` is finite and within `bound` of the
    float64 `ref`, else what is wrong with it."""
    import torch

    if out.shape != ref.shape:
        return f"{name}: shape {tuple(out.shape)}, expected {tuple(ref.shape)}"
    if not torch.isfinite(out).all():
        return f"{name}: non-finite values"
    error = (out.double() - ref).abs()
    bad = error > bound
    if bad.any():
        return f"{name}: {int(bad.sum())} of {out.numel()} elements wrong (max error {float(error.max()):.3g})"
    return None


def product_within_bound(out, ref, a, b):
    """`out` = `a` @ `b` (M x K by K x N) within the fp32 accumulation of K
    exact products, (K + 2) 2^-22 (|a| @ |b|), plus the final rounding to
    fp16/bf16."""
    K = a.shape[1]
    bound = (K + 2) * 2.0**-22 * (a.double().abs() @ b.double().abs()) + ref.abs() * 2.0**-7 + 1e-6
    return within("c", out, ref, bound)


def relative_within(name, out, ref, dtype, relative=1e-2, floor=1e-6):
    """`out` of `dtype` within `relative` of the float64 `ref` plus an
    absolute `floor` (for values that round to 0): outputs of products
    without cancellation (softmax, rmsnorm)."""
    if out.dtype != dtype:
        return f"{name}: {out.dtype}, expected {dtype}"
    return within(name, out, ref, relative * ref.abs() + floor)


# -- the fp16/bf16 matrix products (problems with M, N, K and a dtype) --


def matmul_static_args(problem):
    """Pointer arguments and row-major strides of C = A (M x K) @ B (K x N)."""
    M, N, K, d = problem["M"], problem["N"], problem["K"], problem["dtype"]
    return dict(a_ptr=f"*{d}", b_ptr=f"*{d}", c_ptr=f"*{d}", M=M, N=N, K=K, stride_am=K, stride_ak=1,
                stride_bk=N, stride_bn=1, stride_cm=N, stride_cn=1)


def matmul_inputs(problem, b_rows_n=False):
    """Random normal A (M x K) and B (K x N, or N x K with `b_rows_n`)."""
    import torch

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[problem["dtype"]]
    a = torch.randn((problem["M"], problem["K"]), device="cuda", dtype=dtype)
    b_shape = (problem["N"], problem["K"]) if b_rows_n else (problem["K"], problem["N"])
    return a, torch.randn(b_shape, device="cuda", dtype=dtype)


def matmul_reference(a, b):
    """A @ B in float64."""
    return a.double() @ b.double()


def matmul_metric(problem):
    return "TFLOP/s", 2.0 * problem["M"] * problem["N"] * problem["K"]


def layer_norm_inputs(problem):
    """Triton's tutorial 05 inputs: x off-centre, weight and bias in [0, 1)."""
    import torch

    M, N = problem["M"], problem["N"]
    x = -2.3 + 0.5 * torch.randn((M, N), device="cuda", dtype=torch.float16)
    weight = torch.rand((N, ), device="cuda", dtype=torch.float16)
    bias = torch.rand((N, ), device="cuda", dtype=torch.float16)
    return x, weight, bias


def layer_norm_reference(inputs, eps):
    """(y, mean, rstd) of the layernorm forward, in float64."""
    x, weight, bias = (t.double() for t in inputs)
    mean = x.mean(dim=1)
    rstd = 1 / ((x - mean[:, None]) ** 2).mean(dim=1).add(eps).sqrt()
    y = (x - mean[:, None]) * rstd[:, None] * weight + bias
    return y, mean, rstd


def layer_norm_check(out, ref, inputs):
    """y: fp16 rounding, 1e-2 relative plus 1e-3 absolute (|y| is about 1);
    Mean: an fp32 sum of N terms, 3e-5 of the row's mean |x| (a thread adds
    up to a few hundred terms in a row at 2 warps); Rstd: 1e-4 relative."""
    y, mean, rstd = out
    y_ref, mean_ref, rstd_ref = ref
    scale = inputs[0].double().abs().mean(dim=1)
    return (within("y", y, y_ref, 1e-2 * y_ref.abs() + 1e-3)
            or within("mean", mean, mean_ref, 3e-5 * scale)
            or within("rstd", rstd, rstd_ref, 1e-4 * rstd_ref))
