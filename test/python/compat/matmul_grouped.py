"""Matrix product in the form of Triton's matmul tutorial (03): programs
ordered in groups of GROUP_SIZE_M rows of tiles for L2 reuse, pointers
advanced along K, an optional leaky-ReLU epilogue given as a constexpr,
fp16 in, fp32 accumulation, fp16 out."""

CASES = [dict(name="512x512x512", M=512, N=512, K=512, activation=""),
         dict(name="333x269x200 leaky_relu", M=333, N=269, K=200, activation="leaky_relu")]


def define(jit, tl):
    @jit
    def leaky_relu(x):
        return tl.where(x >= 0, x, 0.01 * x)

    @jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                      BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
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
        if ACTIVATION == "leaky_relu":
            accumulator = leaky_relu(accumulator)
        c = accumulator.to(tl.float16)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)

    return {"matmul_kernel": matmul_kernel}


CONFIG = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8)

COMPILE = {"matmul_kernel": [("*fp16,*fp16,*fp16" + ",i32" * 9, dict(CONFIG, ACTIVATION="leaky_relu"),
                              dict(num_warps=4, num_stages=3)),
                             ("*fp16,*fp16,*fp16" + ",i32" * 9, dict(CONFIG, ACTIVATION=""),
                              dict(num_warps=4, num_stages=3))]}


def cdiv(a, b):
    return (a + b - 1) // b


def inputs(case, device):
    import torch

    return dict(a=torch.randn(case["M"], case["K"], device=device, dtype=torch.float16),
                b=torch.randn(case["K"], case["N"], device=device, dtype=torch.float16))


def launch(k, inp, case):
    import torch

    a, b = inp["a"], inp["b"]
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = (cdiv(M, CONFIG["BLOCK_SIZE_M"]) * cdiv(N, CONFIG["BLOCK_SIZE_N"]),)
    k["matmul_kernel"][grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                             c.stride(0), c.stride(1), ACTIVATION=case["activation"], num_warps=4,
                             num_stages=3, **CONFIG)
    return c


def reference(inp, case):
    import torch

    c = inp["a"].double() @ inp["b"].double()
    if case["activation"] == "leaky_relu":
        c = torch.where(c >= 0, c, 0.01 * c)
    return c


TOLERANCE = dict(rtol=1e-2, atol=2e-2)
