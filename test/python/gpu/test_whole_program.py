"""The occupancy search's whole-program step on the GPU (on unless
TILELANG_WHOLE_PROGRAM=0, docs/runtime.md "Occupancy search"): the one-row
layer norm of the parity corpus (bench/parity/corpus/layernorm_row.py, loaded
through the harness as users write it) over 12288 fp16 columns on 8 warps,
linked by default, with the step asked for, and with it turned off, each
checked against float64. With the floor (2 blocks per SM) ptxas fills all
128 registers the floor allows; compiled by ptxas as a whole program without
it, the same PTX takes 127 and keeps 2 blocks, so the step keeps that cubin.
Skipped without a GPU; where no ptxas binary is found, the default must
leave the step out quietly and "=1" is skipped."""

import pytest

import tilelang
from tilelang_testing import REPO_ROOT, load_module

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


def corpus_kernel():
    """The corpus kernel's Python function, built for tilelang by the harness."""
    parity = load_module("parity", REPO_ROOT / "bench" / "parity" / "parity.py")
    return parity.load("layernorm_row", "tilelang").KERNEL.fn


def ptxas_found():
    """Whether the runtime finds a ptxas (its own search, Ptxas.h)."""
    from tilelang import _C

    return _C.find_ptxas() is not None


@pytest.mark.parametrize("whole_program", [None, "1", "0"])
def test_the_one_row_layer_norm_links_as_a_whole_program(whole_program, monkeypatch):
    found = ptxas_found()
    if whole_program == "1" and not found:
        pytest.skip("no ptxas binary for the whole-program step")
    from tilelang.jit import _current_arch

    if whole_program is None:
        monkeypatch.delenv("TILELANG_WHOLE_PROGRAM", raising=False)
    else:
        monkeypatch.setenv("TILELANG_WHOLE_PROGRAM", whole_program)
    rows, cols = 1000 + 3, 12288
    x = torch.randn(rows, cols, device="cuda").half()
    w = (torch.rand(cols, device="cuda") + 0.5).half()
    b = torch.randn(cols, device="cuda").half()
    y = torch.full_like(x, float("nan"))
    mean = torch.full((rows,), float("nan"), device="cuda")
    rstd = torch.full((rows,), float("nan"), device="cuda")
    kernel = tilelang.jit(corpus_kernel())  # compiled anew for this knob
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
    if whole_program == "1" or (whole_program is None and found):
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
