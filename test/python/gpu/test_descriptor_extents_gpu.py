"""Tensor descriptor extents specialized by divisibility class, on the GPU:
one kernel launched with descriptors whose last extent falls in every class
(16, 8, 4, 2, odd) in turn, over rows 1024 elements apart. Each class
compiles its own kernel, whose accesses are as wide as the class allows
(an extent of 1000 fp16 elements gives 16-byte vectors; 1001 one element at
a time), and the launcher's key keeps them apart: a launch with 1001 that
reached the kernel compiled for 1000 would read and write the 8-element
vector that straddles the edge whole. Skipped without a GPU or torch."""

import pytest

import tilelang
import tilelang.language as tl
from tilelang import TensorDescriptor

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


@tilelang.jit
def double_blocks(x_desc, y_desc, BM: tl.constexpr, BN: tl.constexpr):
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    x = x_desc.load([i, j])
    y_desc.store([i, j], (x * 2).to(y_desc.dtype))


def test_each_extent_class_gets_its_own_kernel_and_the_right_blocks():
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    rows, pitch, bm, bn = 37, 1024, 16, 64
    widths = [1000, 1001, 1002, 1004, 1016, 1024, 1000, 1003, 1012]
    for width in widths:
        x = torch.randn((rows, pitch), device="cuda", dtype=torch.float16)
        y = torch.zeros((rows, pitch), device="cuda", dtype=torch.float16)
        x_desc = TensorDescriptor(x, [rows, width], [pitch, 1], [bm, bn])
        y_desc = TensorDescriptor(y, [rows, width], [pitch, 1], [bm, bn])
        double_blocks[(triton_cdiv(rows, bm), triton_cdiv(width, bn))](x_desc, y_desc, BM=bm, BN=bn)
        torch.cuda.synchronize()
        torch.testing.assert_close(y[:, :width].double(), x[:, :width].double() * 2, rtol=0, atol=0)
        # Nothing past the extent is written.
        assert not y[:, width:].any(), width
    # 16 (1024), 8 (1000, 1016), 4 (1004, 1012), 2 (1002), odd (1001, 1003).
    assert len(double_blocks._dispatcher) == 5
    odd = double_blocks.warmup(x_desc, TensorDescriptor(y, [rows, 1001], [pitch, 1], [bm, bn]), BM=bm, BN=bn,
                               grid=(1, ))
    assert "y_desc.shape1" not in odd.specialization
    eight = double_blocks.warmup(TensorDescriptor(x, [rows, 1000], [pitch, 1], [bm, bn]), y_desc, BM=bm, BN=bn,
                                 grid=(1, ))
    assert eight.specialization["x_desc.shape1"] == 8


def triton_cdiv(a, b):
    return -(-a // b)
