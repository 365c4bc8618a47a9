"""tl.join, tl.split, tl.interleave, tl.cat and tl.flip (issue 21, item 3):
the shapes and types they give, the ops they are built from (selects,
reshapes, xor-reductions over axes of 2: no op moves elements otherwise),
PTX for sm_90a and sm_80, and located errors.
test/python/gpu/test_shape_ops_gpu.py checks the values."""

import inspect
import pathlib
import re

import pytest

import tilelang
import tilelang.language as tl

FILE = str(pathlib.Path(__file__).resolve())


def located_error(kernel, signature, snippet):
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile(signature)
    err = info.value
    lines, first = inspect.getsourcelines(kernel.fn)
    index = next(i for i, line in enumerate(lines) if snippet in line)
    assert (err.file, err.line) == (FILE, first + index), str(err)
    return str(err)


@tilelang.jit
def shapes_kernel(x_ptr, y_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 16 + tl.arange(0, 16)[None, :])
    y = tl.load(y_ptr + tl.arange(0, 4)[:, None] * 16 + tl.arange(0, 16)[None, :])
    j = tl.join(x, y)
    tl.static_assert(j.shape == (4, 16, 2))
    a, b = tl.split(j)
    tl.static_assert(a.shape == (4, 16) and b.dtype == tl.float16)
    i = tl.interleave(x, y)
    tl.static_assert(i.shape == (4, 32))
    c = tl.cat(x, y, can_reorder=True)
    tl.static_assert(c.shape == (8, 16))
    f = x.flip(0) + tl.flip(y)
    s0, s1 = tl.split(tl.join(1.0, 2.0))  # scalars join to [2] and split back to scalars
    tl.static_assert(s0.shape == ())
    tl.store(out_ptr + tl.arange(0, 4)[:, None] * 16 + tl.arange(0, 16)[None, :], a + b + f + s0 + s1)
    tl.store(out_ptr + 64 + tl.arange(0, 4)[:, None] * 32 + tl.arange(0, 32)[None, :], i)
    tl.store(out_ptr + 192 + tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :], c)


def test_shapes_and_ops():
    k = shapes_kernel.compile("*fp16,*fp16,*fp16")
    text = k.asm["tile"]
    assert re.search(r"arith\.select .* : tensor<4x16x2xi1>, tensor<4x16x2xi16>", text)
    assert "tile.reduce" in text and "arith.xori" in text
    assert re.search(r"tile\.trans %\w+ \{order = array<i32: 2, 0, 1>\} : tensor<4x16x2xf16> -> tensor<2x4x16xf16>", text)
    assert "tensor<2x2x16xi16>" in text  # flip along dim 0: 4 = 2 x 2
    assert "tensor<4x2x2x2x2xi16>" in text  # along dim 1: 16 = 2 x 2 x 2 x 2
    for arch in ("sm_90a", "sm_80"):
        k.to_ptx(arch)


@tilelang.jit
def split_bad(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    a, b = tl.split(x)


@tilelang.jit
def cat_bad(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4))
    y = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 16), tl.cat(x, y))


@tilelang.jit
def join_bad(x_ptr, y_ptr):
    tl.store(x_ptr + tl.arange(0, 8), tl.join(tl.load(x_ptr + tl.arange(0, 4)), tl.load(y_ptr + tl.arange(0, 4))))


def test_errors_are_located():
    assert "last dimension is 2" in located_error(split_bad, "*fp32", "tl.split(x)")
    assert "two tensors of one shape" in located_error(cat_bad, "*fp32", "tl.cat(x, y)")
    assert "one dtype" in located_error(join_bad, "*fp32,*fp16", "tl.join(")
