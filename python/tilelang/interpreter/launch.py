"""Interpreter: the launch (arguments in, programs one after another,
results out) and the kernel's control flow.

The kernel's Python function runs as Python, once per program, with
interpreter values (values.py) for its tensors. Nothing is translated: the
``tl`` builtins dispatch to ``InterpreterSemantic`` while a launch is under
way (``tilelang.language.core`` finds it on its ``_INTERPRETING`` list), ``@jit`` helpers called
from the kernel run the same way, and ``range``/``tl.range`` give loop
variables of the compiler's type (i32, or i64/u64 for wide bounds) while
``tl.static_range`` gives Python ints, as in the compiled kernel. So
``print``, ``breakpoint()`` and ``pdb`` work in the kernel body.

Before the first run of a specialization the frontend compiles it to tile
IR (``JITFunction.compile``: no PTX, no LLVM), so that a kernel the
compiler refuses is refused here with the same located error.
"""

from __future__ import annotations

import builtins
import inspect
from typing import Any, Dict, List

import numpy as np

from tilelang.errors import CompilationError, Diagnostic
from tilelang.frontend.semantic import FrontendError, Semantic, describe
from tilelang.interpreter import control
from tilelang.interpreter.arith import ArithOps
from tilelang.interpreter.atomics import AtomicOps
from tilelang.interpreter.dot import DotOps
from tilelang.interpreter.memory import Descriptor, Memory, MemoryOps
from tilelang.interpreter.reductions import ReduceOps
from tilelang.interpreter.shapes import ShapeOps
from tilelang.interpreter.values import TValue, active, current_semantic, storage  # noqa: F401 - re-exported
from tilelang.language import core as tlc


class InterpreterError(CompilationError):
    """An error found while a kernel ran in the interpreter (an access out
    of bounds, a failed ``tl.device_assert``), located at the kernel's line."""


class _NoIR:
    """The builder of an interpreter semantic: an operation that would emit
    IR here is one the interpreter has not replaced (a gap, never a guess)."""

    def _gap(self, *args, **kwargs):
        raise FrontendError("this operation is not supported by the interpreter yet")

    op = emit = fresh = capture = append_region = _gap


class InterpreterSemantic(MemoryOps, AtomicOps, DotOps, ReduceOps, ShapeOps, ArithOps, Semantic):
    """The frontend's semantic layer with NumPy values instead of IR."""

    def __init__(self, memory: Memory, grid, debug: bool):
        super().__init__(_NoIR(), debug)
        self.memory = memory
        self.type_log = {}  # control.py: the types of run-time branches
        self.grid = grid
        self.pid = (0, 0, 0)
        self.call_jit = lambda jf, args: call(jf, tuple(args), {})

    # -- debugging ----------------------------------------------------------------

    def device_print(self, prefix, args, hex_):
        prefix = tlc._unwrap(prefix)
        vals = [self.require_value(tlc._unwrap(a), "tl.device_print's argument") for a in args]
        hex_ = self.const_bool(hex_, "tl.device_print's hex")
        pid = f"pid ({self.pid[0]}, {self.pid[1]}, {self.pid[2]})"
        if not vals:
            print(f"{pid} {prefix}")
            return None
        shape = self.broadcast_shapes(vals[0].shape, vals[0].shape)
        for index in np.ndindex(*shape) if shape else [()]:
            parts = []
            for v in vals:
                item = np.broadcast_to(v.data, v.shape)[index] if v.shape else v.data[()]
                parts.append(_format(item, v.dtype, hex_))
            idx = f" idx ({', '.join(map(str, index))})" if shape else ""
            print(f"{pid}{idx} {prefix}{' '.join(parts)}")
        return None

    def device_assert(self, cond, msg):
        if not self.debug:
            return None
        cond = tlc._unwrap(cond)
        ok = self.to_bool(cond).data if isinstance(cond, TValue) else bool(cond)
        if not np.all(ok):
            where = ""
            if isinstance(cond, TValue) and cond.shape:
                where = f" at index {tuple(int(i) for i in np.argwhere(~np.broadcast_to(ok, cond.shape))[0])}"
            raise FrontendError(f"device assertion failed in program {self.pid}{where}: {tlc._unwrap(msg)}")
        return None

    def range_loop(self, *args):
        """``tl.range(...)`` iterated in an interpreted kernel (language.core
        asks the active semantic)."""
        return loop(*args)

    def static_range_loop(self, *args):
        """``tl.static_range(...)`` iterated in an interpreted kernel."""
        return iter(static_loop(*args))

    def debug_barrier(self):
        return None


def _format(item, dt, hex_):
    if hex_ and dt.is_int():
        return hex(int(item) & ((1 << dt.int_bitwidth) - 1))
    if dt.is_floating():
        return repr(float(item))
    return str(int(item) if not dt.is_bool() else bool(item))


# ===----------------------------------------------------------------------===#
# The active launch
# ===----------------------------------------------------------------------===#

# The language's list (tlc._INTERPRETING): the builtins look there.
_ACTIVE: List[InterpreterSemantic] = tlc._INTERPRETING


# ===----------------------------------------------------------------------===#
# Control flow: loops and calls
# ===----------------------------------------------------------------------===#


def _loop_type(bounds):
    """The type of a run-time loop's variable (the code generator's rule,
    visit_For): u64 if a bound is u64, i64 if one is 64-bit or u32 or a
    constant outside i32, i32 otherwise."""
    values = [b for b in bounds if isinstance(b, TValue)]
    if any(v.dtype.is_int_unsigned() and v.dtype.int_bitwidth == 64 for v in values):
        return tlc.uint64
    if any(v.dtype.int_bitwidth == 64 or (v.dtype.is_int_unsigned() and v.dtype.int_bitwidth == 32)
           for v in values) or any(not isinstance(b, TValue) and not -(2**31) < b < 2**31 for b in bounds):
        return tlc.int64
    return tlc.int32


def loop(*args):
    """``range(...)``/``tl.range(...)`` in an interpreted kernel."""
    sem = current_semantic()
    args = [tlc._unwrap(a) for a in args]
    if len(args) == 1:
        bounds = [0, args[0], 1]
    elif len(args) == 2:
        bounds = [args[0], args[1], 1]
    else:
        bounds = list(args)
    dt = _loop_type(bounds)
    lb, ub, step = (int(sem.as_value(b, dt, ()).data) for b in bounds)
    if step == 0:
        return
    st = storage(dt)
    for k in builtins.range(lb, ub, step):
        yield TValue(dt, st(k))


def static_loop(*args):
    return builtins.range(*[int(tlc._unwrap(a)) for a in args if a is not None])


def _minmax(fn, kind):
    def patched(*args, **kwargs):
        vals = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        if any(isinstance(tlc._unwrap(v), TValue) for v in vals):
            sem = current_semantic()
            out = vals[0]
            for v in vals[1:]:
                out = sem.minmax(kind, out, v)
            return out
        return fn(*args, **kwargs)

    return patched


def _print(*args, **kwargs):
    if any(isinstance(a, TValue) for a in args):
        prefix = " ".join(str(a) for a in args if isinstance(a, str))
        return current_semantic().device_print(prefix + " " if prefix else "",
                                               [a for a in args if not isinstance(a, str)], False)
    return builtins.print(*args, **kwargs)


_BUILTINS = dict(vars(builtins))
_BUILTINS.update(range=loop, min=_minmax(builtins.min, "min"), max=_minmax(builtins.max, "max"), print=_print)
_BUILTINS.update(control.make_helpers(lambda: current_semantic()))

# JITFunction -> (the function re-bound to interpreter globals, those globals)
_FUNCTIONS: Dict[Any, Any] = {}


def _function(jf):
    """``jf``'s Python function over a copy of its globals (refreshed on
    every launch) in which constexpr globals are plain values and
    ``range``, ``min``, ``max`` and ``print`` are the interpreter's."""
    entry = _FUNCTIONS.get(jf)
    fn = jf.fn
    if entry is None:
        # The function reads its builtins from here once, when it is made.
        g: Dict[str, Any] = {"__builtins__": _BUILTINS}
        entry = _FUNCTIONS[jf] = (control.rewrite(jf, g), g, [None])
    f, g, stamp = entry
    if stamp[0] is not _LAUNCH[0]:
        g.clear()
        g.update(fn.__globals__)
        for name, value in list(g.items()):
            if isinstance(value, tlc.constexpr):
                g[name] = value.value
        g["__builtins__"] = _BUILTINS
        stamp[0] = _LAUNCH[0]
    return f


_LAUNCH = [object()]


def call(jf, args, kwargs):
    """A ``@jit`` function called from an interpreted kernel."""
    args = tuple(tlc._unwrap(a) for a in args)
    kwargs = {k: tlc._unwrap(v) for k, v in kwargs.items()}
    return _function(jf)(*args, **kwargs)


# ===----------------------------------------------------------------------===#
# Arguments
# ===----------------------------------------------------------------------===#

_NUMPY_DTYPES = {"float16": "fp16", "float32": "fp32", "float64": "fp64", "int8": "i8", "int16": "i16",
                 "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
                 "uint64": "u64", "bool": "i1"}


class _HostArray:
    """A NumPy array as the specializer sees a tensor: ``dtype`` and ``data_ptr()``."""

    is_cuda = False

    def __init__(self, array: np.ndarray, name: str, dtype=None):
        if dtype is None:
            elem = _NUMPY_DTYPES.get(array.dtype.name)
            if elem is None:
                from tilelang.errors import callers_error

                raise callers_error(TypeError, f"unsupported array dtype {array.dtype} for '{name}' (pass "
                                               f"tilelang.interpreter.typed(array, dtype) for bf16 and fp8)")
            dtype = tlc.dtype_from_string(elem)
        self.array = array
        self.dtype = dtype

    def data_ptr(self) -> int:
        return self.array.__array_interface__["data"][0]


def typed(array: np.ndarray, dtype) -> _HostArray:
    """``array`` (of an integer type of the same width) passed to an
    interpreted kernel as elements of ``dtype``: NumPy has no bf16 or fp8,
    so ``typed(bits_uint16, tl.bfloat16)`` passes bf16 bit patterns."""
    dtype = tlc._unwrap(dtype)
    if isinstance(dtype, str):
        dtype = tlc.dtype_from_string(dtype)
    if array.dtype.itemsize * 8 != dtype.primitive_bitwidth:
        raise ValueError(f"typed(): {array.dtype} elements are not {dtype.primitive_bitwidth} bits wide")
    return _HostArray(array, "", dtype)


def _is_torch(value) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "untyped_storage")


def _byte_range(value):
    """The real byte range holding an array argument's memory."""
    if isinstance(value, _HostArray):
        bounds = np.byte_bounds if hasattr(np, "byte_bounds") else np.lib.array_utils.byte_bounds
        return bounds(value.array)
    storage_ = value.untyped_storage()
    lo = storage_.data_ptr()
    return lo, lo + storage_.nbytes()


class _Arguments:
    """The caller's arguments as the interpreter runs on them: NumPy arrays
    wrapped, CUDA tensors replaced by host copies (written back by
    ``finish``)."""

    def __init__(self, jf, args, kwargs):
        self.copies = []
        self.scalar_types: Dict[str, str] = {}
        names = list(inspect.signature(jf.fn).parameters)
        self.args = [self._host(v, names[i] if i < len(names) else str(i)) for i, v in enumerate(args)]
        self.kwargs = {k: self._host(v, k) for k, v in kwargs.items()}

    def _host(self, value, name):
        if isinstance(value, np.generic) and value.dtype.name in _NUMPY_DTYPES:
            # A NumPy scalar keeps its type: np.uint32(5) is a u32 argument.
            self.scalar_types[name] = _NUMPY_DTYPES[value.dtype.name]
            return value.item()
        if isinstance(value, np.ndarray):
            return _HostArray(value, name)
        if isinstance(value, _HostArray):
            return value
        if _is_torch(value) and getattr(value, "is_cuda", False):
            import torch

            device_storage = value.untyped_storage()
            host_storage = device_storage.cpu()
            host = torch.empty(0, dtype=value.dtype).set_(host_storage, value.storage_offset(), value.size(),
                                                         value.stride())
            self.copies.append((device_storage, host_storage))
            return host
        if hasattr(value, "block_shape") and hasattr(value, "base"):
            base = self._host(value.base, name)
            return _HostDescriptor(base, value)
        return value

    def arrays(self):
        for v in list(self.args) + list(self.kwargs.values()):
            if isinstance(v, _HostDescriptor):
                yield v.base
            elif isinstance(v, _HostArray) or _is_torch(v):
                yield v

    def finish(self):
        for device_storage, host_storage in self.copies:
            device_storage.copy_(host_storage)


class _HostDescriptor:
    """A host TensorDescriptor whose base is a host array."""

    def __init__(self, base, desc):
        self.base = base
        self.shape = list(desc.shape)
        self.strides = list(desc.strides)
        self.block_shape = list(desc.block_shape)
        self.padding = getattr(desc, "padding", "zero")


def _argument(value, type_text, memory):
    """One run-time argument as the kernel sees it."""
    dt = tlc.dtype_from_string(type_text)
    if isinstance(dt, tlc.tensor_descriptor_type):
        pointer = TValue(tlc.pointer_type(dt.element_ty), np.int64(memory.address(value.base.data_ptr())))
        return Descriptor(pointer, [int(d) for d in value.shape], [int(s) for s in value.strides],
                          value.block_shape)
    if dt.is_ptr():
        return TValue(dt, np.int64(memory.address(value.data_ptr())))
    value = tlc._unwrap(value)
    if dt.is_floating():
        return TValue(dt, storage(dt)(value))
    if dt.is_bool():
        return TValue(dt, np.bool_(value))
    bits = dt.int_bitwidth
    v = int(value) & ((1 << bits) - 1)
    if dt.is_int_signed() and v >= 1 << (bits - 1):
        v -= 1 << bits
    return TValue(dt, storage(dt)(v))


# ===----------------------------------------------------------------------===#
# Launch
# ===----------------------------------------------------------------------===#


def _location(tb, codes):
    """(file, line, column) of the innermost frame of an interpreted
    function in a traceback: the expression that was running."""
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code in codes:
            column = 1
            positions = list(code.co_positions()) if hasattr(code, "co_positions") else []
            if 0 <= tb.tb_lasti // 2 < len(positions) and positions[tb.tb_lasti // 2][2] is not None:
                column = positions[tb.tb_lasti // 2][2] + 1
            found = (code.co_filename, tb.tb_lineno, column)
        tb = tb.tb_next
    return found


def _type_log(jf, signature, constexprs, specialization, debug):
    """The types the compiler gives run-time branches' results in this
    specialization (codegen.TYPE_LOG; control.py), from one more run of the
    frontend, once per specialization."""
    from tilelang.frontend import codegen

    key = (tuple(sorted(signature.items())), tuple(sorted((k, repr(v)) for k, v in constexprs.items())),
           tuple(sorted(specialization.items())), debug)
    logs = jf.__dict__.setdefault("_interpreter_type_logs", {})
    if key not in logs:
        types_ = {name: tlc.dtype_from_string(text) for name, text in signature.items()}
        codegen.TYPE_LOG = {}
        try:
            codegen.generate(jf, types_, dict(constexprs), dict(specialization), debug)
            logs[key] = codegen.TYPE_LOG
        finally:
            codegen.TYPE_LOG = None
    return logs[key]


class Launcher:
    """``kernel[grid]`` when the kernel is interpreted."""

    def __init__(self, jf, grid):
        self.jf = jf
        self.grid = grid

    def __call__(self, *args, **kwargs):
        return launch(self.jf, self.grid, args, kwargs)


def launch(jf, grid, args, kwargs):
    from tilelang import knobs
    from tilelang.options import take_launch_options

    kwargs = dict(kwargs)
    options = take_launch_options(kwargs, jf.params)
    host = _Arguments(jf, args, kwargs)
    signature, constexprs, specialization = jf._specialize(host.args, host.kwargs)[:3]
    for name, type_text in host.scalar_types.items():
        if name in signature or constexprs.get(name) == 1:
            constexprs.pop(name, None)
            signature[name] = type_text
    # The frontend's checks, once per specialization (tile IR, no PTX).
    compiled = jf.compile(signature, constexprs, specialization, options.num_warps, options.num_stages,
                          maxnreg=options.maxnreg)
    debug = jf.debug if jf.debug is not None else knobs.debug()
    type_log = _type_log(jf, signature, constexprs, specialization, debug)
    if callable(grid):
        meta = dict(zip(jf.params, args))
        meta.update(kwargs)
        meta.update(compiled.constexprs)
        grid = grid(meta)
    grid = tuple(int(tlc._unwrap(g)) for g in (grid if isinstance(grid, (tuple, list)) else (grid,)))
    if not 1 <= len(grid) <= 3 or any(g < 0 for g in grid):
        from tilelang.errors import callers_error

        raise callers_error(ValueError, f"the grid must be 1 to 3 non-negative sizes, got {grid}")
    grid = grid + (1,) * (3 - len(grid))
    memory = Memory([_byte_range(a) for a in host.arrays()])
    bound = inspect.signature(jf.fn).bind(*host.args, **host.kwargs)
    bound.apply_defaults()
    call_args = {}
    for name, value in bound.arguments.items():
        if name in signature:
            call_args[name] = _argument(value, signature[name], memory)
        else:
            call_args[name] = tlc._unwrap(constexprs.get(name, value))
    sem = InterpreterSemantic(memory, grid, debug)
    sem.type_log = type_log
    _LAUNCH[0] = object()
    fn = _function(jf)
    _ACTIVE.append(sem)
    saved = np.seterr(all="ignore")
    try:
        for z in builtins.range(grid[2]):
            for y in builtins.range(grid[1]):
                for x in builtins.range(grid[0]):
                    sem.pid = (x, y, z)
                    fn(**call_args)
    except FrontendError as exc:
        codes = set().union(*(control.codes(f) for f, _, _ in _FUNCTIONS.values()))
        where = _location(exc.__traceback__, codes)
        file, line, column = where if where else (jf.fn.__code__.co_filename, jf.fn.__code__.co_firstlineno, 1)
        raise InterpreterError([Diagnostic("error", str(exc), file, line, column)]) from None
    finally:
        np.seterr(**saved)
        _ACTIVE.pop()
    host.finish()
    return compiled


__all__ = ["launch", "Launcher", "InterpreterError", "active", "call", "loop", "static_loop", "describe"]
