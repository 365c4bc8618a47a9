"""Matrix product through block pointers, in the form of Triton's matmul
tutorial before tensor descriptors (and of many libraries written then):
`tl.make_block_ptr` for A, B and C, `tl.advance` along K in the loop,
`boundary_check=(0, 1)` on the ragged edges; B given transposed (stored
(N, K), read as (K, N) through its strides and `order=(0, 1)`)."""

CASES = [dict(name="256x256x256", M=256, N=256, K=256), dict(name="193x130x75", M=193, N=130, K=75)]
CONFIG = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)


def define(jit, tl):
    @jit
    def matmul_block_ptr_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                                stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                BLOCK_K: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        a_block_ptr = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                        offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
        b_block_ptr = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                        offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(0, 1))
        accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = tl.load(a_block_ptr, boundary_check=(0, 1))
            b = tl.load(b_block_ptr, boundary_check=(0, 1))
            accumulator += tl.dot(a, b)
            a_block_ptr = tl.advance(a_block_ptr, (0, BLOCK_K))
            b_block_ptr = tl.advance(b_block_ptr, (BLOCK_K, 0))
        c_block_ptr = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                        offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N),
                                        order=(1, 0))
        tl.store(c_block_ptr, accumulator.to(tl.float16), boundary_check=(0, 1))

    return {"matmul_block_ptr_kernel": matmul_block_ptr_kernel}


COMPILE = {"matmul_block_ptr_kernel": ("*fp16,*fp16,*fp16" + ",i32" * 9, CONFIG, dict(num_warps=4, num_stages=3))}


def inputs(case, device):
    import torch

    return dict(a=torch.randn(case["M"], case["K"], device=device, dtype=torch.float16),
                bt=torch.randn(case["N"], case["K"], device=device, dtype=torch.float16))


def launch(k, inp, case):
    import torch

    a, bt = inp["a"], inp["bt"]
    b = bt.T  # (K, N), column-major
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = ((M + CONFIG["BLOCK_M"] - 1) // CONFIG["BLOCK_M"], (N + CONFIG["BLOCK_N"] - 1) // CONFIG["BLOCK_N"])
    k["matmul_block_ptr_kernel"][grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                       c.stride(0), c.stride(1), num_warps=4, num_stages=3, **CONFIG)
    return c


def reference(inp, case):
    return inp["a"].double() @ inp["bt"].double().T


TOLERANCE = dict(rtol=1e-2, atol=2e-2)
