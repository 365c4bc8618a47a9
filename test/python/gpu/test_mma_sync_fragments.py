"""Products on mma.sync fragments on the GPU: blocks too small for wgmma
(fewer than 64 rows), so every operand goes through mma.sync's A and B
fragments, read from shared memory with ldmatrix (plain when K is the
contiguous dimension, .trans otherwise), and the accumulator's fragment is
converted for the store. The configs include warps beyond the block (a
layout tile larger than the tensor, so warps and lanes replicate elements)
and one to three stages (a conversion to the operand layout, or loads from
pipeline buffers). Every fragment coordinate and ldmatrix address comes from
the layouts' LayoutMaps; these tests check their numbers against float64
references on fresh random inputs whose extents no block divides.

Error bound: every product of two fp16 values is exact in fp32; K of them
accumulated in fp32 on tensor cores err by at most
(K + 2) * 2^-22 * sum_k |a_ik| |b_kj| (C is stored in fp32)."""

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import tilelang  # noqa: E402
import tilelang.language as tl  # noqa: E402

U_ACC = 2.0**-22


@tilelang.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


# (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages)
CONFIGS = [
    (16, 16, 16, 4, 1),
    (16, 32, 32, 8, 3),
    (32, 16, 16, 8, 2),
    (32, 64, 32, 2, 3),
    (16, 64, 32, 1, 1),
    (32, 32, 64, 4, 3),
]


def config_id(cfg):
    return "{}x{}x{}-w{}-s{}".format(*cfg)


def random_matrix(rows, cols, layout):
    """A fresh fp16 rows x cols matrix, row-major or column-major."""
    if layout == "row":
        return torch.randn(rows, cols, device="cuda").half()
    return torch.randn(cols, rows, device="cuda").half().t()


@pytest.mark.parametrize("b_layout", ["row", "col"])
@pytest.mark.parametrize("a_layout", ["row", "col"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_mma_sync_fragments(cfg, a_layout, b_layout):
    block_m, block_n, block_k, warps, stages = cfg
    m, n, k = 75, 53, 91
    a = random_matrix(m, k, a_layout)
    b = random_matrix(k, n, b_layout)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    grid = (triton_cdiv(m, block_m), triton_cdiv(n, block_n))
    matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    bound = (k + 2) * U_ACC * (a.double().abs() @ b.double().abs()) + 2.0**-24 * ref.abs()
    got = c.double()
    assert not bool(torch.isnan(got).any()), "elements of C not written"
    err = (got - ref).abs()
    bad = ~(err <= bound)
    assert not bool(bad.any()), (f"{int(bad.sum())} of {ref.numel()} elements beyond the bound; "
                                 f"worst error {float((err / bound).max()):.3g} x the bound")


def triton_cdiv(x, y):
    return (x + y - 1) // y
