"""tl.add/sub/mul, tl.swizzle2d, tl.ravel, tl.reduce_or and tl.PropagateNan
(issue 21, item 4's table): scalar kernels run on the scalar interpreter
(tile_machine.py) against Python, tensor ones checked in their IR."""

import re

import tilelang
import tilelang.language as tl
from tile_machine import Machine

MASK = 0xFFFFFFFF


def swizzle_model(i, j, size_i, size_j, size_g):
    """Triton's documented mapping: column-major within groups of size_g rows."""
    ij = i * size_j + j
    size_gj = size_g * size_j
    off_i = (ij // size_gj) * size_g
    group = min(size_i - off_i, size_g)
    ij = ij % size_gj
    return off_i + ij % group, ij // group


@tilelang.jit
def swizzle_kernel(out, i, j, size_i, size_j, size_g):
    a, b = tl.swizzle2d(i, j, size_i, size_j, size_g)
    tl.store(out, a)
    tl.store(out + 1, b)
    tl.store(out + 2, tl.add(i, j))
    tl.store(out + 3, tl.sub(i, j, sanitize_overflow=False))
    tl.store(out + 4, tl.mul(i, j))


def test_swizzle2d_and_arithmetic():
    ir = swizzle_kernel.compile("*i32,i32,i32,i32,i32,i32").asm["tile"]
    for size_i, size_j, size_g in ((7, 5, 3), (4, 4, 2), (10, 3, 4)):
        seen = set()
        for i in range(size_i):
            for j in range(size_j):
                mem = Machine(ir).run([("out", 0), i, j, size_i, size_j, size_g])
                got = [mem[("out", k)] for k in range(5)]
                assert got[:2] == list(swizzle_model(i, j, size_i, size_j, size_g))
                assert got[2:] == [(i + j) & MASK, (i - j) & MASK, (i * j) & MASK]
                seen.add(tuple(got[:2]))
        assert len(seen) == size_i * size_j  # a permutation of the matrix


@tilelang.jit
def ravel_or_kernel(x_ptr, out_ptr, f_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(out_ptr + tl.arange(0, 32), tl.ravel(x))
    tl.store(out_ptr + 32 + tl.arange(0, 4), tl.reduce_or(x, 1))
    f = tl.load(f_ptr + tl.arange(0, 8))
    tl.store(f_ptr + tl.arange(0, 8), tl.maximum(f, 0.0, propagate_nan=tl.PropagateNan.ALL))
    tl.store(f_ptr + 8 + tl.arange(0, 8), tl.minimum(f, 0.0, propagate_nan=tl.PropagateNan.NONE))


def test_ravel_reduce_or_and_propagate_nan():
    k = ravel_or_kernel.compile("*i32,*i32,*fp32")
    text = k.asm["tile"]
    assert re.search(r"tile\.reshape %\w+ : tensor<4x8xi32> -> tensor<32xi32>", text)
    assert re.search(r"tile\.reduce .* axis = 1 .*\n.*\n\s*%\w+ = arith\.ori", text)
    assert "arith.maximumf" in text and "arith.minnumf" in text
    k.to_ptx("sm_90a")
