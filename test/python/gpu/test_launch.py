"""Kernels written in tilelang.language, launched on the GPU through the
runtime and checked against float64 torch references on fresh random
inputs, at sizes that are not multiples of the block. Skipped without a GPU."""

import pathlib

import pytest

import tilelang
import tilelang.language as tl
from tilelang_testing import load_module

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

# The frontend tests' kernels, written as in Triton's tutorials.
kernels = load_module("frontend_kernels", pathlib.Path(__file__).parents[1] / "frontend" / "kernels.py")


def fresh(*shape, dtype=torch.float32):
    return torch.randn(*shape, device="cuda").to(dtype)


def poisoned_like(x):
    """Output buffers start as NaN (or -1) so unwritten elements show."""
    if x.dtype.is_floating_point:
        return torch.full_like(x, float("nan"))
    return torch.full_like(x, -1)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32])
@pytest.mark.parametrize("n", [1, 1000, 98432 + 7])
def test_vector_add(dtype, n):
    x = fresh(n, dtype=dtype) if dtype.is_floating_point else torch.randint(-1000, 1000, (n,), device="cuda",
                                                                            dtype=dtype)
    y = fresh(n, dtype=dtype) if dtype.is_floating_point else torch.randint(-1000, 1000, (n,), device="cuda",
                                                                            dtype=dtype)
    out = poisoned_like(x)
    kernels.add_kernel[lambda meta: (tilelang.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n, BLOCK_SIZE=1024)
    ref = (x.double() + y.double()).to(dtype)
    torch.testing.assert_close(out, ref, rtol=0, atol=0)


@pytest.mark.parametrize("rows,cols", [(1, 17), (37, 781), (256, 1024)])
def test_fused_softmax(rows, cols):
    x = fresh(rows, cols) * 3
    out = poisoned_like(x)
    block = tilelang.next_power_of_2(cols)
    kernels.softmax_kernel[(min(rows, 64),)](out, x, x.stride(0), out.stride(0), rows, cols,
                                             BLOCK_SIZE=block, num_stages=1)
    ref = torch.softmax(x.double(), dim=1)
    assert (out.double() - ref).abs().max().item() < 1e-5


@pytest.mark.parametrize("rows,cols", [(3, 100), (64, 4096 + 16), (8, 12288)])
def test_layernorm_forward(rows, cols):
    x = fresh(rows, cols, dtype=torch.float16)
    w = (torch.rand(cols, device="cuda") + 0.5).half()
    b = fresh(cols, dtype=torch.float16)
    y = poisoned_like(x)
    mean = torch.full((rows,), float("nan"), device="cuda")
    rstd = torch.full((rows,), float("nan"), device="cuda")
    kernels._layer_norm_fwd_fused[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5, BLOCK_SIZE=1024)
    xd = x.double()
    ref_mean = xd.mean(dim=1)
    ref_rstd = 1 / torch.sqrt(xd.var(dim=1, unbiased=False) + 1e-5)
    ref_y = (xd - ref_mean[:, None]) * ref_rstd[:, None] * w.double() + b.double()
    assert (mean.double() - ref_mean).abs().max().item() < 1e-5
    assert ((rstd.double() - ref_rstd) / ref_rstd).abs().max().item() < 1e-5
    assert (y.double() - ref_y).abs().max().item() < 2e-2


@tilelang.jit
def _rms_norm_rows(X, Y, W, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    # As RMSNorm's users write it: rows whose starts and length are not
    # multiples of a vector, the weight aligned, everything masked by
    # cols < N (one element per access; coalescing gives the group one
    # element per thread, so that the stores have no gaps).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(Y + row * stride + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("rows,cols,warps", [(37, 3000, 4), (5, 1000, 8), (300, 4000 + 8, 2)])
def test_rms_norm_on_unaligned_rows(dtype, rows, cols, warps):
    x = fresh(rows, cols, dtype=dtype)
    w = (torch.rand(cols, device="cuda") + 0.5).to(dtype)
    y = poisoned_like(x)
    _rms_norm_rows[(rows,)](x, y, w, x.stride(0), cols, 1e-6, BLOCK_SIZE=tilelang.next_power_of_2(cols),
                            num_warps=warps)
    xd = x.double()
    ref = xd / torch.sqrt((xd * xd).mean(dim=1, keepdim=True) + 1e-6) * w.double()
    # A product: the error is the output's rounding (bf16 2^-8) and the fp32 sum.
    assert ((y.double() - ref).abs() / (ref.abs() + 1e-3)).max().item() < 1e-2


@pytest.mark.parametrize("search", [True, False])
@pytest.mark.parametrize("cols,block,warps", [(8192 + 100, 8192, 8), (12288, 16384, 8), (12288, 16384, 16),
                                               (12288, 16384, 2)])
def test_occupancy_search_links_wide_rows_without_spilling(cols, block, warps, search, monkeypatch):
    # 8 or 16 warps holding 32 or 64 elements each: registers decide how many
    # rows an SM keeps resident, and the search may ask the JIT for more
    # (blocks of 16 warps are searched too, from a floor of one block). 2
    # warps hold 256 elements each: every count spills, and the search keeps
    # the one that spills least.
    import re

    from tilelang.jit import _current_arch

    monkeypatch.setenv("TILELANG_OCCUPANCY_SEARCH", "1" if search else "0")
    # The search alone: its whole-program step (another link, another
    # cubin) is test_whole_program.py's.
    monkeypatch.setenv("TILELANG_WHOLE_PROGRAM", "0")
    rows = 37
    x = fresh(rows, cols, dtype=torch.float16)
    w = (torch.rand(cols, device="cuda") + 0.5).half()
    b = fresh(cols, dtype=torch.float16)
    y = poisoned_like(x)
    mean = torch.empty(rows, device="cuda")
    rstd = torch.empty(rows, device="cuda")
    kernel = tilelang.jit(kernels._layer_norm_fwd_fused.fn)  # compiled anew for this knob
    compiled = kernel[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5, BLOCK_SIZE=block, num_warps=warps)
    arch = _current_arch()
    asked = int(re.search(r"\.minnctapersm (\d+)", compiled.asm["ptx"]).group(1))
    info = compiled.link_info[arch]
    loaded = compiled.launchable(arch)
    if search:
        # It ran: more blocks than asked fitted, or it tried and linked again,
        # or it stopped after the PTX as written, either because that spills
        # already (fewer registers would spill more; the unaligned 8292-wide
        # rows load element by element) or because its registers already
        # keep three quarters of the SM's threads resident (64K registers
        # per SM, allocated per warp in units of 256; 2048 threads per SM on
        # sm_80 and sm_90).
        resident = min(65536 // (-(-loaded.registers * 32 // 256) * 256 * warps), 2048 // (32 * warps))
        if info == {"min_blocks_per_sm": asked, "links": 1}:
            assert loaded.local_bytes > 0 or 4 * resident * 32 * warps >= 3 * 2048, (info, loaded.registers)
        # Another count than asked is kept only where it needs no local
        # memory (more blocks, or fewer where the PTX as written spilled), or
        # where every count spills, fewer blocks that need less of it.
        if info["min_blocks_per_sm"] != asked and loaded.local_bytes:
            monkeypatch.setenv("TILELANG_OCCUPANCY_SEARCH", "0")
            as_written = tilelang.jit(kernels._layer_norm_fwd_fused.fn)[(rows,)](
                x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5, BLOCK_SIZE=block, num_warps=warps).launchable(arch)
            assert info["min_blocks_per_sm"] < asked and loaded.local_bytes < as_written.local_bytes, \
                f"linked for {info} with {loaded.local_bytes} bytes of local memory, as written {as_written.local_bytes}"
        if warps == 2:
            # The floor's 8 blocks of 128 registers spill several times what
            # 4 of 255 do: fewer blocks are kept.
            assert info["min_blocks_per_sm"] < asked, (info, loaded.registers, loaded.local_bytes)
    else:
        assert info == {"min_blocks_per_sm": asked, "links": 1}
    xd = x.double()
    ref = torch.nn.functional.layer_norm(xd, (cols,), w.double(), b.double(), 1e-5)
    assert (y.double() - ref).abs().max().item() < 2e-2


@pytest.mark.parametrize("n", [1, 200, 512])
def test_cumsum(n):
    x = torch.randint(-50, 50, (n,), device="cuda", dtype=torch.int32)
    y = poisoned_like(x)
    kernels.cumsum_kernel[(1,)](x, y, n, BLOCK=512)
    assert torch.equal(y.long(), x.long().cumsum(0))


@pytest.mark.parametrize("rows,cols", [(5, 10), (33, 1000)])
def test_argmax(rows, cols):
    x = fresh(rows, cols)
    out = torch.full((rows,), -1, device="cuda", dtype=torch.int32)
    kernels.argmax_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=tilelang.next_power_of_2(cols))
    assert torch.equal(out.long(), x.double().argmax(dim=1))


@pytest.mark.parametrize("n", [1, 5000, 70001])
def test_atomic_histogram(n):
    x = torch.randint(0, 64, (n,), device="cuda", dtype=torch.int32)
    hist = torch.zeros(64, device="cuda", dtype=torch.int32)
    kernels.histogram_kernel[(tilelang.cdiv(n, 256),)](x, hist, n, NUM_BINS=64, BLOCK=256)
    assert torch.equal(hist.long(), torch.bincount(x.long(), minlength=64))


@tilelang.jit
def scale_2d(x_ptr, out_ptr, rows, cols, stride, alpha, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    z = tl.program_id(2)
    mask = (r[:, None] < rows) & (c[None, :] < cols)
    offs = r[:, None] * stride + c[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # Grid slice z writes its own copy, offset by z.
    tl.store(out_ptr + z * rows * stride + offs, x * alpha + z, mask=mask)


@pytest.mark.parametrize("rows,cols", [(1, 1), (100, 70), (513, 257)])
def test_three_dimensional_grid(rows, cols):
    x = fresh(rows, cols)
    out = torch.full((2, rows, cols), float("nan"), device="cuda")
    scale_2d[(tilelang.cdiv(rows, 32), tilelang.cdiv(cols, 64), 2)](x, out, rows, cols, x.stride(0), 2.5,
                                                                    BLOCK_R=32, BLOCK_C=64)
    for z in range(2):
        torch.testing.assert_close(out[z].double(), x.double() * 2.5 + z, rtol=1e-6, atol=1e-6)


@tilelang.jit
def offset_kernel(x_ptr, out_ptr, base, BLOCK: tl.constexpr):
    offs = base + tl.arange(0, BLOCK)
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + offs))


def test_int64_offsets_beyond_two_to_the_31():
    # A 2^31 + 2^20 element int8 buffer; read the block past 2^31.
    n = 2**31 + 2**20
    x = torch.zeros(n, device="cuda", dtype=torch.int8)
    base = 2**31 + 12345
    x[base:base + 256] = torch.arange(256, device="cuda", dtype=torch.int32).to(torch.int8)
    out = torch.full((256,), 0, device="cuda", dtype=torch.int8)
    offset_kernel[(1,)](x, out, base, BLOCK=256)
    assert torch.equal(out, x[base:base + 256])
    del x


def test_launch_errors_are_clear():
    x = fresh(16)
    with pytest.raises(ValueError, match="grid dimension 0 is -1"):
        kernels.add_kernel[(-1,)](x, x, x, 16, BLOCK_SIZE=16)
    with pytest.raises(ValueError, match="grid dimension 1 is 70000"):
        kernels.add_kernel[(1, 70000)](x, x, x, 16, BLOCK_SIZE=16)
    with pytest.raises(TypeError, match=r"add_kernel\(\): missing a required argument: 'n_elements'"):
        kernels.add_kernel[(1,)](x, x, 16, BLOCK_SIZE=16)


def test_device_info_names_the_gpu():
    from tilelang import _C

    info = _C.device_info()
    assert info["multiprocessors"] > 0 and info["capability"] >= (8, 0)
    assert _C.driver_version() >= 12000


# The launcher reads torch tensors and torch's stream in C++ through
# tilelang._C_torch (docs/runtime.md, "The launcher"); these check that it
# is in use and that it reads what Python would.


@tilelang.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


def scale(x, out, alpha=3.0):
    n = x.numel()
    scale_kernel[(tilelang.cdiv(n, 128),)](x, out, n, alpha, BLOCK=128)


def test_the_torch_bridge_is_in_use():
    from tilelang import _C

    scale(fresh(8), fresh(8))
    assert _C.torch_bridge_status() == "active"


def test_the_torch_bridge_can_be_turned_off_and_on_in_a_process():
    from tilelang import _C

    x = fresh(777)
    entries = []
    for enabled in (False, True):
        assert _C.set_torch_bridge(enabled) is (not enabled)  # the previous setting
        assert _C.torch_bridge_status() == ("active" if enabled else "off (tilelang._C.set_torch_bridge(False))")
        out = poisoned_like(x)
        scale(x, out)
        torch.testing.assert_close(out, x * 3.0, rtol=0, atol=0)
        entries.append(len(scale_kernel._dispatcher))
    # One key either way: Python reads the same dtype object, pointer and
    # device that the bridge reads.
    assert entries[0] == entries[1]


class TaggedTensor(torch.Tensor):
    """A subclass: the bridge leaves it to Python, which may dispatch."""


@pytest.mark.parametrize("view", ["offset", "subclass", "parameter", "fp16"])
def test_tensors_the_bridge_reads_or_declines_launch_correctly(view):
    base = fresh(1000 + 3)
    if view == "offset":  # 4 bytes past a 16-byte boundary: another specialization
        x, out = base[1:1001], poisoned_like(fresh(1000 + 1))[1:]
    elif view == "subclass":
        x, out = base[:1000].as_subclass(TaggedTensor), poisoned_like(base[:1000]).as_subclass(TaggedTensor)
    elif view == "parameter":
        x, out = torch.nn.Parameter(base[:1000].clone(), requires_grad=False), poisoned_like(base[:1000])
    else:
        x, out = base[:1000].half(), poisoned_like(base[:1000].half())
    scale(x, out)
    ref = (x.detach().double() * 3.0).to(x.dtype)
    torch.testing.assert_close(out.as_subclass(torch.Tensor), ref.as_subclass(torch.Tensor), rtol=0, atol=0)


def test_a_misaligned_view_is_keyed_apart_from_an_aligned_one():
    scale(fresh(8), fresh(8))  # the first launch makes the dispatcher
    scale_kernel._dispatcher.clear()
    x = fresh(1001)
    out = poisoned_like(x)
    scale(x[:1000], out[:1000])
    scale(x[1:], out[1:])
    assert len(scale_kernel._dispatcher) == 2
    scale(x[:1000], out[:1000])  # a known key: no third entry
    assert len(scale_kernel._dispatcher) == 2


def test_launches_under_a_torch_function_mode_and_on_a_side_stream():
    from tilelang import _C

    x = fresh(5000)
    out = poisoned_like(x)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.device("cuda"), torch.cuda.stream(side):  # torch.device installs a torch-function mode
        assert _C.current_stream() == side.cuda_stream
        scale(x, out)
    assert _C.current_stream() == torch.cuda.current_stream().cuda_stream
    side.synchronize()
    torch.testing.assert_close(out, x * 3.0, rtol=0, atol=0)


def test_a_host_tensor_is_refused_by_name():
    with pytest.raises(ValueError, match="'x_ptr' is on cpu; kernels take CUDA tensors"):
        scale(torch.randn(8), fresh(8))
