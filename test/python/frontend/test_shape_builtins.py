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


@tilelang.jit
def sort_gather_kernel(x_ptr, i_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    s = tl.sort(x)
    t = tl.topk(x, 2)
    tl.static_assert(s.shape == (4, 8) and t.shape == (4, 2))
    i = tl.load(i_ptr + tl.arange(0, 4)[:, None] * 16 + tl.arange(0, 16)[None, :])
    g = tl.gather(x, i, 1)
    tl.static_assert(g.shape == (4, 16) and g.dtype == tl.float32)
    h = tl.histogram(tl.load(i_ptr + tl.arange(0, 64)), 8)
    tl.static_assert(h.shape == (8,) and h.dtype == tl.int32)
    tl.store(out_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :], s)
    tl.store(out_ptr + 32 + tl.arange(0, 4)[:, None] * 2 + tl.arange(0, 2)[None, :], t)
    tl.store(out_ptr + 40 + tl.arange(0, 4)[:, None] * 16 + tl.arange(0, 16)[None, :], g)
    tl.store(out_ptr + 104 + tl.arange(0, 8), h.to(tl.float32))


def test_sort_topk_gather_histogram():
    k = sort_gather_kernel.compile("*fp32,*i32,*fp32")
    text = k.asm["tile"]
    # 8 elements: 3 + 2 + 1 = 6 compare-exchange steps, each on a (.., 2, ..) view.
    assert len(re.findall(r"arith\.cmpf ogt", text)) == 6  # tl.sort: swap where lo > hi
    assert len(re.findall(r"arith\.cmpf olt", text)) == 6  # tl.topk (descending): where lo < hi
    assert "tensor<4x16x8xi1>" in text  # gather's comparison of every output with every position
    assert "tensor<64x8xi1>" in text  # histogram's
    for arch in ("sm_90a", "sm_80"):
        k.to_ptx(arch)


@tilelang.jit
def sort_bad_dim(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(x_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :], tl.sort(x, 0))


@tilelang.jit
def gather_bad(x_ptr, i_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    i = tl.load(i_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(x_ptr + tl.arange(0, 8), tl.gather(x, i, 0))


def test_sort_and_gather_errors():
    assert "last dimension only" in located_error(sort_bad_dim, "*fp32", "tl.sort(x, 0)")
    assert "must have the source's rank" in located_error(gather_bad, "*fp32,*i32", "tl.gather(x, i, 0)")
