"""tilelang.ops' matmul where K is short (8192 x 4096 x 1000: a tile's K
loop is a small part of its time), through the whole compiler on the CPU:
the persistent form (matmul_epilogue_kernel's PERSISTENT), where each
program loops over tiles and inside that loop the K loop keeps the
pipelined shape of the one-tile-per-program kernel (the same async
copies, products, waits and barriers), the form without PERSISTENT
without a tile loop, the grid (spaces.matmul_programs), the space
(spaces.MATMUL_OPS); and the gelu epilogue's arithmetic per element. The
results are checked by the interpreter (interpreter/test_dot.py) and on
the GPU (gpu/test_ops_matmul_persistent.py)."""

import re

import pytest

import tilelang
import tilelang.language as tl
from tilelang.ops import kernels as package
from tilelang.ops import spaces
from tilelang_testing import REPO_ROOT, FakeTensor, load_module

KERNELS = package.define(tilelang.jit, tl)
M, N, K = 8192, 4096, 1000


def _ptx(**constexprs):
    a, b, c, bias = (FakeTensor((M, K), "float16"), FakeTensor((K, N), "float16"), FakeTensor((M, N), "float16"),
                     FakeTensor((N,), "float16"))
    options = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3)
    options.update(constexprs)
    compiled = KERNELS["matmul_epilogue_kernel"].warmup(
        a, b, bias, c, M, N, K, K, 1, N, 1, N, 1, HAS_BIAS=True, ACTIVATION="gelu", K_GROUP=8, STRIDES_OF_8=5,
        **options)
    return compiled.to_ptx("sm_90a").ptx


def _loops(ptx):
    """The loops of the PTX as lists of lines, from a label to the last
    branch back to it."""
    lines = ptx.splitlines()
    labels = {m.group(1): i for i, line in enumerate(lines) if (m := re.match(r"^(\$L__BB\d+_\d+):", line))}
    last = {}
    for i, line in enumerate(lines):
        branch = re.search(r"\bbra(?:\.uni)?\s+(\$L__BB\d+_\d+);", line)
        if branch and branch.group(1) in labels and labels[branch.group(1)] < i:
            last[branch.group(1)] = i
    return [lines[labels[label]:end + 1] for label, end in last.items()]


def _k_loop(ptx):
    """Counts (ptxstats.COUNTED) over the innermost loop that issues
    products: the K loop; and the number of loops."""
    ptxstats = load_module("ptxstats", REPO_ROOT / "bench" / "parity" / "ptxstats.py")
    loops = _loops(ptx)
    k_loop = min((loop for loop in loops if any(ptxstats.COUNTED["wgmma"].search(line) for line in loop)), key=len)
    return {name: sum(1 for line in k_loop if pattern.search(line)) for name, pattern in ptxstats.COUNTED.items()}, \
        len(loops)


@pytest.mark.parametrize("persistent", [1, 2])
def test_the_tile_loop_keeps_the_pipelined_k_loop(persistent):
    """PERSISTENT: a loop over tiles strided by the grid's size (%nctaid.x)
    around the K loop, whose copies, products, waits and barriers are those
    of the one-tile kernel's loop (12 16-byte copies a thread, no local
    memory). Without PERSISTENT (the default) there is no tile loop; that
    its PTX is the kernel's from before PERSISTENT is
    scripts/ptx_checksums.py's to show, not a test's."""
    fields = ("cp_async", "wgmma", "wgmma_waits", "barriers", "shared_stores", "local")
    looped_ptx = _ptx(PERSISTENT=persistent)
    (one, one_loops), (looped, looped_loops) = _k_loop(_ptx()), _k_loop(looped_ptx)
    assert [looped[f] for f in fields] == [one[f] for f in fields], (looped, one)
    assert one["cp_async"] == 12 and one["local"] == 0 and one["wgmma"] == 4
    assert (one_loops, looped_loops) == (1, 2)
    assert "%nctaid.x" in looped_ptx and "%nctaid.x" not in _ptx()


@pytest.mark.parametrize("tiles,persistent,sms,programs", [
    (1024, 0, 132, 1024), (1024, 1, 132, 132), (1024, 2, 132, 264), (100, 2, 132, 100), (1, 1, 132, 1),
    (512, 1, 108, 108)])
def test_matmul_programs(tiles, persistent, sms, programs):
    """One program per tile, or with PERSISTENT at most `persistent` per
    multiprocessor (never more than the tiles)."""
    assert spaces.matmul_programs(tiles, persistent, sms) == programs


def test_the_ops_space_doubles_the_short_k_tiles_in_the_persistent_form():
    """MATMUL_OPS: MATMUL (the other matmul kernels' space, which has no
    PERSISTENT) and its 128x256x64 configs again with PERSISTENT=1."""
    assert spaces.MATMUL_OPS[:len(spaces.MATMUL)] == spaces.MATMUL
    assert not any("PERSISTENT" in entry for entry in spaces.MATMUL)
    doubled = [dict(e, PERSISTENT=1) for e in spaces.MATMUL
               if (e["BLOCK_SIZE_M"], e["BLOCK_SIZE_N"], e["BLOCK_SIZE_K"]) == (128, 256, 64)]
    assert len(doubled) == 2 and spaces.MATMUL_OPS[len(spaces.MATMUL):] == doubled


def test_the_gelu_epilogue_costs_17_float_operations_an_element():
    """gelu as x/2 + x/2 erf(x/sqrt 2) (the sum one fma) with the bias:
    17 f32 multiplies, fmas and adds per accumulator element (a thread's
    128 of the 128x256 tile over 8 warps), where 0.5 x (1 + erf) took 18;
    the two MUFU operations of erf (rcp, ex2) stay."""
    ptx = _ptx()
    per_element = sum(len(re.findall(rf"\b{op}\b", ptx)) for op in (r"mul\.f32", r"fma\.rn\.f32", r"add\.f32"))
    assert per_element == 17 * 128, per_element / 128
    assert len(re.findall(r"\brcp\.approx\.ftz\.f32\b", ptx)) == 128
    assert len(re.findall(r"\bex2\.approx\.ftz\.f32\b", ptx)) == 128
