"""Block pointers (tl.make_block_ptr, tl.advance, tl.load/tl.store with
boundary_check and padding_option): what their IR computes, run on the
numpy tile-IR interpreter (tensor_machine.py) against numpy slicing, with
windows that leave the tensor on every side; the IR a loop that advances
them carries; and the located errors of their misuse.
test/python/compat (block_ptr_matmul and others) runs them on a GPU."""

import inspect
import re

import numpy as np
import pytest

import tilelang
import tilelang.language as tl
from tensor_machine import TensorMachine

RNG = np.random.default_rng(2121)


@tilelang.jit
def window_copy(x_ptr, out_ptr, M, N, stride_m, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr,
                CHECK: tl.constexpr, PAD: tl.constexpr):
    """out[BM, BN] = the window of x (M, N) at (off_m, off_n), advanced by
    (1, -1) and back, read with the boundary checks CHECK."""
    src = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(off_m, off_n),
                            block_shape=(BM, BN), order=(1, 0))
    src = tl.advance(tl.advance(src, (1, -1)), (-1, 1))
    block = tl.load(src, boundary_check=CHECK, padding_option=PAD)
    dst = tl.make_block_ptr(out_ptr, (BM, BN), (BN, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(dst, block)


@tilelang.jit
def window_store(x_ptr, out_ptr, M, N, off_m, off_n, BM: tl.constexpr, BN: tl.constexpr):
    """Writes a (BM, BN) block of x into out (M, N), column-major (strides
    (1, M)), at (off_m, off_n); only the part inside out is written."""
    src = tl.make_block_ptr(x_ptr, (BM, BN), (BN, 1), (0, 0), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(out_ptr, (M, N), (1, M), (off_m, off_n), (BM, BN), (0, 1))
    tl.store(dst, tl.load(src) * 2, boundary_check=(0, 1))


def run(kernel, signature, buffers, scalars, constexprs):
    ir = kernel.compile(signature, constexprs=constexprs).asm["tile"]
    machine = TensorMachine(ir)
    machine.buffers = buffers
    machine.run(list(buffers) + list(scalars))


def window(x, off_m, off_n, bm, bn, check, fill):
    """numpy's answer: x's window, `fill` outside x in the checked dimensions."""
    out = np.full((bm, bn), fill, dtype=x.dtype)
    for i in range(bm):
        for j in range(bn):
            r, c = off_m + i, off_n + j
            inside_r, inside_c = 0 <= r < x.shape[0], 0 <= c < x.shape[1]
            if (inside_r or 0 not in check) and (inside_c or 1 not in check):
                out[i, j] = x.reshape(-1)[r * x.shape[1] + c] if (inside_r and inside_c) else fill
    return out


@pytest.mark.parametrize("off_m, off_n", [(0, 0), (3, 5), (-2, -3), (5, 9), (-4, 10)])
@pytest.mark.parametrize("pad", ["zero", "nan"])
def test_load_with_boundary_check(off_m, off_n, pad):
    M, N, BM, BN = 7, 13, 4, 8
    x = RNG.standard_normal(M * N).astype(np.float32)
    out = np.full(BM * BN, 7.0, np.float32)
    run(window_copy, "*fp32,*fp32,i32,i32,i32,i32,i32", {"x": x, "out": out}, [M, N, N, off_m, off_n],
        dict(BM=BM, BN=BN, CHECK=(0, 1), PAD=pad))
    fill = 0.0 if pad == "zero" else np.nan
    np.testing.assert_array_equal(out.reshape(BM, BN), window(x.reshape(M, N), off_m, off_n, BM, BN, (0, 1), fill))


def test_load_checks_only_the_named_dimension():
    """boundary_check=(1,): rows are trusted (inside here), columns past N read 0."""
    M, N, BM, BN = 8, 6, 4, 8
    x = RNG.integers(-100, 100, M * N).astype(np.int32)
    out = np.zeros(BM * BN, np.int32)
    run(window_copy, "*i32,*i32,i32,i32,i32,i32,i32", {"x": x, "out": out}, [M, N, N, 2, 1],
        dict(BM=BM, BN=BN, CHECK=(1,), PAD="zero"))
    np.testing.assert_array_equal(out.reshape(BM, BN), window(x.reshape(M, N), 2, 1, BM, BN, (0, 1), 0))


@pytest.mark.parametrize("off_m, off_n", [(0, 0), (2, 1), (-1, -5), (3, 4)])
def test_store_with_boundary_check_column_major(off_m, off_n):
    M, N, BM, BN = 5, 6, 4, 8
    x = RNG.standard_normal(BM * BN).astype(np.float32)
    out = np.full(M * N, -1.0, np.float32)
    run(window_store, "*fp32,*fp32,i32,i32,i32,i32", {"x": x, "out": out}, [M, N, off_m, off_n],
        dict(BM=BM, BN=BN))
    expect = np.full((M, N), -1.0, np.float32)
    X = x.reshape(BM, BN) * 2
    for i in range(BM):
        for j in range(BN):
            if 0 <= off_m + i < M and 0 <= off_n + j < N:
                expect[off_m + i, off_n + j] = X[i, j]
    # out is column-major: element (r, c) at r + c * M.
    np.testing.assert_array_equal(out.reshape(N, M).T, expect)


@tilelang.jit
def advance_in_loop(a_ptr, out_ptr, M, K, stride_m, BM: tl.constexpr, BK: tl.constexpr):
    """Row sums of a (M, K) tile row, the window advanced along K."""
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (stride_m, 1), (tl.program_id(0) * BM, 0), (BM, BK), (1, 0))
    acc = tl.zeros((BM,), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.sum(tl.load(a_bp, boundary_check=(0, 1)), axis=1)
        a_bp = tl.advance(a_bp, (0, BK))
    o_bp = tl.make_block_ptr(out_ptr, (M,), (1,), (tl.program_id(0) * BM,), (BM,), (0,))
    tl.store(o_bp, acc, boundary_check=(0,))


def test_loop_carries_the_offsets():
    """The loop carries the two offsets (i32) next to the accumulator, and
    the loads inside it are masked: the block pointer itself is no value."""
    k = advance_in_loop.compile("*fp32,*fp32,i32,i32,i32", constexprs=dict(BM=32, BK=64))
    ir = k.asm["tile"]
    assert "-> (tensor<32xf32>, i32, i32)" in ir
    assert ir.count("tile.load") == 1 and ", %" in ir.split("tile.load")[1].split(":")[0]
    k.to_ptx("sm_90a")
    assert ".visible .entry advance_in_loop" in k.asm["ptx"]


@tilelang.jit
def block_ptr_errors(x_ptr, n, CASE: tl.constexpr):
    bp = tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (16, 16), (1, 0))
    if CASE == "mask":
        tl.load(bp, mask=tl.arange(0, 16)[:, None] < n)
    elif CASE == "check_plain":
        tl.load(x_ptr + tl.arange(0, 16), boundary_check=(0,))
    elif CASE == "dim":
        tl.load(bp, boundary_check=(2,))
    elif CASE == "twice":
        tl.store(bp, 1.0, boundary_check=(0, 0))
    elif CASE == "nan_int":
        ip = tl.make_block_ptr(x_ptr.to(tl.pointer_type(tl.int32), bitcast=True), (n,), (1,), (0,), (16,), (0,))
        tl.load(ip, boundary_check=(0,), padding_option="nan")
    elif CASE == "padding":
        tl.load(bp, boundary_check=(0,), padding_option="inf")
    elif CASE == "order":
        tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (16, 16), (1, 1))
    elif CASE == "rank":
        tl.make_block_ptr(x_ptr, (n,), (n, 1), (0, 0), (16, 16), (1, 0))
    elif CASE == "block":
        tl.make_block_ptr(x_ptr, (n, n), (n, 1), (0, 0), (16, 12), (1, 0))
    elif CASE == "advance":
        tl.advance(bp, (16,))
    elif CASE == "advance_plain":
        tl.advance(x_ptr, (16, 0))
    elif CASE == "store_shape":
        tl.store(bp, tl.zeros((16, 32), dtype=tl.float32))
    elif CASE == "repoint":
        other = tl.make_block_ptr(x_ptr + 1, (n, n), (n, 1), (0, 0), (16, 16), (1, 0))
        for _ in range(n):
            bp = other
        tl.store(bp, 0.0)


@pytest.mark.parametrize("case, message", [
    ("mask", "mask and other cannot be given with a block pointer"),
    ("check_plain", "boundary_check and padding_option apply to block pointers"),
    ("dim", "boundary_check dimension 2 is out of range for a block of rank 2"),
    ("twice", "boundary_check lists dimension 0 twice"),
    ("nan_int", "padding_option 'nan' needs a floating-point block, not int32"),
    ("padding", "padding_option must be 'zero' or 'nan', got 'inf'"),
    ("order", "order must be a permutation of the 2 dimensions"),
    ("rank", "a block of rank 2 needs 2 shape, got 1"),
    ("block", "block_shape element 1 must be a power of 2, got 12"),
    ("advance", "a block pointer of rank 2 is advanced by 2 offsets"),
    ("advance_plain", "tl.advance needs a block pointer (tl.make_block_ptr)"),
    ("store_shape", "does not fit the block pointer's block [16, 16]"),
    ("repoint", "a loop may only advance a block pointer"),
])
def test_misuse_is_a_located_error(case, message):
    with pytest.raises(tilelang.CompilationError) as info:
        block_ptr_errors.compile("*fp32,i32", constexprs={"CASE": case})
    err = info.value
    assert message in str(err)
    # At the offending line of the kernel, which is not its first.
    lines, first = inspect.getsourcelines(block_ptr_errors.fn)
    assert err.file.endswith("test_block_ptr.py")
    assert first < err.line < first + len(lines)
    assert "internal error" not in str(err)


@tilelang.jit
def block_ptr_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (tl.program_id(0) * BM, 0), (BM, BK), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, tl.program_id(1) * BN), (BK, BN), (0, 1))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc += tl.dot(tl.load(a_bp, boundary_check=(0, 1)), tl.load(b_bp, boundary_check=(0, 1)))
        a_bp = tl.advance(a_bp, (0, BK))
        b_bp = tl.advance(b_bp, (BK, 0))
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (tl.program_id(0) * BM, tl.program_id(1) * BN),
                             (BM, BN), (1, 0))
    tl.store(c_bp, acc.to(tl.float16), boundary_check=(0, 1))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_block_pointer_operands_copy_16_bytes_at_a_time(arch):
    """The addresses a block pointer makes (64-bit strides, masks of the
    checked dimensions) keep the axis info of hand-written pointers: with
    unit strides specialized, both operands (B read column-major through
    order (0, 1)) go to shared memory by 16-byte cp.async, pipelined."""
    sig = dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32", K="i32", stride_am="i32",
               stride_ak="constexpr", stride_bk="constexpr", stride_bn="i32", stride_cm="i32")
    k = block_ptr_matmul.compile(sig, constexprs=dict(BM=64, BN=64, BK=32, stride_ak=1, stride_bk=1),
                                 specialization={n: 16 for n in ("a_ptr", "b_ptr", "c_ptr", "M", "N", "K",
                                                                 "stride_am", "stride_bn", "stride_cm")},
                                 num_warps=4, num_stages=3)
    k.to_ptx(arch)
    sizes = re.findall(r"cp\.async\.c[ag]\.shared\.global[^\n]*?, (\d+)", k.asm["ptx"])
    assert sizes and set(sizes) == {"16"}
    assert "ld.global" not in k.asm["ptx"]


@tilelang.jit
def advance_if(x_ptr, out_ptr, n, skip, BLOCK: tl.constexpr):
    """Copies x[skip * BLOCK:][:BLOCK] (zero past n): the window advanced
    under a run-time condition, the two paths' offsets merged by scf.if."""
    src = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    if skip > 0:
        src = tl.advance(src, (skip * BLOCK,))
    dst = tl.make_block_ptr(out_ptr, (BLOCK,), (1,), (0,), (BLOCK,), (0,))
    tl.store(dst, tl.load(src, boundary_check=(0,)))


def test_branches_merge_the_offsets():
    """The `if` yields the window's offset (i32), and the load's indices
    are built from that yielded value (before the fix, merging a block
    pointer was an error)."""
    k = advance_if.compile("*fp32,*fp32,i32,i32", constexprs={"BLOCK": 8})
    ir = k.asm["tile-src"]
    merged = re.search(r"(%\w+) = scf\.if %\w+ -> \(i32\)", ir)
    assert merged, ir
    after = ir[merged.end():]
    assert re.search(rf"tile\.splat {merged.group(1)} : i32 -> tensor<8xi32>", after), ir
    k.to_ptx("sm_90a")
