"""``@tilelang.jit``: kernels from Python functions, specialized and cached.

A ``JITFunction`` (a ``frontend.function.KernelFunction`` that compiles and
launches) keeps the decorated function; nothing is parsed until the first
compile. ``kernel.compile(signature, ...)`` (ahead of time) and
``kernel.warmup(*args, ...)`` (signature derived from the arguments) run the
frontend, verify the tile IR with libtilelang and return a ``CompiledKernel``
(tilelang/compiled.py) whose ``asm`` holds the IR of each stage. Compiled kernels are cached in
memory by their specialization. ``kernel[grid](*args)`` specializes,
compiles (frontend -> tile IR -> PTX for the current GPU), loads the kernel
through the CUDA driver once per specialization and launches it on torch's
current stream.
"""

from __future__ import annotations

import inspect
import re
import sys
import time
from typing import Any, Dict, Iterable, Optional, Union

from tilelang import ir_index, knobs
from tilelang.compiled import CompiledKernel, StageIR, _current_arch  # noqa: F401 - re-exported
from tilelang.errors import CompilationError, callers_error, mark_callers_error
from tilelang.frontend import codegen
from tilelang.frontend.function import KernelFunction
from tilelang.integers import cdiv, next_power_of_2
from tilelang.ir import _native, run_pipeline
from tilelang.language import core as tlc
from tilelang.options import (  # noqa: F401 - LAUNCH_OPTIONS and check_num_ctas re-exported
    DEFAULT_OPTIONS, LAUNCH_OPTIONS, check_launch_options, check_num_ctas, take_launch_options,
)

__all__ = ["jit", "JITFunction", "CompiledKernel", "cdiv", "next_power_of_2"]


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


# The largest divisibility an integer argument is specialized for. Triton
# specializes integers for 16 only; tilelang records the largest power of two
# up to 16 that divides the value, so that a ragged extent or stride (N = 3000:
# rows of 3000 bf16 start 16 bytes apart) still gives aligned vector copies.
# The launcher's key (python/src/Dispatcher.cpp, integerClass) tells the same
# classes apart; the two must agree.
MAX_INTEGER_DIVISIBILITY = 16


def integer_divisibility(value: int) -> int:
    """The largest power of two up to MAX_INTEGER_DIVISIBILITY dividing
    ``value`` (0 counts as divisible by everything); 1 for odd values."""
    return MAX_INTEGER_DIVISIBILITY if value == 0 else min(value & -value, MAX_INTEGER_DIVISIBILITY)


# What a launch with host memory says after "kernels take CUDA tensors".
_ON_THE_CPU = (" (or arrays with __cuda_array_interface__); the CPU interpreter runs kernels on NumPy arrays and CPU "
               "tensors (TILELANG_INTERPRET=1, or @tilelang.jit(interpret=True): docs/interpreter.md)")


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


try:  # kernel[grid] in C (python/src/LaunchTypes.cpp) when the extension is built
    from tilelang._C import Subscriptable as _Subscriptable
except ImportError:  # pragma: no cover - exercised only when unbuilt
    _Subscriptable = object


class JITFunction(KernelFunction, _Subscriptable):
    """A ``@tilelang.jit`` kernel (or helper called from kernels).

    ``kernel[grid]`` is implemented by the C base class: after the first
    subscript made the kernel's Dispatcher, it returns a ``BoundLaunch``
    without running Python, and calling that launches (see docs/runtime.md).
    """

    def __init__(self, fn, do_not_specialize: Iterable[Union[int, str]] = (),
                 debug: Optional[bool] = None, noinline: bool = False, interpret: bool = False):
        KernelFunction.__init__(self, fn, do_not_specialize, debug, noinline)
        # Launches run in the CPU interpreter (also with TILELANG_INTERPRET=1).
        self.interpret = interpret
        self.cache: Dict[Any, CompiledKernel] = {}
        self._dispatcher = None
        self._launched_on_gpu = False  # TILELANG_INTERPRET is read until then
        self._constexpr_positions = {i for i, name in enumerate(self.params) if self.is_constexpr(name)}

    # -- compilation ---------------------------------------------------------------------

    def compile(self, signature: Union[Dict[str, str], str, Iterable[str]], constexprs=None,
                specialization=None, num_warps: int = DEFAULT_OPTIONS.num_warps,
                num_stages: int = DEFAULT_OPTIONS.num_stages, debug: Optional[bool] = None,
                maxnreg: Optional[int] = DEFAULT_OPTIONS.maxnreg) -> CompiledKernel:
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
        # The link knobs too: a CompiledKernel keeps the cubin it linked
        # first, and another value links another (tilelang.knobs).
        key = (
            tuple(sorted(sig_text.items())),
            tuple(sorted((k, _key_part(v)) for k, v in constexprs.items())),
            tuple(sorted(specialization.items())),
            num_warps, num_stages, debug, maxnreg, knobs.link_state(),
        )
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        # A specialization another process put through the frontend is
        # read from the tile-IR index instead (tilelang.ir_index).
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
        text, buffer = record["tile_src"], f"<tile-ir of {self.__name__}>"
        asm = StageIR({"tile-src": text, "tile": record["tile"]},
                      {"tile-opt": lambda: run_pipeline(text, "canonicalize,cse", source_name=buffer)})
        return CompiledKernel(record["name"], dict(sig_text), dict(constexprs), dict(specialization), num_warps,
                              num_stages, asm, list(record["runtime"]), 0.0, maxnreg)

    def _compile(self, types, sig_text, constexprs, specialization, num_warps, num_stages, debug, maxnreg=None):
        start = time.perf_counter()
        try:
            text, runtime = codegen.generate(self, types, constexprs, specialization, debug)
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
                divisibility = integer_divisibility(value)
                if divisibility > 1 and not nospec:
                    specialization[name] = divisibility
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
            elif hasattr(value, "__array_interface__"):
                raise callers_error(TypeError, f"the {type(value).__name__} passed for '{name}' is in host memory; "
                                               f"kernels take CUDA tensors{_ON_THE_CPU}")
            else:
                raise callers_error(TypeError, f"unsupported argument type {type(value).__name__} for '{name}'")
        return signature, constexprs, specialization, read_only, on_host

    def _descriptor_signature(self, name, desc):
        """``tensordesc<bf16[128,64]>`` and the extents' divisibility (keys
        ``name.shape0``..., integer_divisibility's classes) of a
        TensorDescriptor (tilelang's or Triton's);
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
        # Extents by the classes integers get (a 1000-wide extent is a
        # multiple of 8: whole 16-byte vectors of 2-byte elements are in or
        # out of bounds together where the access is expanded to pointers).
        classes = {f"{name}.shape{i}": integer_divisibility(int(extent)) for i, extent in enumerate(desc.shape)
                   if integer_divisibility(int(extent)) > 1}
        return f"tensordesc<{elem}[{block}]>", classes

    def _prepare_launch(self, args, kwargs, num_warps, num_stages, maxnreg=None):
        """Specializes, compiles and loads; returns what later launches need:
        the loaded kernel, where each run-time argument comes from (an index
        into the positional arguments, or a keyword), and the compiled kernel."""
        signature, constexprs, specialization, read_only, on_host = self._specialize(args, kwargs)
        if on_host:
            name, value = on_host[0]
            raise callers_error(ValueError, f"the tensor passed for '{name}' is on "
                                            f"{getattr(value, 'device', 'the CPU')}; kernels take CUDA tensors"
                                            f"{_ON_THE_CPU}")
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

    def warmup(self, *args, grid=None, num_warps: int = DEFAULT_OPTIONS.num_warps,
               num_stages: int = DEFAULT_OPTIONS.num_stages, maxnreg: Optional[int] = DEFAULT_OPTIONS.maxnreg,
               num_ctas: int = DEFAULT_OPTIONS.num_ctas, **kwargs) -> CompiledKernel:
        """Compiles for these arguments without launching (Triton's ``warmup``)."""
        num_warps, num_stages, maxnreg = check_launch_options(num_warps, num_stages, maxnreg, num_ctas)
        for option, value in (("num_warps", num_warps), ("num_stages", num_stages), ("maxnreg", maxnreg)):
            if option in self.params and option not in kwargs:
                kwargs[option] = value
        signature, constexprs, specialization = self.specialize(*args, **kwargs)
        return self.compile(signature, constexprs, specialization, num_warps, num_stages, maxnreg=maxnreg)

    # -- calling ----------------------------------------------------------------------------

    def _subscript_slow(self, grid):
        """``kernel[grid]`` while the C base has no Dispatcher: the
        interpreter where interpret=True or TILELANG_INTERPRET asks for it
        (no Dispatcher: every launch comes back here, and the knob is read
        at each), else the Dispatcher, handed to the C base and subscripted
        through. _slow_launch takes it back where no launch has succeeded
        yet, so that a kernel whose first GPU launch failed (NumPy arrays
        on a machine without a GPU, say) can still be interpreted."""
        if self.interpreting():
            from tilelang.interpreter import Launcher

            return Launcher(self, grid)
        dispatcher = self._dispatcher or self._make_dispatcher()
        if dispatcher is None:
            return _Launcher(self, grid)
        self._set_dispatcher(dispatcher)
        return self[grid]

    def interpreting(self) -> bool:
        """Whether ``kernel[grid](...)`` runs in the CPU interpreter now:
        ``interpret=True``, or TILELANG_INTERPRET set before the kernel's
        first launch on the GPU (which then keeps it there)."""
        return self.interpret or (not self._launched_on_gpu and knobs.interpret())

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
        try:
            compiled = self._specialize_and_launch(grid, args, kwargs, key)
        except BaseException:
            if not self._launched_on_gpu and self._dispatcher is not None:
                self._set_dispatcher(None)  # back to _subscript_slow (TILELANG_INTERPRET)
            raise
        self._launched_on_gpu = True
        return compiled

    def _specialize_and_launch(self, grid, args, kwargs, key):
        _native()  # the extension's import error, when it is missing
        launch_kwargs = dict(kwargs)
        options = take_launch_options(launch_kwargs, self.params)
        launchable, positions, compiled = self._prepare_launch(args, launch_kwargs, options.num_warps,
                                                               options.num_stages, options.maxnreg)
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

    def resolve_launch(self, args, kwargs):
        """What ``kernel[grid](*args, **kwargs)`` launches, without launching:
        (the loaded kernel, its run-time arguments in order), compiling
        first if needed. For callers that launch again from C++ with other
        tensors of the same kinds (tilelang.ops._autograd)."""
        _native()
        launch_kwargs = dict(kwargs)
        options = take_launch_options(launch_kwargs, self.params)
        launchable, positions, _ = self._prepare_launch(args, launch_kwargs, options.num_warps, options.num_stages,
                                                        options.maxnreg)
        return launchable, [args[i] if type(i) is int else launch_kwargs[i] for i in positions]

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
