"""``@tilelang.jit``: kernels from Python functions, specialized and cached.

A ``JITFunction`` keeps the decorated function; nothing is parsed until the
first compile. ``kernel.compile(signature, ...)`` (ahead of time) and
``kernel.warmup(*args, ...)`` (signature derived from the arguments) run the
frontend, verify the tile IR with libtilelang and return a ``CompiledKernel``
whose ``asm`` holds the IR of each stage. Compiled kernels are cached in
memory by their specialization. ``kernel[grid](*args)`` specializes,
compiles (frontend -> tile IR -> PTX for the current GPU), loads the kernel
through the CUDA driver once per specialization and launches it on torch's
current stream.
"""

from __future__ import annotations

import functools
import inspect
import re
import os
import sys
import time
from collections.abc import MutableMapping
from typing import Any, Dict, Iterable, Optional, Union

from tilelang import knobs
from tilelang.errors import CompilationError, Diagnostic, callers_error, mark_callers_error
from tilelang.language import core as tlc
from tilelang.options import LAUNCH_OPTIONS, check_launch_options, check_num_ctas  # noqa: F401 - re-exported

__all__ = ["jit", "JITFunction", "CompiledKernel", "cdiv", "next_power_of_2"]


def cdiv(x: int, div: int) -> int:
    """Ceiling division: the number of blocks of ``div`` that cover ``x``."""
    return (x + div - 1) // div


def next_power_of_2(n: int) -> int:
    """The smallest power of two that is at least ``n`` (1 for n <= 1)."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()


class StageIR(MutableMapping):
    """``CompiledKernel.asm``: stage name -> IR text, where some stages are
    computed the first time they are read (they are listed either way)."""

    def __init__(self, texts: Dict[str, str], lazy: Dict[str, Any]):
        self._texts = dict(texts)
        self._lazy = dict(lazy)

    def __getitem__(self, stage: str) -> str:
        if stage not in self._texts and stage in self._lazy:
            self._texts[stage] = self._lazy.pop(stage)()
        return self._texts[stage]

    def __setitem__(self, stage: str, text: str) -> None:
        self._lazy.pop(stage, None)
        self._texts[stage] = text

    def __delitem__(self, stage: str) -> None:
        if stage in self._lazy:
            del self._lazy[stage]
        else:
            del self._texts[stage]

    def __contains__(self, stage) -> bool:
        # Without computing anything (Mapping's default would).
        return stage in self._texts or stage in self._lazy

    def share(self, stage: str, source) -> None:
        """``stage``'s text from the mapping ``source``: copied if it is
        there already, otherwise read from ``source`` when first asked for
        (so that a lazy stage stays unread)."""
        if isinstance(source, StageIR) and stage not in source._texts:
            self._texts.pop(stage, None)
            self._lazy[stage] = lambda: source[stage]
        else:
            self[stage] = source[stage]

    def __iter__(self):
        return iter(list(self._texts) + [stage for stage in self._lazy if stage not in self._texts])

    def __len__(self) -> int:
        return len(set(self._texts) | set(self._lazy))

    def __repr__(self) -> str:
        return f"StageIR({list(self)})"


class CompiledKernel:
    """One specialization of a kernel.

    ``asm["tile-src"]`` is the frontend's text (with ``loc()`` on every op),
    ``asm["tile"]`` the verified tile IR, ``asm["tile-opt"]`` the same after
    ``canonicalize,cse``; ``to_ptx(arch)`` (or the first launch) adds
    ``"tilegpu"``, ``"llvm"``, ``"llvm-ir"`` and ``"ptx"``. ``arg_names`` lists the parameters a launch passes,
    in order (constexprs and parameters specialized to 1 are not passed).
    ``n_regs`` and ``n_spills`` (as Triton's) read the loaded kernel's
    registers and local-memory bytes.
    ``link_info[arch]``, once a cubin exists, says how it was linked:
    ``{"min_blocks_per_sm": 4, "links": 4}`` (docs/runtime.md, "Occupancy
    search").
    """

    def __init__(self, name, signature, constexprs, specialization, num_warps, num_stages,
                 asm, arg_names, frontend_seconds, maxnreg=None):
        self.name: str = name
        self.signature: Dict[str, str] = signature
        self.constexprs: Dict[str, Any] = constexprs
        self.specialization: Dict[str, int] = specialization
        self.num_warps: int = num_warps
        self.num_stages: int = num_stages
        # Registers a thread may use at most (PTX .maxnreg), or None.
        self.maxnreg: Optional[int] = maxnreg
        self.asm: Dict[str, str] = asm
        if isinstance(asm, StageIR):
            # Triton's asm has "ptx" and "cubin" (bytes) once a kernel is
            # compiled; here they are made when first read, for the current
            # GPU (PTX for sm_90a without one; a cubin needs the driver).
            if "ptx" not in asm:
                asm._lazy["ptx"] = lambda: self._build(_arch_or_default(), need_cubin=False)[0].ptx
            if "cubin" not in asm:
                asm._lazy["cubin"] = lambda: self._build(_current_arch(), need_cubin=True)[1]
        self.arg_names = arg_names
        self.frontend_seconds: float = frontend_seconds
        # Per arch: how the cubin was linked ("min_blocks_per_sm": the
        # .minnctapersm it was compiled for, "links": JIT compilations).
        self.link_info: Dict[str, Dict[str, int]] = {}
        # Per arch: the compiled PTX, its cubin, and the loaded kernel.
        self._ptx: Dict[str, Any] = {}
        self._cubin: Dict[str, bytes] = {}
        self._loaded: Dict[str, Any] = {}
        # The parameters the kernel may write through (see _may_write).
        self._written: Optional[frozenset] = None
        # Per arch: stage texts read from a cache entry when first asked for.
        self._stage_texts: Dict[str, Dict[str, str]] = {}
        # The tile-IR index key whose record is still to be written (see
        # JITFunction.compile), or None.
        self._index_key: Optional[str] = None

    def __repr__(self) -> str:
        sig = ", ".join(f"{k}: {v}" for k, v in self.signature.items())
        return f"<CompiledKernel {self.name}({sig}) constexprs={self.constexprs}>"

    def to_ptx(self, arch: str = "sm_90a"):
        """Compiles the tile IR to PTX for ``arch`` (no GPU needed) and adds
        every later stage to ``asm``: "tilegpu", "llvm", "llvm-ir", "ptx".
        Returns the ``tilelang.CompiledIR``; raises ``CompilationError``.
        Goes through the on-disk cache (see tilelang.cache)."""
        return self._build(arch, need_cubin=False)[0]

    def _build(self, arch: str, need_cubin: bool):
        """(CompiledIR, cubin or None) for ``arch``: from memory, from the
        on-disk cache, or compiled (and linked, with ``need_cubin``) and
        then stored there."""
        compiled, cubin = self._ptx.get(arch), self._cubin.get(arch)
        if compiled is None or (need_cubin and cubin is None):
            from tilelang import cache
            from tilelang.ir import CompiledIR, compile_ir

            key = cache.kernel_key(self.asm["tile"], arch, self.num_warps, self.num_stages, self.maxnreg)
            ranks = [len(tlc.dtype_from_string(text).block_shape) for text in self.signature.values()
                     if text.startswith("tensordesc<")]
            # A PTX file put in place of this kernel's (TILELANG_OVERRIDE_IR)
            # is linked instead of the compiled one, never cached.
            override = cache.ptx_override(key)
            entry = None if override else cache.lookup(
                key, expect={"arch": arch, "num_warps": self.num_warps, "num_stages": self.num_stages,
                             "descriptor_ranks": ranks}, only=cache.LAUNCH_FILES)
            if entry is not None:
                fields = entry.fields
                # The stages before PTX are read from the entry when first
                # asked for: a warm launch needs only the cubin.
                stages = StageIR({}, {stage: functools.partial(self._cached_stage, key, arch, stage)
                                      for stage in cache.STAGE_FILES if stage != "ptx"})
                compiled = CompiledIR.from_parts(fields["name"], entry.files[cache.STAGE_FILES["ptx"]].decode(),
                                                 int(fields["shared_bytes"]), int(fields["num_warps"]), arch,
                                                 stages, fields.get("tensor_maps", ()))
                cubin = entry.files.get(cache.CUBIN_FILE)
                if "links" in fields:
                    self.link_info[arch] = {k: int(fields[k]) for k in ("min_blocks_per_sm", "links")}
            if entry is None or (need_cubin and cubin is None):
                if compiled is None:
                    # From the located text, so that errors of the lowering
                    # (an unsupported tl.dot, say) point at the Python line;
                    # the key above stays location-free.
                    compiled = compile_ir(self.asm["tile-src"], arch=arch, num_warps=self.num_warps,
                                          num_stages=self.num_stages, maxnreg=self.maxnreg,
                                          source_name=f"<tile-ir of {self.name}>",
                                          keep_stages=True)
                if override:
                    compiled = CompiledIR.from_parts(compiled.name, override, compiled.shared_bytes,
                                                     compiled.num_warps, arch, dict(compiled.asm),
                                                     compiled.tensor_maps)
                link_info = {}
                if need_cubin:
                    from tilelang import _C, knobs

                    cubin, link_info = _C.link_kernel(compiled.ptx, compiled.name, knobs.occupancy_search(),
                                                      compiled.shared_bytes)
                    self.link_info[arch] = dict(link_info)
                fields = {"name": compiled.name, "shared_bytes": compiled.shared_bytes,
                          "num_warps": compiled.num_warps, "num_stages": self.num_stages, "arch": arch,
                          **({"maxnreg": self.maxnreg} if self.maxnreg else {}),
                          **link_info,
                          "tensor_maps": compiled.tensor_maps,
                          "signature": self.signature, "constexprs": {k: repr(v) for k, v in self.constexprs.items()}}
                if not override:
                    cache.store(key, compiled.asm, cubin, fields, replace=entry is not None)
                    cache.dump_ir(compiled.name, key, compiled.asm)
            if self._index_key is not None:
                from tilelang import ir_index

                ir_index.store(self._index_key, self.name, self.asm["tile-src"], self.asm["tile"], self.arg_names)
                self._index_key = None
            self._ptx[arch] = compiled
            if cubin is not None:
                self._cubin[arch] = cubin
        for stage in ("tilegpu", "llvm", "llvm-ir", "ptx"):
            if stage in compiled.asm:
                self.asm.share(stage, compiled.asm)
        return compiled, cubin

    def _cached_stage(self, key: str, arch: str, stage: str) -> str:
        """``stage``'s IR for ``arch`` from cache entry ``key``; compiled
        again if the entry has gone or no longer validates since the
        launch read it."""
        from tilelang import cache
        from tilelang.ir import compile_ir

        texts = self._stage_texts.get(arch)
        if texts is None or stage not in texts:
            texts = cache.read_stages(key)
            if texts is None or stage not in texts:
                texts = compile_ir(self.asm["tile-src"], arch=arch, num_warps=self.num_warps,
                                   num_stages=self.num_stages, maxnreg=self.maxnreg,
                                   source_name=f"<tile-ir of {self.name}>", keep_stages=True).asm
            self._stage_texts[arch] = texts
        return texts[stage]

    def _loaded_attribute(self, name: str):
        """`name` of the kernel loaded for the current GPU, or None before
        it is loaded (a first launch or ``launchable`` loads it)."""
        loaded = self._loaded.get(_current_arch()) if self._loaded else None
        return getattr(loaded, name) if loaded is not None else None

    @property
    def n_regs(self) -> Optional[int]:
        """Registers a thread uses, as the driver reports (Triton's
        ``n_regs``); None until the kernel is loaded on this GPU."""
        return self._loaded_attribute("registers")

    @property
    def n_spills(self) -> Optional[int]:
        """Local-memory bytes a thread uses (register spills and local
        arrays), as the driver reports (Triton's ``n_spills``); None until
        the kernel is loaded on this GPU."""
        return self._loaded_attribute("local_bytes")

    def _may_write(self) -> frozenset:
        """The parameters (of ``arg_names``) the kernel may write memory
        through, by the compiler's analysis (``findWrittenArguments``:
        sound, not precise); computed when first asked, for the launch of
        a read-only array."""
        if self._written is None:
            from tilelang.ir import _native

            result = _native().find_written_arguments(self.asm["tile"], f"<tile-ir of {self.name}>")
            if not result.success or len(result.may_write) != len(self.arg_names):
                # Unreachable for IR the frontend made; every pointer then
                # counts as written.
                self._written = frozenset(self.arg_names)
            else:
                self._written = frozenset(name for name, written in zip(self.arg_names, result.may_write)
                                          if written)
        return self._written

    def launchable(self, arch: str):
        """The kernel compiled for ``arch`` and loaded into the current
        device's primary context (once per process); a launch whose tensors
        are on another device loads it there too (docs/runtime.md, "Several
        devices")."""
        loaded = self._loaded.get(arch)
        if loaded is not None:
            return loaded
        from tilelang import _C

        compiled, cubin = self._build(arch, need_cubin=True)
        kinds = "".join(_arg_kind(self.signature[name], name) for name in self.arg_names)
        loaded = _C.Kernel.load_image(cubin, compiled.name, compiled.shared_bytes, self.num_warps, kinds,
                                      compiled.tensor_maps, arg_names=list(self.arg_names))
        self._loaded[arch] = loaded
        return loaded


def _arg_kind(type_text: str, name: str) -> str:
    """How the launcher packs an argument of this signature type."""
    if type_text.startswith("*"):
        return "p"
    if type_text.startswith("tensordesc<"):
        return str(len(tlc.dtype_from_string(type_text).block_shape))
    kinds = {"i1": "b", "i8": "i", "i16": "i", "i32": "i", "u8": "I", "u16": "I", "u32": "I",
             "i64": "l", "u64": "L", "fp32": "f", "fp64": "d"}
    if type_text not in kinds:
        raise TypeError(f"cannot pass a scalar of type {type_text} for '{name}' to a kernel yet")
    return kinds[type_text]


_ARCH = []


def _current_arch() -> str:
    """sm_XX of the device (sm_90a on Hopper, for wgmma and TMA). Read once:
    a process drives GPUs of one architecture."""
    if not _ARCH:
        from tilelang import _C

        major, minor = _C.device_info()["capability"]
        arch = f"sm_{major}{minor}"
        _ARCH.append(arch + "a" if (major, minor) == (9, 0) else arch)
    return _ARCH[0]


def _arch_or_default() -> str:
    """The current GPU's sm_XX, or sm_90a where no GPU or driver is found."""
    try:
        return _current_arch()
    except Exception:  # noqa: BLE001 - no driver, no device: compile for Hopper
        return "sm_90a"


_TORCH_DTYPES = {
    "float16": "fp16", "half": "fp16", "bfloat16": "bf16", "float32": "fp32", "float": "fp32",
    "float64": "fp64", "double": "fp64", "int8": "i8", "int16": "i16", "int32": "i32",
    "int64": "i64", "long": "i64", "int": "i32", "uint8": "u8", "uint16": "u16", "uint32": "u32",
    "uint64": "u64", "bool": "i1", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
    "short": "i16",
}


# __cuda_array_interface__ typestrs (without the byte-order character).
_TYPESTR_DTYPES = {"f2": "fp16", "f4": "fp32", "f8": "fp64", "i1": "i8", "i2": "i16", "i4": "i32", "i8": "i64",
                   "u1": "u8", "u2": "u16", "u4": "u32", "u8": "u64", "b1": "i1"}

# Byte-order characters of typestrs that GPUs read as they are (kernels
# read little-endian data): little-endian, not applicable (one byte), and
# native where the host is little-endian.
_LITTLE_ENDIAN_ORDERS = "<|" + ("=" if sys.byteorder == "little" else "")


def _checked_address(value, name: str, what: str, source: str) -> int:
    """The address a caller's tensor or array (`what`, passed for `name`)
    gives through `source`: an int in [0, 2**64), or a TypeError or
    ValueError saying what it is instead."""
    if isinstance(value, bool) or not isinstance(value, int):
        if source == "data_ptr()":
            raise callers_error(TypeError, f"data_ptr() of the {what} passed for '{name}' returned a "
                                           f"{type(value).__name__}, not an int")
        raise callers_error(TypeError, f"the {what} passed for '{name}' has an address of type "
                                       f"{type(value).__name__} ({source}); it must be an int")
    if not 0 <= value < 2**64:
        raise callers_error(ValueError, f"the {what} passed for '{name}' has the address {value} ({source}); "
                                        f"an address is in [0, 2**64)")
    return value


def _cuda_array(interface, name: str):
    """(element type, address, read-only) of an array known by its
    ``__cuda_array_interface__`` (CuPy, Numba, JAX), passed for `name`.

    A kernel gets the address of the array's first element and nothing
    else, as with a torch tensor's ``data_ptr()`` in Triton: ``shape`` and
    ``strides`` (of a view) are the kernel's to be given as arguments.
    What it cannot take as it is raises: a big-endian element type, a mask
    (an array of its own to pass). A read-only array is refused once the
    kernel is compiled, if it may write through it (``_prepare_launch``).
    """
    typestr = interface.get("typestr") if isinstance(interface, dict) else None
    elem = _TYPESTR_DTYPES.get(typestr[1:]) if isinstance(typestr, str) else None
    if elem is None or typestr[0] not in "<>|=":
        raise callers_error(TypeError, f"unsupported __cuda_array_interface__ typestr {typestr!r} for '{name}'")
    if typestr[0] not in _LITTLE_ENDIAN_ORDERS and typestr[2:] != "1":
        raise callers_error(TypeError, f"the array passed for '{name}' is big-endian (typestr {typestr!r}); "
                                       f"kernels read little-endian data")
    if interface.get("mask") is not None:
        raise callers_error(ValueError, f"the array passed for '{name}' has a mask (__cuda_array_interface__"
                                        f"['mask']); kernels take the data only: pass the mask as an array of "
                                        f"its own")
    data = interface.get("data")
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise callers_error(TypeError, f"the array passed for '{name}' has no (address, read-only) pair in "
                                       f"__cuda_array_interface__['data']")
    address = _checked_address(data[0], name, "array", "__cuda_array_interface__['data'][0]")
    return elem, address, bool(data[1])


def _dtype_string(dt) -> Optional[str]:
    if isinstance(dt, tlc.dtype):
        return dt.name if not dt.is_ptr() else None
    text = str(dt)
    if text.startswith("torch."):
        text = text[len("torch."):]
    if text in _TORCH_DTYPES:
        return _TORCH_DTYPES[text]
    try:
        tlc.dtype_from_string(text)
        return text
    except ValueError:
        return None


def _key_part(value):
    try:
        hash(value)
        return (type(value).__name__, value)
    except TypeError:
        return (type(value).__name__, repr(value))


class _Launcher:
    """``kernel[grid]`` when the compiled extension is missing: calling it
    goes through the slow path, which raises the extension's import error."""

    def __init__(self, kernel, grid):
        self.kernel = kernel
        self.grid = grid

    def __call__(self, *args, **kwargs):
        return self.kernel._slow_launch(self.grid, args, kwargs, None)


try:  # kernel[grid] in C (python/src/Launcher.cpp) when the extension is built
    from tilelang._C import Subscriptable as _Subscriptable
except ImportError:  # pragma: no cover - exercised only when unbuilt
    _Subscriptable = object


class JITFunction(_Subscriptable):
    """A ``@tilelang.jit`` kernel (or helper called from kernels).

    ``kernel[grid]`` is implemented by the C base class: after the first
    subscript made the kernel's Dispatcher, it returns a ``BoundLaunch``
    without running Python, and calling that launches (see docs/runtime.md).
    """

    def __init__(self, fn, do_not_specialize: Iterable[Union[int, str]] = (),
                 debug: Optional[bool] = None, noinline: bool = False, interpret: bool = False):
        self.fn = fn
        # Launches run in the CPU interpreter (also with TILELANG_INTERPRET=1).
        self.interpret = interpret
        functools.update_wrapper(self, fn)
        self.params = list(inspect.signature(fn).parameters)
        self.do_not_specialize = set()
        for item in do_not_specialize:
            self.do_not_specialize.add(self.params[item] if isinstance(item, int) else item)
        self.debug = debug
        self.noinline = noinline
        self.cache: Dict[Any, CompiledKernel] = {}
        self._dispatcher = None
        self._constexpr_positions = {i for i, name in enumerate(self.params) if self.is_constexpr(name)}
        self._info = None

    # -- parsing -----------------------------------------------------------------------

    def info(self):
        if self._info is None:
            from tilelang.frontend.codegen import FunctionInfo

            self._info = FunctionInfo(self.fn)
        return self._info

    def _def_error(self, message: str) -> CompilationError:
        code = self.fn.__code__
        try:
            info = self.info()
            file, line, col = info.location(info.fndef)
        except CompilationError:
            file, line, col = code.co_filename, code.co_firstlineno, 1
        return CompilationError([Diagnostic("error", message, file, line, col)])

    def is_constexpr(self, name: str) -> bool:
        ann = self.fn.__annotations__.get(name)
        if isinstance(ann, str):
            return ann.split(".")[-1] == "constexpr"
        return ann is tlc.constexpr

    # -- compilation ---------------------------------------------------------------------

    def compile(self, signature: Union[Dict[str, str], str, Iterable[str]], constexprs=None,
                specialization=None, num_warps: int = 4, num_stages: int = 3,
                debug: Optional[bool] = None, maxnreg: Optional[int] = None) -> CompiledKernel:
        """Compiles one specialization ahead of time; raises CompilationError.
        ``maxnreg`` caps the registers a thread may use (Triton's option)."""
        num_warps, num_stages, maxnreg = check_launch_options(num_warps, num_stages, maxnreg)
        constexprs = dict(constexprs or {})
        for key, value in list(constexprs.items()):
            if isinstance(key, int):
                constexprs[self.params[key]] = constexprs.pop(key)
        if isinstance(signature, str):
            # Commas inside tensordesc<bf16[128,64]> do not separate types.
            signature = [s for s in re.split(r",(?![^\[]*\])", signature.replace(" ", "")) if s]
        if not isinstance(signature, dict):
            runtime = [p for p in self.params if not self.is_constexpr(p) and p not in constexprs]
            signature = list(signature)
            if len(signature) != len(runtime):
                raise self._def_error(f"the signature has {len(signature)} types but "
                                      f"{self.__name__} has {len(runtime)} run-time parameters")
            signature = dict(zip(runtime, signature))
        types = {}
        sig_text = {}
        for name, text in signature.items():
            if name not in self.params:
                raise self._def_error(f"the signature names an unknown parameter '{name}'")
            if text == "constexpr":
                if name not in constexprs:
                    raise self._def_error(f"no value given for the constexpr parameter '{name}'")
                continue
            if name in constexprs:
                continue
            try:
                types[name] = tlc.dtype_from_string(str(text))
            except ValueError:
                raise self._def_error(f"invalid type {text!r} for the parameter '{name}'") from None
            # One spelling per type, so that equal signatures share a key.
            sig_text[name] = types[name].name if isinstance(types[name], tlc.tensor_descriptor_type) else str(text)
        if specialization is None:
            specialization = {}
        elif not isinstance(specialization, dict):
            specialization = {name: 16 for name in specialization}
        specialization = {k: int(v) for k, v in specialization.items()
                          if v and (k in types or k.partition(".")[0] in types)}
        debug = self.debug if debug is None else debug
        debug = bool(debug) if debug is not None else knobs.debug()
        key = (
            tuple(sorted(sig_text.items())),
            tuple(sorted((k, _key_part(v)) for k, v in constexprs.items())),
            tuple(sorted(specialization.items())),
            num_warps, num_stages, debug, maxnreg,
        )
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        # A specialization another process put through the frontend is
        # read from the tile-IR index instead (tilelang.ir_index).
        from tilelang import ir_index

        index_key = ir_index.key(self, sig_text, constexprs, specialization, num_warps, num_stages, debug, maxnreg)
        record = ir_index.load(index_key) if index_key else None
        if record is not None:
            kernel = self._from_index(record, sig_text, constexprs, specialization, num_warps, num_stages, maxnreg)
        else:
            kernel = self._compile(types, sig_text, constexprs, specialization, num_warps, num_stages, debug,
                                   maxnreg)
            # Written with the kernel's cache entry (CompiledKernel._build),
            # into a cache directory that is there and trusted by then.
            kernel._index_key = index_key
        self.cache[key] = kernel
        return kernel

    def _from_index(self, record, sig_text, constexprs, specialization, num_warps, num_stages, maxnreg):
        """The CompiledKernel of an index record (see compile)."""
        from tilelang.ir import run_pipeline

        text, buffer = record["tile_src"], f"<tile-ir of {self.__name__}>"
        asm = StageIR({"tile-src": text, "tile": record["tile"]},
                      {"tile-opt": lambda: run_pipeline(text, "canonicalize,cse", source_name=buffer)})
        return CompiledKernel(record["name"], dict(sig_text), dict(constexprs), dict(specialization), num_warps,
                              num_stages, asm, list(record["runtime"]), 0.0, maxnreg)

    def _compile(self, types, sig_text, constexprs, specialization, num_warps, num_stages, debug, maxnreg=None):
        from tilelang.frontend.codegen import generate
        from tilelang.ir import run_pipeline

        start = time.perf_counter()
        try:
            text, runtime = generate(self, types, constexprs, specialization, debug)
        except CompilationError:
            raise
        except RecursionError:
            raise self._def_error("the kernel is nested too deeply") from None
        except Exception as exc:  # noqa: BLE001 - never let another exception escape
            raise self._def_error(f"internal error: {type(exc).__name__}: {exc}") from exc
        elapsed = time.perf_counter() - start
        # Ops carry loc()s into the Python file, so diagnostics name it and
        # show its lines; the buffer name only shows for ops without one.
        buffer = f"<tile-ir of {self.__name__}>"
        verified = run_pipeline(text, "", source_name=buffer)
        # tile-opt is for people reading the IR: computed when first read, so
        # a launch (and a warm start from the disk cache) does not pay for it.
        asm = StageIR({"tile-src": text, "tile": verified},
                      {"tile-opt": lambda: run_pipeline(text, "canonicalize,cse", source_name=buffer)})
        return CompiledKernel(self.info().fndef.name, dict(sig_text), dict(constexprs),
                              dict(specialization), num_warps, num_stages, asm, runtime, elapsed, maxnreg)

    def specialize(self, *args, **kwargs):
        """(signature, constexprs, specialization) for a call with these
        arguments; a TypeError or ValueError naming the argument that cannot
        be passed to a kernel."""
        return self._specialize(args, kwargs)[:3]

    def _specialize(self, args, kwargs):
        """specialize(), and what a launch checks once the kernel is
        compiled: the parameters given read-only arrays, and those given
        tensors that are not on the GPU."""
        try:
            bound = inspect.signature(self.fn).bind(*args, **kwargs)
        except TypeError as exc:
            raise callers_error(TypeError, f"{self.__name__}(): {exc}") from None
        bound.apply_defaults()
        signature, constexprs, specialization = {}, {}, {}
        read_only, on_host = [], []
        for name, value in bound.arguments.items():
            value = tlc._unwrap(value)
            nospec = name in self.do_not_specialize
            if self.is_constexpr(name):
                if hasattr(value, "data_ptr"):
                    raise callers_error(TypeError, f"the constexpr parameter '{name}' got a tensor")
                constexprs[name] = value
            elif value is None or isinstance(value, (tlc.dtype, str, JITFunction)):
                constexprs[name] = value
            elif isinstance(value, bool):
                signature[name] = "i1"
            elif isinstance(value, int):
                if value == 1 and not nospec:
                    constexprs[name] = 1
                    continue
                if -(2**31) <= value < 2**31:
                    signature[name] = "i32"
                elif 2**31 <= value < 2**32:
                    signature[name] = "u32"
                elif -(2**63) <= value < 2**63:
                    signature[name] = "i64"
                elif 2**63 <= value < 2**64:
                    signature[name] = "u64"
                else:
                    raise callers_error(ValueError, f"the integer {value} for '{name}' does not fit in 64 bits")
                if value % 16 == 0 and not nospec:
                    specialization[name] = 16
            elif isinstance(value, float):
                signature[name] = "fp32"
            elif hasattr(value, "block_shape") and hasattr(value, "base"):
                signature[name], shape_classes = self._descriptor_signature(name, value)
                specialization.update(shape_classes)
            elif hasattr(value, "data_ptr") and hasattr(value, "dtype"):
                elem = _dtype_string(value.dtype)
                if elem is None:
                    raise callers_error(TypeError, f"unsupported tensor dtype {value.dtype} for '{name}'")
                signature[name] = "*" + elem
                address = _checked_address(value.data_ptr(), name, "tensor", "data_ptr()")
                if address % 16 == 0 and not nospec:
                    specialization[name] = 16
                if getattr(value, "is_cuda", True) is False:
                    on_host.append((name, value))
            elif hasattr(value, "__cuda_array_interface__"):
                elem, address, readonly = _cuda_array(value.__cuda_array_interface__, name)
                signature[name] = "*" + elem
                if address % 16 == 0 and not nospec:
                    specialization[name] = 16
                if readonly:
                    read_only.append(name)
            else:
                raise callers_error(TypeError, f"unsupported argument type {type(value).__name__} for '{name}'")
        return signature, constexprs, specialization, read_only, on_host

    def _descriptor_signature(self, name, desc):
        """``tensordesc<bf16[128,64]>`` and the extents' divisibility (keys
        ``name.shape0``...) of a TensorDescriptor (tilelang's or Triton's);
        a clear error when it breaks the descriptor rules."""
        from tilelang.tensor_descriptor import check_descriptor

        try:
            check_descriptor(desc.base, list(desc.shape), list(desc.strides), list(desc.block_shape),
                             getattr(desc, "padding", "zero"))
        except (TypeError, ValueError) as exc:
            kind = TypeError if isinstance(exc, TypeError) else ValueError
            raise callers_error(kind, f"the tensor descriptor passed for '{name}': {exc}") from None
        elem = _dtype_string(desc.base.dtype)
        if elem is None or elem == "i1":
            raise callers_error(TypeError, f"unsupported tensor descriptor dtype {desc.base.dtype} for '{name}'")
        block = ",".join(str(int(d)) for d in desc.block_shape)
        classes = {f"{name}.shape{i}": 16 for i, extent in enumerate(desc.shape) if int(extent) % 16 == 0}
        return f"tensordesc<{elem}[{block}]>", classes

    def _prepare_launch(self, args, kwargs, num_warps, num_stages, maxnreg=None):
        """Specializes, compiles and loads; returns what later launches need:
        the loaded kernel, where each run-time argument comes from (an index
        into the positional arguments, or a keyword), and the compiled kernel."""
        signature, constexprs, specialization, read_only, on_host = self._specialize(args, kwargs)
        if on_host:
            name, value = on_host[0]
            raise callers_error(ValueError, f"the tensor passed for '{name}' is on "
                                            f"{getattr(value, 'device', 'the CPU')}; kernels take CUDA tensors")
        compiled = self.compile(signature, constexprs, specialization, num_warps, num_stages, maxnreg=maxnreg)
        # Read-only arrays (JAX's, for one) may be read, never written.
        for name in read_only:
            if name in compiled._may_write():
                raise callers_error(ValueError, f"the array passed for '{name}' is read-only "
                                                f"(__cuda_array_interface__['data'][1]), and {self.__name__} may "
                                                f"write through '{name}'")
        positions = []
        for name in compiled.arg_names:
            index = self.params.index(name)
            positions.append(index if index < len(args) else name)
        if any(type(p) is str and p not in kwargs for p in positions):
            raise callers_error(TypeError, f"{self.__name__}(): run-time parameters with default values must be "
                                           f"passed explicitly")
        launchable = compiled.launchable(_current_arch())
        return launchable, positions, compiled

    def warmup(self, *args, grid=None, num_warps: int = 4, num_stages: int = 3, maxnreg: Optional[int] = None,
               num_ctas: int = 1, **kwargs) -> CompiledKernel:
        """Compiles for these arguments without launching (Triton's ``warmup``)."""
        num_warps, num_stages, maxnreg = check_launch_options(num_warps, num_stages, maxnreg, num_ctas)
        for option, value in (("num_warps", num_warps), ("num_stages", num_stages), ("maxnreg", maxnreg)):
            if option in self.params and option not in kwargs:
                kwargs[option] = value
        signature, constexprs, specialization = self.specialize(*args, **kwargs)
        return self.compile(signature, constexprs, specialization, num_warps, num_stages, maxnreg=maxnreg)

    # -- calling ----------------------------------------------------------------------------

    def _subscript_slow(self, grid):
        """``kernel[grid]`` before the Dispatcher exists: make it, hand it to
        the C base, and subscript through it."""
        if self._dispatcher is None and (self.interpret or knobs.interpret()):
            from tilelang.interpreter import Launcher

            return Launcher(self, grid)  # no Dispatcher: every launch comes back here
        dispatcher = self._dispatcher or self._make_dispatcher()
        if dispatcher is None:
            return _Launcher(self, grid)
        self._set_dispatcher(dispatcher)
        return self[grid]

    if _Subscriptable is object:  # pragma: no cover - no extension

        def __getitem__(self, grid):
            return _Launcher(self, grid)

    def run(self, *args, grid=None, **kwargs):
        return self[grid](*args, **kwargs)

    def _make_dispatcher(self):
        """The C++ fast path of ``kernel[grid](...)`` (None without the
        compiled extension; launching then raises its import error)."""
        try:
            from tilelang import _C
        except ImportError:
            return None
        constexprs = [name for name in self.params if self.is_constexpr(name)]
        self._dispatcher = _C.Dispatcher(self.params, constexprs, (tlc.dtype, JITFunction), self._slow_launch)
        return self._dispatcher

    def _slow_launch(self, grid, args, kwargs, key):
        """A launch whose argument key is new (or cannot be keyed): specialize,
        compile, load, register the result under ``key``, launch."""
        from tilelang.ir import _native

        _native()  # the extension's import error, when it is missing
        launch_kwargs = dict(kwargs)
        num_warps = launch_kwargs.pop("num_warps", 4)
        num_stages = launch_kwargs.pop("num_stages", 3)
        maxnreg = launch_kwargs.pop("maxnreg", None)
        num_ctas = launch_kwargs.pop("num_ctas", 1) if "num_ctas" not in self.params else 1
        num_warps, num_stages, maxnreg = check_launch_options(num_warps, num_stages, maxnreg, num_ctas)
        # Launch options a kernel also declares as parameters reach it too
        # (Triton's tutorials pass num_stages to the kernel this way).
        for option, value in (("num_warps", num_warps), ("num_stages", num_stages), ("maxnreg", maxnreg)):
            if option in self.params and option not in launch_kwargs:
                launch_kwargs[option] = value
        launchable, positions, compiled = self._prepare_launch(args, launch_kwargs, num_warps, num_stages, maxnreg)
        # A later call with the same key finds everything in C++, provided
        # each keyword argument it needs is one the caller passes.
        if key is not None and self._dispatcher is not None and \
                all(type(p) is int or p in kwargs for p in positions):
            self._dispatcher.insert(key, launchable, positions, compiled, dict(compiled.constexprs))
        if callable(grid):
            meta = dict(zip(self.params, args))
            meta.update(launch_kwargs)
            meta.update(compiled.constexprs)
            grid = grid(meta)
        if isinstance(grid, list):
            grid = tuple(grid)
        try:
            # On the device of the tensors, on torch's current stream there
            # (stream None).
            launchable.launch(grid, None, *[args[i] if type(i) is int else launch_kwargs[i] for i in positions])
        except (TypeError, ValueError) as exc:
            # The launcher's checks of the grid and of what it packs.
            mark_callers_error(exc)
            raise
        return compiled

    def __call__(self, *args, **kwargs):
        if tlc._INTERPRETING:  # called from an interpreted kernel
            from tilelang.interpreter import call

            return call(self, args, kwargs)
        raise RuntimeError(f"{self.__name__} is a @tilelang.jit function: launch it with "
                           f"{self.__name__}[grid](...), or call it from another @tilelang.jit function")

    def __repr__(self) -> str:
        return f"JITFunction({self.fn.__module__}:{self.fn.__qualname__})"


def jit(fn=None, *, do_not_specialize: Iterable[Union[int, str]] = (), debug: Optional[bool] = None,
        noinline: bool = False, interpret: bool = False, **kwargs):
    """Decorates a kernel: ``@tilelang.jit`` or ``@tilelang.jit(do_not_specialize=[...])``;
    ``interpret=True`` runs its launches in the CPU interpreter (docs/interpreter.md)."""
    for option in LAUNCH_OPTIONS:
        if option in kwargs:
            raise TypeError(f"{option} is a launch option, not an option of @tilelang.jit: give it at launch "
                            f"(kernel[grid](..., {option}=...)), to warmup, or in tilelang.Config")

    def decorator(f):
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug, noinline=noinline,
                           interpret=interpret)

    return decorator(fn) if fn is not None else decorator
