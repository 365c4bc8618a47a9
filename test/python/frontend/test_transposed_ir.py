"""What tilelang makes of products that read an operand transposed
(test/python/transposed_kernels.py), on a machine without a GPU: on sm_90a
the transposed tile goes to shared memory as loaded and wgmma reads it
through a transposed view, so its load is pipelined like any other (cp.async
through pointers, bulk tensor copies through a descriptor) and the product
stays asynchronous; no transpose goes through shared memory in the loop. On
sm_80 the same kernels compile to mma.sync. The numbers are checked on the
GPU (test/python/gpu/test_transposed_operands.py)."""

import pytest

import tilelang
import tilelang.language as tl
from tilelang_testing import REPO_ROOT, load_module

import transposed_kernels

KERNELS = transposed_kernels.define(tilelang.jit, tl)
PTXSTATS = load_module("ptxstats", REPO_ROOT / "bench" / "parity" / "ptxstats.py")
POINTER_SIGNATURE = "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32"
CONFIGS = [(64, 64, 32, 4, 2), (128, 128, 64, 4, 3), (128, 256, 64, 8, 3)]


def constexprs(cfg, **extra):
    return {"BLOCK_M": cfg[0], "BLOCK_N": cfg[1], "BLOCK_K": cfg[2], **extra}


def compile_pointers(cfg, trans_a):
    """Pointers 16-byte aligned, sizes and strides multiples of 16 (as a
    launch with such tensors and sizes specializes them): the masks then
    keep 16-byte runs along K, and along M for A stored (K, M), which
    cp.async can copy."""
    return KERNELS["matmul_bt_kernel"].compile(POINTER_SIGNATURE, constexprs=constexprs(cfg, TRANS_A=trans_a),
                                               specialization={"a_ptr": 16, "b_ptr": 16, "c_ptr": 16, "M": 16, "N": 16, "K": 16, "stride_am": 16, "stride_bn": 16,
                                                               "stride_cm": 16},
                                               num_warps=cfg[3], num_stages=cfg[4])


def compile_descriptors(cfg):
    bm, bn, bk = cfg[:3]
    types = {"a_desc": f"tensordesc<fp16[{bm},{bk}]>", "b_desc": f"tensordesc<fp16[{bn},{bk}]>",
             "c_desc": f"tensordesc<fp16[{bm},{bn}]>", "K": "i32"}
    return KERNELS["matmul_bt_descriptor_kernel"].compile(types, constexprs=constexprs(cfg), num_warps=cfg[3],
                                                          num_stages=cfg[4])


def loop_of(ptx):
    return PTXSTATS.analyze(ptx)["loop"]


@pytest.mark.parametrize("trans_a", [False, True], ids=["a", "a.T"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_pointer_operands_read_transposed_are_pipelined(cfg, trans_a):
    loop = loop_of(compile_pointers(cfg, trans_a).to_ptx("sm_90a").ptx)
    assert loop["wgmma"] > 0 and loop["cp_async"] > 0, loop
    assert loop["shared_stores"] == 0 and loop["shared_loads"] == 0, loop
    assert loop["wgmma_waits"] == 1 and loop["local"] == 0, loop


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_descriptor_operand_read_transposed_is_copied_in_bulk(cfg):
    loop = loop_of(compile_descriptors(cfg).to_ptx("sm_90a").ptx)
    assert loop["wgmma"] > 0 and loop["bulk_copies"] > 0 and loop["cp_async"] == 0, loop
    assert loop["shared_stores"] == 0 and loop["shared_loads"] == 0, loop
    assert loop["wgmma_waits"] == 1, loop


@pytest.mark.parametrize("trans_a", [False, True], ids=["a", "a.T"])
def test_transposed_operands_compile_for_sm80(trans_a):
    ptx = compile_pointers(CONFIGS[1], trans_a).to_ptx("sm_80").ptx
    assert "mma.sync.aligned" in ptx and "wgmma" not in ptx
    ptx = compile_descriptors(CONFIGS[1]).to_ptx("sm_80").ptx
    assert "mma.sync.aligned" in ptx and "wgmma" not in ptx
