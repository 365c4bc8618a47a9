"""Vector addition in the form of Triton's tutorial 01: one BLOCK_SIZE
slice per program, `offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)`,
masked by `offsets < n_elements`. fp32; the block sizes and warps an
elementwise kernel is tuned over."""

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # The last program's slice runs past the end unless n_elements is a
    # multiple of BLOCK_SIZE.
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x, y, config):
    """The tutorial's host function, with the config passed in."""
    import torch

    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )  # noqa: E731
    add_kernel[grid](x, y, output, n_elements, **config)
    return output


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = add_kernel

CONFIGS = [dict(BLOCK_SIZE=1024, num_warps=4), dict(BLOCK_SIZE=2048, num_warps=8),
           dict(BLOCK_SIZE=4096, num_warps=8), dict(BLOCK_SIZE=8192, num_warps=16)]

PROBLEMS = [dict(name="2^24 fp32", n=2**24), dict(name="2^28 fp32", n=2**28),
            # The tutorial's size, and an odd one: the masked tail.
            dict(name="98432 fp32", n=98432), dict(name="2^24+3 fp32", n=2**24 + 3)]

# The static mode compiles the first problem and the last, whose sizes are not multiples of a
# vector: other masks and alignments, other code.
STATIC_PROBLEMS = [PROBLEMS[0], PROBLEMS[-1]]


def label(config):
    return f"{config['BLOCK_SIZE']} w{config['num_warps']}"


def static_args(problem):
    return dict(x_ptr="*fp32", y_ptr="*fp32", output_ptr="*fp32", n_elements=problem["n"])


def inputs(problem):
    import torch

    x = torch.rand(problem["n"], device="cuda", dtype=torch.float32)
    y = torch.rand(problem["n"], device="cuda", dtype=torch.float32)
    return x, y


def launch(inputs, problem, config):
    return add(*inputs, config)


def reference(inputs, problem):
    x, y = inputs
    return x.double() + y.double()


def check(out, ref, inputs, problem):
    """The fp32 sum is the exact sum rounded once: within 2^-24 of it,
    relatively (2^-23 allowed)."""
    import torch

    if out.shape != ref.shape:
        return f"shape {tuple(out.shape)}, expected {tuple(ref.shape)}"
    if not torch.isfinite(out).all():
        return "non-finite values"
    error = (out.double() - ref).abs()
    bad = error > ref.abs() * 2.0**-23
    if bad.any():
        return f"{int(bad.sum())} of {out.numel()} elements wrong (max error {float(error.max()):.3g})"
    return None


def metric(problem):
    # Reads x and y, writes the output.
    return "GB/s", 3 * problem["n"] * 4
