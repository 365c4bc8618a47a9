"""Dropout in the form of Triton's tutorial 04 (low-memory dropout): no
mask tensor, the keep decision comes from `tl.rand(seed, offsets)`, so a
seed and the element's offset reproduce it; kept elements are scaled by
1 / (1 - p). fp32; the block sizes and warps an elementwise kernel is
tuned over."""

import triton
import triton.language as tl


@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # One uniform [0, 1) number per element, from the seed and its offset.
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x, p, seed, config):
    """The tutorial's host function, with the config passed in."""
    import torch

    output = torch.empty_like(x)
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )  # noqa: E731
    _seeded_dropout[grid](x, output, n_elements, p, seed, **config)
    return output


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = _seeded_dropout

CONFIGS = [dict(BLOCK_SIZE=1024, num_warps=4), dict(BLOCK_SIZE=1024, num_warps=8),
           dict(BLOCK_SIZE=4096, num_warps=4), dict(BLOCK_SIZE=4096, num_warps=8)]

# p = 0.5 (the tutorial's) scales by 2, which x / p would too: the odd
# size uses another p.
PROBLEMS = [dict(name="2^24 p=0.5 fp32", n=2**24, p=0.5, seed=123),
            dict(name="2^24+3 p=0.2 fp32", n=2**24 + 3, p=0.2, seed=512)]

# The static mode compiles the first problem and the last, whose sizes are not multiples of a
# vector: other masks and alignments, other code.
STATIC_PROBLEMS = [PROBLEMS[0], PROBLEMS[-1]]


def label(config):
    return f"{config['BLOCK_SIZE']} w{config['num_warps']}"


def static_args(problem):
    return dict(x_ptr="*fp32", output_ptr="*fp32", n_elements=problem["n"], p=problem["p"], seed=problem["seed"])


def inputs(problem):
    import torch

    return torch.randn(problem["n"], device="cuda", dtype=torch.float32)


def launch(inputs, problem, config):
    return seeded_dropout(inputs, problem["p"], problem["seed"], config)


def reference(inputs, problem):
    """Every element as it is when kept; which are kept is the kernel's
    random choice."""
    return inputs.double() / (1 - problem["p"])


def check(out, ref, inputs, problem):
    """Each element is 0 or x / (1 - p) (within 1e-6 relative: p and
    1 - p are rounded to fp32, the division may be approximate), and the
    kept fraction is within 0.01 of 1 - p."""
    import torch

    if out.shape != ref.shape:
        return f"shape {tuple(out.shape)}, expected {tuple(ref.shape)}"
    if not torch.isfinite(out).all():
        return "non-finite values"
    out = out.double()
    kept = out != 0
    scaled_wrong = kept & ((out - ref).abs() > 1e-6 * ref.abs())
    if scaled_wrong.any():
        return f"{int(scaled_wrong.sum())} of {out.numel()} kept elements not x / (1 - p)"
    fraction = float(kept.double().mean())
    if abs(fraction - (1 - problem["p"])) > 0.01:
        return f"kept fraction {fraction:.4f}, expected {1 - problem['p']:.4f}"
    return None


def metric(problem):
    # Reads x, writes the output.
    return "GB/s", 2 * problem["n"] * 4
