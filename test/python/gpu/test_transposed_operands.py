"""Products of transposed operands on the GPU: `tl.dot(a, b.T)` with B given
as (N, K), `tl.dot(a.T, b)` with A given as (K, M), through pointers (masked
edges) and through tensor descriptors, against float64 torch references on
fresh random inputs whose extents no block divides.

On sm_90a the transposed operand goes to shared memory as loaded and wgmma
reads it through a transposed view (tilegpu.memdesc_trans), so its load stays
one the pipeline takes (cp.async, or bulk tensor copies through a
descriptor); these tests check the numbers of that path and of mma.sync's.

Error bound: every product of two fp16 or bf16 values is exact in fp32; K of
them accumulated in fp32 on tensor cores err by at most
(K + 2) * 2^-22 * sum_k |a_ik| |b_kj|; the conversion to the output type adds
u_out * |c|. TILELANG_TRANSPOSED_TEST_WITH=triton runs the same kernels under
Triton."""


import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import transposed_kernels  # noqa: E402
from tilelang_testing import define_under_test  # noqa: E402

WITH, KERNELS = define_under_test(transposed_kernels.define, "TILELANG_TRANSPOSED_TEST_WITH")
if WITH == "triton":
    from triton.tools.tensor_descriptor import TensorDescriptor
else:
    from tilelang import TensorDescriptor

U_ACC = 2.0**-22
U_OUT = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}
NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16"}


matmul_bt_kernel = KERNELS["matmul_bt_kernel"]
matmul_bt_descriptor_kernel = KERNELS["matmul_bt_descriptor_kernel"]


CONFIGS = [
    {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "num_warps": 4, "num_stages": 2},
    {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 4, "num_stages": 3},
    {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "num_warps": 8, "num_stages": 3},
]


def config_id(cfg):
    return f"{cfg['BLOCK_M']}x{cfg['BLOCK_N']}x{cfg['BLOCK_K']}-w{cfg['num_warps']}-s{cfg['num_stages']}"


def random_matrix(rows, cols, dtype):
    return torch.randn(rows, cols, device="cuda", dtype=torch.float32).to(dtype)


def assert_product(a, bt, out, dtype, what):
    """out ~ a @ bt.T within the accumulation and rounding bound."""
    a64, b64 = a.double(), bt.double()
    ref = a64 @ b64.T
    k = a.shape[1]
    bound = (k + 2) * U_ACC * (a64.abs() @ b64.abs().T) + U_OUT[dtype] * ref.abs()
    err = (out.double() - ref).abs()
    assert torch.isfinite(out).all(), f"{what}: non-finite output"
    worst = (err - bound).max().item()
    assert worst <= 0, f"{what}: error exceeds the bound by {worst:.3g}"


# Sizes that are multiples of 16 keep 16-byte runs under the masks: the
# loads are pipelined (cp.async; test_transposed_ir.py). 300 x 264 x 200 does
# not: they are loaded in the loop. Neither is a multiple of the blocks.
@pytest.mark.parametrize("m,n,k", [(304, 272, 256), (300, 264, 200)], ids=str)
@pytest.mark.parametrize("trans_a", [False, True], ids=["a", "a.T"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=NAMES.get)
@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_pointer_operands_read_transposed(cfg, dtype, trans_a, m, n, k):
    a = random_matrix(m, k, dtype)
    bt = random_matrix(n, k, dtype)
    stored_a = a.T.contiguous() if trans_a else a
    c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
    grid = (triton_cdiv(m, cfg["BLOCK_M"]), triton_cdiv(n, cfg["BLOCK_N"]))
    matmul_bt_kernel[grid](stored_a, bt, c, m, n, k, stored_a.stride(0), bt.stride(0), c.stride(0),
                           TRANS_A=trans_a, **cfg)
    torch.cuda.synchronize()
    assert_product(a, bt, c, dtype, f"pointers {config_id(cfg)} {NAMES[dtype]} trans_a={trans_a} {m}x{n}x{k}")


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=NAMES.get)
@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_descriptor_operand_read_transposed(cfg, dtype):
    m, n, k = 300, 264, 200
    a = random_matrix(m, k, dtype)
    bt = random_matrix(n, k, dtype)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
    bm, bn, bk = cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"]
    descs = [TensorDescriptor.from_tensor(a, [bm, bk]), TensorDescriptor.from_tensor(bt, [bn, bk]),
             TensorDescriptor.from_tensor(c, [bm, bn])]
    grid = (triton_cdiv(m, bm), triton_cdiv(n, bn))
    matmul_bt_descriptor_kernel[grid](*descs, k, **cfg)
    torch.cuda.synchronize()
    assert_product(a, bt, c, dtype, f"descriptors {config_id(cfg)} {NAMES[dtype]}")


def triton_cdiv(x, y):
    return (x + y - 1) // y
