"""Interpreter: reductions, argmin/argmax and scans.

Types come from the frontend (``_sum_dtype``, the widening of max/min
below 32 bits). Integer sums, products, xor/or and all maxima and minima
are exact whatever the order. Floating-point sums and products are a
pairwise tree (element ``i`` with ``i + n/2``) that rounds into the type
after every step, as the GPU's shuffles do, in another order: compare them
within tolerances. Max/min ignore NaN (``maxnumf``, the compiler's
default); argmax/argmin take the lowest index among equal values. A
user's combine function (``tl.reduce``, ``tl.associative_scan``) runs on
whole slices (the tree, and Hillis-Steele for scans), once per level:
combine functions are elementwise, so this is the same as calling it on
every pair.
"""

from __future__ import annotations

import numpy as np

from tilelang.interpreter.values import TValue, fit
from tilelang.language import core as tlc


def _tree(data: np.ndarray, dt, fn) -> np.ndarray:
    """Reduces the last axis (a power of 2 long) pairwise."""
    while data.shape[-1] > 1:
        half = data.shape[-1] // 2
        data = fit(dt, fn(data[..., :half], data[..., half:]))
    return data[..., 0]


class ReduceOps:
    """The mixin of reductions and scans."""

    def _reduce_axis(self, x, axis):
        """(data with the reduced axis last, axis index or None)."""
        axis = tlc._unwrap(axis)
        if axis is None:
            return x.data.reshape(-1), None
        ax = self._norm_axis(axis, len(x.shape), "axis")
        return np.moveaxis(x.data, ax, -1), ax

    def _keep(self, out, x, ax, keep_dims):
        if not keep_dims:
            return out
        if ax is None:
            return out.reshape((1,) * max(1, len(x.shape)))
        return np.expand_dims(out, ax)

    def reduce_builtin(self, kind, x, axis, keep_dims, dt):
        x = self.require_value(tlc._unwrap(x), f"tl.{kind}'s operand")
        keep_dims = self.const_bool(keep_dims, f"tl.{kind}'s keep_dims")
        if kind == "sum":
            x = self.cast(x, self._sum_dtype(x, dt))
        elif kind in ("max", "min") and x.dtype.primitive_bitwidth < 32:
            x = self.cast(x, tlc.float32 if x.dtype.is_floating() else tlc.int32)
        data, ax = self._reduce_axis(x, axis)
        t = x.dtype
        if kind in ("max", "min"):
            if t.is_floating():
                out = (np.fmax if kind == "max" else np.fmin).reduce(data, axis=-1)
            else:
                out = (np.max if kind == "max" else np.min)(data, axis=-1)
        elif kind == "xor_sum":
            out = np.bitwise_xor.reduce(data, axis=-1)
        elif kind == "reduce_or":
            out = np.bitwise_or.reduce(data, axis=-1)
        elif t.is_floating():
            out = _tree(data, t, np.add if kind == "sum" else np.multiply)
        else:
            out = (np.sum if kind == "sum" else np.prod)(data, axis=-1, dtype=data.dtype)
        return TValue(t, self._keep(np.asarray(out), x, ax, keep_dims))

    def argreduce(self, kind, x, axis, keep_dims):
        x = self.require_value(tlc._unwrap(x), f"tl.arg{kind}'s operand")
        keep_dims = self.const_bool(keep_dims, f"tl.arg{kind}'s keep_dims")
        data, ax = self._reduce_axis(x, axis)
        if x.dtype.is_floating():
            # NaN never wins a comparison of the compiled combine.
            data = np.where(np.isnan(data), -np.inf if kind == "max" else np.inf, data)
        out = (np.argmax if kind == "max" else np.argmin)(data, axis=-1).astype(np.int32)
        return TValue(tlc.int32, self._keep(np.asarray(out), x, ax, keep_dims))

    def scan_builtin(self, kind, x, axis, reverse, dt):
        x = self.require_value(tlc._unwrap(x), f"tl.cum{kind}'s operand")
        reverse = self.const_bool(reverse, f"tl.cum{kind}'s reverse")
        x = self.cast(x, self._sum_dtype(x, dt))
        ax = self._norm_axis(axis, len(x.shape), "axis")
        data = np.flip(x.data, ax) if reverse else x.data
        fn = np.add if kind == "sum" else np.multiply
        if x.dtype.is_bf16() or x.dtype.is_fp8():
            # Rounded after every step: Hillis-Steele on the storage.
            moved = np.moveaxis(data, ax, -1)
            step = 1
            while step < moved.shape[-1]:
                moved = np.concatenate([moved[..., :step], fit(x.dtype, fn(moved[..., :-step], moved[..., step:]))],
                                       axis=-1)
                step *= 2
            data = np.moveaxis(moved, -1, ax)
        else:
            data = fn.accumulate(data, axis=ax, dtype=data.dtype)
        return TValue(x.dtype, np.flip(data, ax) if reverse else data)

    # -- user combine functions ---------------------------------------------------

    def _apply_combine(self, combine, lhs, rhs):
        results = combine(lhs, rhs)
        if not isinstance(results, (list, tuple)):
            results = [results]
        out = []
        for r, l in zip(results, lhs):
            r = tlc._unwrap(r)
            r = self.as_value(r, l.dtype, l.shape) if not isinstance(r, TValue) or r.dtype != l.dtype \
                else self.broadcast_value(r, l.shape)
            out.append(r)
        return out

    def reduce_values(self, srcs, axis, combine, keep_dims=False):
        srcs = list(srcs)
        axis = tlc._unwrap(axis)
        if axis is None:
            rank = len(srcs[0].shape)
            datas, ax = [s.data.reshape(-1) for s in srcs], None
        else:
            ax = self._norm_axis(axis, len(srcs[0].shape), "axis")
            datas = [np.moveaxis(s.data, ax, -1) for s in srcs]
        vals = [TValue(s.dtype, d) for s, d in zip(srcs, datas)]
        while vals[0].shape[-1] > 1:
            half = vals[0].shape[-1] // 2
            lhs = [TValue(v.dtype, v.data[..., :half]) for v in vals]
            rhs = [TValue(v.dtype, v.data[..., half:]) for v in vals]
            vals = self._apply_combine(combine, lhs, rhs)
        outs = []
        for v in vals:
            data = v.data[..., 0]
            if tlc._unwrap(keep_dims):
                data = data.reshape((1,) * max(1, rank)) if ax is None else np.expand_dims(data, ax)
            outs.append(TValue(v.dtype, data))
        return outs

    def scan_values(self, srcs, axis, combine, reverse=False):
        srcs = list(srcs)
        ax = self._norm_axis(axis, len(srcs[0].shape), "axis")
        reverse = bool(tlc._unwrap(reverse))
        datas = [np.moveaxis(np.flip(s.data, ax) if reverse else s.data, ax, -1) for s in srcs]
        vals = [TValue(s.dtype, d) for s, d in zip(srcs, datas)]
        n, step = vals[0].shape[-1], 1
        while step < n:
            lhs = [TValue(v.dtype, v.data[..., :-step]) for v in vals]
            rhs = [TValue(v.dtype, v.data[..., step:]) for v in vals]
            combined = self._apply_combine(combine, lhs, rhs)
            vals = [TValue(v.dtype, np.concatenate([v.data[..., :step], c.data], axis=-1))
                    for v, c in zip(vals, combined)]
            step *= 2
        outs = []
        for v in vals:
            data = np.moveaxis(v.data, -1, ax)
            outs.append(TValue(v.dtype, np.flip(data, ax) if reverse else data))
        return outs
