"""Integer specialization by divisibility class, on the GPU: one kernel
launched with row strides of every class (16, 8, 4, 2, odd) in turn. Each
class compiles its own kernel, whose vector width follows the class (a
stride of 1000 fp16 elements gives 16-byte loads; 1001 one element at a
time), and the launcher's key keeps them apart: a launch with 1001 that
reached the kernel compiled for 1000 would load misaligned vectors (a CUDA
error) or the wrong elements. Skipped without a GPU or without torch."""

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


@tilelang.jit
def copy_rows(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    values = tl.load(x_ptr + row * x_stride + cols, mask=mask)
    tl.store(y_ptr + row * y_stride + cols, values * 2, mask=mask)


def test_each_divisibility_class_gets_its_own_kernel_and_the_right_rows():
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    rows, n_cols = 37, 1000
    strides = [1000, 1001, 1002, 1004, 1016, 1024, 1000, 1003, 1010, 1012]
    for stride in strides:
        x = torch.randn(rows * stride + 64, device="cuda", dtype=torch.float16)
        y = torch.zeros(rows * n_cols, device="cuda", dtype=torch.float16)
        copy_rows[(rows, )](x, y, n_cols, stride, n_cols, BLOCK=1024)
        expected = x[:rows * stride].view(rows, stride)[:, :n_cols].double() * 2
        torch.testing.assert_close(y.view(rows, n_cols).double(), expected, rtol=0, atol=0)
    # 16 (1024), 8 (1000, 1016), 4 (1004, 1012), 2 (1002, 1010), odd (1001, 1003).
    assert len(copy_rows._dispatcher) == 5
    compiled = copy_rows.warmup(x, y, n_cols, 1001, n_cols, BLOCK=1024, grid=(rows, ))
    assert "x_stride" not in compiled.specialization
    assert copy_rows.warmup(x, y, n_cols, 1000, n_cols, BLOCK=1024, grid=(rows, )).specialization["x_stride"] == 8
