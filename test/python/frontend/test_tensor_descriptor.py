"""Tensor descriptors without a GPU: the host TensorDescriptor's rules, the
signature and specialization a call derives from one, the kernel parameters
the compiler gives it (checked in the PTX), the frontend's errors with their
source locations, and the descriptor matmul's pipelining on sm_90a."""

import pathlib
import re
import shutil
import subprocess

import pytest
from tilelang_testing import REPO_ROOT, FakeTensor, load_module

import tilelang
import tilelang.language as tl
from tilelang.tensor_descriptor import TensorDescriptor

bench_kernels = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py")

THIS_FILE = str(pathlib.Path(__file__).resolve())


@tilelang.jit
def scale_blocks(src, dst, factor, BM: tl.constexpr, BN: tl.constexpr):
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    x = src.load([i, j])
    dst.store([i, j], (x * factor).to(dst.dtype))


@tilelang.jit
def made_in_kernel(x_ptr, n, BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    block = desc.load([tl.program_id(0) * BLOCK])
    desc.store([tl.program_id(0) * BLOCK], block + 1)


# -- the host class ---------------------------------------------------------------------------


def test_from_tensor_takes_shape_and_strides():
    x = FakeTensor((100, 72))
    desc = TensorDescriptor.from_tensor(x, [64, 32])
    assert desc.shape == [100, 72] and desc.strides == [72, 1] and desc.block_shape == [64, 32]


@pytest.mark.parametrize("kwargs, message", [
    (dict(shape=(64, 64), strides=(1, 64)), "last dimension of a tensor descriptor must be contiguous"),
    (dict(shape=(64, 36)), "strides[0] = 36 elements is 72 bytes, not a multiple of 16"),
    (dict(shape=(64, 64), address=(1 << 20) + 8), "16-byte aligned"),
    (dict(shape=(64, 64), block=[64, 4]), "at least 16 bytes"),
    (dict(shape=(64, 64), block=[48, 64]), "power of two"),
    (dict(shape=(64, 64), block=[512, 64]), "at most 256"),
    (dict(shape=(64, 64), block=[64]), "one entry per dimension"),
    (dict(shape=(0, 64)), "shape[0] must be in [1, 2^31), got 0"),
    (dict(shape=(64, 64), strides=(-64, 1)), "strides[0] must be positive, got -64"),
    (dict(shape=(2, 2, 2, 2, 2, 16), block=[1, 1, 1, 1, 1, 16]), "1 to 5 dimensions"),
])
def test_descriptor_rules(kwargs, message):
    block = kwargs.pop("block", [16, 16])
    x = FakeTensor(kwargs.pop("shape"), address=kwargs.pop("address", 1 << 20), strides=kwargs.pop("strides", None))
    with pytest.raises(ValueError) as info:
        TensorDescriptor.from_tensor(x, block)
    assert message in str(info.value)


def test_padding_other_than_zero_is_refused():
    with pytest.raises(ValueError, match="padding 'nan' is not supported"):
        TensorDescriptor.from_tensor(FakeTensor((64, 64)), [16, 16], padding="nan")


# -- specialization and parameters ---------------------------------------------------------------


def test_call_specializes_on_block_type_and_extents():
    src = TensorDescriptor.from_tensor(FakeTensor((100, 64)), [32, 64])
    dst = TensorDescriptor.from_tensor(FakeTensor((100, 64)), [32, 64])
    signature, constexprs, specialization = scale_blocks.specialize(src, dst, 2.0, 32, 64)
    assert signature == {"src": "tensordesc<fp16[32,64]>", "dst": "tensordesc<fp16[32,64]>", "factor": "fp32"}
    # Extents are classed as integers are (jit.integer_divisibility): 64 is
    # a multiple of 16, 100 of 4.
    assert specialization == {"src.shape0": 4, "src.shape1": 16, "dst.shape0": 4, "dst.shape1": 16}


def test_triton_style_descriptors_are_accepted():
    """Any object with base, shape, strides and block_shape (Triton's
    TensorDescriptor is such a dataclass) specializes like tilelang's."""

    class Foreign:
        def __init__(self, base, block_shape):
            self.base, self.shape, self.strides = base, list(base.shape), list(base.stride())
            self.block_shape, self.padding = block_shape, "zero"

    x = FakeTensor((64, 64), dtype="bfloat16")
    signature, _, _ = scale_blocks.specialize(Foreign(x, [16, 64]), Foreign(x, [16, 64]), 1.0, 16, 64)
    assert signature["src"] == "tensordesc<bf16[16,64]>"


def test_bad_descriptor_argument_is_a_value_error():
    bad = TensorDescriptor.from_tensor(FakeTensor((64, 64)), [16, 16])
    bad.strides = [36, 1]  # changed after construction
    with pytest.raises(ValueError, match="the tensor descriptor passed for 'src'.*not a multiple of 16"):
        scale_blocks.specialize(bad, bad, 1.0, 16, 16)


def test_string_signature_with_descriptor_types():
    kernel = scale_blocks.compile("tensordesc<fp16[16, 64]>, tensordesc<fp16[16,64]>, fp32",
                                  constexprs={"BM": 16, "BN": 64})
    assert kernel.signature["src"] == kernel.signature["dst"] == "tensordesc<fp16[16,64]>"
    assert kernel.arg_names == ["src", "dst", "factor"]


def _params(ptx):
    return re.findall(r"\.param (.*?)scale_blocks_param_\d+(\[\d+\])?", ptx)


def test_descriptor_parameters_in_the_ptx():
    """Per descriptor: a 128-byte tensor map aligned to 64, the base, the
    extents (32-bit) and the leading strides (64-bit); the last stride is
    the constant 1 and is not passed."""
    kernel = scale_blocks.compile({"src": "tensordesc<fp16[32,64]>", "dst": "tensordesc<fp16[32,64]>",
                                   "factor": "fp32"}, constexprs={"BM": 32, "BN": 64})
    ptx = kernel.to_ptx("sm_90a").ptx
    params = _params(ptx)
    kinds = [(p[0].split()[0] + (p[1] or "")) for p in params]
    descriptor = [".align[128]", ".u64", ".u32", ".u32", ".u64"]
    assert kinds == descriptor + descriptor + [".f32"], params
    assert ".align 64 .b8" in ptx


def test_extents_that_are_multiples_of_8_give_vector_accesses():
    """A launch classes a 1000-wide extent as a multiple of 8 (as an integer
    argument of 1000): 8 halfs, 16 bytes, are in or out of bounds together,
    so the expanded accesses stay 16 bytes wide, where knowing only 16 or
    nothing gave one element per access."""
    src = TensorDescriptor.from_tensor(FakeTensor((100, 1000)), [32, 64])
    dst = TensorDescriptor.from_tensor(FakeTensor((100, 1000)), [32, 64])
    signature, constexprs, specialization = scale_blocks.specialize(src, dst, 2.0, 32, 64)
    assert specialization["src.shape1"] == 8 and specialization["dst.shape1"] == 8
    ptx = scale_blocks.compile(signature, constexprs=constexprs, specialization=specialization).to_ptx("sm_80").ptx
    assert re.search(r"ld\.global\S*\.v4\.b32", ptx) and re.search(r"st\.global\S*\.v4\.b32", ptx)
    assert not re.search(r"(ld|st)\.global\S*\.b16", ptx)


def test_divisible_extents_give_vector_accesses():
    """With the last extent a multiple of 16, whole 16-byte vectors are in or
    out of bounds together: loads and stores of 8 halfs."""
    signature = {"src": "tensordesc<fp16[32,64]>", "dst": "tensordesc<fp16[32,64]>", "factor": "fp32"}
    vector = scale_blocks.compile(signature, constexprs={"BM": 32, "BN": 64},
                                  specialization={"src.shape1": 16, "dst.shape1": 16}).to_ptx("sm_80").ptx
    scalar = scale_blocks.compile(signature, constexprs={"BM": 32, "BN": 64}).to_ptx("sm_80").ptx
    assert re.search(r"ld\.global\S*\.v4\.b32", vector) and re.search(r"st\.global\S*\.v4\.b32", vector)
    assert not re.search(r"\.v4", scalar)


def test_descriptor_made_in_kernel_compiles():
    ptx = made_in_kernel.compile("*fp32,i32", constexprs={"BLOCK": 256}).to_ptx("sm_80").ptx
    assert "ld.global" in ptx and "st.global" in ptx


# -- errors, with locations --------------------------------------------------------------------


def _line_of(fn_source_snippet):
    text = pathlib.Path(THIS_FILE).read_text().splitlines()
    for number, line in enumerate(text, 1):
        if fn_source_snippet in line:
            return number
    raise AssertionError(fn_source_snippet)


@tilelang.jit
def wrong_offsets(src, dst):
    x = src.load([0])  # ERR:wrong_offsets
    dst.store([0, 0], x)


@tilelang.jit
def wrong_store_dtype(src, dst):
    x = src.load([0, 0])
    dst.store([0, 0], x.to(tl.float32))  # ERR:wrong_store_dtype


@tilelang.jit
def wrong_attribute(src, dst):
    src.shape  # ERR:wrong_attribute


@tilelang.jit
def strided_last_dim(x_ptr, n):
    desc = tl.make_tensor_descriptor(x_ptr, [n], [2], [128])  # ERR:strided_last_dim
    desc.store([0], desc.load([0]))


SIG = {"src": "tensordesc<fp16[16,64]>", "dst": "tensordesc<fp16[16,64]>"}


@pytest.mark.parametrize("kernel, signature, marker, message", [
    (wrong_offsets, SIG, "ERR:wrong_offsets", "load takes 2 offsets for blocks of fp16[16, 64], got 1"),
    (wrong_store_dtype, SIG, "ERR:wrong_store_dtype", "the descriptor stores fp16 blocks, got fp32[16, 64]"),
    (wrong_attribute, SIG, "ERR:wrong_attribute", "tensor descriptors have no attribute 'shape'"),
    (strided_last_dim, "*fp32,i32", "ERR:strided_last_dim", "the last stride of a tensor descriptor must be the constant 1"),
])
def test_errors_point_at_the_source(kernel, signature, marker, message):
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile(signature)
    diagnostic = info.value.diagnostics[0]
    assert message in diagnostic.message
    assert diagnostic.file == THIS_FILE and diagnostic.line == _line_of("# " + marker)


# -- the descriptor matmul ---------------------------------------------------------------------


MATMUL_SHAPES = {"M": "i32", "N": "i32", "K": "i32"}
MATMUL_DIVISIBLE = {f"{d}.shape{i}": 16 for d in ("a_desc", "b_desc", "c_desc") for i in (0, 1)}


def compile_descriptor_matmul(num_stages=4, block=(128, 256, 64)):
    kernels = bench_kernels.define(tilelang.jit, tl)
    bm, bn, bk = block
    shapes = dict(MATMUL_SHAPES, a_desc=f"tensordesc<bf16[{bm},{bk}]>", b_desc=f"tensordesc<bf16[{bk},{bn}]>",
                  c_desc=f"tensordesc<bf16[{bm},{bn}]>")
    return kernels["matmul_descriptor_kernel"].compile(
        shapes, constexprs=dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8),
        specialization=MATMUL_DIVISIBLE, num_warps=8, num_stages=num_stages)


def test_descriptor_matmul_copies_in_bulk_on_sm90a():
    """On sm_90a the A and B blocks arrive by bulk tensor copies (one per
    128-byte column block: A's 128x64 tile in one, B's 64x256 in four),
    each stage's signalling an mbarrier that the loop waits on; the wgmma
    stays in flight; no cp.async is left. C's block goes from the
    accumulator straight into a swizzled buffer (no layout conversion),
    through a proxy fence, and out by four bulk stores. The launcher
    is told how to encode all three tensor maps."""
    compiled = compile_descriptor_matmul().to_ptx("sm_90a")
    ptx = compiled.ptx
    assert compiled.tensor_maps == [
        {"descriptor": 0, "element": "bf16", "box": [128, 64], "swizzle": 128},
        {"descriptor": 1, "element": "bf16", "box": [64, 64], "swizzle": 128},
        {"descriptor": 2, "element": "bf16", "box": [128, 64], "swizzle": 128},
    ]
    copies = re.findall(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes", ptx)
    assert len(copies) == 4 * 5  # 3 prologue stages and the loop's, 5 copies each
    assert ptx.count("mbarrier.init.shared::cta.b64") == 4
    assert ptx.count("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r") == 4
    assert "49152;" in ptx  # bytes per stage: 128x64 + 64x256 bf16
    assert "mbarrier.try_wait.parity.shared::cta.b64" in ptx
    assert "wgmma.wait_group.sync.aligned 1;" in ptx
    assert "cp.async.cg" not in ptx
    stores = re.findall(r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.tile\.bulk_group", ptx)
    assert len(stores) == 4
    assert ptx.count("cp.async.bulk.commit_group;") == 1 and "cp.async.bulk.wait_group.read 0;" in ptx
    # One fence before the stages take over earlier shared memory, one for C.
    assert ptx.count("fence.proxy.async.shared::cta;") == 2
    assert "st.global" not in ptx and "tilegpu.convert_layout" not in compiled.asm["tilegpu"]
    # 4 stages of 48 KiB and the barriers' 4 x 8 bytes; C's 64 KiB buffer
    # reuses the stages' room after the loop.
    assert compiled.shared_bytes == 4 * 49152 + 4 * 8


def test_bulk_copy_ptx_is_accepted_without_serialization(tmp_path):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not pathlib.Path(ptxas).exists():
        pytest.skip("ptxas not found")
    ptx = tmp_path / "k.ptx"
    ptx.write_text(compile_descriptor_matmul().to_ptx("sm_90a").ptx)
    result = subprocess.run([ptxas, "-arch=sm_90a", "-v", str(ptx), "-o", str(tmp_path / "k.cubin")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "Performance" not in result.stderr and "spill" in result.stderr
    assert "0 bytes spill stores" in result.stderr


def test_descriptor_matmul_uses_cp_async_on_sm80():
    """Without the bulk copy engine the descriptor loads become masked
    pointer loads, which the cp.async pipeline takes."""
    compiled = compile_descriptor_matmul(block=(128, 128, 32)).to_ptx("sm_80")
    assert compiled.tensor_maps == []
    assert "cp.async.cg.shared.global" in compiled.ptx and "mma.sync" in compiled.ptx
    assert "bulk" not in compiled.ptx


def test_descriptor_matmul_without_pipelining_falls_back_to_pointer_loads():
    """num_stages=1 on sm_90a: no pipeline to copy in bulk, so the loads are
    ordinary (16-byte) pointer loads and no tensor map is encoded."""
    compiled = compile_descriptor_matmul(num_stages=1).to_ptx("sm_90a")
    assert compiled.tensor_maps == []
    assert "bulk" not in compiled.ptx and "mbarrier" not in compiled.ptx
    assert re.search(r"ld\.global\S*\.v4", compiled.ptx)


@tilelang.jit
def mixed_operands(a_desc, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A through a descriptor, B through pointers: one loop, two kinds of load.
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    ks = tl.arange(0, BK)
    cols = tl.arange(0, BN)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([0, k * BK])
        b = tl.load(b_ptr + (k * BK + ks)[:, None] * BN + cols[None, :])
        acc = tl.dot(a, b, acc)
    rows = tl.arange(0, BM)
    tl.store(c_ptr + rows[:, None] * BN + cols[None, :], acc)


def test_mixed_loop_pipelines_pointer_loads_and_expands_the_descriptor():
    kernel = mixed_operands.compile({"a_desc": "tensordesc<fp16[64,64]>", "b_ptr": "*fp16", "c_ptr": "*fp32",
                                     "K": "i32"}, constexprs={"BM": 64, "BN": 64, "BK": 64},
                                    specialization={"a_desc.shape1": 16, "b_ptr": 16, "c_ptr": 16}, num_warps=4)
    compiled = kernel.to_ptx("sm_90a")
    assert compiled.tensor_maps == [] and "bulk" not in compiled.ptx
    assert "cp.async" in compiled.ptx and "wgmma.mma_async" in compiled.ptx
