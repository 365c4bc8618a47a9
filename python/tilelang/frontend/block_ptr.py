"""Block pointers (``tl.make_block_ptr``, ``tl.advance``, and ``tl.load`` /
``tl.store`` with ``boundary_check`` and ``padding_option``) as the frontend
builds them.

A block pointer names a ``block_shape`` window of a strided tensor in
global memory: a base pointer, the tensor's extents and strides, and the
window's offsets. Nothing of it reaches the IR as a value of its own: the
frontend keeps the pieces as a ``BlockPtrValue`` (offsets may change at run
time, through ``tl.advance``; the rest is fixed when it is made) and turns
each access into a tensor of pointers
``base + sum_k (offset_k + arange(block_k)) * stride_k`` with, for the
checked dimensions, the mask ``0 <= offset_k + i < shape_k``. That is the
same address arithmetic and mask a hand-written kernel would load through,
so the coalescing, vectorization and pipelining passes take it unchanged.
As in Triton, extents and strides are 64-bit, offsets 32-bit.

Loops carry a block pointer's offsets (``codegen`` asks ``carried_offsets``
for them); its base, extents and strides must stay the ones it had before
the loop, which is what advancing it does.
"""

from __future__ import annotations

from typing import List, Tuple

from tilelang.language import core as tlc
from tilelang.frontend.emitters.core import SemanticCore
from tilelang.frontend.values import BlockPtrValue, Scalar, Value, _unwrap, describe


def _scalars(sem: SemanticCore, xs, rank: int, dt, what: str) -> List[Scalar]:
    """``xs`` as ``rank`` integer scalars: Python ints stay constants, values
    become ``dt``."""
    xs = _unwrap(xs)
    if not isinstance(xs, (list, tuple)):
        sem.error(f"tl.make_block_ptr: {what} must be a tuple of {rank} integers, got {xs!r}")
    if len(xs) != rank:
        sem.error(f"tl.make_block_ptr: a block of rank {rank} needs {rank} {what}, got {len(xs)}")
    out = []
    for i, x in enumerate(xs):
        x = _unwrap(x)
        if isinstance(x, Value):
            out.append(sem._scalar_int(x, dt, f"{what}[{i}]"))
        elif isinstance(x, bool) or not isinstance(x, int):
            sem.error(f"tl.make_block_ptr: {what}[{i}] must be an integer, got {x!r}")
        else:
            out.append(x)
    return out


def make_block_ptr(sem: SemanticCore, base, shape, strides, offsets, block_shape, order) -> BlockPtrValue:
    base = _unwrap(base)
    if not isinstance(base, Value) or base.shape or not base.dtype.is_ptr():
        sem.error("tl.make_block_ptr: base must be a scalar pointer (a kernel's pointer argument "
                  f"or an offset of it), got {base!r}")
    if base.dtype.element_ty.is_ptr():
        sem.error("tl.make_block_ptr: blocks of pointers are not supported")
    block = sem.const_shape(block_shape, "tl.make_block_ptr's block_shape")
    rank = len(block)
    order = _unwrap(order)
    if not isinstance(order, (list, tuple)):
        sem.error(f"tl.make_block_ptr: order must be a tuple of {rank} dimensions, got {order!r}")
    order = tuple(sem.const_int(o, f"tl.make_block_ptr's order[{i}]") for i, o in enumerate(order))
    if sorted(order) != list(range(rank)):
        sem.error(f"tl.make_block_ptr: order must be a permutation of the {rank} dimensions "
                  f"{tuple(range(rank))}, got {order}")
    return BlockPtrValue(base,
                         _scalars(sem, shape, rank, tlc.int64, "shape"),
                         _scalars(sem, strides, rank, tlc.int64, "strides"),
                         _scalars(sem, offsets, rank, tlc.int32, "offsets"),
                         block, order)


def _block_ptr(sem: SemanticCore, x, what: str) -> BlockPtrValue:
    x = _unwrap(x)
    if not isinstance(x, BlockPtrValue):
        sem.error(f"{what} needs a block pointer (tl.make_block_ptr), got {x!r}")
    return x


def advance(sem: SemanticCore, bp, offsets) -> BlockPtrValue:
    bp = _block_ptr(sem, bp, "tl.advance")
    rank = len(bp.block_shape)
    offsets = _unwrap(offsets)
    if not isinstance(offsets, (list, tuple)) or len(offsets) != rank:
        sem.error(f"tl.advance: a block pointer of rank {rank} is advanced by {rank} offsets, "
                  f"got {offsets!r}")
    new = []
    for i, (old, delta) in enumerate(zip(bp.offsets, offsets)):
        delta = _unwrap(delta)
        if isinstance(delta, Value):
            delta = sem._scalar_int(delta, tlc.int32, f"tl.advance's offsets[{i}]")
        elif isinstance(delta, bool) or not isinstance(delta, int):
            sem.error(f"tl.advance: offsets[{i}] must be an integer, got {delta!r}")
        if isinstance(old, int) and isinstance(delta, int):
            new.append(old + delta)
        elif isinstance(delta, int) and delta == 0:
            new.append(old)
        else:
            new.append(sem.binary("+", sem.as_value(old, tlc.int32, ()), sem.as_value(delta, tlc.int32, ())))
    return bp.with_offsets(new)


def _check_dims(sem: SemanticCore, bp: BlockPtrValue, boundary_check, what: str) -> Tuple[int, ...]:
    """``boundary_check`` as sorted distinct dimensions of the block."""
    rank = len(bp.block_shape)
    dims = _unwrap(boundary_check)
    if dims is None:
        return ()
    if not isinstance(dims, (list, tuple)):
        dims = (dims,)
    out = []
    for d in dims:
        d = sem.const_int(d, f"{what}'s boundary_check")
        if not 0 <= d < rank:
            sem.error(f"{what}: boundary_check dimension {d} is out of range for a block of rank {rank}")
        if d in out:
            sem.error(f"{what}: boundary_check lists dimension {d} twice")
        out.append(d)
    return tuple(sorted(out))


def _pointers_and_mask(sem: SemanticCore, bp: BlockPtrValue, checked: Tuple[int, ...]):
    """The tensor of pointers of the block and the mask of its checked
    dimensions (None when none is checked)."""
    rank = len(bp.block_shape)
    offset, mask = None, None
    for k, n in enumerate(bp.block_shape):
        idx = sem.arange(0, n)
        if not (isinstance(bp.offsets[k], int) and bp.offsets[k] == 0):
            idx = sem.binary("+", idx, sem.as_value(bp.offsets[k], tlc.int32, ()))
        for axis in range(rank):
            if axis != k:
                idx = sem.expand_dims(idx, axis)
        if k in checked:
            inside = sem.logical("and", sem.compare(">=", idx, 0),
                                 sem.compare("<", sem.cast(idx, tlc.int64),
                                             sem.as_value(bp.shape[k], tlc.int64, ())))
            mask = inside if mask is None else sem.logical("and", mask, inside)
        stride = bp.strides[k]
        term = sem.cast(idx, tlc.int64)
        if not (isinstance(stride, int) and stride == 1):
            term = sem.binary("*", term, sem.as_value(stride, tlc.int64, ()))
        offset = term if offset is None else sem.binary("+", offset, term)
    ptrs = sem.addptr(bp.base, offset)
    if mask is not None:
        mask = sem.broadcast_value(mask, ptrs.shape)
    return ptrs, mask


def load(sem: SemanticCore, bp: BlockPtrValue, mask, other, boundary_check, padding_option,
         cache_modifier, eviction_policy, volatile) -> Value:
    if _unwrap(mask) is not None or _unwrap(other) is not None:
        sem.error("tl.load: mask and other cannot be given with a block pointer; its "
                  "boundary_check and padding_option say which elements are read")
    checked = _check_dims(sem, bp, boundary_check, "tl.load")
    padding = _unwrap(padding_option) or ""
    if padding not in ("", "zero", "nan"):
        sem.error(f"tl.load: padding_option must be 'zero' or 'nan', got {padding!r}")
    elem = bp.element_ty
    if padding == "nan" and not elem.is_floating():
        sem.error(f"tl.load: padding_option 'nan' needs a floating-point block, not {elem.name}")
    ptrs, m = _pointers_and_mask(sem, bp, checked)
    pad = None
    if m is not None:
        # Triton leaves the padding undefined without padding_option: zero is one choice of it.
        pad = float("nan") if padding == "nan" else (0.0 if elem.is_floating() else 0)
    return sem.load(ptrs, m, pad, (), "", cache_modifier, eviction_policy, volatile)


def store(sem: SemanticCore, bp: BlockPtrValue, value, mask, boundary_check, cache_modifier,
          eviction_policy) -> None:
    if _unwrap(mask) is not None:
        sem.error("tl.store: a mask cannot be given with a block pointer; its boundary_check says "
                  "which elements are written")
    checked = _check_dims(sem, bp, boundary_check, "tl.store")
    value = _unwrap(value)
    if isinstance(value, Value) and value.shape and not sem.broadcasts_to(value.shape, bp.block_shape):
        sem.error(f"tl.store: the value ({describe(value.dtype, value.shape)}) does not fit the "
                  f"block pointer's block {list(bp.block_shape)}")
    ptrs, m = _pointers_and_mask(sem, bp, checked)
    return sem.store(ptrs, value, m, (), cache_modifier, eviction_policy)
