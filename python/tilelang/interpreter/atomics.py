"""Interpreter: atomics.

Programs run one after another, so an atomic is a read, an operation and a
write; lanes of one program that hit the same address are applied in lane
order (row-major), each seeing the value the previous left, which is one
of the orders the GPU may take. The value returned is the one each lane
found (0 in lanes the mask turns off). ``cas`` compares bit patterns, as
``atom.cas`` does. Float max/min ignore a NaN operand.
"""

from __future__ import annotations

import numpy as np

from tilelang.interpreter.memory import _layout
from tilelang.interpreter.values import UINT, TValue, fit, storage


def _combine(kind, dt, old, val):
    if kind == "add":
        return fit(dt, np.add(old, val))
    if kind in ("max", "min"):
        if dt.is_floating():
            return (np.fmax if kind == "max" else np.fmin)(old, val)
        return (np.maximum if kind == "max" else np.minimum)(old, val)
    if kind == "xchg":
        return val
    return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind](old, val)


class AtomicOps:
    """The mixin of ``tl.atomic_*``."""

    def _atomic_lanes(self, ptr, mask, what):
        shape = ptr.shape
        addr = np.broadcast_to(ptr.data, shape).reshape(-1)
        m = self._mask_array(mask, shape)
        lanes = np.arange(addr.size) if m is None else np.nonzero(m)[0]
        return addr, lanes

    def _apply(self, elem, addr, lanes, update, what):
        """Runs ``update(old, lanes) -> new`` on the flat lanes, in lane
        order where addresses repeat; returns the old values (storage)."""
        in_memory, decode, encode = _layout(elem)
        old_all = np.zeros(addr.shape, storage(elem))
        a = addr[lanes]
        groups = [lanes] if len(np.unique(a)) == len(a) else [lanes[i:i + 1] for i in range(len(lanes))]
        for group in groups:
            if not len(group):
                continue
            old = decode(self.memory.read(addr[group], in_memory, self, what))
            new = update(old, group)
            self.memory.write(addr[group], encode(np.asarray(new)), in_memory, self, what)
            old_all[group] = old
        return old_all

    def atomic_rmw(self, kind, ptr, val, mask, sem, scope):
        ptr = self._check_ptr(ptr, f"tl.atomic_{kind}")
        val, mask = self._unwrap_pair(val, mask)
        shape = ptr.shape
        elem = ptr.dtype.element_ty
        v = np.broadcast_to(self.as_value(val, elem, shape).data, shape).reshape(-1)
        addr, lanes = self._atomic_lanes(ptr, mask, f"tl.atomic_{kind}")
        old = self._apply(elem, addr, lanes, lambda o, g: _combine(kind, elem, o, v[g]), f"tl.atomic_{kind}")
        return TValue(elem, old.reshape(shape))

    def atomic_cas(self, ptr, cmp, val, sem, scope):
        ptr = self._check_ptr(ptr, "tl.atomic_cas")
        shape = ptr.shape
        elem = ptr.dtype.element_ty
        c = np.broadcast_to(self.as_value(self._unwrap_pair(cmp, None)[0], elem, shape).data, shape).reshape(-1)
        v = np.broadcast_to(self.as_value(self._unwrap_pair(val, None)[0], elem, shape).data, shape).reshape(-1)
        addr, lanes = self._atomic_lanes(ptr, None, "tl.atomic_cas")
        in_memory, _, encode = _layout(elem)
        width = UINT[np.dtype(in_memory).itemsize * 8]

        def update(old, group):
            same = encode(old).view(width) == encode(c[group]).view(width)
            return np.where(same, v[group], old)

        return TValue(elem, self._apply(elem, addr, lanes, update, "tl.atomic_cas").reshape(shape))

    @staticmethod
    def _unwrap_pair(a, b):
        from tilelang.language import core as tlc

        return tlc._unwrap(a), tlc._unwrap(b)
