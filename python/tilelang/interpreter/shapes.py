"""Interpreter: the ops that change shapes or move elements (expand_dims,
reshape, trans, join/split, cat, flip, sort/topk, gather, histogram), each
one NumPy operation. The compiler builds several of them from selects and
xor-reductions; the results are the same elements, exactly."""

from __future__ import annotations

import numpy as np

from tilelang.interpreter.values import TValue
from tilelang.language import core as tlc


class ShapeOps:
    """The mixin of shape operations."""

    def expand_dims(self, x, axis):
        x = self.require_value(x, "tl.expand_dims's operand")
        axis = tlc._unwrap(axis)
        if isinstance(axis, (tuple, list)):
            for a in sorted(self._norm_axis(a, len(x.shape), "axis", len(axis)) for a in axis):
                x = self.expand_dims(x, a)
            return x
        if not x.shape:
            return TValue(x.dtype, x.data.reshape(1))
        ax = self._norm_axis(axis, len(x.shape), "axis", 1)
        return TValue(x.dtype, np.expand_dims(x.data, ax))

    def reshape(self, x, shape, can_reorder):
        x = self.require_value(x, "tl.reshape's operand")
        if len(shape) == 1 and isinstance(tlc._unwrap(shape[0]), (tuple, list)):
            shape = tlc._unwrap(shape[0])
        dims = tuple(self.const_int(d, "reshape dimension") for d in shape)
        if dims == x.shape:
            return x
        return TValue(x.dtype, np.reshape(x.data, dims))

    def permute(self, x, dims):
        x = self.require_value(x, "tl.trans's operand")
        if len(dims) == 1 and isinstance(tlc._unwrap(dims[0]), (tuple, list)):
            dims = tlc._unwrap(dims[0])
        order = [self.const_int(d, "permutation index") for d in dims] if dims else [1, 0]
        return TValue(x.dtype, np.transpose(x.data, order))

    def join(self, a, b):
        a = self.require_value(tlc._unwrap(a), "tl.join's operand")
        b = self.require_value(tlc._unwrap(b), "tl.join's operand")
        shape = self.broadcast_shapes(a.shape, b.shape)
        a, b = self.broadcast_value(a, shape), self.broadcast_value(b, shape)
        return TValue(a.dtype, np.stack([a.data, b.data], axis=-1))

    def split(self, x):
        x = self.require_value(tlc._unwrap(x), "tl.split's operand")
        return TValue(x.dtype, x.data[..., 0]), TValue(x.dtype, x.data[..., 1])

    def cat(self, a, b, can_reorder):
        a = self.require_value(tlc._unwrap(a), "tl.cat's operand")
        b = self.require_value(tlc._unwrap(b), "tl.cat's operand")
        return TValue(a.dtype, np.concatenate([a.data, b.data], axis=0))

    def flip(self, x, dim):
        x = self.require_value(tlc._unwrap(x), "tl.flip's operand")
        dim = tlc._unwrap(dim)
        d = len(x.shape) - 1 if dim is None else self._norm_axis(dim, len(x.shape), "tl.flip's dim")
        return TValue(x.dtype, np.flip(x.data, d))

    def sort(self, x, dim, descending, k=None):
        x = self.require_value(tlc._unwrap(x), "tl.sort's operand")
        descending = self.const_bool(descending, "tl.sort's descending")
        data = np.sort(x.data, axis=-1, kind="stable")  # NaN last, as the network's compares leave it
        if descending:
            data = np.flip(data, -1)
        if k is not None:
            data = data[..., : self.const_int(k, "tl.topk's k")]
        return TValue(x.dtype, np.ascontiguousarray(data))

    def gather(self, src, index, axis):
        src = self.require_value(tlc._unwrap(src), "tl.gather's source")
        index = self.require_value(tlc._unwrap(index), "tl.gather's index")
        a = self._norm_axis(axis, len(src.shape), "tl.gather's axis")
        n = src.shape[a]
        idx = index.data.astype(np.int64)
        inside = (idx >= 0) & (idx < n)
        picked = np.take_along_axis(src.data, np.where(inside, idx, 0), axis=a)
        return TValue(src.dtype, np.where(inside, picked, np.zeros((), src.data.dtype)))

    def histogram(self, x, num_bins, mask=None):
        x = self.require_value(tlc._unwrap(x), "tl.histogram's input")
        bins = self.const_int(num_bins, "tl.histogram's num_bins")
        values = x.data.astype(np.int64)
        keep = (values >= 0) & (values < bins)
        mask = tlc._unwrap(mask)
        if mask is not None:
            keep &= np.broadcast_to(self.broadcast_to_shape(mask, x.shape).data, x.shape)
        counts = np.bincount(values[keep], minlength=bins)[:bins]
        return TValue(tlc.int32, counts.astype(np.int32))
