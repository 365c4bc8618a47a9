"""Launching without a GPU, through a recording stand-in for the CUDA driver
(fakecuda/fake_cuda.c, named by TILELANG_LIBCUDA): the bytes the launcher
packs for each parameter, the C++ fast path on repeated launches, tensor
maps of bulk-copy kernels, and the errors of the driver and of bad grids,
with kernels compiled by the real compiler. Each case runs in a child
process (the runtime opens the driver once per process)."""

import pathlib
import struct

import pytest

from fakecuda import fakecuda

# Children print one JSON line; `report` collects what the tests compare.
PRELUDE = """
import json, struct, sys
import fakecuda
from fakecuda import Tensor
import tilelang
import tilelang.language as tl

report = {}

@tilelang.jit
def axpy(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha, mask=m)


def error_of(call):
    try:
        call()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None
"""

LAUNCHES = PRELUDE + """
x = Tensor((1000,), "float32", 0x7F0000001000)
y = Tensor((1000,), "float32", 0x7F0000002000)
axpy[(4, 2)](x, y, 1000, 2.5, BLOCK=128, num_warps=8)
report["first"] = fakecuda.last_launch()
report["entries_after_first"] = len(axpy._dispatcher)

# The same key again: the C++ dispatcher launches without specializing.
specialize = axpy._specialize
specialized = []
axpy._specialize = lambda args, kwargs: specialized.append(1) or specialize(args, kwargs)
x2 = Tensor((3000,), "float32", 0x7F0000010000)
y2 = Tensor((3000,), "float32", 0x7F0000020000)
axpy[(7,)](x2, y2, 3000, -1.0, BLOCK=128, num_warps=8)
report["second"] = fakecuda.last_launch()
report["specialized_again"] = len(specialized)

# n = 2**33 needs 64 bits; a multiple of 16 is another specialization.
axpy[(1,)](x, y, 2**33 + 1, 1.0, BLOCK=128, num_warps=8)
report["wide"] = fakecuda.last_launch()
axpy[(1,)](x, y, 1024, 1.0, BLOCK=128, num_warps=8)
report["entries"] = len(axpy._dispatcher)
report["specialized"] = len(specialized)
report["launches"] = fakecuda.launch_count()

report["zero_grid"] = error_of(lambda: axpy[(0,)](x, y, 1000, 1.0, BLOCK=128))
report["empty_grids"] = [error_of(lambda g=g: axpy[g](x, y, 1000, 1.0, BLOCK=128))
                         for g in ((4, 0), (1, 1, 0), lambda meta: (0,))]
report["launches_after_empty"] = fakecuda.launch_count()
report["negative_grid"] = error_of(lambda: axpy[(-1,)](x, y, 1000, 1.0, BLOCK=128))
report["empty_host_tensor"] = error_of(lambda: axpy[(0,)](Tensor((8,), "float32", is_cuda=False), y, 8, 1.0,
                                                           BLOCK=128))
report["tall_grid"] = error_of(lambda: axpy[(1, 70000)](x, y, 1000, 1.0, BLOCK=128))
report["host_tensor"] = error_of(lambda: axpy[(1,)](Tensor((8,), "float32", is_cuda=False), y, 8, 1.0,
                                                     BLOCK=128))
report["launches_after_errors"] = fakecuda.launch_count()

# Triton's asm["ptx"] and asm["cubin"] right after compiling.
fresh = axpy.warmup(x, y, 1000, 1.0, BLOCK=64, grid=(1,))
report["asm_stages"] = sorted(stage for stage in ("ptx", "cubin") if stage in fresh.asm)
cubin = fresh.asm["cubin"]
from tilelang.jit import _current_arch
report["asm_cubin"] = [type(cubin).__name__, cubin == fresh._cubin[_current_arch()],
                       ".entry axpy" in fresh.asm["ptx"]]
print(json.dumps(report))
"""


def descriptor_matmul(block_n, stages):
    """Script lines that launch the bundled descriptor matmul (bf16,
    300x520x200, 128 x block_n x 64 blocks on 8 warps) as `compiled`."""
    return f"""
from tilelang_testing import load_module, REPO_ROOT
kernels = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py").define(tilelang.jit, tl)
config = {{"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": {block_n}, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
          "num_warps": 8, "num_stages": {stages}}}
m, n, k = 300, 520, 200
a = Tensor((m, k), "bfloat16", 0x7F0000100000)
b = Tensor((k, n), "bfloat16", 0x7F0000200000)
c = Tensor((m, n), "bfloat16", 0x7F0000300000)
descs = [tilelang.TensorDescriptor.from_tensor(a, [128, 64]),
         tilelang.TensorDescriptor.from_tensor(b, [64, {block_n}]),
         tilelang.TensorDescriptor.from_tensor(c, [128, {block_n}])]
compiled = kernels["matmul_descriptor_kernel"][(6,)](*descs, m, n, k, **config)
"""


DESCRIPTORS = PRELUDE + descriptor_matmul(256, 4) + """report["launch"] = fakecuda.last_launch()
report["link_info"] = next(iter(compiled.link_info.values()))
report["encodes"] = fakecuda.encode_count()
# Launched again with the same descriptors: the maps are not encoded again.
kernels["matmul_descriptor_kernel"][(6,)](*descs, m, n, k, **config)
report["encodes_after_repeat"] = fakecuda.encode_count()
# Another tensor for C: only its map is encoded again.
c2 = Tensor((m, n), "bfloat16", 0x7F0000400000)
descs[2] = tilelang.TensorDescriptor.from_tensor(c2, [128, 256])
kernels["matmul_descriptor_kernel"][(6,)](*descs, m, n, k, **config)
report["encodes_after_new_tensor"] = fakecuda.encode_count()
report["c_map_address"] = fakecuda.decode_tensor_map(fakecuda.last_launch()["params"][10])["address"]
# C with rows 1024 bytes apart at a 256-byte aligned base: its map's L2
# promotion is 256 bytes (A's and B's rows, 400 and 1040 bytes, take 128).
c3 = Tensor((m, 512), "bfloat16", 0x7F0000500000)
descs[2] = tilelang.TensorDescriptor.from_tensor(c3, [128, 256])
kernels["matmul_descriptor_kernel"][(6,)](*descs, m, n, k, **config)
report["pitch_1024_map"] = fakecuda.decode_tensor_map(fakecuda.last_launch()["params"][10])

# Kernel.launch packs without keying: what it refuses.
from tilelang.jit import _current_arch
loaded = compiled.launchable(_current_arch())


class Loose:
    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = base, shape, strides, block_shape


bad = {"not_a_descriptor": 7,
       "misaligned": Loose(Tensor((m, k), "bfloat16", 0x7F0000100008), [m, k], [k, 1], [128, 64]),
       "wrong_rank": Loose(a, [m, k, 1], [k, 1, 1], [128, 64])}
for name, value in bad.items():
    report[name] = error_of(lambda: loaded.launch((6,), 0, value, descs[1], descs[2], m, n, k))
print(json.dumps(report))
"""


def run_script(library, source, env=None):
    """fakecuda.run_script with the occupancy search alone: its
    whole-program step, which would add a ptxas run and a "whole_program"
    field to link_info, is test_whole_program_fake_driver.py's."""
    return fakecuda.run_script(library, source, env={"TILELANG_WHOLE_PROGRAM": "0", **(env or {})})


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"))


@pytest.fixture(scope="module")
def launches(library):
    return run_script(library, LAUNCHES)


def pointer(value):
    return struct.pack("<Q", value).hex()


def test_parameters_are_packed_at_their_sizes(launches):
    first = launches["first"]
    assert first["name"] == "axpy"
    assert first["grid"] == [4, 2, 1]
    assert first["block"] == [256, 1, 1]  # num_warps=8
    assert first["params"] == [pointer(0x7F0000001000), pointer(0x7F0000002000),
                               struct.pack("<i", 1000).hex(), struct.pack("<f", 2.5).hex()]


def test_a_known_key_launches_from_cpp_with_this_calls_values(launches):
    assert launches["entries_after_first"] == 1
    assert launches["specialized_again"] == 0
    second = launches["second"]
    assert second["grid"] == [7, 1, 1]
    assert second["params"] == [pointer(0x7F0000010000), pointer(0x7F0000020000),
                                struct.pack("<i", 3000).hex(), struct.pack("<f", -1.0).hex()]


def test_ints_beyond_32_bits_and_multiples_of_16_specialize_anew(launches):
    assert launches["wide"]["params"][2] == struct.pack("<q", 2**33 + 1).hex()
    # 1000 and 3000 share a key; 2**33 + 1 and 1024 (divisible by 16) each add one.
    assert launches["entries"] == 3
    assert launches["specialized"] == 2
    assert launches["launches"] == 4


def test_an_empty_grid_launches_nothing(launches):
    # As Triton: a grid with a dimension of 0 (a batch of 0) is no launch and
    # no error, but its arguments are still checked.
    assert launches["zero_grid"] is None and launches["empty_grids"] == [None, None, None]
    assert launches["launches_after_empty"] == launches["launches"]
    assert "is on the CPU; kernels take CUDA tensors" in launches["empty_host_tensor"]


def test_asm_has_ptx_and_cubin_after_compiling(launches):
    assert launches["asm_stages"] == ["cubin", "ptx"]
    assert launches["asm_cubin"] == ["bytes", True, True]


def test_bad_grids_and_host_tensors_raise_before_the_driver_is_called(launches):
    assert launches["negative_grid"].startswith("ValueError: grid dimension 0 is -1; it must be in [0, ")
    assert "grid dimension 1 is 70000; it must be in [0, 65535]" in launches["tall_grid"]
    assert "is on the CPU; kernels take CUDA tensors" in launches["host_tensor"]
    assert launches["launches_after_errors"] == launches["launches"]


def test_bulk_copy_kernels_get_their_tensor_maps_encoded(library):
    report = run_script(library, DESCRIPTORS)
    launch = report["launch"]
    assert launch["name"] == "matmul_descriptor_kernel"
    assert launch["block"] == [256, 1, 1]
    assert launch["shared"] > 48 * 1024
    params = launch["params"]
    # Per descriptor: the 128-byte map, the base, 2 extents (i32), 1 stride (i64).
    sizes = [len(p) // 2 for p in params]
    assert sizes[:15] == [128, 8, 4, 4, 8] * 3
    shapes = {0: (300, 200, 0x7F0000100000, [64, 128]), 5: (200, 520, 0x7F0000200000, [64, 64]),
              10: (300, 520, 0x7F0000300000, [64, 128])}
    for index, (rows, cols, address, box) in shapes.items():
        assert params[index + 1] == pointer(address)
        assert params[index + 2:index + 4] == [struct.pack("<i", rows).hex(), struct.pack("<i", cols).hex()]
        assert params[index + 4] == struct.pack("<q", cols).hex()
        encoded = fakecuda.decode_tensor_map(params[index])
        assert encoded is not None, f"descriptor at parameter {index} was not encoded"
        # The driver's order: innermost dimension first, strides in bytes.
        assert encoded["address"] == address
        assert encoded["dims"] == [cols, rows]
        assert encoded["strides"] == [cols * 2]
        assert encoded["box"] == box
        assert encoded["swizzle"] == 3  # 128-byte swizzle
        # Rows 400 and 1040 bytes apart: L2 promotion of 128 bytes
        # (CU_TENSOR_MAP_L2_PROMOTION_L2_128B); zero fill past the edges.
        assert encoded["l2_promotion"] == 2
        assert encoded["oob_fill"] == 0
    aligned = report["pitch_1024_map"]
    assert aligned["strides"] == [1024] and aligned["l2_promotion"] == 3  # 256 bytes
    # 32 registers already allow the one block shared memory leaves room
    # for: the PTX as written, one link.
    assert report["link_info"] == {"min_blocks_per_sm": 0, "links": 1}
    assert report["encodes"] == 3
    assert report["encodes_after_repeat"] == 3
    assert report["encodes_after_new_tensor"] == 4
    assert report["c_map_address"] == 0x7F0000400000
    assert report["not_a_descriptor"] == "TypeError: argument 0 must be a TensorDescriptor, got int"
    assert report["misaligned"] == ("ValueError: the base of the tensor descriptor passed as argument 0 is not "
                                    "16-byte aligned")
    assert report["wrong_rank"] == ("ValueError: the tensor descriptor passed as argument 0 has 3 extents; the kernel "
                                    "was compiled for rank 2")


OCCUPANCY = PRELUDE + """
compiled, arch = fakecuda.launch_and_read_link(axpy, report)
report["n_regs_n_spills"] = [compiled.n_regs, compiled.n_spills]
report["unloaded_n_regs"] = axpy.compile("*fp32,*fp32,i32,fp32", constexprs={"BLOCK": 64}).n_regs
# Another process would find the cubin in the disk cache, with how it was linked.
fakecuda.launch_again(axpy, report, arch)
print(json.dumps(report))
"""


@pytest.mark.parametrize("registers, blocks, links, used, local", [
    # 24 registers at the PTX's 2 blocks already allow the SM's 8: one link.
    ("24", 2, 1, 24, 0),
    # 40 allow 6 blocks of 8 warps, three quarters of the SM: one link.
    ("40", 2, 1, 40, 0),
    # 72 (squeezable to 60) allow 3: 8 and 5 spill (32, 48 < 60), 4 fits.
    ("72,60", 4, 4, 64, 0),
    # 48 (to 40) allow 5: 8 spills, 6 fits (40), 7 spills; 6 is kept though 7
    # was linked last.
    ("48,40", 6, 4, 40, 0),
    # 60 allow 4: 8, 6 and 5 spill; the PTX as written is kept.
    ("60", 2, 4, 60, 0),
    # The PTX as written spills already (budget 128 at 2 blocks): below it,
    # 1 block fits all 200.
    ("200", 1, 2, 200, 0),
    # Nothing fits even at 1 block (budget 255): the count with the least
    # local memory wins, 1 block (100 bytes against 608 at 2).
    ("300,280", 1, 2, 255, 4 * (280 - 255)),
])
def test_the_occupancy_search_keeps_the_most_blocks_that_do_not_spill(library, registers, blocks, links, used,
                                                                      local):
    # The lowering asks for 2 blocks of 8 warps; see fake_cuda.c for how
    # the stand-in's registers and spills follow the blocks asked for.
    report = run_script(library, OCCUPANCY, env={"FAKE_CUDA_REGISTERS": registers})
    assert report["ptx_asks"] == 2
    assert report["info"] == {"min_blocks_per_sm": blocks, "links": links}
    assert report["cubin_asks"] == blocks
    assert report["driver_links"] == links
    assert report["registers"] == used
    assert report["local_bytes"] == local
    assert report["n_regs_n_spills"] == [used, local]  # Triton's names for them
    assert report["unloaded_n_regs"] is None
    assert report["cached_info"] == report["info"]
    assert report["driver_links_after_cached"] == links


# 128x128x64 tiles in 3 stages: 96 KB of shared memory, so an sm_90 SM
# holds 2 blocks of 8 warps.
TENSOR_CORE_OCCUPANCY = PRELUDE + descriptor_matmul(128, 3) + """
from tilelang.jit import _current_arch
arch = _current_arch()
report["info"] = compiled.link_info[arch]
report["ptx_asks"] = ".minnctapersm" in compiled.asm["ptx"]
report["cubin_asks"] = fakecuda.blocks_asked(compiled._cubin[arch].decode())
report["registers"] = compiled.launchable(arch).registers
print(json.dumps(report))
"""


@pytest.mark.parametrize("registers, blocks, links, used", [
    # 200 registers allow 1 block; squeezed to 128 for 2 it still fits: 2.
    ("200,120", 2, 2, 128),
    # Not squeezable: 2 blocks spill, the PTX as written stays.
    ("200", 0, 2, 200),
    # 96 already allow the 2 blocks shared memory leaves room for: one link.
    ("96", 0, 1, 96),
])
def test_tensor_core_kernels_are_searched_from_the_ptx_as_written(library, registers, blocks, links, used):
    # Their PTX asks for no blocks per SM; the search adds the directive
    # only where more blocks fit without local memory.
    report = run_script(library, TENSOR_CORE_OCCUPANCY, env={"FAKE_CUDA_REGISTERS": registers})
    assert report["ptx_asks"] is False
    assert report["info"] == {"min_blocks_per_sm": blocks, "links": links}
    assert report["cubin_asks"] == blocks
    assert report["registers"] == used


LINK_FAILURE = PRELUDE + """
x = Tensor((1000,), "float32", 0x7F0000001000)
y = Tensor((1000,), "float32", 0x7F0000002000)
report["error"] = error_of(lambda: axpy[(1,)](x, y, 1000, 2.0, BLOCK=2048, num_warps=8))
if report["error"] is None:
    from tilelang.jit import _current_arch
    compiled = axpy[(1,)](x, y, 1000, 2.0, BLOCK=2048, num_warps=8)
    report["info"] = compiled.link_info[_current_arch()]
report["links"] = fakecuda.link_count()
print(json.dumps(report))
"""


def test_a_trial_that_fails_to_link_ends_the_search_with_the_ptx_as_written(library):
    # 72 registers allow 3 blocks; the trial at 8 does not link.
    report = run_script(library, LINK_FAILURE, env={"FAKE_CUDA_REGISTERS": "72,60",
                                                             "FAKE_CUDA_LINK_FAIL_AT": "8"})
    assert report["error"] is None
    assert report["info"] == {"min_blocks_per_sm": 2, "links": 2}


def test_a_spilling_floor_is_searched_down_to_the_most_blocks_without_local_memory(library):
    # 2 warps: the floor asks for 8 blocks (a budget of 128 registers), too
    # few for 200. Below it: 4 fits (255), 6 spills (168), 5 fits (200).
    report = run_script(library, OCCUPANCY, env={"FAKE_CUDA_REGISTERS": "200", "WARPS": "2"})
    assert report["ptx_asks"] == 8
    assert report["info"] == {"min_blocks_per_sm": 5, "links": 4}
    assert report["cubin_asks"] == 5
    assert report["registers"] == 200 and report["local_bytes"] == 0


def test_the_ptx_as_written_failing_to_link_is_the_error_reported(library):
    report = run_script(library, LINK_FAILURE, env={"FAKE_CUDA_REGISTERS": "72,60",
                                                             "FAKE_CUDA_LINK_FAIL_AT": "2"})
    assert report["error"].startswith("RuntimeError: cuLinkAddData failed for kernel 'axpy': "
                                      "CUDA_ERROR_INVALID_PTX"), report["error"]
    assert report["links"] == 0  # no trial went further


def test_the_occupancy_search_can_be_turned_off(library):
    report = run_script(library, OCCUPANCY, env={"FAKE_CUDA_REGISTERS": "72,60",
                                                          "TILELANG_OCCUPANCY_SEARCH": "0"})
    assert report["info"] == {"min_blocks_per_sm": 2, "links": 1}
    assert report["driver_links"] == 1
    assert report["cubin_asks"] == 2
    assert report["registers"] == 72


MAXNREG = PRELUDE + """
from tilelang.jit import _current_arch

x = Tensor((1000,), "float32", 0x7F0000001000)
y = Tensor((1000,), "float32", 0x7F0000002000)
capped = axpy[(1,)](x, y, 1000, 2.0, BLOCK=2048, num_warps=8, maxnreg=80)
arch = _current_arch()
report["info"] = capped.link_info[arch]
report["maxnreg"] = capped.maxnreg
report["cubin_has_maxnreg"] = ".maxnreg 80" in capped._cubin[arch].decode()
report["cubin_has_minnctapersm"] = ".minnctapersm" in capped._cubin[arch].decode()
# Without the option: another kernel, with the floor and the search.
plain = axpy[(1,)](x, y, 1000, 2.0, BLOCK=2048, num_warps=8)
report["plain_is_another_kernel"] = plain is not capped
report["plain_info"] = plain.link_info[arch]
# The same call again takes the C++ fast path to the capped kernel; another
# cap is another kernel, and 0 means no cap.
report["again_is_capped"] = axpy[(1,)](x, y, 1000, 2.0, BLOCK=2048, num_warps=8, maxnreg=80) is capped
other = axpy[(1,)](x, y, 1000, 2.0, BLOCK=2048, num_warps=8, maxnreg=96)
report["other_cap"] = [other is not capped, ".maxnreg 96" in other._cubin[arch].decode()]
report["zero_is_plain"] = axpy[(1,)](x, y, 1000, 2.0, BLOCK=2048, num_warps=8, maxnreg=0).maxnreg is None


# A kernel that declares a maxnreg parameter gets the value too.
@tilelang.jit
def scaled(x_ptr, y_ptr, n, maxnreg, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * maxnreg, mask=offs < n)


declared = scaled[(1,)](x, y, 1000, maxnreg=64, BLOCK=128)
report["declared"] = [declared.maxnreg, fakecuda.last_launch()["params"][3]]
print(json.dumps(report))
"""


def test_maxnreg_caps_registers_and_skips_the_search(library):
    report = run_script(library, MAXNREG, env={"FAKE_CUDA_REGISTERS": "72,60"})
    assert report["maxnreg"] == 80
    assert report["info"] == {"min_blocks_per_sm": 0, "links": 1}
    assert report["cubin_has_maxnreg"] and not report["cubin_has_minnctapersm"]
    assert report["plain_is_another_kernel"]
    assert report["plain_info"] == {"min_blocks_per_sm": 4, "links": 4}
    assert report["again_is_capped"]
    assert report["other_cap"] == [True, True]
    assert report["zero_is_plain"]
    assert report["declared"] == [64, struct.pack("<i", 64).hex()]


SHARED_BOUND = PRELUDE + """
import os, re
from tilelang.jit import _current_arch


@tilelang.jit
def row_sums(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    values = tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + row, tl.sum(values, axis=0))


x = Tensor((64, 1000), "float32", 0x7F0000001000)
out = Tensor((64,), "float32", 0x7F0000100000)
compiled = row_sums.warmup(x, out, 1000, BLOCK=1024, num_warps=4, grid=(64,))
# Compiled for the stand-in's sm_90 before the runtime first asks the
# driver about the device (it keeps the answer).
shared = compiled.to_ptx("sm_90a").shared_bytes
# An SM with room for exactly 5 such blocks (1024 bytes reserved for each).
os.environ["FAKE_CUDA_SHARED_PER_SM"] = str(5 * (shared + 1024) + 100)
row_sums[(64,)](x, out, 1000, BLOCK=1024, num_warps=4)
arch = _current_arch()
report["shared"] = shared
report["info"] = compiled.link_info[arch]
report["ptx_asks"] = int(re.search(r"\\.minnctapersm (\\d+)", compiled.asm["ptx"]).group(1))
print(json.dumps(report))
"""


def test_the_occupancy_search_stops_at_the_blocks_shared_memory_allows(library):
    # 4 warps taking 128 registers (squeezable to 24): 4 blocks as the PTX
    # asks; threads alone would allow 16 (32 registers each), shared memory
    # 5, which fit.
    report = run_script(library, SHARED_BOUND, env={"FAKE_CUDA_REGISTERS": "128,24"})
    assert report["shared"] > 0
    assert report["ptx_asks"] == 4
    assert report["info"] == {"min_blocks_per_sm": 5, "links": 2}


AUTOTUNE = PRELUDE + """
from tilelang_testing import load_module, REPO_ROOT
sys.path.insert(0, str(REPO_ROOT))
from autotune import spaces
kernels = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py").define(tilelang.jit, tl)
timed = []


def timer(fn, quantiles=None):
    # Nothing is timed for real: 128x128x64 with 4 warps and 4 stages wins.
    config = fn.config
    timed.append(str(config))
    kw = config.kwargs
    chosen = (kw["BLOCK_SIZE_M"], kw["BLOCK_SIZE_N"], kw["BLOCK_SIZE_K"], config.num_warps, config.num_stages)
    return 1.0 if chosen == (128, 128, 64, 4, 4) else 2.0


tuned = tilelang.autotune(configs=spaces.configs(spaces.MATMUL_DESCRIPTORS,
                                                 pre_hook=spaces.matmul_descriptor_pre_hook),
                          key=["M", "N", "K"], do_bench=timer)(kernels["matmul_descriptor_kernel"])
m, n, k = 300, 520, 200
a = Tensor((m, k), "bfloat16", 0x7F0000100000)
b = Tensor((k, n), "bfloat16", 0x7F0000200000)
c = Tensor((m, n), "bfloat16", 0x7F0000300000)
# Placeholder block shapes: each config's pre_hook sets its own.
descs = [tilelang.TensorDescriptor.from_tensor(t, [64, 64]) for t in (a, b, c)]


def grid(meta):
    return (-(-m // meta["BLOCK_SIZE_M"]) * -(-n // meta["BLOCK_SIZE_N"]),)


tuned[grid](*descs, m, n, k)
launch = fakecuda.last_launch()
report["best"] = str(tuned.best_config)
report["timed"] = len(timed)
report["block_shapes"] = [list(d.block_shape) for d in descs]
report["grid"] = launch["grid"]
report["boxes"] = [fakecuda.decode_tensor_map(launch["params"][i])["box"] for i in (0, 5, 10)]
report["launches"] = fakecuda.launch_count()
print(json.dumps(report))
"""


def test_autotuning_descriptor_kernels_gives_each_config_its_block_shapes(library):
    # The tuning space's pre_hook sets the descriptors' block shapes before
    # each config is compiled; the tuned launch uses the best config's.
    report = run_script(library, AUTOTUNE)
    assert report["best"] == ("BLOCK_SIZE_M: 128, BLOCK_SIZE_N: 128, BLOCK_SIZE_K: 64, GROUP_SIZE_M: 8, "
                              "num_warps: 4, num_stages: 4")
    # Every config but the one over the shared-memory limit (256x256) was timed.
    assert report["timed"] == 16
    assert report["block_shapes"] == [[128, 64], [64, 128], [128, 128]]
    assert report["grid"] == [3 * 5, 1, 1]
    # The maps' boxes: 64 bf16 (128 bytes, the swizzle span) by the block's rows.
    assert report["boxes"] == [[64, 128], [64, 64], [64, 128]]
    assert report["launches"] == 1  # the timer launched nothing


def test_driver_errors_name_the_call_the_error_and_the_kernel(library):
    report = run_script(library, PRELUDE + """
x = Tensor((64,), "float32")
report["error"] = error_of(lambda: axpy[(1,)](x, x, 64, 1.0, BLOCK=64))
print(json.dumps(report))
""", env={"FAKE_CUDA_LAUNCH_ERROR": "700"})
    assert report["error"] == ("RuntimeError: cuLaunchKernel failed for kernel 'axpy': CUDA_ERROR_ILLEGAL_ADDRESS "
                               "(an illegal memory access was encountered)")


def test_shared_memory_beyond_the_device_limit_is_refused_by_name(library):
    report = run_script(library, PRELUDE + """
@tilelang.jit
def stage(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.cumsum(v, axis=0))

x = Tensor((1 << 14,), "float32")
report["error"] = error_of(lambda: stage[(1,)](x, x, BLOCK=1 << 14, num_warps=4))
print(json.dumps(report))
""", env={"FAKE_CUDA_SHARED_OPTIN": "49152"})
    assert report["error"] is not None
    assert "bytes of shared memory, over the 49152 that Fake CUDA device allows per block" in report["error"]


def test_a_missing_driver_library_is_named(library, tmp_path):
    report = run_script(library, PRELUDE + """
x = Tensor((64,), "float32")
report["error"] = error_of(lambda: axpy[(1,)](x, x, 64, 1.0, BLOCK=64))
print(json.dumps(report))
""", env={"TILELANG_LIBCUDA": str(tmp_path / "nowhere" / "libcuda.so.1")})
    assert "nowhere/libcuda.so.1) could not be loaded" in report["error"]


# A stand-in for torch in the child: what the launcher reads of it (its
# version, the raw stream query, the lazy CUDA initialization), so that the
# stream a launch goes on can be checked without torch.
TORCH_STUB = """
import types
torch = types.ModuleType("torch")
torch.__version__ = "0.0+stub"
torch.cuda = types.SimpleNamespace(current_device=lambda: 0)
torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0x5EA0 + device + 1)
"""

TORCH_LINK = PRELUDE + TORCH_STUB + """
import warnings
seen = warnings.catch_warnings(record=True).__enter__()
warnings.simplefilter("always")
x = Tensor((64,), "float32", 0x7F0000001000)
report["status_before"] = tilelang._C.torch_bridge_status()
axpy[(1,)](x, x, 64, 1.0, BLOCK=64)
report["stream_before"] = fakecuda.last_launch()["stream"]
sys.modules["torch"] = torch
axpy[(1,)](x, x, 64, 1.0, BLOCK=64)
report["stream_after"] = fakecuda.last_launch()["stream"]
report["status_after"] = tilelang._C.torch_bridge_status()
report["warnings"] = [str(w.message) for w in seen]
print(json.dumps(report))
"""


def _bridge_built():
    import tilelang

    return any(pathlib.Path(tilelang.__file__).parent.glob("_C_torch*.so"))


def assert_bridge_declines_the_stub(status):
    """The launcher's link to the stand-in torch was made, and the bridge
    declined it: built for the real torch where it is built at all."""
    if _bridge_built():
        assert status.startswith("tilelang._C_torch was built for torch "), status
    else:
        assert status.startswith("tilelang._C_torch is not available ("), status


@pytest.mark.parametrize("knob", ["0", " Off ", None, "never"])
def test_launches_go_on_torchs_current_stream_once_torch_is_imported(library, knob):
    report = run_script(library, TORCH_LINK, env={"TILELANG_TORCH_BRIDGE": knob} if knob else None)
    assert report["status_before"] == "torch is not imported"
    assert report["stream_before"] == 0  # the default stream
    # torch._C._cuda_getCurrentRawStream(-1), asked through Python: the
    # bridge is off, missing, or built for another torch than the stand-in.
    assert report["stream_after"] == 0x5EA0
    # A malformed value reads as on, its default, and is warned of
    # (tilelang.knobs reads the switch for the launcher).
    warned = [w for w in report["warnings"] if "TILELANG_TORCH_BRIDGE" in w]
    assert warned == ([f"tilelang: TILELANG_TORCH_BRIDGE='never' is not one of 1, true, yes, on, 0, false, no, "
                       f"off; read as on, its default"] if knob == "never" else [])
    if knob in ("0", " Off "):
        assert report["status_after"] == f"off (TILELANG_TORCH_BRIDGE={knob})"
    elif _bridge_built():
        assert report["status_after"].startswith("tilelang._C_torch was built for torch ")
        assert report["status_after"].endswith(", this is torch 0.0+stub")
    else:
        assert report["status_after"].startswith("tilelang._C_torch is not available (")


# torch imported before tilelang: the import links the launcher to it (its
# stream query, read once, and tilelang._C_torch), so that a warm process's
# first launch does not; the stand-in counts the stream query's reads.
TORCH_STUB = """
import json, sys, types


class Native:
    reads = 0

    @property
    def _cuda_getCurrentRawStream(self):
        Native.reads += 1
        return lambda device: 0x5EA0 + device + 1


torch = types.ModuleType("torch")
torch.__version__ = "0.0+stub"
torch.cuda = types.SimpleNamespace(current_device=lambda: 0)
torch._C = Native()
"""
TORCH_FIRST = TORCH_STUB + """
sys.modules["torch"] = torch
import tilelang
report = {"reads_at_import": Native.reads, "status": tilelang._C.torch_bridge_status()}
print(json.dumps(report))
"""


def test_importing_tilelang_after_torch_links_the_launcher_to_torch(library):
    report = run_script(library, TORCH_FIRST)
    assert report["reads_at_import"] == 1
    assert_bridge_declines_the_stub(report["status"])


# tilelang imported while torch is still importing (from an entry point that
# torch loads at the end of its own import, say): importlib marks torch's
# spec `_initializing` until its import returns.
TORCH_IMPORTING = TORCH_STUB + """
import importlib.machinery
torch.__spec__ = importlib.machinery.ModuleSpec("torch", None)
torch.__spec__._initializing = True
sys.modules["torch"] = torch
import tilelang
report = {"reads_at_import": Native.reads}
torch.__spec__._initializing = False
report["status"] = tilelang._C.torch_bridge_status()
report["reads_after"] = Native.reads
print(json.dumps(report))
"""


def test_importing_tilelang_while_torch_imports_leaves_the_link_to_the_first_launch(library):
    # The link is made once per process: made against a half-imported torch,
    # a failure to import tilelang._C_torch would be kept. So the import
    # leaves it alone (the stream query is not read), and the next query of
    # the link, once torch is complete, makes it.
    report = run_script(library, TORCH_IMPORTING)
    assert report["reads_at_import"] == 0
    assert report["reads_after"] == 1
    assert_bridge_declines_the_stub(report["status"])


NUM_CTAS = PRELUDE + """
x = Tensor((1000,), "float32", 0x7F0000001000)
y = Tensor((1000,), "float32", 0x7F0000002000)
# Triton's tutorials pass num_ctas=1 at launch: one CTA per program, as
# without it (the same kernel, launched again from the C++ fast path).
first = axpy[(1,)](x, y, 1000, 2.0, BLOCK=1024, num_warps=4, num_ctas=1)
report["launch"] = fakecuda.last_launch()["block"]
report["same_kernel"] = axpy[(1,)](x, y, 1000, 2.0, BLOCK=1024, num_warps=4) is first
axpy[(1,)](x, y, 1000, 2.0, BLOCK=1024, num_warps=4, num_ctas=1)
report["again"] = fakecuda.last_launch()["block"]
report["cluster"] = error_of(lambda: axpy[(1,)](x, y, 1000, 2.0, BLOCK=1024, num_ctas=2))
report["warmup"] = error_of(lambda: axpy.warmup(x, y, 1000, 2.0, BLOCK=1024, grid=(1,), num_ctas=2))
report["config"] = error_of(lambda: tilelang.Config({"BLOCK": 1024}, num_ctas=4))
report["config_one"] = tilelang.Config({"BLOCK": 1024}, num_ctas=1).num_warps
print(json.dumps(report))
"""


def test_num_ctas_one_is_accepted_and_clusters_refused(library):
    report = run_script(library, NUM_CTAS)
    assert report["launch"] == [128, 1, 1] and report["again"] == [128, 1, 1]
    assert report["same_kernel"]
    message = "num_ctas={}: tilelang runs one CTA per program (thread-block clusters are not supported)"
    assert report["cluster"].startswith("ValueError: " + message.format(2)), report["cluster"]
    assert report["warmup"].startswith("ValueError: " + message.format(2)), report["warmup"]
    assert report["config"].startswith("ValueError: " + message.format(4)), report["config"]
    assert report["config_one"] == 4
