"""The occupancy search's last step on the GPU (docs/runtime.md, "Occupancy
search", step 4): a one-row layer norm of 12288 fp16 columns on 8 warps
keeps 2 blocks per SM with the lowering's floor and without it, and is
linked without the directive; on 16 warps (blocks the step leaves alone)
the floor stays. Results against float64 either way."""

import pytest

import tilelang
import tilelang.language as tl

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)


@tilelang.jit
def layer_norm_row(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    # The parity corpus's one-row form (bench/parity/corpus/layernorm_row.py).
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xbar = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xbar * xbar, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    tl.store(Y + cols, xbar * rstd * w + b, mask=mask)


@pytest.mark.parametrize("warps, floor_kept", [(8, False), (16, True)])
def test_long_rows_on_8_warps_are_linked_without_the_floor(warps, floor_kept, monkeypatch):
    from tilelang.jit import _current_arch

    monkeypatch.setenv("TILELANG_OCCUPANCY_SEARCH", "1")
    rows, cols = 37, 12288
    x = torch.randn(rows, cols, device="cuda").half()
    w = (torch.rand(cols, device="cuda") + 0.5).half()
    b = torch.randn(cols, device="cuda").half()
    y = torch.full_like(x, float("nan"))
    mean = torch.full((rows, ), float("nan"), device="cuda")
    rstd = torch.full((rows, ), float("nan"), device="cuda")
    kernel = tilelang.jit(layer_norm_row.fn)  # compiled anew for this knob
    compiled = kernel[(rows, )](x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5, BLOCK_SIZE=16384, num_warps=warps)
    arch = _current_arch()
    info = compiled.link_info[arch]
    loaded = compiled.launchable(arch)
    assert loaded.local_bytes == 0, (info, loaded.registers)
    if floor_kept:
        assert info["min_blocks_per_sm"] >= 1, info
    else:
        # Linked without .minnctapersm, and its registers still keep 2 blocks
        # of 256 threads (at most 128 a thread).
        assert info["min_blocks_per_sm"] == 0, (info, loaded.registers)
        assert loaded.registers <= 128, loaded.registers
    xd = x.double()
    ref = torch.nn.functional.layer_norm(xd, (cols, ), w.double(), b.double(), 1e-5)
    assert (y.double() - ref).abs().max().item() < 2e-2
    assert (mean.double() - xd.mean(dim=1)).abs().max().item() < 1e-4
    assert ((rstd.double() - 1 / torch.sqrt(xd.var(dim=1, unbiased=False) + 1e-5)).abs()
            / rstd.double()).max().item() < 1e-4
