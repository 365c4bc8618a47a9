"""Tensor descriptors on the GPU: block loads that cross every edge of the
tensor (and start before it) read zeros there, block stores write nothing
outside it, in 1 to 3 dimensions, through padded rows, with descriptors
made on the host (tilelang's or Triton's class) or in the kernel; and the
launcher's fast path, which keys a descriptor by its class (a second call
with new extents of the same class does not specialize again). Inputs are
fresh random tensors; outputs start poisoned (NaN) inside larger buffers.
Skipped without a GPU or without torch."""

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import tilelang  # noqa: E402
import tilelang.language as tl  # noqa: E402
from tilelang import TensorDescriptor  # noqa: E402


@tilelang.jit
def shifted_scale(src, dst, shift_rows, shift_cols, factor, BM: tl.constexpr, BN: tl.constexpr):
    # dst block (i, j) = factor * src block at (i + shift_rows, j + shift_cols).
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    x = src.load([i + shift_rows, j + shift_cols])
    dst.store([i, j], (x.to(tl.float32) * factor).to(dst.dtype))


@tilelang.jit
def copy_1d(src, dst, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    dst.store([start], src.load([start]))


@tilelang.jit
def copy_3d(src, dst, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    i = tl.program_id(0) * B0
    j = tl.program_id(1) * B1
    k = tl.program_id(2) * B2
    dst.store([i, j, k], src.load([i, j, k]) + 1)


@tilelang.jit
def increment_in_kernel(x_ptr, rows, cols, row_stride, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[rows, cols], strides=[row_stride, 1], block_shape=[BM, BN])
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    desc.store([i, j], desc.load([i, j]) + 1)


def poisoned(shape, dtype, pad):
    """(view of `shape`, its NaN-filled buffer with `pad` more elements per dimension)."""
    buf = torch.full([s + p for s, p in zip(shape, pad)], float("nan"), device="cuda", dtype=dtype)
    return buf[tuple(slice(0, s) for s in shape)], buf


def assert_only_view_written(view, buf):
    mask = torch.ones_like(buf, dtype=torch.bool)
    mask[tuple(slice(0, s) for s in view.shape)] = False
    assert bool(torch.isnan(buf[mask]).all()), "written outside the tensor"


def shifted_reference(src, dr, dc, out_shape):
    """src shifted by (dr, dc) with zeros where the shift leaves it."""
    ref = torch.zeros(out_shape, dtype=torch.float64, device=src.device)
    rows, cols = src.shape
    r_lo, r_hi = max(0, -dr), min(out_shape[0], rows - dr)
    c_lo, c_hi = max(0, -dc), min(out_shape[1], cols - dc)
    if r_lo < r_hi and c_lo < c_hi:
        ref[r_lo:r_hi, c_lo:c_hi] = src[r_lo + dr:r_hi + dr, c_lo + dc:c_hi + dc].double()
    return ref


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=str)
@pytest.mark.parametrize("shift", [(0, 0), (5, 3), (-7, -40), (90, 0)], ids=str)
def test_loads_past_every_edge_read_zero(dtype, shift):
    """A 100 x 72 source (rows padded to 80), a 100 x 72 destination; the
    blocks (32 x 64) overhang the right and bottom edges, and the shifted
    source blocks start before or after the source."""
    rows, cols = 100, 72
    src = torch.randn(rows, 80, device="cuda", dtype=dtype)[:, :cols]
    dst, buf = poisoned((rows, cols), dtype, (3, 8))
    bm, bn = 32, 64
    grid = (-(-rows // bm), -(-cols // bn))
    shifted_scale[grid](TensorDescriptor.from_tensor(src, [bm, bn]), TensorDescriptor.from_tensor(dst, [bm, bn]),
                        shift[0], shift[1], 2.0, BM=bm, BN=bn)
    torch.cuda.synchronize()
    ref = 2.0 * shifted_reference(src, shift[0], shift[1], (rows, cols))
    assert torch.equal(dst.double(), ref.to(dtype).double())
    assert_only_view_written(dst, buf)


def test_one_dimension():
    n = 1000
    src = torch.randn(n, device="cuda")
    dst, buf = poisoned((n,), torch.float32, (16,))
    copy_1d[(-(-n // 256),)](TensorDescriptor.from_tensor(src, [256]), TensorDescriptor.from_tensor(dst, [256]),
                             BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(dst, src)
    assert_only_view_written(dst, buf)


def test_three_dimensions():
    shape = (5, 37, 40)
    src = torch.randn(shape, device="cuda", dtype=torch.float16)
    dst, buf = poisoned(shape, torch.float16, (1, 2, 8))
    blocks = (2, 16, 32)
    grid = tuple(-(-s // b) for s, b in zip(shape, blocks))
    copy_3d[grid](TensorDescriptor.from_tensor(src, list(blocks)), TensorDescriptor.from_tensor(dst, list(blocks)),
                  B0=blocks[0], B1=blocks[1], B2=blocks[2])
    torch.cuda.synchronize()
    assert torch.equal(dst, src + 1)
    assert_only_view_written(dst, buf)


def test_descriptor_made_in_the_kernel():
    rows, cols = 70, 50
    x, buf = poisoned((rows, cols), torch.float32, (2, 6))  # row stride 56: 224 bytes
    x.copy_(torch.randn(rows, cols, device="cuda"))
    before = x.clone()
    increment_in_kernel[(-(-rows // 32), -(-cols // 32))](x, rows, cols, x.stride(0), BM=32, BN=32)
    torch.cuda.synchronize()
    assert torch.equal(x, before + 1)
    assert_only_view_written(x, buf)


def test_triton_descriptors_work_too():
    triton_descriptors = pytest.importorskip("triton.tools.tensor_descriptor")
    src = torch.randn(64, 64, device="cuda", dtype=torch.float16)
    dst = torch.empty_like(src)
    make = triton_descriptors.TensorDescriptor.from_tensor
    shifted_scale[(2, 1)](make(src, [32, 64]), make(dst, [32, 64]), 0, 0, 3.0, BM=32, BN=64)
    torch.cuda.synchronize()
    assert torch.equal(dst, (src.float() * 3).half())


def test_fast_path_keys_descriptors_by_class():
    """A second launch with other tensors of the same class (extents not
    multiples of 16, the same block) runs without specializing again; one
    whose extents become multiples of 16 specializes once more."""

    @tilelang.jit
    def double(src, dst, BM: tl.constexpr, BN: tl.constexpr):
        i = tl.program_id(0) * BM
        j = tl.program_id(1) * BN
        dst.store([i, j], src.load([i, j]) * 2)

    def run(rows, cols):
        src = torch.randn(rows, cols, device="cuda")
        dst = torch.empty_like(src)
        double[(-(-rows // 16), -(-cols // 32))](TensorDescriptor.from_tensor(src, [16, 32]),
                                                 TensorDescriptor.from_tensor(dst, [16, 32]), BM=16, BN=32)
        torch.cuda.synchronize()
        assert torch.equal(dst, src * 2)

    run(33, 36)
    run(47, 20)
    assert len(double.cache) == 1 and len(double._dispatcher) == 1
    run(48, 32)
    assert len(double.cache) == 2 and len(double._dispatcher) == 2


def test_wrong_argument_is_a_clear_error():
    src = torch.randn(64, 64, device="cuda")
    with pytest.raises(TypeError, match="unsupported argument type"):
        copy_1d[(1,)](object(), TensorDescriptor.from_tensor(src[0], [64]), BLOCK=64)
    with pytest.raises(ValueError, match="the tensor descriptor passed for 'src'"):
        bad = TensorDescriptor.from_tensor(src[0], [64])
        bad.strides = [2]
        copy_1d[(1,)](bad, TensorDescriptor.from_tensor(src[1], [64]), BLOCK=64)
