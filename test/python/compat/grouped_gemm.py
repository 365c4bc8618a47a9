"""Grouped GEMM in the form of Triton's grouped-GEMM tutorial (08): a
fixed number of programs walks the tiles of several independent products
whose sizes, leading dimensions and operand addresses are read from
device arrays (`tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))`),
a `while` loop with a run-time condition per group. Sizes here are
ragged, so the loads and the store are masked."""

CASES = [dict(name="3 groups ragged", sizes=[(128, 96, 64), (200, 150, 100), (33, 64, 48)]),
         dict(name="2 groups", sizes=[(256, 256, 128), (64, 17, 96)])]
CONFIG = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, NUM_SM=8)


def define(jit, tl):
    @jit
    def grouped_matmul_kernel(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, g_lds, group_size,
                              NUM_SM: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                              BLOCK_SIZE_K: tl.constexpr):
        tile_idx = tl.program_id(0)
        last_problem_end = 0
        for g in range(group_size):
            gm = tl.load(group_gemm_sizes + g * 3)
            gn = tl.load(group_gemm_sizes + g * 3 + 1)
            gk = tl.load(group_gemm_sizes + g * 3 + 2)
            num_m_tiles = tl.cdiv(gm, BLOCK_SIZE_M)
            num_n_tiles = tl.cdiv(gn, BLOCK_SIZE_N)
            num_tiles = num_m_tiles * num_n_tiles
            while tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles:
                lda = tl.load(g_lds + g * 3)
                ldb = tl.load(g_lds + g * 3 + 1)
                ldc = tl.load(g_lds + g * 3 + 2)
                a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
                b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
                c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
                tile_idx_in_gemm = tile_idx - last_problem_end
                tile_m_idx = tile_idx_in_gemm // num_n_tiles
                tile_n_idx = tile_idx_in_gemm % num_n_tiles
                offs_am = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
                offs_bn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
                offs_k = tl.arange(0, BLOCK_SIZE_K)
                a_ptrs = a_ptr + offs_am[:, None] * lda + offs_k[None, :]
                b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_bn[None, :]
                accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
                for kk in range(0, tl.cdiv(gk, BLOCK_SIZE_K)):
                    k_left = gk - kk * BLOCK_SIZE_K
                    a = tl.load(a_ptrs, mask=(offs_am[:, None] < gm) & (offs_k[None, :] < k_left), other=0.0)
                    b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_bn[None, :] < gn), other=0.0)
                    accumulator += tl.dot(a, b)
                    a_ptrs += BLOCK_SIZE_K
                    b_ptrs += BLOCK_SIZE_K * ldb
                c = accumulator.to(tl.float16)
                c_ptrs = c_ptr + ldc * offs_am[:, None] + offs_bn[None, :]
                tl.store(c_ptrs, c, mask=(offs_am[:, None] < gm) & (offs_bn[None, :] < gn))
                tile_idx += NUM_SM
            last_problem_end = last_problem_end + num_tiles

    return {"grouped_matmul_kernel": grouped_matmul_kernel}


COMPILE = {"grouped_matmul_kernel": ("*i64,*i64,*i64,*i32,*i32,i32", CONFIG, dict(num_warps=4))}


def inputs(case, device):
    import torch

    out = {}
    for i, (m, n, k) in enumerate(case["sizes"]):
        out[f"a{i}"] = torch.randn(m, k, device=device, dtype=torch.float16)
        out[f"b{i}"] = torch.randn(k, n, device=device, dtype=torch.float16)
    return out


def launch(k, inp, case):
    import torch

    device = inp["a0"].device
    A = [inp[f"a{i}"] for i in range(len(case["sizes"]))]
    B = [inp[f"b{i}"] for i in range(len(case["sizes"]))]
    C = [torch.empty(a.shape[0], b.shape[1], device=device, dtype=torch.float16) for a, b in zip(A, B)]
    sizes, lds = [], []
    for a, b, c in zip(A, B, C):
        sizes += [a.shape[0], b.shape[1], a.shape[1]]
        lds += [a.stride(0), b.stride(0), c.stride(0)]

    def addresses(ts):
        return torch.tensor([t.data_ptr() for t in ts], device=device, dtype=torch.int64)

    k["grouped_matmul_kernel"][(CONFIG["NUM_SM"],)](
        addresses(A), addresses(B), addresses(C), torch.tensor(sizes, device=device, dtype=torch.int32),
        torch.tensor(lds, device=device, dtype=torch.int32), len(A), num_warps=4, **CONFIG)
    return tuple(C)


def reference(inp, case):
    return tuple(inp[f"a{i}"].double() @ inp[f"b{i}"].double() for i in range(len(case["sizes"])))


TOLERANCE = dict(rtol=1e-2, atol=2e-2)
