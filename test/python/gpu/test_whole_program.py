"""The occupancy search's whole-program step on the GPU (TILELANG_WHOLE_PROGRAM=1,
docs/runtime.md "Occupancy search"): the one-row layer norm of the parity
corpus (bench/parity/corpus/layernorm_row.py) over 12288 fp16 columns on 8
warps, linked with the step and without it, each checked against float64.
With the floor (2 blocks per SM) ptxas fills all 128 registers the floor
allows; compiled by ptxas as a whole program without it, the same PTX takes
127 and keeps 2 blocks, so the step keeps that cubin. Skipped without a GPU,
and where no ptxas binary is found."""

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    # The corpus kernel, as Triton users write it.
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
    y = xbar * rstd * w + b
    tl.store(Y + cols, y, mask=mask)


def ptxas_found():
    """Whether the runtime finds a ptxas (its own search, Ptxas.h)."""
    from tilelang import _C

    return _C.find_ptxas() is not None


@pytest.mark.parametrize("whole_program", ["1", "0"])
def test_the_one_row_layer_norm_links_as_a_whole_program(whole_program, monkeypatch):
    if whole_program == "1" and not ptxas_found():
        pytest.skip("no ptxas binary for the whole-program step")
    from tilelang.jit import _current_arch

    monkeypatch.setenv("TILELANG_WHOLE_PROGRAM", whole_program)
    rows, cols = 1000 + 3, 12288
    x = torch.randn(rows, cols, device="cuda").half()
    w = (torch.rand(cols, device="cuda") + 0.5).half()
    b = torch.randn(cols, device="cuda").half()
    y = torch.full_like(x, float("nan"))
    mean = torch.full((rows,), float("nan"), device="cuda")
    rstd = torch.full((rows,), float("nan"), device="cuda")
    kernel = tilelang.jit(layer_norm_fwd_kernel)  # compiled anew for this knob
    compiled = kernel[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, 1e-5, BLOCK_SIZE=16384, num_warps=8)
    torch.cuda.synchronize()
    arch = _current_arch()
    info = compiled.link_info[arch]
    loaded = compiled.launchable(arch)
    print(f"TILELANG_WHOLE_PROGRAM={whole_program}: {info}, {loaded.registers} registers, "
          f"{loaded.local_bytes} bytes of local memory")
    assert "minnctapersm 2" in compiled.asm["ptx"]
    assert info["min_blocks_per_sm"] == 2
    assert loaded.local_bytes == 0
    if whole_program == "1":
        # ptxas without the directive, as a whole program: 127 registers
        # (CUDA 13.0), 2 blocks of 8 warps as with the floor's 128.
        assert info["whole_program"] == 1, (info, loaded.registers)
        assert loaded.registers <= 128
    else:
        assert "whole_program" not in info
        assert loaded.registers <= 128
    xd = x.double()
    ref_mean = xd.mean(dim=1)
    ref_var = ((xd - ref_mean[:, None]) ** 2).mean(dim=1)
    ref_rstd = 1 / torch.sqrt(ref_var + 1e-5)
    ref = (xd - ref_mean[:, None]) * ref_rstd[:, None] * w.double() + b.double()
    assert (y.double() - ref).abs().max().item() < 2e-2
    assert (mean.double() - ref_mean).abs().max().item() < 1e-4
    assert ((rstd.double() - ref_rstd).abs() / ref_rstd).max().item() < 1e-4
