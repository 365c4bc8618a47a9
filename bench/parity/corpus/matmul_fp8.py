"""fp8 matrix product in the form of Triton's matmul tutorial (as matmul.py:
grouped program order, offsets wrapped with `% M` and `% N`, masks on the K
edge only, `tl.assume`), with fp8 inputs, an fp32 accumulator and an fp16
result, as the tutorial runs it: B pre-transposed (K contiguous), which is
how Hopper's fp8 tensor-core products read both operands. e4m3 and e5m2
(the tutorial's); the eight configs the tutorial marks good for fp8."""

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

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul(a, b, config):
    """The tutorial's host function: fp8 `a` (M, K) and `b` (K, N, any
    strides), an fp16 result."""
    import torch

    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )  # noqa: E731
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), **config)
    return c


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = matmul_kernel


def _config(m, n, k, warps, stages):
    return dict(BLOCK_SIZE_M=m, BLOCK_SIZE_N=n, BLOCK_SIZE_K=k, GROUP_SIZE_M=8, num_warps=warps,
                num_stages=stages)


# The tutorial's "good config for fp8 inputs" list.
CONFIGS = [_config(128, 256, 128, 8, 3), _config(256, 128, 128, 8, 3), _config(256, 64, 128, 4, 4),
           _config(64, 256, 128, 4, 4), _config(128, 128, 128, 4, 4), _config(128, 64, 64, 4, 4),
           _config(64, 128, 64, 4, 4), _config(128, 32, 64, 4, 4)]

_TORCH_TYPES = {"fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2"}

PROBLEMS = [dict(name=f"{s}^3 {d}", M=s, N=s, K=s, dtype=d) for d in ("fp8e4nv", "fp8e5") for s in (4096, 8192)]
# A size that is not a multiple of any block: the wrapped rows, the K mask.
PROBLEMS.append(dict(name="4000x3000x1000 fp8e4nv", M=4000, N=3000, K=1000, dtype="fp8e4nv"))


def label(config):
    return (f"{config['BLOCK_SIZE_M']}x{config['BLOCK_SIZE_N']}x{config['BLOCK_SIZE_K']} "
            f"w{config['num_warps']} s{config['num_stages']}")


def static_args(problem):
    M, N, K, d = problem["M"], problem["N"], problem["K"], problem["dtype"]
    # B is the transpose of a contiguous (N, K) tensor: stride_bk is 1.
    return dict(a_ptr=f"*{d}", b_ptr=f"*{d}", c_ptr="*fp16", M=M, N=N, K=K, stride_am=K, stride_ak=1,
                stride_bk=1, stride_bn=K, stride_cm=N, stride_cn=1)


def inputs(problem):
    import torch

    # Normal values rounded to fp8, B pre-transposed, as in the tutorial.
    dtype = getattr(torch, _TORCH_TYPES[problem["dtype"]])
    a = torch.randn((problem["M"], problem["K"]), device="cuda", dtype=torch.float16).to(dtype)
    b = torch.randn((problem["N"], problem["K"]), device="cuda", dtype=torch.float16).to(dtype).T
    return a, b


def launch(inputs, problem, config):
    return matmul(*inputs, config)


def reference(inputs, problem):
    a, b = inputs
    # The fp8 values are exact in float64; products and sums of K of them
    # are exact to 2^-52 relative.
    return a.double() @ b.double()


def check(out, ref, inputs, problem):
    """Within the accumulation error of Hopper's fp8 products, whose
    accumulator keeps about 14 significant bits within each 32-deep
    instruction (so at most 2^-13 of |a| @ |b| per instruction, both
    compilers' default), plus the rounding to fp16 (2^-11 relative and
    fp16's subnormal spacing)."""
    import torch

    if out.dtype != torch.float16:
        return f"result dtype {out.dtype}, expected float16"
    a, b = inputs
    steps = -(-a.shape[1] // 32)
    bound = (steps + 2) * 2.0**-13 * (a.double().abs() @ b.double().abs()) + ref.abs() * 2.0**-11 + 2.0**-24
    wrong = (out.double() - ref).abs() > bound
    if wrong.any():
        first = wrong.nonzero()[0].tolist()
        return (f"{int(wrong.sum())} elements outside the bound (first at {first}: "
                f"{float(out[first[0], first[1]])} against {float(ref[first[0], first[1]])})")
    return None


def metric(problem):
    return "TFLOP/s", 2.0 * problem["M"] * problem["N"] * problem["K"]
