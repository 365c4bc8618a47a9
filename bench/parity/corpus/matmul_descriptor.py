"""Matrix product through host-side tensor descriptors, in the form of the
TMA matmul of Triton's persistent-matmul tutorial (its one-tile-per-program
kernel) as Triton 3.6 users write it: `TensorDescriptor.from_tensor` on the
host, `desc.load([row, col])` blocks in the K loop, `c_desc.store` of the
result. As there, B is passed transposed, (N, K) with K contiguous, and the
product reads `b.T`; a descriptor needs no masks (blocks past the edge read
as zero and are not written). fp16 and bf16; matmul.py's eight configs, the
descriptors' blocks following each config's block sizes."""

import parity_spec
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def matmul_kernel_descriptor(a_desc, b_desc, c_desc, M, N, K,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                             BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    # Programs walk down GROUP_SIZE_M rows of tiles before the next column,
    # so that the tiles in flight share rows of A and columns of B in L2.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = pid_m * BLOCK_SIZE_M
    offs_bn = pid_n * BLOCK_SIZE_N
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        offs_k = k * BLOCK_SIZE_K
        a = a_desc.load([offs_am, offs_k])
        b = b_desc.load([offs_bn, offs_k])
        accumulator = tl.dot(a, b.T, accumulator)
    c = accumulator.to(c_desc.dtype)
    c_desc.store([offs_am, offs_bn], c)


def matmul(a, b, config):
    """`a` (M, K) times `b` given transposed, (N, K), both contiguous."""
    import torch

    assert a.shape[1] == b.shape[1], "incompatible dimensions (b is transposed)"
    M, K = a.shape
    N, K = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    block_m, block_n, block_k = config["BLOCK_SIZE_M"], config["BLOCK_SIZE_N"], config["BLOCK_SIZE_K"]
    a_desc = TensorDescriptor.from_tensor(a, [block_m, block_k])
    b_desc = TensorDescriptor.from_tensor(b, [block_n, block_k])
    c_desc = TensorDescriptor.from_tensor(c, [block_m, block_n])
    grid = (triton.cdiv(M, block_m) * triton.cdiv(N, block_n), )
    matmul_kernel_descriptor[grid](a_desc, b_desc, c_desc, M, N, K, **config)
    return c


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = matmul_kernel_descriptor


def _config(m, n, k, warps, stages):
    return dict(BLOCK_SIZE_M=m, BLOCK_SIZE_N=n, BLOCK_SIZE_K=k, GROUP_SIZE_M=8, num_warps=warps,
                num_stages=stages)


CONFIGS = [_config(128, 256, 64, 8, 3), _config(256, 128, 64, 8, 3), _config(128, 128, 64, 4, 4),
           _config(128, 128, 64, 8, 3), _config(128, 256, 64, 8, 4), _config(64, 256, 64, 4, 4),
           _config(128, 64, 64, 4, 4), _config(256, 128, 64, 8, 4)]

PROBLEMS = [dict(name=f"{s}^3 {d}", M=s, N=s, K=s, dtype=d) for d in ("bf16", "fp16") for s in (4096, 8192)]
# A size that is not a multiple of any block: the descriptors' zero fill
# and clipped stores (K and N stay multiples of 8 elements: a descriptor's
# row stride must be a multiple of 16 bytes).
PROBLEMS.append(dict(name="4000x3000x1000 bf16", M=4000, N=3000, K=1000, dtype="bf16"))


def label(config):
    return (f"{config['BLOCK_SIZE_M']}x{config['BLOCK_SIZE_N']}x{config['BLOCK_SIZE_K']} "
            f"w{config['num_warps']} s{config['num_stages']}")


def static_args(problem, config):
    from parity_spec import Descriptor

    # The descriptors' blocks are the config's, as the host function builds them.
    M, N, K, d = problem["M"], problem["N"], problem["K"], problem["dtype"]
    block_m, block_n, block_k = config["BLOCK_SIZE_M"], config["BLOCK_SIZE_N"], config["BLOCK_SIZE_K"]
    return dict(a_desc=Descriptor(d, (block_m, block_k), (M, K)), b_desc=Descriptor(d, (block_n, block_k), (N, K)),
                c_desc=Descriptor(d, (block_m, block_n), (M, N)), M=M, N=N, K=K)


def inputs(problem):
    return parity_spec.matmul_inputs(problem, b_rows_n=True)


def launch(inputs, problem, config):
    return matmul(*inputs, config)


def reference(inputs, problem):
    a, b = inputs
    return parity_spec.matmul_reference(a, b.T)


def check(out, ref, inputs, problem):
    a, b = inputs
    return parity_spec.product_within_bound(out, ref, a, b.T)


def metric(problem):
    return parity_spec.matmul_metric(problem)
