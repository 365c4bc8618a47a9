"""LayerNorm forward with the whole row in registers, one row per program,
as open-source Triton libraries write it for rows that fit: one load of
the row (BLOCK_SIZE = next_power_of_2(N), masked), mean and variance from
it in fp32, then y = (x - mean) * rstd * w + b; Mean and Rstd stored for
the backward. fp16 in and out; num_warps as users pick it,
min(max(BLOCK_SIZE // 256, 1), 16), and its neighbours."""

import parity_spec
import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    # The padding columns read 0 but must not add (0 - mean)^2 to the variance.
    xbar = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xbar * xbar, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    y = xbar * rstd * w + b
    tl.store(Y + cols, y, mask=mask)


def layer_norm(x, weight, bias, eps, config):
    """The host function, with num_warps from the config."""
    import torch

    M, N = x.shape
    y = torch.empty_like(x)
    mean = torch.empty((M, ), dtype=torch.float32, device=x.device)
    rstd = torch.empty((M, ), dtype=torch.float32, device=x.device)
    BLOCK_SIZE = triton.next_power_of_2(N)
    layer_norm_fwd_kernel[(M, )](x, y, weight, bias, mean, rstd, x.stride(0), N, eps, BLOCK_SIZE=BLOCK_SIZE,
                                 **config)
    return y, mean, rstd


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = layer_norm_fwd_kernel
EPS = 1e-5

# The heuristic gives 4 warps for 1024 columns and 16 for the wider rows;
# with its halves and doubles (within 1..16) that is 2, 4, 8 and 16.
CONFIGS = [dict(num_warps=w) for w in (2, 4, 8, 16)]

PROBLEMS = [dict(name=f"{m}x{n} fp16", M=m, N=n) for m, n in ((4096, 1024), (4096, 4096), (16384, 8192),
                                                               (8192, 12288))]
# Not a power of two: the masked tail, rows not 16-byte aligned.
PROBLEMS.append(dict(name="4000x3000 fp16", M=4000, N=3000))

# The static mode compiles the first problem and the last, whose sizes are not multiples of a
# vector: other masks and alignments, other code.
STATIC_PROBLEMS = [PROBLEMS[0], PROBLEMS[-1]]


def label(config):
    return f"w{config['num_warps']}"


def constexprs(problem):
    return dict(BLOCK_SIZE=triton.next_power_of_2(problem["N"]))


def static_args(problem):
    return dict(X="*fp16", Y="*fp16", W="*fp16", B="*fp16", Mean="*fp32", Rstd="*fp32", stride=problem["N"],
                N=problem["N"], eps=EPS)


def inputs(problem):
    return parity_spec.layer_norm_inputs(problem)


def launch(inputs, problem, config):
    return layer_norm(*inputs, EPS, config)


def reference(inputs, problem):
    return parity_spec.layer_norm_reference(inputs, EPS)


def check(out, ref, inputs, problem):
    return parity_spec.layer_norm_check(out, ref, inputs)


def metric(problem):
    # Reads x, writes y (fp16); weight, bias, Mean and Rstd are small.
    return "GB/s", 2 * problem["M"] * problem["N"] * 2
