"""Layout conversions through shared memory on the GPU, with exact results
(test/python/conversion_kernels.py): the matmul epilogue (a tensor-core
accumulator to the blocked layout of the store; stmatrix.x4 on sm_90 for
16-bit outputs, 4- and 8-byte pairs otherwise) and a blocked-to-blocked
transpose (scalar stores, vector loads), on sizes that no block divides.
Every element is compared exactly with the float64 reference: C = A @ I
holds A's values, which fp32 accumulation and the conversion back to A's
type keep exactly; the transpose moves values untouched."""

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import tilelang  # noqa: E402
import tilelang.language as tl  # noqa: E402

import conversion_kernels  # noqa: E402

KERNELS = conversion_kernels.define(tilelang.jit, tl)

# (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages): the tutorial's largest tiles
# (the widest epilogues), rows of 128 bytes (the narrowest with stmatrix),
# rows of 64 bytes (pairs instead), warps beyond a small tile.
DOT_CONFIGS = [(128, 256, 64, 8, 3), (256, 128, 64, 8, 3), (64, 128, 64, 4, 2), (128, 64, 64, 4, 3),
               (64, 32, 32, 4, 2), (16, 32, 16, 4, 1)]
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


def cdiv(x, y):
    return (x + y - 1) // y


@pytest.mark.parametrize("out", ["same", "fp32"])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("cfg", DOT_CONFIGS, ids=lambda c: "{}x{}x{}-w{}-s{}".format(*c))
def test_dot_epilogue_conversion(cfg, dtype, out):
    block_m, block_n, block_k, warps, stages = cfg
    m, n = 389, 301  # no block divides either
    torch_dtype = DTYPES[dtype]
    out_dtype = torch_dtype if out == "same" else torch.float32
    a = torch.randn(m, n, device="cuda").to(torch_dtype)
    b = torch.eye(n, device="cuda", dtype=torch_dtype)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
    grid = (cdiv(m, block_m), cdiv(n, block_n))
    KERNELS["dot_copy_kernel"][grid](a, b, c, m, n, n, a.stride(0), b.stride(0), c.stride(0),
                                     BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k,
                                     num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    ref = a.double() @ b.double()
    got = c.double()
    assert not bool(torch.isnan(got).any()), "elements of C not written"
    wrong = got != ref
    assert not bool(wrong.any()), (f"{int(wrong.sum())} of {ref.numel()} elements differ; first at "
                                   f"{tuple(int(i) for i in wrong.nonzero()[0])}")


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int8], ids=str)
@pytest.mark.parametrize("blocks", [(64, 64, 4), (32, 128, 4), (128, 32, 8)], ids=lambda b: "{}x{}-w{}".format(*b))
def test_transpose_conversion(blocks, dtype):
    block_r, block_c, warps = blocks
    r, c = 203, 157
    # Y starts at a value no element of X has: an element not written shows.
    if dtype == torch.int8:
        x = torch.randint(-100, 100, (r, c), device="cuda", dtype=torch.int8)
        y = torch.full((c, r), 127, device="cuda", dtype=dtype)
    else:
        x = torch.randn(r, c, device="cuda").to(dtype)
        y = torch.full((c, r), float("nan"), device="cuda", dtype=dtype)
    grid = (cdiv(r, block_r), cdiv(c, block_c))
    KERNELS["transpose_copy_kernel"][grid](x, y, r, c, x.stride(0), y.stride(0),
                                           BLOCK_R=block_r, BLOCK_C=block_c, num_warps=warps)
    torch.cuda.synchronize()
    ref = x.double().t()
    wrong = y.double() != ref
    assert not bool(wrong.any()), (f"{int(wrong.sum())} of {ref.numel()} elements differ; first at "
                                   f"{tuple(int(i) for i in wrong.nonzero()[0])}")
