"""int8 matrix products on the GPU in the form of Triton's matmul tutorial
(issue 18, pipelines for every dot operand): offsets wrapped with `% M` and
`% N`, the K edge masked with an integer zero as `other`, an int32
accumulator. With B K-major (the transpose of a contiguous N x K tensor) an
sm_90a device runs them on wgmma `.s32.s8.s8` with cp.async stages; with B
N-major, and on other devices, on mma.sync m16n8k32. Every result is compared
exactly with an int64 reference on fresh random inputs over the whole int8
range (signed products), at sizes that are not multiples of the blocks.
Skipped without a GPU or torch."""

import pytest

import tilelang
import tilelang.language as tl

import byte_matmul_kernels

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

# The tutorial's kernel with an int32 accumulator (ACC), shared with the fp8 tests.
byte_matmul = byte_matmul_kernels.define(tilelang.jit, tl)


def cdiv(a, b):
    return -(-a // b)


def matmul(a, b, block, num_warps, num_stages):
    """C = A @ B in int32, C poisoned first so that an unwritten element
    shows; returns C and the compiled kernel."""
    M, K = a.shape
    N = b.shape[1]
    c = torch.full((M, N), -(2**31), device="cuda", dtype=torch.int32)
    bm, bn, bk = block
    compiled = byte_matmul[(cdiv(M, bm), cdiv(N, bn))](
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, ACC=tl.int32, num_warps=num_warps, num_stages=num_stages)
    return c, compiled


def operands(M, N, K, b_k_major):
    """Fresh A (M x K) and B (K x N) over the whole int8 range; B the
    transpose of a contiguous N x K tensor (K-major) or contiguous."""
    a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
    if b_k_major:
        b = torch.randint(-128, 128, (N, K), device="cuda", dtype=torch.int8).T
    else:
        b = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8)
    return a, b


def reference(a, b):
    """A @ B in int64. float64 computes it exactly: each product is at most
    2^14 in magnitude and each partial sum an integer of at most 2^25
    (K < 2048), far below 2^53; CUDA has no integer matrix product."""
    return (a.double() @ b.double()).to(torch.int64)


def on_hopper():
    return torch.cuda.get_device_capability() == (9, 0)


# (M, N, K, block, warps, stages). M and N are not multiples of the blocks
# nor K of BLOCK_K (the masked last step). K = 100 and 900 leave A's and B's
# rows unaligned (1-byte loads, staged through registers); K = 1040 aligns
# them to 16 bytes, and the loads become cp.async copies. 64-, 128- and
# 32-byte rows of K (the three swizzle modes), one and two warpgroups, two
# to four stages.
CASES = [(200, 300, 100, (128, 128, 64), 4, 3), (200, 300, 100, (64, 128, 32), 4, 4),
         (1000, 700, 900, (128, 256, 128), 8, 3), (1000, 700, 1040, (128, 128, 64), 4, 3),
         (1000, 700, 1040, (128, 256, 128), 8, 3), (1000, 700, 1040, (64, 128, 32), 4, 4),
         (1000, 700, 1040, (128, 64, 128), 4, 2)]


def case_id(case):
    M, N, K, block, warps, stages = case
    return f"{M}x{N}x{K}-{'x'.join(map(str, block))}-w{warps}-s{stages}"


@pytest.mark.parametrize("M,N,K,block,warps,stages", CASES, ids=[case_id(c) for c in CASES])
def test_k_major_int8_matmul_is_exact(M, N, K, block, warps, stages):
    a, b = operands(M, N, K, b_k_major=True)
    c, compiled = matmul(a, b, block, warps, stages)
    ref = reference(a, b)
    wrong = c.to(torch.int64) != ref
    assert not wrong.any(), f"{int(wrong.sum())} of {ref.numel()} differ, first at {wrong.nonzero()[0].tolist()}"
    if on_hopper():
        # The product the GPU ran is wgmma's integer form, on stages filled
        # by cp.async where the rows are aligned.
        ptx = compiled.asm["ptx"]
        assert ".s32.s8.s8" in ptx and "wgmma.mma_async" in ptx, "the int8 product is not on wgmma"
        assert "mma.sync" not in ptx
        if K % 16 == 0:
            assert "cp.async.cg.shared.global" in ptx, "the int8 operands are not copied by cp.async"


@pytest.mark.parametrize("M,N,K", [(200, 300, 100), (1000, 700, 900)], ids=["200x300x100", "1000x700x900"])
def test_n_major_int8_matmul_is_exact_on_mma_sync(M, N, K):
    # B with N contiguous: wgmma's 8-bit forms read K-major operands only,
    # so this product stays on mma.sync, on Hopper too.
    a, b = operands(M, N, K, b_k_major=False)
    c, compiled = matmul(a, b, (128, 128, 64), 4, 3)
    ref = reference(a, b)
    wrong = c.to(torch.int64) != ref
    assert not wrong.any(), f"{int(wrong.sum())} of {ref.numel()} differ, first at {wrong.nonzero()[0].tolist()}"
    assert "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32" in compiled.asm["ptx"]
