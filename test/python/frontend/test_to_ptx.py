"""Python kernels all the way to PTX: the frontend's tile IR goes through
the compiler library's whole pipeline (tl.dot waits for the tensor-core
lowering)."""

import os
import shutil
import subprocess

import pytest

import tilelang

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


def test_softmax_and_layernorm_reduce_with_shuffles():
    softmax = to_ptx(kernels.softmax_kernel, "*fp32,*fp32,i32,i32,i32,i32", {"BLOCK_SIZE": 1024, "num_stages": 3})
    assert softmax.ptx.count("shfl.sync.bfly.b32") == 10  # max, then sum: 5 steps each
    layernorm = to_ptx(kernels._layer_norm_fwd_fused, "*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,i32,i32,fp32",
                       {"BLOCK_SIZE": 1024})
    assert "shfl.sync.bfly.b32" in layernorm.ptx and "sqrt.rn.f32" in layernorm.ptx
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
