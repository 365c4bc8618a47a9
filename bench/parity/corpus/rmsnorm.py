"""RMSNorm forward as open-source Triton libraries write it (the LLM
kernel collections' forward): one row per program, the whole row in
registers (BLOCK_SIZE = next_power_of_2(N), masked), fp32 math,
`tl.rsqrt` of the mean square plus eps, the weight multiply, and a store
cast to the output's element type. bf16 (and one fp16 problem); num_warps
as those libraries pick it (4, 8 from 2048 columns, 16 from 8192) and its
neighbours."""

import parity_spec
import triton
import triton.language as tl


@triton.jit
def rms_norm_fwd_kernel(X, Y, W, stride_x, stride_y, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    # Padding columns read 0, so they add nothing to the sum of squares.
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    mean_square = tl.sum(x * x, axis=0) / N
    rstd = tl.rsqrt(mean_square + eps)
    y = x * rstd * w
    tl.store(Y + row * stride_y + cols, y.to(Y.dtype.element_ty), mask=mask)


def rms_norm(x, weight, eps, config):
    """The host function, with num_warps from the config."""
    import torch

    M, N = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(N)
    rms_norm_fwd_kernel[(M, )](x, y, weight, x.stride(0), y.stride(0), N, eps, BLOCK_SIZE=BLOCK_SIZE, **config)
    return y


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = rms_norm_fwd_kernel
EPS = 1e-6

# The libraries' heuristic gives 4 warps at 1024 columns, 8 at 3000 and
# 4096, 16 from 8192; with halves and doubles (within 1..16), 2 to 16.
CONFIGS = [dict(num_warps=w) for w in (2, 4, 8, 16)]

PROBLEMS = [dict(name=f"{m}x{n} bf16", M=m, N=n, dtype="bf16")
            for m, n in ((4096, 1024), (4096, 4096), (16384, 8192), (8192, 12288))]
PROBLEMS.append(dict(name="4096x4096 fp16", M=4096, N=4096, dtype="fp16"))
# Not a power of two: the masked tail, rows not 16-byte aligned.
PROBLEMS.append(dict(name="4000x3000 bf16", M=4000, N=3000, dtype="bf16"))

# The static mode compiles the first problem and the last, whose sizes are not multiples of a
# vector: other masks and alignments, other code.
STATIC_PROBLEMS = [PROBLEMS[0], PROBLEMS[-1]]


def label(config):
    return f"w{config['num_warps']}"


def constexprs(problem):
    return dict(BLOCK_SIZE=triton.next_power_of_2(problem["N"]))


def static_args(problem):
    d, N = problem["dtype"], problem["N"]
    return dict(X=f"*{d}", Y=f"*{d}", W=f"*{d}", stride_x=N, stride_y=N, N=N, eps=EPS)


def inputs(problem):
    import torch

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[problem["dtype"]]
    x = torch.randn((problem["M"], problem["N"]), device="cuda", dtype=dtype)
    weight = torch.rand((problem["N"], ), device="cuda", dtype=dtype)
    return x, weight


def launch(inputs, problem, config):
    return rms_norm(*inputs, EPS, config)


def reference(inputs, problem):
    x, weight = (t.double() for t in inputs)
    rstd = 1 / (x * x).mean(dim=1, keepdim=True).add(EPS).sqrt()
    return x * rstd * weight


def check(out, ref, inputs, problem):
    """y is a product (no cancellation): its error is relative, the output
    rounding (bf16: up to 2^-8) and the fp32 sum of squares; 1e-2 relative, with
    a tiny absolute floor for values that round to 0."""
    return parity_spec.relative_within("y", out, ref, inputs[0].dtype)


def metric(problem):
    # Reads x, writes y (2-byte elements); the weight is small.
    return "GB/s", 2 * problem["M"] * problem["N"] * 2
