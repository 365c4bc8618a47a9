"""Memory operations: tl.load/tl.store on tensors of pointers and block
pointers (block_ptr.py), tensor descriptors and atomics.
"""

from __future__ import annotations

from typing import List, Optional

from tilelang.frontend import block_ptr
from tilelang.frontend.values import TensorDescValue, Value, _unwrap, describe, is_const, type_str
from tilelang.language import core as tlc
from tilelang.language.core import dtype, pointer_type

_CACHE_MODIFIERS = {"": None, ".ca": "ca", ".cg": "cg", ".cs": "cs", ".cv": "cv", ".wb": "wb",
                    ".wt": "wt"}
_EVICTION = {"": None, "evict_normal": None, "evict_first": "evict_first",
             "evict_last": "evict_last"}
_SEMS = {None: "acq_rel", "acq_rel": "acq_rel", "acquire": "acquire", "release": "release",
         "relaxed": "relaxed"}
_SCOPES = {None: "gpu", "gpu": "gpu", "cta": "cta", "sys": "sys"}


class MemoryEmitter:
    """Loads, stores, block pointers, tensor descriptors, atomics."""

    # -- memory --------------------------------------------------------------------------------

    def _check_ptr(self, ptr, what: str) -> Value:
        if not isinstance(ptr, Value) or not ptr.dtype.is_ptr():
            self.error(f"{what} expects a pointer or a tensor of pointers, got "
                       f"{describe(self.dtype_of(ptr), self.shape_of(ptr)) if isinstance(ptr, (Value, int, float)) else repr(ptr)}")
        return ptr

    def _mask(self, mask, shape) -> Optional[Value]:
        mask = _unwrap(mask)
        if mask is None:
            return None
        if is_const(mask):
            if not isinstance(mask, (bool, int)):
                self.error(f"mask must be a boolean tensor, got {mask!r}")
            return self.constant(bool(mask), tlc.int1, shape)
        if not mask.dtype.is_bool():
            self.error(f"mask must have boolean type (int1), got {describe(mask.dtype, mask.shape)}")
        return self.broadcast_value(mask, shape)

    def _fits_pointer(self, what: str, name: str, x, ptr: Value) -> None:
        """A mask, value or `other` broadcasts to the pointer's shape; the
        pointer is never broadcast to theirs (as in Triton): that would
        store several values to one address, or load one element many times."""
        if isinstance(x, Value) and x.shape and not self.broadcasts_to(x.shape, ptr.shape):
            self.error(f"{what}: the {name} ({describe(x.dtype, x.shape)}) does not fit the pointer "
                       f"({describe(ptr.dtype, ptr.shape)}): the {name} may be broadcast to the "
                       f"pointer's shape, but the pointer is never broadcast to the {name}'s")

    def hints(self, what: str, cache_modifier, eviction_policy, volatile=False) -> str:
        """The attributes of ``what`` (tl.load or tl.store) for its cache
        hints, checked here for the compiler and the interpreter alike (its
        loads and stores call this too), in the user's words: PTX has no
        access with both a cache operator and an eviction priority, and its
        volatile load takes neither (tile.load's verifier says the same of
        the IR)."""
        allowed = (".ca", ".cg", ".cs", ".cv") if what == "tl.load" else (".wb", ".cg", ".cs", ".wt")
        modifier = _unwrap(cache_modifier) or ""
        key = modifier if modifier.startswith(".") or not modifier else "." + modifier
        if key not in _CACHE_MODIFIERS or (key and key not in allowed):
            self.error(f"{what}: cache modifier {modifier!r} is not supported here (expected one of "
                       f"{', '.join(allowed)})")
        policy = _unwrap(eviction_policy) or ""
        if policy not in _EVICTION:
            self.error(f"{what}: eviction policy {policy!r} is not supported (expected evict_normal, "
                       "evict_first or evict_last)")
        cache, evict = _CACHE_MODIFIERS[key], _EVICTION[policy]
        is_volatile = self.const_bool(volatile, f"{what}'s volatile")
        if is_volatile and (cache or evict):
            given = f"cache_modifier={modifier!r}" if cache else f"eviction_policy={policy!r}"
            self.error(f"{what}: a volatile load takes no cache modifier or eviction policy, got "
                       f"volatile=True with {given} (PTX's ld.volatile has neither)")
        if cache and evict:
            self.error(f"{what}: cache_modifier={modifier!r} cannot be combined with "
                       f"eviction_policy={policy!r} (a PTX access takes one or the other)")
        return ((f" cache = {cache}" if cache else "") + (f" evict = {evict}" if evict else "")
                + (" volatile" if is_volatile else ""))

    def load(self, ptr, mask, other, boundary_check, padding_option, cache_modifier,
             eviction_policy, volatile):
        if isinstance(_unwrap(ptr), block_ptr.BlockPtrValue):
            return block_ptr.load(self, _unwrap(ptr), mask, other, boundary_check, padding_option,
                                  cache_modifier, eviction_policy, volatile)
        if _unwrap(boundary_check) or _unwrap(padding_option):
            self.error("tl.load: boundary_check and padding_option apply to block pointers "
                       "(tl.make_block_ptr); a tensor of pointers takes a mask")
        ptr = self._check_ptr(ptr, "tl.load")
        mask, other = _unwrap(mask), _unwrap(other)
        if other is not None and mask is None:
            self.error("tl.load: `other` cannot be given without `mask`")
        shape = ptr.shape
        self._fits_pointer("tl.load", "mask", mask, ptr)
        self._fits_pointer("tl.load", "other", other, ptr)
        elem = ptr.dtype.element_ty
        load_elem = tlc.int8 if elem.is_bool() else elem
        if elem.is_bool():
            ptr = self.cast(ptr, pointer_type(tlc.int8, ptr.dtype.address_space))
        m = self._mask(mask, shape)
        o = None if other is None else self.as_value(other, load_elem, shape)
        attrs = self.hints("tl.load", cache_modifier, eviction_policy, volatile)
        operands = ptr.name + (f", {m.name}" if m is not None else "") + (f", {o.name}" if o is not None else "")
        result = self.b.op(f"tile.load {operands}{attrs} : {ptr.type}", load_elem, shape)
        if elem.is_bool():
            result = self.cast(result, tlc.int1)
        return result

    def store(self, ptr, value, mask, boundary_check, cache_modifier, eviction_policy):
        if isinstance(_unwrap(ptr), block_ptr.BlockPtrValue):
            return block_ptr.store(self, _unwrap(ptr), value, mask, boundary_check, cache_modifier,
                                   eviction_policy)
        if _unwrap(boundary_check):
            self.error("tl.store: boundary_check applies to block pointers (tl.make_block_ptr); a "
                       "tensor of pointers takes a mask")
        ptr = self._check_ptr(ptr, "tl.store")
        value, mask = _unwrap(value), _unwrap(mask)
        shape = ptr.shape
        self._fits_pointer("tl.store", "value", value, ptr)
        self._fits_pointer("tl.store", "mask", mask, ptr)
        elem = ptr.dtype.element_ty
        if elem.is_bool():
            ptr = self.cast(ptr, pointer_type(tlc.int8, ptr.dtype.address_space))
            value = self.as_value(value, tlc.int1, shape)
            value = self.cast(value, tlc.int8)
        else:
            if isinstance(value, Value) and value.dtype.is_ptr() != elem.is_ptr():
                self.error(f"cannot store {describe(value.dtype, value.shape)} through a pointer to {elem.name}")
            value = self.as_value(value, elem, shape)
        m = self._mask(mask, shape)
        attrs = self.hints("tl.store", cache_modifier, eviction_policy)
        mask_text = f", {m.name}" if m is not None else ""
        self.b.emit(f"tile.store {ptr.name}, {value.name}{mask_text}{attrs} : {ptr.type}")
        return None

    # -- block pointers (block_ptr.py) ----------------------------------------------------------

    def make_block_ptr(self, base, shape, strides, offsets, block_shape, order):
        return block_ptr.make_block_ptr(self, base, shape, strides, offsets, block_shape, order)

    def advance(self, base, offsets):
        return block_ptr.advance(self, base, offsets)

    # -- tensor descriptors ---------------------------------------------------------------------

    def _scalar_int(self, x, dt: dtype, what: str) -> Value:
        """An integer scalar (constant or run-time value) as a value of ``dt``."""
        x = _unwrap(x)
        if isinstance(x, Value):
            if x.shape or not x.dtype.is_int():
                self.error(f"{what} must be an integer scalar, got {describe(x.dtype, x.shape)}")
            return self.cast(x, dt)
        if isinstance(x, bool) or not isinstance(x, int):
            self.error(f"{what} must be an integer, got {x!r}")
        return self.constant(x, dt, ())

    def make_tensor_descriptor(self, base, shape, strides, block_shape, padding_option="zero",
                               tensormap: Optional[str] = None) -> TensorDescValue:
        base = _unwrap(base)
        if not isinstance(base, Value) or base.shape or not base.dtype.is_ptr():
            self.error("tl.make_tensor_descriptor: base must be a pointer to global memory")
        elem = base.dtype.element_ty
        if elem.is_ptr() or elem.is_bool():
            self.error(f"tensor descriptors hold numbers, not {elem.name}")
        block = self.const_shape(block_shape, "block_shape")
        if not 1 <= len(block) <= 5:
            self.error(f"tensor descriptors have 1 to 5 dimensions, got {len(block)}")
        if _unwrap(padding_option) not in ("zero", "", None):
            self.error(f"padding_option {_unwrap(padding_option)!r} is not supported (only 'zero')")
        shape, strides = list(_unwrap(shape)), list(_unwrap(strides))
        if len(shape) != len(block) or len(strides) != len(block):
            self.error(f"a descriptor of {len(block)}-dimensional blocks needs {len(block)} extents "
                       f"and strides, got {len(shape)} and {len(strides)}")
        if _unwrap(strides[-1]) != 1:
            self.error("the last stride of a tensor descriptor must be the constant 1 "
                       "(its rows are contiguous)")
        dims = [self._scalar_int(d, tlc.int32, f"shape[{i}]").name for i, d in enumerate(shape)]
        steps = [self._scalar_int(d, tlc.int64, f"strides[{i}]").name for i, d in enumerate(strides)]
        desc_type = TensorDescValue("", elem, block).type
        map_text = f" map {tensormap}" if tensormap else ""
        name = self.b.fresh()
        self.b.emit(f"{name} = tile.make_tensor_descriptor {base.name}, [{', '.join(dims)}], "
                    f"[{', '.join(steps)}]{map_text} : {base.type} -> {desc_type}")
        return TensorDescValue(name, elem, block)

    def _descriptor(self, desc, what: str) -> TensorDescValue:
        desc = _unwrap(desc)
        if not isinstance(desc, TensorDescValue):
            self.error(f"{what} needs a tensor descriptor, got {desc!r}")
        return desc

    def _offsets(self, desc: TensorDescValue, offsets, what: str) -> List[str]:
        offsets = _unwrap(offsets)
        if not isinstance(offsets, (list, tuple)):
            offsets = [offsets]
        if len(offsets) != len(desc.block_shape):
            self.error(f"{what} takes {len(desc.block_shape)} offsets for blocks of "
                       f"{describe(desc.dtype, desc.block_shape)}, got {len(offsets)}")
        return [self._scalar_int(o, tlc.int32, f"{what} offset {i}").name for i, o in enumerate(offsets)]

    def descriptor_load(self, desc, offsets) -> Value:
        desc = self._descriptor(desc, "load")
        names = self._offsets(desc, offsets, "load")
        result_type = type_str(desc.dtype, desc.block_shape)
        return self.b.op(f"tile.descriptor_load {desc.name}[{', '.join(names)}] : {desc.type} -> {result_type}",
                         desc.dtype, desc.block_shape)

    def descriptor_store(self, desc, offsets, value) -> None:
        desc = self._descriptor(desc, "store")
        names = self._offsets(desc, offsets, "store")
        value = _unwrap(value)
        if isinstance(value, Value):
            if value.dtype != desc.dtype:
                self.error(f"the descriptor stores {desc.dtype.name} blocks, got {describe(value.dtype, value.shape)} "
                           f"(convert it with .to(tl.{desc.dtype.name}))")
            if value.shape != desc.block_shape:
                if value.shape:
                    self.error(f"the descriptor stores blocks of shape {list(desc.block_shape)}, "
                               f"got {describe(value.dtype, value.shape)}")
        value = self.as_value(value, desc.dtype, desc.block_shape)
        self.b.emit(f"tile.descriptor_store {desc.name}[{', '.join(names)}], {value.name} : "
                    f"{desc.type}, {value.type}")
        return None

    # -- atomics ---------------------------------------------------------------------------------

    def atomic_rmw(self, kind, ptr, val, mask, sem, scope):
        ptr = self._check_ptr(ptr, f"tl.atomic_{kind}")
        val, mask = _unwrap(val), _unwrap(mask)
        self._fits_pointer(f"tl.atomic_{kind}", "value", val, ptr)
        self._fits_pointer(f"tl.atomic_{kind}", "mask", mask, ptr)
        shape = ptr.shape
        elem = ptr.dtype.element_ty
        if elem.is_bool() or elem.is_ptr() or elem.is_fp8():
            self.error(f"tl.atomic_{kind} does not support {elem.name}")
        if kind in ("and", "or", "xor") and not elem.is_int():
            self.error(f"tl.atomic_{kind} needs an integer pointer, got {elem.name}")
        if kind == "add":
            rmw = "fadd" if elem.is_floating() else "add"
        elif kind in ("max", "min"):
            rmw = ("u" + kind) if elem.is_int_unsigned() else kind
        else:
            rmw = kind
        v = self.as_value(val, elem, shape)
        m = self._mask(mask, shape)
        sem, scope = _unwrap(sem), _unwrap(scope)
        if sem not in _SEMS:
            self.error(f"unknown memory semantic {sem!r} (expected acquire, release, acq_rel or relaxed)")
        if scope not in _SCOPES:
            self.error(f"unknown memory scope {scope!r} (expected gpu, cta or sys)")
        mask_text = f", {m.name}" if m is not None else ""
        return self.b.op(f"tile.atomic_rmw {rmw}, {_SEMS[sem]}, {_SCOPES[scope]}, {ptr.name}, "
                         f"{v.name}{mask_text} : {ptr.type}", elem, shape)

    def atomic_cas(self, ptr, cmp, val, sem, scope):
        ptr = self._check_ptr(ptr, "tl.atomic_cas")
        self._fits_pointer("tl.atomic_cas", "compared value", _unwrap(cmp), ptr)
        self._fits_pointer("tl.atomic_cas", "value", _unwrap(val), ptr)
        shape = ptr.shape
        elem = ptr.dtype.element_ty
        c = self.as_value(_unwrap(cmp), elem, shape)
        v = self.as_value(_unwrap(val), elem, shape)
        sem, scope = _unwrap(sem), _unwrap(scope)
        if sem not in _SEMS or scope not in _SCOPES:
            self.error(f"unknown memory semantic or scope ({sem!r}, {scope!r})")
        return self.b.op(f"tile.atomic_cas {_SEMS[sem]}, {_SCOPES[scope]}, {ptr.name}, {c.name}, "
                         f"{v.name} : {ptr.type}", elem, shape)
