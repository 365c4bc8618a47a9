"""LayerNorm forward in the form of Triton's tutorial 05: one row per
program, walking the row in BLOCK_SIZE chunks three times (sum for the
mean, sum of squares about the mean, then normalize and store), with the
tutorial's host heuristics: BLOCK_SIZE = min(65536 // element size,
next_power_of_2(N)), num_warps = min(max(BLOCK_SIZE // 256, 1), 8), and
num_ctas=1 at the launch. fp16 in and out. The configs: the heuristic's
block with its warps and their neighbours, and two smaller blocks that
make the loops run several times on the wider rows."""

import parity_spec
import triton
import triton.language as tl


@triton.jit
def _layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    # Mean: each lane keeps its own partial sum across the chunks; one
    # reduction at the end.
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    # Variance about the mean (a second pass over the row, more accurate
    # than E[x^2] - mean^2); masked lanes would add mean^2.
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
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
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


def block_size(N, element_size):
    """The tutorial's block: the whole row, up to 64 KB of it."""
    return min(65536 // element_size, triton.next_power_of_2(N))


def layer_norm(x, weight, bias, eps, config):
    """The tutorial's forward host function; the config gives num_warps
    and, when it names one, a smaller BLOCK_SIZE."""
    import torch

    M, N = x.shape
    y = torch.empty_like(x)
    mean = torch.empty((M, ), dtype=torch.float32, device=x.device)
    rstd = torch.empty((M, ), dtype=torch.float32, device=x.device)
    options = {"BLOCK_SIZE": block_size(N, x.element_size()), **config}
    _layer_norm_fwd_fused[(M, )](x, y, weight, bias, mean, rstd, x.stride(0), N, eps, num_ctas=1, **options)
    return y, mean, rstd


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = _layer_norm_fwd_fused
EPS = 1e-5

# The heuristic gives 4 warps at 1024 columns and 8 on the wider rows:
# with halves and doubles, 2 to 16 warps at the heuristic's block. Then
# blocks of 1024 and 4096 columns, looping over the wider rows.
CONFIGS = [dict(num_warps=w) for w in (2, 4, 8, 16)]
CONFIGS += [dict(BLOCK_SIZE=1024, num_warps=4), dict(BLOCK_SIZE=4096, num_warps=8)]

PROBLEMS = [dict(name=f"{m}x{n} fp16", M=m, N=n) for m, n in ((4096, 1024), (4096, 4096), (16384, 8192),
                                                               (8192, 12288))]
# Not a power of two: the masked tail, rows not 16-byte aligned.
PROBLEMS.append(dict(name="4000x3000 fp16", M=4000, N=3000))

# The static mode compiles the first problem and the last, whose sizes are not multiples of a
# vector: other masks and alignments, other code.
STATIC_PROBLEMS = [PROBLEMS[0], PROBLEMS[-1]]


def label(config):
    block = config.get("BLOCK_SIZE", "row")
    return f"{block} w{config['num_warps']}"


def constexprs(problem):
    return dict(BLOCK_SIZE=block_size(problem["N"], 2))


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
    # Reads x, writes y (fp16), as the tutorial counts it.
    return "GB/s", 2 * problem["M"] * problem["N"] * 2
