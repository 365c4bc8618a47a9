"""The shared-memory accesses of layout conversions, on a machine without a
GPU (test/python/conversion_kernels.py; their numbers are checked on the
GPU by test/python/gpu/test_layout_conversions.py). A conversion moves
each side's runs of consecutive elements as vectors of up to 16 bytes; on
sm_90a a 16-bit tensor-core accumulator goes to shared memory with
stmatrix.x4 (four 8x8 matrices, 8 elements a thread per instruction)
where its padded rows keep a matrix's rows in different banks."""

import re

import pytest

import tilelang
import tilelang.language as tl

import conversion_kernels

KERNELS = conversion_kernels.define(tilelang.jit, tl)
DOT_ARGS = ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"]


def dot_ptx(cfg, dtype, out_dtype, arch="sm_90a"):
    block_m, block_n, block_k, warps, stages = cfg
    kernel = KERNELS["dot_copy_kernel"].compile(
        f"*{dtype},*{dtype},*{out_dtype},i32,i32,i32,i32,i32,i32",
        constexprs={"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k},
        specialization=dict.fromkeys(DOT_ARGS, 16), num_warps=warps, num_stages=stages)
    return kernel.to_ptx(arch)


def shared_accesses(ptx, kind):
    """The shared-memory stores ("st": st.shared and stmatrix) or loads
    ("ld": ld.shared; ldmatrix reads the products' operands), by name."""
    pattern = r"\bst\.shared\S*|\bstmatrix\S*" if kind == "st" else r"\bld\.shared\S*"
    names = re.findall(pattern, ptx)
    return {name: names.count(name) for name in set(names)}


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("cfg,matrices,shared", [((128, 256, 64, 8, 3), 16, 147456),
                                                 ((256, 128, 64, 8, 3), 16, 147456),
                                                 ((128, 64, 64, 4, 3), 8, 73728)],
                         ids=["128x256", "256x128", "128x64"])
def test_wgmma_epilogue_uses_stmatrix(cfg, matrices, shared, dtype):
    """128 (or 64) accumulator elements a thread: 8 per stmatrix.x4 and 8
    per 16-byte load, nothing stored element by element; the scratch is
    the one it always was (under the pipeline's stages)."""
    built = dot_ptx(cfg, dtype, dtype)
    assert shared_accesses(built.ptx, "st") == {"stmatrix.sync.aligned.m8n8.x4.shared.b16": matrices}
    assert shared_accesses(built.ptx, "ld") == {"ld.shared.v4.b32": matrices}
    assert built.shared_bytes == shared


def test_short_rows_store_pairs():
    """Rows of 64 bytes are not padded: stmatrix's eight rows of a matrix
    would share banks, so the thread's 4-byte pairs are stored."""
    built = dot_ptx((64, 32, 32, 4, 2), "fp16", "fp16")
    assert shared_accesses(built.ptx, "st") == {"st.shared.b32": 8}
    assert shared_accesses(built.ptx, "ld") == {"ld.shared.v4.b32": 2}


def test_mma_sync_epilogue_stores_pairs():
    """Before sm_90 there is no stmatrix: 4-byte pairs, 16-byte loads."""
    built = dot_ptx((64, 64, 32, 4, 2), "fp16", "fp16", arch="sm_80")
    assert shared_accesses(built.ptx, "st") == {"st.shared.b32": 16}
    assert shared_accesses(built.ptx, "ld") == {"ld.shared.v4.b32": 4}


def test_f32_epilogue_stores_8_byte_pairs():
    built = dot_ptx((128, 256, 64, 8, 3), "fp16", "fp32")
    assert shared_accesses(built.ptx, "st") == {"st.shared.v2.b32": 64}
    assert shared_accesses(built.ptx, "ld") == {"ld.shared.v4.b32": 32}


@pytest.mark.parametrize("dtype,load", [("fp16", "ld.shared.v4.b32"), ("fp32", "ld.shared.v4.b32"),
                                        ("i8", "ld.shared.v4.b32")])
def test_transpose_loads_vectors(dtype, load):
    """The load's layout runs down X's columns: one element a store; the
    store's along Y's rows: 16 bytes a load."""
    kernel = KERNELS["transpose_copy_kernel"].compile(
        f"*{dtype},*{dtype},i32,i32,i32,i32", constexprs={"BLOCK_R": 64, "BLOCK_C": 64},
        specialization=dict.fromkeys(["x_ptr", "y_ptr", "R", "C", "stride_x", "stride_y"], 16), num_warps=4)
    ptx = kernel.to_ptx("sm_90a").ptx
    elements = 64 * 64 // 128
    bits = {"fp16": 16, "fp32": 32, "i8": 8}[dtype]
    assert shared_accesses(ptx, "st") == {f"st.shared.b{bits}": elements}
    assert shared_accesses(ptx, "ld") == {load: elements * bits // 128}
