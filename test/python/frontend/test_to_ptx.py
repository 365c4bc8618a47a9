"""Python kernels all the way to PTX: the frontend's tile IR goes through
the compiler library's whole pipeline (tl.dot on mma.sync, or wgmma on
sm_90a)."""

import os
import shutil
import subprocess

import pytest

import tilelang
import tilelang.language as tl

import kernels

ALIGNED = 16


def to_ptx(fn, signature, constexprs, specialization=None, arch="sm_90a"):
    kernel = fn.compile(signature, constexprs=constexprs, specialization=specialization)
    return tilelang.compile_ir(kernel.asm["tile"], arch=arch, source_name=f"<tile-ir of {kernel.name}>")


def test_vector_add_specialized_gets_128_bit_accesses():
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}
    aligned = to_ptx(kernels.add_kernel, signature, {"BLOCK_SIZE": 1024},
                     specialization={name: ALIGNED for name in signature})
    assert aligned.ptx.count("ld.global.v4.b32") == 4  # two inputs, 8 elements per thread
    assert "st.global.v4.b32" in aligned.ptx
    # Without the divisibility promise nothing proves alignment: scalar accesses.
    plain = to_ptx(kernels.add_kernel, signature, {"BLOCK_SIZE": 1024})
    assert "ld.global.v4" not in plain.ptx and "ld.global" in plain.ptx


@tilelang.jit
def chunked_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        tl.store(y_ptr + cols, tl.load(x_ptr + cols, mask=cols < n), mask=cols < n)


def test_loops_without_carried_values_get_128_bit_accesses():
    # Regression: the induction variable of a loop without iter_args was
    # not known to be a multiple of the step, so nothing proved alignment.
    signature = {"x_ptr": "*fp16", "y_ptr": "*fp16", "n": "i32"}
    ptx = to_ptx(chunked_copy, signature, {"BLOCK": 2048}, specialization={name: ALIGNED for name in signature}).ptx
    # 2048 halves over 128 threads: two 16-byte loads and stores a thread.
    assert ptx.count("ld.global.v4.b32") == 2 and ptx.count("st.global.v4.b32") == 2
    assert "ld.global.b16" not in ptx


def test_softmax_and_layernorm_reduce_with_shuffles():
    softmax = to_ptx(kernels.softmax_kernel, "*fp32,*fp32,i32,i32,i32,i32", {"BLOCK_SIZE": 1024, "num_stages": 3})
    # max, then sum: 5 steps across a warp's lanes, then 2 across the 4
    # warps' partials (each lane holds one partial)
    assert softmax.ptx.count("shfl.sync.bfly.b32") == 14
    assert softmax.ptx.count("ld.shared") == 2
    layernorm = to_ptx(kernels._layer_norm_fwd_fused, "*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,i32,i32,fp32",
                       {"BLOCK_SIZE": 1024})
    # 1 / tl.sqrt(...): Triton's fast square root, not IEEE sqrt's subroutine.
    assert "shfl.sync.bfly.b32" in layernorm.ptx and "sqrt.approx.ftz.f32" in layernorm.ptx
    assert "sqrt.rn" not in layernorm.ptx
    assert layernorm.shared_bytes > 0  # the cross-warp step of the reductions


@pytest.mark.skipif(shutil.which("ptxas") is None and not os.path.exists("/usr/local/cuda/bin/ptxas"),
                    reason="needs ptxas")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_ptxas_accepts_frontend_kernels(arch, tmp_path):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    compiled = [
        to_ptx(kernels.add_kernel, "*fp16,*fp16,*fp16,i32", {"BLOCK_SIZE": 256}, arch=arch),
        to_ptx(kernels.softmax_kernel, "*fp16,*fp16,i32,i32,i32,i32", {"BLOCK_SIZE": 512, "num_stages": 1},
               arch=arch),
        to_ptx(kernels._layer_norm_fwd_fused, "*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,i32,i32,fp32",
               {"BLOCK_SIZE": 256}, arch=arch),
    ]
    for kernel in compiled:
        path = tmp_path / f"{kernel.name}.ptx"
        path.write_text(kernel.ptx)
        result = subprocess.run([ptxas, f"-arch={arch}", str(path), "-o", "/dev/null"],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_random_and_layernorm_backward_reach_ptx(arch):
    # Regression: arith.mului_extended (two results, in every Philox round)
    # crashed the LLVM lowering.
    dropout = to_ptx(kernels._seeded_dropout,
                     {"x_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32", "p": "fp32", "seed": "i32"},
                     {"BLOCK_SIZE": 1024}, arch=arch)
    assert "mul.hi.u32" in dropout.ptx or "mul.wide.u32" in dropout.ptx
    for bits, offsets in (("i32", "i32"), ("i64", "i64")):
        to_ptx(kernels.random_kernel, f"*i32,*fp32,*fp32,{bits},{offsets}", {"BLOCK": 256, "N_ROUNDS": 7},
               arch=arch)
    backward = to_ptx(kernels._layer_norm_bwd_dx_fused,
                      "*fp16,*fp16,*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,*i32,i32,i32",
                      {"GROUP_SIZE_M": 64, "BLOCK_SIZE_N": 1024}, arch=arch)
    assert "atom.acq_rel.gpu.global.cas.b32" in backward.ptx and "bar.sync" in backward.ptx
    to_ptx(kernels._layer_norm_bwd_dwdb, "*fp32,*fp32,*fp32,*fp32,i32,i32",
           {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 128}, arch=arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_attention_runs_both_products_on_tensor_cores(arch, tmp_path):
    # q @ k^T and p @ v, 64x64x64 each with 4 warps. sm_80: mma.sync, 2x2
    # warps of 32x32, 2 x 4 x 4 instructions per K step of 16, 4 steps each.
    # sm_90a: wgmma, one warpgroup, one m64n64k16 per K step.
    attention = to_ptx(kernels._attn_fwd, *_attention_args(), arch=arch)
    if arch == "sm_80":
        assert attention.ptx.count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 64
        assert "ldmatrix.sync.aligned.m8n8.x4" in attention.ptx
    else:
        assert attention.ptx.count("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16") == 8
        assert "mma.sync" not in attention.ptx
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if os.path.exists(ptxas):
        path = tmp_path / "attention.ptx"
        path.write_text(attention.ptx)
        result = subprocess.run([ptxas, f"-arch={arch}", str(path), "-o", "/dev/null"],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


def _attention_args():
    import test_more_kernels

    return test_more_kernels.ATTN_SIG, dict(BLOCK_M=64, BLOCK_N=64, BLOCK_DMODEL=64, IS_CAUSAL=False)


def test_compiled_kernel_exposes_every_stage():
    kernel = kernels.add_kernel.compile("*fp32,*fp32,*fp32,i32", constexprs={"BLOCK_SIZE": 256})
    compiled = kernel.to_ptx("sm_80")
    assert set(kernel.asm) >= {"tile-src", "tile", "tile-opt", "tilegpu", "llvm", "llvm-ir", "ptx"}
    assert "#tilegpu.blocked" in kernel.asm["tilegpu"] and "llvm.func" in kernel.asm["llvm"]
    assert kernel.asm["ptx"] == compiled.ptx and ".target sm_80" in compiled.ptx


@pytest.mark.parametrize("name,signature,constexprs", [
    ("add_kernel", "*fp32,*fp32,*fp32,i32", {"BLOCK_SIZE": 1024}),
    ("softmax_kernel", "*fp32,*fp32,i32,i32,i32,i32", {"BLOCK_SIZE": 1024, "num_stages": 3}),
    ("_layer_norm_fwd_fused", "*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,i32,i32,fp32", {"BLOCK_SIZE": 1024}),
    ("_layer_norm_bwd_dx_fused", "*fp16,*fp16,*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,*i32,i32,i32",
     {"GROUP_SIZE_M": 64, "BLOCK_SIZE_N": 1024}),
    ("cumsum_kernel", "*i32,*i32,i32", {"BLOCK": 512}),
    ("argmax_kernel", "*fp32,*i32,i32,i32", {"BLOCK": 1024}),
    ("histogram_kernel", "*i32,*i32,i32", {"NUM_BINS": 64, "BLOCK": 256}),
    ("_seeded_dropout", "*fp32,*fp32,i32,fp32,i32", {"BLOCK_SIZE": 1024}),
    ("matmul_kernel", "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32",
     dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="leaky_relu")),
    ("_attn_fwd", ",".join(["*fp16"] * 3 + ["fp32", "*fp32", "*fp16"] + ["i32"] * 19),
     dict(BLOCK_M=64, BLOCK_N=64, BLOCK_DMODEL=64, IS_CAUSAL=True)),
])
def test_tilelang_opt_verifies_the_frontend_ir(name, signature, constexprs, tmp_path):
    """Issue 4's acceptance literally: tilelang-opt verifies the emitted IR."""
    from tilelang_testing import find_tool

    kernel = getattr(kernels, name).compile(signature, constexprs=constexprs)
    path = tmp_path / f"{name}.mlir"
    path.write_text(kernel.asm["tile-src"])
    result = subprocess.run([find_tool("tilelang-opt"), str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_maxnreg_caps_registers_instead_of_the_occupancy_floor(tmp_path, monkeypatch):
    # Triton's maxnreg launch option: .maxnreg in the PTX, and no
    # .minnctapersm (so no occupancy search at link time); kept apart in the
    # disk cache, and refused outside 16..255 with the option named.
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path))
    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}
    plain = kernels.add_kernel.compile(signature, constexprs={"BLOCK_SIZE": 1024}).to_ptx("sm_90a").ptx
    assert ".minnctapersm 4" in plain and ".maxnreg" not in plain
    capped = kernels.add_kernel.compile(signature, constexprs={"BLOCK_SIZE": 1024}, maxnreg=40)
    assert capped.maxnreg == 40
    ptx = capped.to_ptx("sm_90a").ptx
    assert ".maxnreg 40" in ptx and ".minnctapersm" not in ptx
    # Asked again, the in-process cache answers with the same kernel.
    assert kernels.add_kernel.compile(signature, constexprs={"BLOCK_SIZE": 1024}, maxnreg=40) is capped
    from tilelang import cache
    assert cache.kernel_key("module {}", "sm_90a", 4, 3, 40) != cache.kernel_key("module {}", "sm_90a", 4, 3)
    with pytest.raises(ValueError, match="maxnreg=8: it must be from 16 to 255 registers a thread"):
        kernels.add_kernel.compile(signature, constexprs={"BLOCK_SIZE": 1024}, maxnreg=8)
