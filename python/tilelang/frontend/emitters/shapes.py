"""Shape operations: expand_dims, reshape, permute; join, split,
interleave, cat, flip; sort, gather, histogram; subscripts.
"""

from __future__ import annotations

import math

from tilelang.frontend.values import Value, _unwrap, describe, type_str
from tilelang.language import core as tlc


class ShapeEmitter:
    """Shapes, joins and splits, sort, gather, histogram, subscripts."""

    # -- shapes ----------------------------------------------------------------------------------

    def _norm_axis(self, axis, rank: int, what: str, extra: int = 0) -> int:
        axis = self.const_int(axis, what)
        if not -(rank + extra) <= axis < rank + extra:
            self.error(f"{what} {axis} is out of range for a tensor of rank {rank}")
        return axis + rank + extra if axis < 0 else axis

    def expand_dims(self, x, axis):
        x = self.require_value(x, "tl.expand_dims's operand")
        axis = _unwrap(axis)
        if isinstance(axis, (tuple, list)):
            for a in sorted(self._norm_axis(a, len(x.shape), "axis", len(axis)) for a in axis):
                x = self.expand_dims(x, a)
            return x
        if not x.shape:
            x = self.broadcast_value(x, (1,))
            return x
        ax = self._norm_axis(axis, len(x.shape), "axis", 1)
        shape = x.shape[:ax] + (1,) + x.shape[ax:]
        return self.b.op(f"tile.expand_dims {x.name} {{axis = {ax} : i32}} : {x.type} -> "
                         f"{type_str(x.dtype, shape)}", x.dtype, shape)

    def reshape(self, x, shape, can_reorder):
        x = self.require_value(x, "tl.reshape's operand")
        if len(shape) == 1 and isinstance(_unwrap(shape[0]), (tuple, list)):
            shape = _unwrap(shape[0])
        dims = tuple(self.const_int(d, "reshape dimension") for d in shape)
        if math.prod(dims) != x.numel():
            self.error(f"cannot reshape {list(x.shape)} ({x.numel()} elements) to {list(dims)}")
        if dims == x.shape:
            return x
        if not x.shape or not dims:
            self.error("reshape of scalars is not supported")
        flag = " allow_reorder" if self.const_bool(can_reorder, "tl.reshape's can_reorder") else ""
        return self.b.op(f"tile.reshape {x.name}{flag} : {x.type} -> {type_str(x.dtype, dims)}",
                         x.dtype, dims)

    def permute(self, x, dims):
        x = self.require_value(x, "tl.trans's operand")
        if len(dims) == 1 and isinstance(_unwrap(dims[0]), (tuple, list)):
            dims = _unwrap(dims[0])
        if not dims:
            if len(x.shape) != 2:
                self.error(f"tl.trans without dims needs a 2-D tensor, got {list(x.shape)}")
            dims = (1, 0)
        order = [self.const_int(d, "permutation index") for d in dims]
        if sorted(order) != list(range(len(x.shape))):
            self.error(f"{order} is not a permutation of the {len(x.shape)} dimensions")
        shape = tuple(x.shape[i] for i in order)
        return self.b.op(f"tile.trans {x.name} {{order = array<i32: {', '.join(map(str, order))}>}} : "
                         f"{x.type} -> {type_str(x.dtype, shape)}", x.dtype, shape)

    # -- joining, splitting and flipping ------------------------------------------------
    #
    # No op of the tile dialect moves elements between positions other than
    # reshape and trans, so these are built from selects, reshapes and
    # xor-reductions over axes of size 2 (exact on the bits, in any order).

    def _bits(self, v: Value):
        """``v`` as integers of its width, and the function that turns such
        integers back into ``v``'s type."""
        dt = v.dtype
        if dt.is_ptr():
            return self.cast(v, tlc.int64), lambda b: self.cast(b, dt)
        if dt.is_bool():
            return self.cast(v, tlc.int8), lambda b: self.cast(b, dt)
        if dt.is_floating():
            ity = {8: tlc.int8, 16: tlc.int16, 32: tlc.int32, 64: tlc.int64}[dt.primitive_bitwidth]
            return self.cast(v, ity, bitcast=True), lambda b: self.cast(b, dt, bitcast=True)
        return v, lambda b: b

    def _xor_along(self, bits: Value, axis: int, keep_dims: bool) -> Value:
        return self.reduce_values([bits], axis, self._binary_combine("xor_sum"), keep_dims)[0]

    def join(self, a, b):
        """``tl.join``: ``a`` and ``b`` (one dtype, broadcast to one shape)
        stacked along a new minor dimension of size 2."""
        a, b = self.require_value(_unwrap(a), "tl.join's operand"), self.require_value(_unwrap(b), "tl.join's operand")
        if a.dtype != b.dtype:
            self.error(f"tl.join needs operands of one dtype, got {a.dtype.name} and {b.dtype.name}")
        shape = self.broadcast_shapes(a.shape, b.shape)
        a, b = self.broadcast_value(a, shape), self.broadcast_value(b, shape)
        rank = len(shape)
        if rank:
            a, b = self.expand_dims(a, rank), self.expand_dims(b, rank)
        first = self.compare("==", self.arange(0, 2), 0)
        (abits, restore), (bbits, _) = self._bits(a), self._bits(b)
        return restore(self.where(first, abits, bbits))

    def split(self, x):
        """``tl.split``: the two halves of ``x`` along its last dimension,
        which must have size 2."""
        x = self.require_value(_unwrap(x), "tl.split's operand")
        if not x.shape or x.shape[-1] != 2:
            self.error(f"tl.split needs a tensor whose last dimension is 2, got {describe(x.dtype, x.shape)}")
        bits, restore = self._bits(x)
        first = self.broadcast_value(self.compare("==", self.arange(0, 2), 0), x.shape)
        axis = len(x.shape) - 1
        lo = self._xor_along(self.where(first, bits, 0), axis, False)
        hi = self._xor_along(self.where(first, 0, bits), axis, False)
        return restore(lo), restore(hi)

    def interleave(self, a, b):
        """``tl.interleave``: ``join(a, b)`` with its last two dimensions merged."""
        j = self.join(a, b)
        if len(j.shape) == 1:
            return j
        return self.reshape(j, j.shape[:-2] + (2 * j.shape[-2],), False)

    def cat(self, a, b, can_reorder):
        """``tl.cat``: ``a`` then ``b`` along dimension 0, in order (Triton
        requires ``can_reorder=True`` and may reorder; tilelang does not)."""
        self.const_bool(can_reorder, "tl.cat's can_reorder")
        a, b = self.require_value(_unwrap(a), "tl.cat's operand"), self.require_value(_unwrap(b), "tl.cat's operand")
        if a.shape != b.shape or not a.shape:
            self.error(f"tl.cat needs two tensors of one shape, got {describe(a.dtype, a.shape)} and "
                       f"{describe(b.dtype, b.shape)}")
        j = self.join(a, b)
        rank = len(a.shape)
        front = self.permute(j, (rank,) + tuple(range(rank)))
        return self.reshape(front, (2 * a.shape[0],) + a.shape[1:], False)

    def flip(self, x, dim):
        """``tl.flip``: ``x`` reversed along ``dim`` (the last one by
        default), a power of 2 long. Reversing index i of n = 2^s is i xor
        (n - 1), flipping each of its s bits: the dimension becomes s
        dimensions of size 2, and swapping the two elements of one is
        ``y ^ xor(y[0], y[1])``."""
        x = self.require_value(_unwrap(x), "tl.flip's operand")
        if not x.shape:
            self.error("tl.flip needs a tensor, got a scalar")
        dim = _unwrap(dim)
        d = len(x.shape) - 1 if dim is None else self._norm_axis(dim, len(x.shape), "tl.flip's dim")
        n = x.shape[d]
        steps = n.bit_length() - 1
        if steps == 0:
            return x
        bits, restore = self._bits(x)
        y = self.reshape(bits, x.shape[:d] + (2,) * steps + x.shape[d + 1:], False)
        for axis in range(d, d + steps):
            y = self.binary("^", y, self._xor_along(y, axis, True))
        return restore(self.reshape(y, x.shape, False))

    def _pick(self, bits: Value, mask: Value, axis: int) -> Value:
        """The one element per position along ``axis`` where ``mask`` holds
        (zeros where it holds nowhere), kept as an axis of 1: an
        xor-reduction of the bits, exact whatever the order."""
        return self._xor_along(self.where(mask, bits, 0), axis, True)

    def sort(self, x, dim, descending, k=None):
        """``tl.sort`` (and ``tl.topk``: the ``k`` largest, descending) along
        the last dimension, a power of 2 long: a bitonic sorting network.
        Step (s, j) compares the elements whose indices differ in bit j only
        (the dimension seen as (n / 2^(j+1), 2, 2^j)) and orders each pair
        ascending where bit s of the index is 0 (descending where it is 1;
        the whole order reversed for ``descending``)."""
        x = self.require_value(_unwrap(x), "tl.sort's operand")
        if not x.shape:
            self.error("tl.sort needs a tensor, got a scalar")
        rank = len(x.shape)
        dim = _unwrap(dim)
        d = rank - 1 if dim is None else self._norm_axis(dim, rank, "tl.sort's dim")
        if d != rank - 1:
            self.error(f"tl.sort sorts along the last dimension only, got dim={dim}")
        descending = self.const_bool(descending, "tl.sort's descending")
        if x.dtype.is_ptr():
            self.error("tl.sort does not sort pointers")
        n = x.shape[-1]
        steps = n.bit_length() - 1
        lead = x.shape[:-1]
        ones = (1,) * len(lead)
        y = x
        for s in range(1, steps + 1):
            for j in range(s - 1, -1, -1):
                outer, inner = n >> (j + 1), 1 << j
                bits, restore = self._bits(self.reshape(y, lead + (outer, 2, inner), False))
                first = self.compare("==", self.reshape(self.arange(0, 2), ones + (1, 2, 1), False), 0)
                lo = restore(self._pick(bits, first, rank))
                hi = restore(self._pick(bits, self.logical_not(first), rank))
                # Out of order: lo > hi (lo < hi for descending; ties stay).
                swap = self.compare("<" if descending else ">", lo, hi)
                if s < steps:
                    # Bit s of the index is bit (s - j - 1) of the outer position.
                    position = self.reshape(self.arange(0, outer), ones + (outer, 1, 1), False)
                    bit = self.binary("&", self.binary(">>", position, s - j - 1), 1)
                    swap = self.binary("^", swap, self.compare("!=", bit, 0))
                merged = self.where(first, self.where(swap, hi, lo), self.where(swap, lo, hi))
                y = self.reshape(merged, x.shape, False)
        if k is None:
            return y
        k = self.const_int(k, "tl.topk's k")
        if k <= 0 or k & (k - 1) or k > n:
            self.error(f"tl.topk's k must be a power of 2 no larger than {n}, got {k}")
        if k == n:
            return y
        bits, restore = self._bits(self.reshape(y, lead + (n // k, k), False))
        row = self.reshape(self.arange(0, n // k), ones + (n // k, 1), False)
        return restore(self._xor_along(self.where(self.compare("==", row, 0), bits, 0), rank - 1, False))

    def gather(self, src, index, axis):
        """``tl.gather``: ``out[..., i, ...] = src[..., index[..., i, ...], ...]``
        along ``axis``; ``index`` has ``src``'s rank and its other
        dimensions. Every output element is compared with every position
        of the axis (one xor-reduction of the matching bits), so the work
        is ``index.numel() * src.shape[axis]``; an index out of range gives
        0."""
        src = self.require_value(_unwrap(src), "tl.gather's source")
        index = self.require_value(_unwrap(index), "tl.gather's index")
        if not index.dtype.is_int():
            self.error(f"tl.gather's index must be integers, got {describe(index.dtype, index.shape)}")
        rank = len(src.shape)
        if rank == 0 or len(index.shape) != rank:
            self.error(f"tl.gather's index must have the source's rank, got {list(index.shape)} for "
                       f"{list(src.shape)}")
        a = self._norm_axis(axis, rank, "tl.gather's axis")
        for d in range(rank):
            if d != a and index.shape[d] != src.shape[d]:
                self.error(f"tl.gather's index and source differ in dimension {d} "
                           f"({index.shape[d]} and {src.shape[d]})")
        n = src.shape[a]
        bits, restore = self._bits(src)
        wide = self.expand_dims(bits, a)  # [..., 1, n, ...]
        where_ = self.expand_dims(index, a + 1)  # [..., m, 1, ...]
        positions = self.reshape(self.arange(0, n), (1,) * (a + 1) + (n,) + (1,) * (rank - a - 1), False)
        match = self.compare("==", where_, positions)
        return restore(self._xor_along(self.where(match, wide, 0), a + 1, False))

    def histogram(self, x, num_bins, mask=None):
        """``tl.histogram``: int32 counts of the values of the 1-D ``x`` in
        bins of width 1 from 0 (values outside ``[0, num_bins)``, and
        those where ``mask`` is false, are not counted)."""
        x = self.require_value(_unwrap(x), "tl.histogram's input")
        bins = self.const_int(num_bins, "tl.histogram's num_bins")
        if len(x.shape) != 1 or not x.dtype.is_int():
            self.error(f"tl.histogram needs a 1-D integer tensor, got {describe(x.dtype, x.shape)}")
        if bins <= 0 or bins & (bins - 1):
            self.error(f"tl.histogram's num_bins must be a power of 2, got {bins}")
        hits = self.compare("==", self.expand_dims(x, 1), self.expand_dims(self.arange(0, bins), 0))
        mask = _unwrap(mask)
        if mask is not None:
            hits = self.logical("and", hits, self.expand_dims(self.broadcast_to_shape(mask, x.shape), 1))
        return self.reduce_builtin("sum", self.cast(hits, tlc.int32), 0, False, None)

    def subscript(self, x: Value, index):
        if not isinstance(index, tuple):
            index = (index,)
        dims = list(x.shape)
        src_axis = 0
        out = x
        pos = 0
        for item in index:
            if item is None:
                out = self.expand_dims(out, pos)
                pos += 1
            elif isinstance(item, slice) and item == slice(None, None, None):
                if src_axis >= len(dims):
                    self.error(f"too many indices for a tensor of rank {len(dims)}")
                src_axis += 1
                pos += 1
            else:
                self.error("only `None` and `:` may index a tensor (e.g. x[:, None])")
        if src_axis not in (0, len(dims)) and src_axis < len(dims):
            pass  # the remaining dimensions are kept, as in Triton
        return out
