"""Integer matrix product in the form of Triton's matmul tutorial (as
matmul.py: grouped program order, offsets wrapped with `% M` and `% N`,
masks on the K edge only, `tl.assume`), with int8 inputs, an int32
accumulator and an int32 result. B is stored transposed (K contiguous), as
the tutorial does for its 8-bit inputs: Hopper's 8-bit tensor-core products
read both operands K-major. The eight configs of matmul.py with 128-deep K
blocks (an int8 product step is 32 deep, and a 128-byte row of K is one
full shared-memory swizzle line)."""

import parity_spec
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    # Programs walk down GROUP_SIZE_M rows of tiles before the next column,
    # so that the tiles in flight share rows of A and columns of B in L2.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)

    # Rows and columns past the edge wrap around (their results are masked
    # at the store), so the loads need masks on K only.
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    # int8 products summed in int32 are exact (|a*b| <= 2^14, K terms).
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0)
        accumulator = tl.dot(a, b, accumulator, out_dtype=tl.int32)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul(a, b, config):
    """The tutorial's host function with an int32 result; `b` is (K, N),
    any strides."""
    import torch

    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.int32)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )  # noqa: E731
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), **config)
    return c


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = matmul_kernel


def _config(m, n, k, warps, stages):
    return dict(BLOCK_SIZE_M=m, BLOCK_SIZE_N=n, BLOCK_SIZE_K=k, GROUP_SIZE_M=8, num_warps=warps,
                num_stages=stages)


# matmul.py's eight with BLOCK_SIZE_K 128: every one fits in shared memory
# (at most 4 stages of 48 KB).
CONFIGS = [_config(128, 256, 128, 8, 3), _config(256, 128, 128, 8, 3), _config(128, 128, 128, 4, 4),
           _config(128, 128, 128, 8, 3), _config(128, 256, 128, 8, 4), _config(64, 256, 128, 4, 4),
           _config(128, 64, 128, 4, 4), _config(256, 128, 128, 8, 4)]

PROBLEMS = [dict(name=f"{s}^3 int8", M=s, N=s, K=s) for s in (4096, 8192)]
# A size that is not a multiple of any block: the wrapped rows, the K mask.
PROBLEMS.append(dict(name="4000x3000x1000 int8", M=4000, N=3000, K=1000))


def label(config):
    return (f"{config['BLOCK_SIZE_M']}x{config['BLOCK_SIZE_N']}x{config['BLOCK_SIZE_K']} "
            f"w{config['num_warps']} s{config['num_stages']}")


def static_args(problem):
    M, N, K = problem["M"], problem["N"], problem["K"]
    # B is the transpose of a contiguous (N, K) tensor: stride_bk is 1.
    return dict(a_ptr="*i8", b_ptr="*i8", c_ptr="*i32", M=M, N=N, K=K, stride_am=K, stride_ak=1,
                stride_bk=1, stride_bn=K, stride_cm=N, stride_cn=1)


def inputs(problem):
    import torch

    # Values in [-8, 8): every partial sum is below 2^31 by far (64 K).
    a = torch.randint(-8, 8, (problem["M"], problem["K"]), device="cuda", dtype=torch.int8)
    b = torch.randint(-8, 8, (problem["N"], problem["K"]), device="cuda", dtype=torch.int8).T
    return a, b


def launch(inputs, problem, config):
    return matmul(*inputs, config)


def reference(inputs, problem):
    # float64 holds every product and sum exactly (below 2^53); CUDA has no
    # int64 matrix product.
    return parity_spec.matmul_reference(*inputs)


def check(out, ref, inputs, problem):
    """Exact equality; None when it holds."""
    import torch

    if out.dtype != torch.int32:
        return f"result dtype {out.dtype}, expected int32"
    wrong = out.double() != ref
    if wrong.any():
        first = wrong.nonzero()[0].tolist()
        return (f"{int(wrong.sum())} elements differ (first at {first}: "
                f"{int(out[first[0], first[1]])} != {int(ref[first[0], first[1]])})")
    return None


def metric(problem):
    return parity_spec.matmul_metric(problem)
