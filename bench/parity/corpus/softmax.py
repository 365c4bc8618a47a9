"""Row softmax in the form of Triton's fused-softmax tutorial (02), in its
one-program-per-row version: the grid is the number of rows and each
program holds its whole row in registers (BLOCK_SIZE =
next_power_of_2(n_cols), masked with -inf). fp16 in and out, computed in
fp32; num_warps over the tutorial's choices (4, 8 from 2048 columns, 16
from 4096)."""

import parity_spec
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    # Columns past n_cols read -inf: they neither win the max nor add to
    # the sum (exp(-inf) = 0).
    row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    # The store rounds to the output's element type (fp16).
    tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


def softmax(x, config):
    """The tutorial's host function, with num_warps from the config."""
    import torch

    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    y = torch.empty_like(x)
    softmax_kernel[(n_rows, )](y, x, x.stride(0), y.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, **config)
    return y


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = softmax_kernel

# The tutorial's heuristic picks 4, 8 or 16 warps by the row's length; all
# three run on every problem, so each problem's pick sits between the others.
CONFIGS = [dict(num_warps=4), dict(num_warps=8), dict(num_warps=16)]

PROBLEMS = [dict(name=f"{m}x{n} fp16", M=m, N=n)
            for m, n in ((4096, 1024), (4096, 4096), (4096, 12288), (16384, 8192), (8192, 12288))]
# A row that is not a power of two: the masked tail, rows not 16-byte aligned.
PROBLEMS.append(dict(name="4096x1000 fp16", M=4096, N=1000))

# The static mode compiles the first problem and the last, whose sizes are not multiples of a
# vector: other masks and alignments, other code.
STATIC_PROBLEMS = [PROBLEMS[0], PROBLEMS[-1]]


def label(config):
    return f"w{config['num_warps']}"


def constexprs(problem):
    return dict(BLOCK_SIZE=triton.next_power_of_2(problem["N"]))


def static_args(problem):
    N = problem["N"]
    return dict(output_ptr="*fp16", input_ptr="*fp16", input_row_stride=N, output_row_stride=N, n_cols=N)


def inputs(problem):
    import torch

    return torch.randn((problem["M"], problem["N"]), device="cuda", dtype=torch.float16)


def launch(inputs, problem, config):
    return softmax(inputs, config)


def reference(inputs, problem):
    import torch

    return torch.softmax(inputs.double(), dim=1)


def check(out, ref, inputs, problem):
    """fp16 rounding of an fp32 softmax: 1e-2 relative, with an absolute
    floor for probabilities in fp16's subnormal range."""
    return parity_spec.relative_within("y", out, ref, inputs.dtype)


def metric(problem):
    # Reads x, writes y, fp16.
    return "GB/s", 2 * problem["M"] * problem["N"] * 2
