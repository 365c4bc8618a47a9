"""Interpreter: the memory a launch reads and writes, and the memory ops
(``tl.load``, ``tl.store``, tensor descriptors).

Every array argument is a byte range of the caller's memory, seen through a
NumPy ``uint8`` array that shares it (no copy for NumPy arrays and torch CPU
tensors; CUDA tensors are copied to the host before the launch and back
after it, by launch.py). Overlapping ranges (views of one tensor) become one
buffer. A pointer is an int64 *virtual* byte address: buffer ``i`` starts
at ``(0x4000 + i + 1) << 40`` plus the low 12 bits of its real address, so
that pointer arithmetic, ``ptr_to_int`` and alignment tests behave as on
the GPU while every access can be checked: an access outside every
argument's memory (under the mask) is an error at the kernel's line, where
the GPU would read garbage or fault. Real addresses (below 2**47) that a
kernel loads from memory or makes from integers (arrays of pointers) are
read and written where they point, if the process maps them.
"""

from __future__ import annotations

import ctypes

import numpy as np

from tilelang.frontend.semantic import BlockPtrValue
from tilelang.interpreter.values import TValue, current_semantic, bf16_bits, bf16_from_bits, fp8_bits, fp8_from_bits, storage
from tilelang.language import core as tlc

_SHIFT = 40
# Buffer i's addresses start at (_TAG + i + 1) << _SHIFT: far above the
# 47-bit user addresses of real memory, so that the two never mix.
_TAG = 0x4000


class Buffer:
    __slots__ = ("base", "bytes", "views")

    def __init__(self, base: int, data: np.ndarray):
        self.base = base  # the virtual address of data[0]
        self.bytes = data
        self.views = {}

    def typed(self, st) -> np.ndarray:
        view = self.views.get(st)
        if view is None:
            size = np.dtype(st).itemsize
            n = len(self.bytes) // size * size
            view = self.views[st] = self.bytes[:n].view(st)
        return view


class Memory:
    """The buffers of one launch; ``address(real)`` maps a real address of an
    argument to its virtual address."""

    def __init__(self, ranges):
        """``ranges``: (low, high) real byte ranges of the arguments."""
        merged = []
        for lo, hi in sorted(ranges):
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        self.buffers = []
        self._ranges = []
        for i, (lo, hi) in enumerate(merged):
            base = ((_TAG + i + 1) << _SHIFT) + (lo & 0xFFF)
            n = max(hi - lo, 0)
            data = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(lo)) if n else np.zeros(0, np.uint8)
            self.buffers.append(Buffer(base, data))
            self._ranges.append((lo, hi, base))

    def address(self, real: int) -> int:
        for lo, hi, base in self._ranges:
            if lo <= real <= hi:
                return base + (real - lo)
        raise ValueError(f"address {real:#x} is in no argument's memory")

    # -- element access ---------------------------------------------------------

    def _buffer(self, group: int):
        """The buffer of an address group (``addr >> 40``), or None for an
        address outside the virtual space: a real one."""
        index = group - _TAG - 1
        return self.buffers[index] if 0 <= index < len(self.buffers) else None

    def _locate(self, buf, addr: np.ndarray, size: int, what: str, sem):
        off = addr - buf.base
        if (off < 0).any() or (off + size > len(buf.bytes)).any():
            i = int(np.argmax((off < 0) | (off + size > len(buf.bytes))))
            sem.error(f"{what}: byte offset {int(off[i])} is out of bounds of an argument of "
                      f"{len(buf.bytes)} bytes (an access out of bounds)")
        return off

    def _raw(self, addr: np.ndarray, size: int, what: str, sem):
        """(bytes, offsets) for real addresses, which a kernel gets by
        loading pointers from memory or casting integers to pointers
        (arrays of pointers, as in grouped GEMMs): the process's memory
        itself, where the range is mapped readable (a device address, or
        garbage, is a located error instead of a crash)."""
        lo, hi = int(addr.min()), int(addr.max()) + size
        if lo <= 0 or not _mapped(lo, hi):
            sem.error(f"{what}: the address {lo:#x} is in no argument's memory nor in this process's "
                      f"(an access out of bounds, or a device address)")
        view = np.ctypeslib.as_array((ctypes.c_uint8 * (hi - lo)).from_address(lo))
        return view, addr - lo

    def _access(self, addr, size, what, sem):
        """(byte array, byte offsets) of flat addresses that share an address group."""
        buf = self._buffer(int(addr[0]) >> _SHIFT)
        if buf is None:
            return self._raw(addr, size, what, sem) + (None,)
        return buf.bytes, self._locate(buf, addr, size, what, sem), buf

    def read(self, addr: np.ndarray, st, sem, what="tl.load") -> np.ndarray:
        """The elements of NumPy type ``st`` at the flat addresses ``addr``."""
        size = np.dtype(st).itemsize
        if addr.size == 0:
            return np.zeros(0, st)
        groups = addr >> _SHIFT
        if (groups == groups[0]).all():
            data, off, buf = self._access(addr, size, what, sem)
            if buf is not None and not (off % size).any():
                return buf.typed(st)[off // size]
            return data[off[:, None] + np.arange(size)].copy().view(st).reshape(-1)
        out = np.empty(addr.shape, st)
        for group in np.unique(groups):
            pick = groups == group
            out[pick] = self.read(addr[pick], st, sem, what)
        return out

    def write(self, addr: np.ndarray, values: np.ndarray, st, sem, what="tl.store") -> None:
        size = np.dtype(st).itemsize
        if addr.size == 0:
            return
        groups = addr >> _SHIFT
        if not (groups == groups[0]).all():
            for group in np.unique(groups):
                pick = groups == group
                self.write(addr[pick], values[pick], st, sem, what)
            return
        data, off, buf = self._access(addr, size, what, sem)
        values = np.ascontiguousarray(values, dtype=st)
        if buf is not None and not (off % size).any():
            buf.typed(st)[off // size] = values
        else:
            data[off[:, None] + np.arange(size)] = values.view(np.uint8).reshape(-1, size)


def _mapped(lo: int, hi: int) -> bool:
    """Whether [lo, hi) lies in one readable mapping of this process
    (/proc/self/maps; True where that file does not exist)."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                span, perms = line.split()[:2]
                start, end = (int(x, 16) for x in span.split("-"))
                if start <= lo and hi <= end:
                    return perms.startswith("r")
    except OSError:
        return True
    return False


# How each element type is laid out in memory: (NumPy type in memory,
# decode to storage, encode from storage).
def _layout(elem):
    if elem.is_bf16():
        return np.uint16, bf16_from_bits, bf16_bits
    if elem.is_fp8():
        return np.uint8, (lambda b: fp8_from_bits(b, elem.name)), (lambda x: fp8_bits(x, elem.name))
    if elem.is_bool():
        return np.int8, (lambda b: b != 0), (lambda x: x.astype(np.int8))
    st = storage(elem)
    return st, (lambda b: b), (lambda x: x.astype(st, copy=False))


class MemoryOps:
    """The mixin of loads and stores on ``self.memory``."""

    def _mask_array(self, mask, shape):
        m = self._mask(mask, shape)
        return None if m is None else np.broadcast_to(m.data, shape).reshape(-1)

    def load_elements(self, ptr, mask, elem, what="tl.load"):
        """Flat elements (in storage form) at ``ptr`` where ``mask`` holds
        (None: everywhere); zeros elsewhere."""
        in_memory, decode, _ = _layout(elem)
        addr = np.broadcast_to(ptr.data, ptr.shape).reshape(-1)
        out = np.zeros(addr.shape, storage(elem))
        if mask is None:
            out[...] = decode(self.memory.read(addr, in_memory, self, what))
        elif mask.any():
            out[mask] = decode(self.memory.read(addr[mask], in_memory, self, what))
        return out

    def load(self, ptr, mask, other, boundary_check, padding_option, cache_modifier,
             eviction_policy, volatile):
        if isinstance(tlc._unwrap(ptr), BlockPtrValue) or tlc._unwrap(boundary_check) or \
                tlc._unwrap(padding_option):
            # The frontend's block pointers: pointers and a mask from this
            # semantic's own ops, then the load below (or its error).
            return super().load(ptr, mask, other, boundary_check, padding_option, cache_modifier,
                                eviction_policy, volatile)
        ptr = self._check_ptr(ptr, "tl.load")
        self.hints("tl.load", cache_modifier, eviction_policy, volatile)  # the compiler's checks
        mask, other = tlc._unwrap(mask), tlc._unwrap(other)
        shape = ptr.shape
        elem = ptr.dtype.element_ty
        m = self._mask_array(mask, shape)
        values = self.load_elements(ptr, m, elem)
        if m is not None and other is not None:
            o = self.as_value(other, elem, shape)
            values = np.where(m, values, np.broadcast_to(o.data, shape).reshape(-1))
        return TValue(elem, values.reshape(shape))

    def store(self, ptr, value, mask, boundary_check, cache_modifier, eviction_policy):
        if isinstance(tlc._unwrap(ptr), BlockPtrValue) or tlc._unwrap(boundary_check):
            return super().store(ptr, value, mask, boundary_check, cache_modifier, eviction_policy)
        ptr = self._check_ptr(ptr, "tl.store")
        self.hints("tl.store", cache_modifier, eviction_policy)  # the compiler's checks
        value, mask = tlc._unwrap(value), tlc._unwrap(mask)
        shape = ptr.shape
        elem = ptr.dtype.element_ty
        v = self.as_value(value, elem, shape)
        in_memory, _, encode = _layout(elem)
        addr = np.broadcast_to(ptr.data, shape).reshape(-1)
        data = encode(np.broadcast_to(v.data, shape).reshape(-1))
        m = self._mask_array(mask, shape)
        if m is not None:
            addr, data = addr[m], data[m]
        self.memory.write(addr, data, in_memory, self)
        return None

    # -- tensor descriptors -----------------------------------------------------

    def make_tensor_descriptor(self, base, shape, strides, block_shape, padding_option="zero",
                               tensormap=None):
        base = tlc._unwrap(base)
        if not isinstance(base, TValue) or base.shape or not base.dtype.is_ptr():
            self.error("tl.make_tensor_descriptor: base must be a pointer to global memory")
        block = self.const_shape(block_shape, "block_shape")
        dims = [int(self._scalar_int(d, tlc.int32, "shape").data) for d in tlc._unwrap(shape)]
        steps = [int(self._scalar_int(d, tlc.int64, "strides").data) for d in tlc._unwrap(strides)]
        return Descriptor(base, dims, steps, block)

    def _descriptor_pointers(self, desc, offsets, what):
        offsets = tlc._unwrap(offsets)
        if not isinstance(offsets, (list, tuple)):
            offsets = [offsets]
        if len(offsets) != len(desc.block_shape):
            self.error(f"{what} takes {len(desc.block_shape)} offsets")
        index = np.zeros(desc.block_shape, np.int64)
        inside = np.ones(desc.block_shape, bool)
        rank = len(desc.block_shape)
        for d, (o, n, extent, stride) in enumerate(zip(offsets, desc.block_shape, desc.dims, desc.strides)):
            start = int(self._scalar_int(o, tlc.int32, f"{what} offset {d}").data)
            pos = (start + np.arange(n, dtype=np.int64)).reshape((1,) * d + (n,) + (1,) * (rank - d - 1))
            index = index + pos * stride
            inside = inside & (pos >= 0) & (pos < extent)
        size = max(1, desc.dtype.primitive_bitwidth // 8)
        ptr = TValue(desc.base.dtype, int(desc.base.data) + index * size)
        return ptr, inside.reshape(-1)

    def descriptor_load(self, desc, offsets):
        desc = tlc._unwrap(desc)
        ptr, inside = self._descriptor_pointers(desc, offsets, "load")
        values = self.load_elements(ptr, inside, desc.dtype, "load")  # zero padding outside
        return TValue(desc.dtype, values.reshape(desc.block_shape))

    def descriptor_store(self, desc, offsets, value):
        desc = tlc._unwrap(desc)
        ptr, inside = self._descriptor_pointers(desc, offsets, "store")
        v = self.as_value(tlc._unwrap(value), desc.dtype, desc.block_shape)
        in_memory, _, encode = _layout(desc.dtype)
        addr = ptr.data.reshape(-1)[inside]
        self.memory.write(addr, encode(np.broadcast_to(v.data, desc.block_shape).reshape(-1))[inside],
                          in_memory, self, "store")
        return None


class Descriptor:
    """A tensor descriptor: blocks of ``block_shape`` of the tensor at
    ``base`` with extents ``dims`` and element ``strides``; reads outside
    the extents give 0, writes there are dropped."""

    def __init__(self, base, dims, strides, block_shape):
        self.base = base
        self.dtype = base.dtype.element_ty
        self.dims = dims
        self.strides = strides
        self.block_shape = tuple(block_shape)

    def load(self, offsets):
        return current_semantic().descriptor_load(self, offsets)

    def store(self, offsets, value):
        return current_semantic().descriptor_store(self, offsets, value)
